#include "runner/values.h"

#include <ATen/ATen.h>
#include <ATen/core/function_schema.h>

#include "argtypes/text.h"

namespace opsfuzz::runner {

c10::IValue map_tensors(const c10::IValue& v, const std::function<at::Tensor(const at::Tensor&)>& fn) {
  if (v.isTensor()) {
    const at::Tensor& t = v.toTensor();
    return t.defined() ? c10::IValue(fn(t)) : v;
  }
  if (v.isTensorList()) {
    c10::List<at::Tensor> out;
    for (const at::Tensor& t : v.toTensorList()) out.push_back(t.defined() ? fn(t) : t);
    return out;
  }
  if (v.isList()) {
    auto list = v.toList();
    c10::impl::GenericList out(list.elementType());
    out.reserve(list.size());
    for (const c10::IValue& e : list) out.push_back(map_tensors(e, fn));
    return out;
  }
  if (v.isTuple()) {
    std::vector<c10::IValue> items;
    for (const c10::IValue& e : v.toTupleRef().elements()) items.push_back(map_tensors(e, fn));
    return c10::ivalue::Tuple::create(std::move(items));
  }
  return v;
}

namespace {

void walk(const c10::IValue& v, const std::string& path, std::vector<Leaf>& out) {
  auto child = [&](size_t i) { return path.empty() ? std::to_string(i) : path + "." + std::to_string(i); };
  if (v.isTensor()) {
    const at::Tensor& t = v.toTensor();
    out.push_back(Leaf{path, t, false, !t.defined()});
  } else if (v.isNone()) {
    out.push_back(Leaf{path, {}, false, true});
  } else if (v.isDouble() || v.isInt() || v.isBool() || v.isComplexDouble()) {
    out.push_back(Leaf{path, c10::scalar_to_tensor(v.toScalar()), true, false});
  } else if (v.isTuple()) {
    const auto& items = v.toTupleRef().elements();
    for (size_t i = 0; i < items.size(); ++i) walk(items[i], child(i), out);
  } else if (v.isList()) {
    auto list = v.toList();
    for (size_t i = 0; i < list.size(); ++i) walk(list.get(i), child(i), out);
  } else {
    throw std::invalid_argument("cannot compare an output of type " + v.tagKind() +
                                (path.empty() ? "" : " at " + path));
  }
}

}  // namespace

std::vector<Leaf> flatten(const c10::IValue& v) {
  std::vector<Leaf> out;
  walk(v, "", out);
  return out;
}

std::string index_text(int64_t flat, c10::IntArrayRef sizes) {
  if (sizes.empty()) return "";
  std::vector<int64_t> index(sizes.size());
  for (size_t d = sizes.size(); d-- > 0;) {
    index[d] = flat % sizes[d];
    flat /= sizes[d];
  }
  return " at " + sizes_text(index);
}

c10::TypePtr element_type(const c10::Argument& param) {
  c10::TypePtr type = param.real_type();
  if (auto optional = type->cast<c10::OptionalType>()) type = optional->getElementType();
  return type;
}

std::optional<at::ScalarType> dtype_argument(const c10::Argument& param, const c10::IValue& v) {
  if (element_type(param)->kind() != c10::TypeKind::ScalarTypeType || !v.isInt()) return std::nullopt;
  return static_cast<at::ScalarType>(v.toInt());
}

}  // namespace opsfuzz::runner
