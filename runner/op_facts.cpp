#include "runner/op_facts.h"

#include <ATen/ATen.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <set>

#include "argtypes/argtypes.h"
#include "runner/values.h"
#include "specs/db/db.h"

namespace opsfuzz::runner {

// ---------------------------------------------------------------------------------- value-comparable

namespace {

// The op's name without namespace and in-place underscore: "aten::bernoulli_" -> "bernoulli".
std::string base_name(const opcall::Op& op) {
  std::string name = op.schema().name();
  if (auto colons = name.rfind("::"); colons != std::string::npos) name.erase(0, colons + 2);
  if (name.size() > 1 && name.back() == '_' && name[name.size() - 2] != '_') name.pop_back();
  return name;
}

// The bound value of the argument called `name`, or null when the op has none.
const c10::IValue* argument(const Call& call, std::string_view name) {
  const auto& params = call.op->schema().arguments();
  for (size_t i = 0; i < params.size() && i < call.args.size(); ++i)
    if (params[i].name() == name) return &call.args[i];
  return nullptr;
}

const at::Tensor* tensor_argument(const Call& call, std::string_view name) {
  const c10::IValue* v = argument(call, name);
  return v && v->isTensor() && v->toTensor().defined() ? &v->toTensor() : nullptr;
}

bool takes_generator(const c10::FunctionSchema& schema) {
  return std::any_of(schema.arguments().begin(), schema.arguments().end(),
                     [](const c10::Argument& a) { return element_type(a)->kind() == c10::TypeKind::GeneratorType; });
}

// Whether a training-mode flag is on: true, or None (native_dropout's default is training).
bool flag_on(const c10::IValue* v) { return !v || v->isNone() || (v->isBool() && v->toBool()); }

std::optional<std::string> random_reason(const Call& call, const std::string& base) {
  static const std::set<std::string, std::less<>> dropouts = {"dropout", "feature_dropout", "alpha_dropout",
                                                              "feature_alpha_dropout", "native_dropout"};
  static const std::set<std::string, std::less<>> random_ops = {"rand",
                                                                "randn",
                                                                "randint",
                                                                "randperm",
                                                                "rand_like",
                                                                "randn_like",
                                                                "randint_like",
                                                                "bernoulli",
                                                                "multinomial",
                                                                "normal",
                                                                "normal_functional",
                                                                "uniform",
                                                                "exponential",
                                                                "geometric",
                                                                "cauchy",
                                                                "log_normal",
                                                                "random",
                                                                "poisson",
                                                                "binomial",
                                                                "_standard_gamma",
                                                                "_sample_dirichlet",
                                                                "_fused_dropout",
                                                                "_no_grad_normal",
                                                                "_no_grad_uniform"};
  const std::string draws = call.what() + " draws random numbers";
  if (dropouts.contains(base)) {
    const c10::IValue* p = argument(call, "p");
    const bool drops = !(p && p->isDouble() && p->toDouble() == 0);  // p = 0 keeps every element
    if (!flag_on(argument(call, "train")) || !drops) return std::nullopt;
    return draws + " (train=True)";
  }
  if (base == "rrelu" || base == "rrelu_with_noise") {  // random slopes only in training
    if (!flag_on(argument(call, "training"))) return std::nullopt;
    return draws + " (training=True)";
  }
  if (random_ops.contains(base) || takes_generator(call.op->schema())) return draws;
  return std::nullopt;
}

std::optional<std::string> uninitialized_reason(const Call& call, const std::string& base) {
  static const std::set<std::string, std::less<>> empties = {"empty",
                                                             "empty_like",
                                                             "empty_strided",
                                                             "new_empty",
                                                             "new_empty_strided",
                                                             "empty_quantized",
                                                             "_empty_affine_quantized",
                                                             "_empty_per_channel_affine_quantized"};
  if (empties.contains(base)) return call.what() + " returns uninitialized memory";
  // resize_ past the tensor's elements leaves the new ones uninitialized.
  const c10::IValue *self = argument(call, "self"), *size = argument(call, "size");
  if (base != "resize" || !self || !self->isTensor() || !size || !size->isIntList()) return std::nullopt;
  int64_t numel = 1;
  for (int64_t s : size->toIntVector()) numel *= s;
  if (numel <= self->toTensor().numel()) return std::nullopt;
  return call.what() + " grows the tensor: its new elements are uninitialized memory";
}

bool integral(const c10::IValue& v) {
  if (v.isTensor()) return v.toTensor().defined() && c10::isIntegralType(v.toTensor().scalar_type(), true);
  return v.isInt() || v.isBool();
}

bool has_zero(const c10::IValue& v) {
  if (v.isTensor()) return v.toTensor().eq(0).any().item<bool>();
  return v.isInt() ? v.toInt() == 0 : v.isBool() && !v.toBool();
}

// Integer division and remainder by zero: CPU kernels raise ZeroDivisionError, other backends
// (fused kernels, other devices) may trap or return anything; true division of integers gives
// inf/nan after promotion, excluded too as G5 asks (no oracle on division by zero).
std::optional<std::string> division_reason(const Call& call, const std::string& base) {
  static const std::set<std::string, std::less<>> divisions = {"div",          "divide",    "true_divide",
                                                               "floor_divide", "remainder", "fmod"};
  if (!divisions.contains(base)) return std::nullopt;
  const c10::IValue *self = argument(call, "self"), *other = argument(call, "other");
  if (!self || !other || !integral(*self) || !integral(*other) || !has_zero(*other)) return std::nullopt;
  return call.what() + " divides integers by zero ('other' has a zero)";
}

// The integral dtype a conversion op casts its source to, or nullopt.
std::optional<c10::ScalarType> cast_target(const Call& call, const std::string& base) {
  static const std::array<std::pair<std::string_view, c10::ScalarType>, 5> casts = {{{"_cast_Byte", at::kByte},
                                                                                     {"_cast_Char", at::kChar},
                                                                                     {"_cast_Short", at::kShort},
                                                                                     {"_cast_Int", at::kInt},
                                                                                     {"_cast_Long", at::kLong}}};
  for (const auto& [name, dtype] : casts)
    if (base == name) return dtype;
  if (base == "copy") {
    const at::Tensor* self = tensor_argument(call, "self");
    return self ? std::optional(self->scalar_type()) : std::nullopt;
  }
  if (base != "to" && base != "_to_copy" && base != "type_as") return std::nullopt;
  if (const c10::IValue* dtype = argument(call, "dtype"); dtype && dtype->isInt())
    return static_cast<c10::ScalarType>(dtype->toInt());
  const at::Tensor* other = tensor_argument(call, "other");
  return other ? std::optional(other->scalar_type()) : std::nullopt;
}

// Whether every value of a floating `source` converts to the integral `target` defined: finite,
// and truncated into the target's range (C++ leaves other conversions undefined).
bool converts_defined(const at::Tensor& source, c10::ScalarType target) {
  const int bits = static_cast<int>(c10::elementSize(target)) * 8;
  const bool is_unsigned = target == at::kByte;
  const double low = is_unsigned ? 0 : -std::ldexp(1.0, bits - 1);
  const double high = std::ldexp(1.0, is_unsigned ? bits : bits - 1);  // exclusive
  const at::Tensor v = (source.is_complex() ? at::real(source) : source).to(at::kDouble).trunc();
  return (v.isfinite() & v.ge(low) & v.lt(high)).all().item<bool>();
}

// unique without sorting returns its values in an order the contract leaves open.
std::optional<std::string> order_reason(const Call& call, const std::string& base) {
  static const std::set<std::string, std::less<>> uniques = {"_unique", "_unique2", "unique_dim"};
  const c10::IValue* sorted = argument(call, "sorted");
  if (!uniques.contains(base) || !sorted || !sorted->isBool() || sorted->toBool()) return std::nullopt;
  return call.what() + " with sorted=False returns its values in no specified order";
}

std::optional<std::string> cast_reason(const Call& call, const std::string& base) {
  const std::optional<c10::ScalarType> target = cast_target(call, base);
  if (!target || !c10::isIntegralType(*target, /*includeBool=*/false)) return std::nullopt;
  const at::Tensor* source = tensor_argument(call, base == "copy" ? "src" : "self");
  if (!source || c10::isIntegralType(source->scalar_type(), true) || converts_defined(*source, *target))
    return std::nullopt;
  return call.what() + " casts " + std::string(opsfuzz::name(source->scalar_type())) +
         " values that are not finite or out of " + std::string(opsfuzz::name(*target)) +
         "'s range (undefined behaviour)";
}

}  // namespace

c10::IValue contract_outputs(const Call& call, const c10::IValue& outputs) {
  if (!call.op || !outputs.isTuple()) return outputs;
  const std::string base = base_name(*call.op);
  std::vector<c10::IValue> items = outputs.toTupleRef().elements().vec();
  if (base == "_embedding_bag" || base == "_embedding_bag_forward_only") {
    for (size_t i = 1; i < items.size(); ++i) items[i] = c10::IValue();
  } else if (const c10::IValue* mask = argument(call, "output_mask"); mask && mask->isBoolList()) {
    auto asked = mask->toBoolList();
    for (size_t i = 0; i < items.size() && i < asked.size(); ++i)
      if (!asked.get(i)) items[i] = c10::IValue();
  } else {
    return outputs;
  }
  return c10::ivalue::Tuple::create(std::move(items));
}

std::optional<std::string> not_value_comparable(const Call& call) {
  if (!call.op) return std::nullopt;  // modules are built in eval mode: deterministic
  const std::string base = base_name(*call.op);
  for (auto reason : {random_reason, uninitialized_reason, division_reason, order_reason, cast_reason})
    if (auto why = reason(call, base)) return why;
  return std::nullopt;
}

// ---------------------------------------------------------------------------------- layouts

std::optional<std::string> rules_out_noncontig(const opcall::Op& op) {
  static const std::set<std::string> stride_dependent = {
      "aten::as_strided", "aten::as_strided_", "aten::as_strided_scatter", "aten::as_strided_copy",
      "aten::view",       "aten::view_as",     "aten::_reshape_alias",     "aten::_unsafe_view",
      "aten::stride",     "aten::sym_stride",  "aten::sym_storage_offset", "aten::set_",
      "aten::resize_"};
  // Internal ops whose kernels read their inputs as contiguous memory: their public callers make
  // them so (pdist, group_norm, embedding_bag pass .contiguous() inputs; autograd passes a
  // contiguous grad and the forward's own contiguous mean and rstd). Checked on libtorch 1.13: the
  // same values in a strided copy give other results (embedding_bag: strided indices read as
  // out-of-range ones; layer_norm backward: strided mean or rstd give wrong grads; group_norm
  // backward: any strided input), while the public op on the same strided inputs is right.
  static const std::set<std::string> contiguous_only = {"aten::_pdist_forward", "aten::native_group_norm",
                                                        "aten::native_group_norm_backward",
                                                        "aten::native_layer_norm_backward", "aten::_embedding_bag"};
  const std::string& name = op.schema().name();
  if (stride_dependent.count(name)) return "its result depends on the input's strides by contract";
  if (contiguous_only.count(name)) return "its kernel requires contiguous inputs by contract";
  return std::nullopt;
}

// ---------------------------------------------------------------------------------- known crashes

namespace {
// The deviations of kind crash (with signals) among those a sample of `spec` hits.
std::vector<const Deviation*> crash_deviations(const std::string& spec, const std::vector<std::string>& deviations) {
  std::vector<const Deviation*> out;
  const Spec* s = find_spec(spec);
  if (!s) return out;
  for (const DeviationSite& site : s->deviations()) {
    const Deviation& d = *site.deviation;
    if (!d.signals.empty() && std::find(deviations.begin(), deviations.end(), d.id) != deviations.end())
      out.push_back(&d);
  }
  return out;
}
}  // namespace

const Deviation* known_crash(const std::string& spec, const std::vector<std::string>& deviations,
                             const std::string& message) {
  for (const Deviation* d : crash_deviations(spec, deviations))
    for (const std::string& signal : d->signals)
      if (message.find("(" + signal + ")") != std::string::npos) return d;
  return nullptr;
}

bool may_crash(const std::string& spec, const std::vector<std::string>& deviations) {
  return !crash_deviations(spec, deviations).empty();
}

}  // namespace opsfuzz::runner
