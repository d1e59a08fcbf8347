// Values between c10::IValue and Python: the generated arguments as the op takes them in Python,
// and arguments written in Python as opcall binds them.
#pragma once

#include <ATen/core/ivalue.h>
#include <pybind11/pybind11.h>

#include "argtypes/argtypes.h"

namespace opsfuzz::python {

namespace py = pybind11;

// A generated value of an argument of ArgType `type`: tensors as torch.Tensor (the same tensor,
// no copy), a ScalarType, MemoryFormat or Layout as torch.dtype, torch.memory_format or
// torch.layout (an IValue holds them as ints), lists as Python lists, a device as torch.device.
py::object to_python(const c10::IValue& value, ArgType type);

// A Python argument as an IValue that opcall's binding converts to the schema's types: tensors,
// None, bool, int, float, complex, str, torch.dtype / memory_format / layout (as their ints),
// torch.device, and lists or tuples of those. Throws py::type_error naming the value's type.
c10::IValue from_python(py::handle value);

}  // namespace opsfuzz::python
