// Python's binding rules, and conversion of values to schema types.
#include <c10/core/Device.h>

#include <algorithm>

#include "argtypes/names.h"
#include "opcall/impl.h"

namespace opsfuzz::opcall {

namespace {

// Python's rules without types: one value per parameter into `out`, or false and why.
bool bind_names(std::string_view what, std::span<const Parameter> params, const Stack& args, const Kwargs& kwargs,
                Stack* rest, Stack& out, Failure& why) {
  auto fail = [&](std::string_view argument, std::string message) {
    why = {std::string(argument), std::string(what) + " " + std::move(message)};
    return false;
  };
  out.assign(params.size(), c10::IValue());
  // Which parameters have a value.
  std::vector<uint8_t> given(params.size(), 0);
  size_t next = 0;  // the next parameter a positional may fill
  for (size_t a = 0; a < args.size(); ++a) {
    while (next < params.size() && params[next].keyword_only) ++next;
    if (next < params.size()) {
      out[next] = args[a];
      given[next++] = 1;
      continue;
    }
    if (rest) {
      rest->assign(args.begin() + static_cast<std::ptrdiff_t>(a), args.end());
      break;
    }
    size_t positional = 0;
    std::string keyword_only;
    for (const auto& p : params) {
      if (!p.keyword_only) ++positional;
      else keyword_only += (keyword_only.empty() ? "" : ", ") + std::string(p.name);
    }
    std::string first = keyword_only.substr(0, keyword_only.find(','));
    return fail(first, "takes " + std::to_string(positional) + " positional argument" + (positional == 1 ? "" : "s") +
                           " but " + std::to_string(args.size()) + (args.size() == 1 ? " was" : " were") + " given" +
                           (keyword_only.empty() ? "" : " (keyword-only: " + keyword_only + ")"));
  }
  for (const auto& [key, value] : kwargs) {
    size_t k = 0;
    while (k < params.size() && params[k].name != key) ++k;
    if (k == params.size()) {
      std::vector<std::string> names;
      for (const auto& p : params) names.emplace_back(p.name);
      return fail(key, "got an unexpected keyword argument '" + key + "'" + did_you_mean(key, names));
    }
    if (given[k]) return fail(key, "got multiple values for argument '" + key + "'");
    out[k] = value;
    given[k] = 1;
  }
  for (size_t k = 0; k < params.size(); ++k) {
    if (given[k]) continue;
    if (!params[k].default_value)
      return fail(params[k].name, "missing required argument '" + std::string(params[k].name) + "'");
    out[k] = *params[k].default_value;
  }
  return true;
}

using K = c10::TypeKind;

bool is_int_kind(K k) { return k == K::IntType || k == K::SymIntType; }

// The elements of a list or tuple value; false for anything else.
bool elements_of(const c10::IValue& v, std::vector<c10::IValue>& items) {
  if (v.isList()) {
    auto list = v.toListRef();
    items.assign(list.begin(), list.end());
  } else if (v.isTuple()) {
    const auto& e = v.toTupleRef().elements();
    items.assign(e.begin(), e.end());
  } else {
    return false;
  }
  return true;
}

template <class T, class Convert>
std::optional<c10::IValue> typed_list(const std::vector<c10::IValue>& items, Convert convert) {
  c10::List<T> out;
  out.reserve(items.size());
  for (const auto& item : items) {
    std::optional<T> x = convert(item);
    if (!x) return std::nullopt;
    out.push_back(std::move(*x));
  }
  return c10::IValue(std::move(out));
}

std::optional<c10::IValue> coerce_list(const c10::IValue& v, const c10::TypePtr& elem,
                                       std::optional<int32_t> fixed_size) {
  const K kind = elem->kind();
  const bool optional_tensor =
      kind == K::OptionalType && elem->expectRef<c10::OptionalType>().getElementType()->kind() == K::TensorType;
  // Already the typed list the kernel unboxes: no copy.
  if ((is_int_kind(kind) && v.isIntList()) || (kind == K::FloatType && v.isDoubleList()) ||
      (kind == K::BoolType && v.isBoolList()) || (kind == K::TensorType && v.isTensorList()) ||
      (optional_tensor && v.isOptionalTensorList()))
    return v;
  std::vector<c10::IValue> items;
  if (v.isInt()) {  // int[2] stride=1 means [1, 1]
    if (!fixed_size || !is_int_kind(kind)) return std::nullopt;
    items.assign(static_cast<size_t>(*fixed_size), v);
  } else if (!elements_of(v, items)) {
    return std::nullopt;
  }
  if (is_int_kind(kind))
    return typed_list<int64_t>(items, [](const c10::IValue& x) -> std::optional<int64_t> {
      if (x.isInt()) return x.toInt();
      return std::nullopt;
    });
  if (kind == K::FloatType)
    return typed_list<double>(items, [](const c10::IValue& x) -> std::optional<double> {
      if (x.isDouble()) return x.toDouble();
      if (x.isInt()) return static_cast<double>(x.toInt());
      return std::nullopt;
    });
  if (kind == K::BoolType)
    return typed_list<bool>(items, [](const c10::IValue& x) -> std::optional<bool> {
      if (x.isBool()) return x.toBool();
      return std::nullopt;
    });
  if (kind == K::TensorType)
    return typed_list<at::Tensor>(items, [](const c10::IValue& x) -> std::optional<at::Tensor> {
      if (x.isTensor()) return x.toTensor();
      return std::nullopt;
    });
  if (optional_tensor)
    return typed_list<c10::optional<at::Tensor>>(items,
                                                 [](const c10::IValue& x) -> std::optional<c10::optional<at::Tensor>> {
                                                   if (x.isNone()) return c10::optional<at::Tensor>();
                                                   if (x.isTensor()) return c10::optional<at::Tensor>(x.toTensor());
                                                   return std::nullopt;
                                                 });
  c10::impl::GenericList out(elem);
  out.reserve(items.size());
  for (const auto& item : items) {
    auto converted = coerce(item, elem, std::nullopt);
    if (!converted) return std::nullopt;
    out.push_back(std::move(*converted));
  }
  return c10::IValue(std::move(out));
}

}  // namespace

std::string describe(const c10::IValue& v) {
  if (v.isNone()) return "None";
  if (v.isTensor()) return "Tensor";
  return v.type()->str();
}

std::optional<c10::IValue> coerce(const c10::IValue& v, const c10::TypePtr& type, std::optional<int32_t> fixed_size) {
  switch (type->kind()) {
    case K::OptionalType:
      if (v.isNone()) return v;
      return coerce(v, type->expectRef<c10::OptionalType>().getElementType(), fixed_size);
    case K::TensorType:
      if (v.isTensor()) return v;
      return std::nullopt;
    case K::NumberType:  // Scalar
      if (v.isInt() || v.isDouble() || v.isBool() || v.isComplexDouble()) return v;
      return std::nullopt;
    case K::IntType:
    case K::SymIntType:
      if (v.isInt()) return v;
      return std::nullopt;
    case K::FloatType:
      if (v.isDouble()) return v;
      if (v.isInt()) return c10::IValue(static_cast<double>(v.toInt()));
      return std::nullopt;
    case K::BoolType:
      if (v.isBool()) return v;
      return std::nullopt;
    case K::StringType:
      if (v.isString()) return v;
      return std::nullopt;
    case K::ScalarTypeType:
      if (v.isInt()) return v;
      if (v.isString())
        if (auto t = parse_dtype(v.toStringRef())) return c10::IValue(static_cast<int64_t>(*t));
      return std::nullopt;
    case K::MemoryFormatType:
      if (v.isInt()) return v;
      if (v.isString())
        if (auto f = parse_memory_format(v.toStringRef())) return c10::IValue(static_cast<int64_t>(*f));
      return std::nullopt;
    case K::LayoutType:
      if (v.isInt()) return v;
      if (v.isString())
        if (auto l = parse_layout(v.toStringRef())) return c10::IValue(static_cast<int64_t>(*l));
      return std::nullopt;
    case K::DeviceObjType:
      if (v.isDevice()) return v;
      if (v.isString()) {
        try {
          return c10::IValue(c10::Device(v.toStringRef()));
        } catch (const c10::Error&) { return std::nullopt; }
      }
      return std::nullopt;
    case K::ListType: return coerce_list(v, type->expectRef<c10::ListType>().getElementType(), fixed_size);
    default:
      if (v.type()->isSubtypeOf(*type)) return v;
      return std::nullopt;
  }
}

Stack bind_arguments(std::string_view what, std::span<const Parameter> params, const Stack& args, const Kwargs& kwargs,
                     Stack* rest) {
  Stack out;
  Failure why;
  if (!bind_names(what, params, args, kwargs, rest, out, why))
    throw BindError(std::string(what), why.argument, why.message);
  return out;
}

const Op::Impl& impl_of(const Op& op) { return *op.impl_; }

bool bind_schema(const Op& op, const Stack& args, const Kwargs& kwargs, Stack& out, Failure& why) {
  const Op::Impl& impl = impl_of(op);
  if (!bind_names(impl.name, impl.params, args, kwargs, nullptr, out, why)) return false;
  const auto& arguments = op.schema().arguments();
  for (size_t k = 0; k < out.size(); ++k) {
    const c10::Argument& a = arguments[k];
    std::optional<int32_t> fixed;  // int[2]: a single int is repeated
    if (a.N()) fixed = *a.N();
    auto converted = coerce(out[k], a.real_type(), fixed);
    if (!converted) {
      why = {a.name(),
             impl.name + ": argument '" + a.name() + "' expects " + a.real_type()->str() + ", got " + describe(out[k])};
      return false;
    }
    out[k] = std::move(*converted);
  }
  return true;
}

Stack Op::bind(const Stack& args, const Kwargs& kwargs) const {
  Stack out;
  Failure why;
  if (!bind_schema(*this, args, kwargs, out, why)) throw BindError(impl_->name, why.argument, why.message);
  return out;
}

std::optional<std::string> Op::try_bind(const Stack& args, const Kwargs& kwargs, Stack& out) const {
  Failure why;
  if (bind_schema(*this, args, kwargs, out, why)) return std::nullopt;
  return why.message;
}

}  // namespace opsfuzz::opcall
