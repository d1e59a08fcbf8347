#include "suite/invoke.h"

#include <ATen/core/dispatch/Dispatcher.h>
#include <torch/csrc/jit/runtime/operator.h>

#include <algorithm>
#include <map>
#include <optional>

#include "suite/diagnostics.h"
#include "suite/nodes.h"

namespace opsfuzz::suite {

namespace {

std::string describe(const c10::IValue& v) {
  if (v.isNone()) return "None";
  if (v.isTensor()) return "Tensor";
  return v.type()->str();
}

// "aten::add.Tensor" -> {"aten::add", "Tensor"}; "add" -> {"aten::add", ""}.
std::pair<std::string, std::string> split_name(const std::string& full) {
  std::string name = full.find("::") == std::string::npos ? "aten::" + full : full;
  size_t ns = name.find("::");
  size_t dot = name.find('.', ns + 2);
  if (dot == std::string::npos) return {name, ""};
  return {name.substr(0, dot), name.substr(dot + 1)};
}

std::optional<c10::IValue> coerce(const c10::IValue& v, const c10::TypePtr& type,
                                  std::optional<int32_t> fixed_size);

// Memory formats and layouts by their Python names ("channels_last", "torch.strided").
std::optional<c10::IValue> enum_by_name(const std::string& raw) {
  static const std::map<std::string, int64_t> names = {
      {"contiguous_format", static_cast<int64_t>(c10::MemoryFormat::Contiguous)},
      {"preserve_format", static_cast<int64_t>(c10::MemoryFormat::Preserve)},
      {"channels_last", static_cast<int64_t>(c10::MemoryFormat::ChannelsLast)},
      {"channels_last_3d", static_cast<int64_t>(c10::MemoryFormat::ChannelsLast3d)},
      {"strided", static_cast<int64_t>(c10::Layout::Strided)},
      {"sparse_coo", static_cast<int64_t>(c10::Layout::Sparse)}};
  auto it = names.find(raw.starts_with("torch.") ? raw.substr(6) : raw);
  if (it == names.end()) return std::nullopt;
  return c10::IValue(it->second);
}

// A list value converted element by element to a typed list of `elem`.
std::optional<c10::IValue> coerce_list(const c10::IValue& v, const c10::TypePtr& elem,
                                       std::optional<int32_t> fixed_size) {
  std::vector<c10::IValue> items;
  if (v.isList())
    items = v.toListRef().vec();
  else if (v.isTuple())
    items = v.toTupleRef().elements().vec();
  else if (v.isIntList() || v.isInt())
    items = {v};
  else
    return std::nullopt;
  if (v.isInt()) {  // int[2] stride=1 means [1, 1]
    if (!fixed_size ||
        (elem->kind() != c10::TypeKind::IntType && elem->kind() != c10::TypeKind::SymIntType))
      return std::nullopt;
    items.assign(*fixed_size, v);
  }
  c10::impl::GenericList out(elem);
  for (const auto& item : items) {
    auto converted = coerce(item, elem, std::nullopt);
    if (!converted) return std::nullopt;
    out.push_back(*converted);
  }
  return c10::IValue(out);
}

// Converts v to `type` as Python's binding would, or nullopt when it does not fit.
std::optional<c10::IValue> coerce(const c10::IValue& v, const c10::TypePtr& type,
                                  std::optional<int32_t> fixed_size) {
  using K = c10::TypeKind;
  switch (type->kind()) {
    case K::OptionalType:
      if (v.isNone()) return v;
      return coerce(v, type->expectRef<c10::OptionalType>().getElementType(), fixed_size);
    case K::TensorType:
      if (v.isTensor()) return v;
      return std::nullopt;
    case K::NumberType:
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
        if (auto t = parse_dtype_name(v.toStringRef()))
          return c10::IValue(static_cast<int64_t>(*t));
      return std::nullopt;
    case K::LayoutType:
    case K::MemoryFormatType:
      if (v.isInt()) return v;
      if (v.isString()) return enum_by_name(v.toStringRef());
      return std::nullopt;
    case K::DeviceObjType:
      if (v.isDevice()) return v;
      if (v.isString()) return c10::IValue(c10::Device(v.toStringRef()));
      return std::nullopt;
    case K::ListType:
      return coerce_list(v, type->expectRef<c10::ListType>().getElementType(), fixed_size);
    default:
      if (v.type()->isSubtypeOf(*type)) return v;
      return std::nullopt;
  }
}

// Builds the full stack for `schema`, or returns why the arguments do not fit.
std::optional<std::string> bind(const c10::FunctionSchema& schema,
                                const std::vector<c10::IValue>& args, const Kwargs& kwargs,
                                torch::jit::Stack& stack) {
  const auto& params = schema.arguments();
  size_t positional = 0;
  for (const auto& p : params) positional += !p.kwarg_only();
  if (args.size() > positional)
    return "takes " + std::to_string(positional) + " positional arguments but " +
           std::to_string(args.size()) + " were given";
  std::vector<bool> used(kwargs.size(), false);
  stack.clear();
  for (size_t k = 0; k < params.size(); ++k) {
    const auto& p = params[k];
    std::optional<c10::IValue> value;
    if (k < args.size()) value = args[k];
    for (size_t j = 0; j < kwargs.size(); ++j) {
      if (kwargs[j].first != p.name()) continue;
      if (value) return "got multiple values for argument '" + p.name() + "'";
      value = kwargs[j].second;
      used[j] = true;
    }
    if (!value && p.default_value()) value = *p.default_value();
    if (!value) return "missing argument '" + p.name() + "'";
    std::optional<int32_t> fixed;  // int[2]: a single int is repeated
    if (p.N()) fixed = *p.N();
    auto converted = coerce(*value, p.real_type(), fixed);
    if (!converted)
      return "argument '" + p.name() + "' expects " + p.real_type()->str() + ", got " +
             describe(*value);
    stack.push_back(std::move(*converted));
  }
  for (size_t j = 0; j < kwargs.size(); ++j)
    if (!used[j]) return "unexpected keyword argument '" + kwargs[j].first + "'";
  return std::nullopt;
}

struct Candidate {
  std::shared_ptr<torch::jit::Operator> op;
  torch::jit::Stack stack;
};

// The first overload of `name` whose schema accepts the arguments.
Candidate select(const std::string& full, const std::vector<c10::IValue>& args,
                 const Kwargs& kwargs) {
  auto [name, overload] = split_name(full);
  // Dispatcher operators first, then those of TorchScript only, each in registration order: a
  // stable order whatever the build registered first.
  auto ops = torch::jit::getAllOperatorsFor(c10::Symbol::fromQualString(name));
  std::stable_partition(ops.begin(), ops.end(), [](const auto& op) { return op->isC10Op(); });
  if (ops.empty())
    throw std::invalid_argument("unknown operator '" + name + "'" + suggest_operator(name));
  std::string reasons;
  bool found_overload = false;
  for (const auto& op : ops) {
    const auto& schema = op->schema();
    if (!overload.empty() && schema.overload_name() != overload) continue;
    found_overload = true;
    Candidate c{op, {}};
    auto why = bind(schema, args, kwargs, c.stack);
    if (!why) return c;
    reasons += std::string(reasons.empty() ? "" : "; ") + schema.name() +
               (schema.overload_name().empty() ? "" : "." + schema.overload_name()) + ": " + *why;
  }
  if (!found_overload)
    throw std::invalid_argument("operator '" + name + "' has no overload '" + overload + "'");
  std::string given;
  for (const auto& a : args) given += (given.empty() ? "" : ", ") + describe(a);
  for (const auto& [k, v] : kwargs) given += (given.empty() ? "" : ", ") + k + "=" + describe(v);
  throw std::invalid_argument("no overload of " + full + " accepts (" + given + "): " + reasons);
}

}  // namespace

bool has_operator(const std::string& full) {
  auto [name, overload] = split_name(full);
  for (const auto& op : torch::jit::getAllOperatorsFor(c10::Symbol::fromQualString(name)))
    if (overload.empty() || op->schema().overload_name() == overload) return true;
  return false;
}

std::string suggest_operator(const std::string& full) {
  std::vector<std::string> names;
  for (const auto& op : torch::jit::getAllOperators()) names.push_back(op->schema().name());
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  return did_you_mean(split_name(full).first, names);
}

std::string resolve_op(const std::string& name, const std::vector<c10::IValue>& args,
                       const Kwargs& kwargs) {
  const auto& schema = select(name, args, kwargs).op->schema();
  return schema.name() + (schema.overload_name().empty() ? "" : "." + schema.overload_name());
}

c10::IValue call_op(const std::string& name, const std::vector<c10::IValue>& args,
                    const Kwargs& kwargs) {
  Candidate c = select(name, args, kwargs);
  const auto& schema = c.op->schema();
  auto handle = c10::Dispatcher::singleton().findSchema({schema.name(), schema.overload_name()});
  if (handle)
    handle->callBoxed(c.stack);
  else
    c.op->getOperation()(c.stack);  // operators that exist only for TorchScript (add.int)
  if (c.stack.size() == 1) return std::move(c.stack[0]);
  return c10::ivalue::Tuple::create(std::move(c.stack));
}

}  // namespace opsfuzz::suite
