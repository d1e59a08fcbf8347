#include "python/convert.h"

#include <torch/csrc/Device.h>
#include <torch/csrc/Dtype.h>
#include <torch/csrc/DynamicTypes.h>
#include <torch/csrc/Layout.h>
#include <torch/csrc/MemoryFormat.h>
#include <torch/csrc/autograd/python_variable.h>
#include <torch/csrc/utils/tensor_memoryformats.h>

#include <complex>

namespace opsfuzz::python {

namespace {

// A new reference from the torch API as a py::object (which owns it); its error as one of Python's.
py::object owned(PyObject* new_reference) {
  if (!new_reference) throw py::error_already_set();
  return py::reinterpret_steal<py::object>(new_reference);
}

// A borrowed reference to one of torch's singletons (torch.float32, torch.strided) as a py::object.
py::object borrowed(void* singleton) { return py::reinterpret_borrow<py::object>(static_cast<PyObject*>(singleton)); }

py::object tensor(const at::Tensor& t) { return owned(THPVariable_Wrap(t)); }

// An int that stands for an enum of `type`, as torch's object for it.
py::object enum_value(int64_t v, ArgType type) {
  if (is_scalar_type(type)) return borrowed(torch::getTHPDtype(static_cast<c10::ScalarType>(v)));
  if (is_layout(type)) return borrowed(torch::getTHPLayout(static_cast<c10::Layout>(v)));
  return owned(torch::utils::getTHPMemoryFormat(static_cast<c10::MemoryFormat>(v)));
}

template <class List, class Convert> py::list list_of(const List& items, Convert convert) {
  py::list out(items.size());
  size_t i = 0;
  for (const auto& item : items) out[i++] = convert(item);
  return out;
}

}  // namespace

py::object to_python(const c10::IValue& v, ArgType type) {
  if (v.isNone()) return py::none();
  if (v.isTensor()) return tensor(v.toTensor());
  if (v.isInt() && (is_scalar_type(type) || is_layout(type) || is_memory_format(type)))
    return enum_value(v.toInt(), type);
  if (v.isBool()) return py::bool_(v.toBool());
  if (v.isInt()) return py::int_(v.toInt());
  if (v.isDouble()) return py::float_(v.toDouble());
  if (v.isComplexDouble()) {
    c10::complex<double> c = v.toComplexDouble();
    return owned(PyComplex_FromDoubles(c.real(), c.imag()));
  }
  if (v.isString()) return py::str(v.toStringRef());
  if (v.isDevice()) return owned(THPDevice_New(v.toDevice()));
  if (v.isTensorList()) return list_of(v.toTensorList(), [](const at::Tensor& t) { return tensor(t); });
  if (v.isIntList()) return list_of(v.toIntList(), [](int64_t i) { return py::int_(i); });
  if (v.isDoubleList()) return list_of(v.toDoubleList(), [](double d) { return py::float_(d); });
  if (v.isBoolList()) return list_of(v.toBoolList(), [](bool b) { return py::bool_(b); });
  if (v.isList()) return list_of(v.toListRef(), [&](const c10::IValue& e) { return to_python(e, type); });
  throw std::invalid_argument("opsfuzz: no Python value for an IValue of type " + v.type()->str());
}

c10::IValue from_python(py::handle value) {
  PyObject* o = value.ptr();
  if (o == Py_None) return {};
  if (THPVariable_Check(o)) return THPVariable_Unpack(o);
  if (PyBool_Check(o)) return o == Py_True;
  if (PyLong_Check(o)) return value.cast<int64_t>();
  if (PyFloat_Check(o)) return PyFloat_AS_DOUBLE(o);
  if (PyComplex_Check(o)) return c10::complex<double>(PyComplex_RealAsDouble(o), PyComplex_ImagAsDouble(o));
  if (PyUnicode_Check(o)) return value.cast<std::string>();
  if (THPDtype_Check(o)) return static_cast<int64_t>(reinterpret_cast<THPDtype*>(o)->scalar_type);
  if (THPLayout_Check(o)) return static_cast<int64_t>(reinterpret_cast<THPLayout*>(o)->layout);
  if (THPMemoryFormat_Check(o)) return static_cast<int64_t>(reinterpret_cast<THPMemoryFormat*>(o)->memory_format);
  if (THPDevice_Check(o)) return reinterpret_cast<THPDevice*>(o)->device;
  if (PyList_Check(o) || PyTuple_Check(o)) {
    c10::impl::GenericList items(c10::AnyType::get());
    for (py::handle item : value) items.push_back(from_python(item));
    return items;
  }
  if (PyIndex_Check(o)) return value.cast<int64_t>();  // numpy's integers, say
  throw py::type_error("opsfuzz: an argument of type '" + std::string(Py_TYPE(o)->tp_name) +
                       "' is none of the types an op takes (Tensor, a number, a dtype, a list of them, ...)");
}

}  // namespace opsfuzz::python
