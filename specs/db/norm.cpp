#include "specs/db/families.h"

#include <algorithm>

namespace opsfuzz::db {
using namespace dsl;

namespace {
using S = c10::ScalarType;

// The input of native_group_norm and its backward. `layouts`: the deviation of a kernel that
// refuses inputs not contiguous in their suggested memory format.
ArgSpec group_norm_input(const DeviationRef& layouts = nullptr) {
  ArgSpec input = Tensor("input").dtype(In(std::vector{S::Float, S::Double, S::BFloat16}));
  if (layouts) input.contiguous(layouts);
  return input;
}

// A weight or bias of native_group_norm: None, or input's dtype and [C]. `numel_only`: the
// deviation of a kernel that checks only its number of elements.
ArgSpec group_norm_affine(const char* name, const DeviationRef& numel_only = nullptr) {
  return TensorOpt(name).deps("input", "C")
      .dtype(Eq("input.dtype", [](const Ctx& c) { return c.dtype("input"); }))
      .rank(numel_only ? Unchecked(numel_only, Eq(1)) : Eq(1));
}

// SymInt N, SymInt C, SymInt HxW, int group of native_group_norm and its backward.
Spec& group_norm_sizes(Spec& spec) {
  return spec.in(Int("N").deps("input"))
      .in(Int("C").deps("input"))
      .in(Int("HxW").deps("input"))
      .in(Int("group").deps("C"));
}

// A rule of the contract, or where `d` is given, a rule the kernel does not check.
Spec& joint_rule(Spec& spec, const DeviationRef& d, std::string label, Term t) {
  return d ? spec.joint_unchecked(d, std::move(label), std::move(t)) : spec.joint(std::move(label), std::move(t));
}

// A rule the kernel checks, except on an empty input where `empty` (when given) says it does not.
Spec& unless_empty(Spec& spec, const DeviationRef& empty, const std::string& label, const Term& t) {
  if (!empty) return spec.joint(label, t);
  return checked_unless_empty(spec, empty, label, t, {numel("input") == 0, "input not empty", "input empty"});
}

// The kernels check N, C and HxW only through their product, and the rank of the input not at all.
// Deviations of a kernel: `negative`, it takes negative C and HxW; `indivisible`, a group that does
// not divide C; `empty`, it checks neither group nor the signs of C and HxW on an empty input.
Spec& group_norm_joints(Spec& spec, const DeviationRef& negative, const DeviationRef& indivisible = nullptr,
                        const DeviationRef& empty = nullptr) {
  const Term signs = value("C") >= 0 && value("HxW") >= 0;
  if (negative) spec.joint_unchecked(negative, "C >= 0 and HxW >= 0", signs);
  else unless_empty(spec, empty, "C >= 0 and HxW >= 0", signs);
  joint_rule(spec, indivisible, "C % group == 0", value("C") % value("group") == 0);
  unless_empty(spec, empty, "group >= 1", value("group") >= 1);
  return spec.joint("N >= 0", value("N") >= 0)
      .joint("N * C * HxW == input.numel()", value("N") * value("C") * value("HxW") == numel("input"))
      .joint("weight is None or weight.size(0) == C", is_none("weight") || size("weight", 0) == value("C"));
}

// native_group_norm(Tensor input, Tensor? weight, Tensor? bias, SymInt N, SymInt C,
//                   SymInt HxW, int group, float eps) -> (Tensor, Tensor, Tensor)
Spec native_group_norm() {
  auto layouts = deviation("native_group_norm.non_contiguous_input",
      "the kernel refuses inputs that are not contiguous in their suggested memory format "
      "(\"Expected X.is_contiguous(memory_format)\")",
      "ops-fuzz sweep native_group_norm.default --config contract,transposed,strided --seed 0 --max 300");
  auto negative = deviation("native_group_norm.negative_c_hxw",
      "negative C and HxW whose product matches are accepted and return uninitialised memory",
      "ops-fuzz sweep native_group_norm.default --invalid --config contract --seed 0 --max 300");
  Spec spec("native_group_norm.default");
  spec.in(group_norm_input(layouts)).in(group_norm_affine("weight")).in(group_norm_affine("bias"));
  group_norm_sizes(spec).in(Float("eps"));
  return group_norm_joints(spec, negative)
      .joint("bias is None or bias.size(0) == C", is_none("bias") || size("bias", 0) == value("C"));
}

const std::vector<S> kNormDtypes = {S::Float, S::Double, S::BFloat16};

Cond input_dtype() { return Eq("input.dtype", [](const Ctx& c) { return c.dtype("input"); }); }

// A per-channel tensor of a norm: None, or input's dtype and [input.size(1)].
ArgSpec channel_tensor(const char* name) {
  return TensorOpt(name).deps("input")
      .dtype(input_dtype())
      .rank(Eq(1))
      .size(Eq("input.size(1)", [](const Ctx& c) { return c.size("input", 1); }));
}

// A weight or bias of layer_norm: None, or `dtype` (input's) and normalized_shape.
ArgSpec normalized_tensor(const char* name, Cond dtype = input_dtype()) {
  return TensorOpt(name).deps("input", "normalized_shape")
      .dtype(std::move(dtype))
      .rank(Eq("len(normalized_shape)", [](const Ctx& c) { return c.length("normalized_shape"); }))
      .size(Eq("normalized_shape[d]", [](const Ctx& c) { return c.ints("normalized_shape").at(static_cast<size_t>(c.dim())); }));
}

ArgSpec layer_norm_input() {
  return Tensor("input")
      .dtype(In(kNormDtypes))
      .rank(Scope(Ge(1)));  // implied by the rule on len(normalized_shape)
}

ArgSpec normalized_shape() {
  return Shape("normalized_shape").deps("input")
      .length(Be(1, expr("input.rank", [](const Ctx& c) { return c.rank("input"); })))
      .value(Eq("the trailing sizes of input", [](const Ctx& c) {
        return c.size("input", c.rank("input") - c.length() + c.position());
      }));
}

// op(Tensor input, SymInt[] normalized_shape, Tensor? weight, Tensor? bias, float eps, ...)
Spec layer_norm_base(std::string op) {
  return Spec(std::move(op))
      .in(layer_norm_input())
      .in(normalized_shape())
      .in(normalized_tensor("weight"))
      .in(normalized_tensor("bias"))
      .in(Float("eps"));
}

// Whether native_layer_norm_backward has no rows to normalize: it then returns before the kernel,
// whose dispatch is where the dtypes are checked.
bool no_rows(const Ctx& c) {
  for (int64_t d = 0; d < c.rank("input") - c.length("normalized_shape"); ++d)
    if (c.size("input", d) == 0) return true;
  return false;
}

Cond input_dtype_with_rows() {
  return Eq("input.dtype (unless input has no rows to normalize)", [](const Ctx& c) -> std::optional<S> {
    if (no_rows(c)) return std::nullopt;
    return c.dtype("input");
  });
}

Cond input_rank() { return Eq("input.rank", [](const Ctx& c) { return c.rank("input"); }); }

// A gradient of a norm's output: `dtype` (input's) and input's shape. `shape` is the deviation of
// a kernel that reads it as input.numel() elements without checking its shape.
ArgSpec grad_like_input(const char* name, const DeviationRef& shape, Cond dtype) {
  return Tensor(name).deps("input")
      .dtype(std::move(dtype))
      .rank(Unchecked(shape, input_rank()))
      .size(Unchecked(shape, Eq("input.size(d)", [](const Ctx& c) { return c.size("input", c.dim()); })));
}

// The mean or rstd native_layer_norm saves: input's dtype, and its shape with the normalized dims 1.
ArgSpec layer_norm_stat(const char* name, const DeviationRef& shape) {
  return Tensor(name).deps("input", "normalized_shape")
      .dtype(input_dtype_with_rows())
      .rank(Unchecked(shape, input_rank()))
      .size(Unchecked(shape, Eq("input.size(d) outside the normalized dims, 1 in them", [](const Ctx& c) {
        return c.dim() < c.rank("input") - c.length("normalized_shape") ? c.size("input", c.dim()) : 1;
      })));
}

// bool[3] output_mask of a norm's backward: which of the gradients of input, weight and bias to
// compute; those of an affine tensor only when it is given.
ArgSpec output_mask(const char* weight, const char* bias) {
  std::string when = weight == std::string(bias) ? std::string(weight) + " is None" : std::string(weight) + " and " + bias + " are None";
  return BoolList("output_mask").deps(weight, bias)
      .length(Eq(3))
      .value(Named("output_mask[1] and [2] are False when " + when,
                   Eq("False", [weight, bias](const Ctx& c) -> std::optional<bool> {
                     if ((c.position() == 1 && c.is_none(weight)) || (c.position() == 2 && c.is_none(bias))) return false;
                     return std::nullopt;
                   })));
}

// native_layer_norm_backward(Tensor grad_out, Tensor input, SymInt[] normalized_shape, Tensor mean,
//     Tensor rstd, Tensor? weight, Tensor? bias, bool[3] output_mask) -> (Tensor, Tensor, Tensor)
Spec native_layer_norm_backward() {
  auto grad_shape = deviation("native_layer_norm_backward.grad_out_shape_unchecked",
      "the kernel does not check grad_out's shape: it reads input.numel() elements of any grad_out",
      "ops-fuzz sweep native_layer_norm_backward.default --invalid --config contract --seed 0 --max 300",
      {kSegfault});
  auto stat_shape = deviation("native_layer_norm_backward.mean_rstd_shape_unchecked",
      "the kernel does not check the shapes of mean and rstd: it reads one element per normalized row of any",
      "ops-fuzz sweep native_layer_norm_backward.default --invalid --config contract --seed 0 --max 300",
      {kSegfault});
  auto bias_dtype = deviation("native_layer_norm_backward.bias_dtype_unchecked",
      "a bias of another dtype than input is taken when output_mask[2] is False (bias only shapes its gradient)",
      "ops-fuzz sweep native_layer_norm_backward.default --invalid --config contract --seed 0 --max 300");
  return Spec("native_layer_norm_backward.default")
      .in(grad_like_input("grad_out", grad_shape, input_dtype_with_rows()).deps("normalized_shape"))
      .in(layer_norm_input()
            .size(Scope(Ge("1 when its dtype is refused", [](const Ctx& c) {
              auto t = c.own_dtype();
              return std::find(kNormDtypes.begin(), kNormDtypes.end(), t) == kNormDtypes.end() ? 1 : 0;
            }))))
      .in(normalized_shape())
      .in(layer_norm_stat("mean", stat_shape))
      .in(layer_norm_stat("rstd", stat_shape))
      .in(normalized_tensor("weight", input_dtype_with_rows()))
      .in(normalized_tensor("bias", Unchecked(bias_dtype, input_dtype())))
      .in(output_mask("weight", "bias"));
}

// native_layer_norm(Tensor input, SymInt[] normalized_shape, Tensor? weight, Tensor? bias, float eps)
Spec native_layer_norm() { return layer_norm_base("native_layer_norm.default"); }
// layer_norm(Tensor input, int[] normalized_shape, Tensor? weight=None, Tensor? bias=None, float eps=1e-05,
//            bool cudnn_enable=True) -> Tensor
Spec layer_norm() { return layer_norm_base("layer_norm.default").in(Bool("cudnn_enable")); }

// group_norm(Tensor input, int num_groups, Tensor? weight=None, Tensor? bias=None, float eps=1e-05,
//            bool cudnn_enabled=True) -> Tensor
Spec group_norm() {
  return Spec("group_norm.default")
      .in(Tensor("input")
            .dtype(In(kNormDtypes))
            .rank(Ge(2)))
      .in(Int("num_groups").deps("input"))
      .in(channel_tensor("weight"))
      .in(channel_tensor("bias"))
      .in(Float("eps"))
      .in(Bool("cudnn_enabled"))
      .joint("num_groups >= 1", value("num_groups") >= 1)
      .joint("input.size(1) % num_groups == 0", size("input", 1) % value("num_groups") == 0);
}

// The weight or bias of batch_norm. The kernel checks only its number of elements.
ArgSpec batch_norm_affine(const char* name) {
  static const auto numel_only = deviation("batch_norm.affine_numel_only",
      "the kernel checks only that weight and bias have input.size(1) elements, not that they are 1-d",
      "ops-fuzz sweep batch_norm.default --invalid --config contract --seed 0 --max 1000");
  return TensorOpt(name).deps("input")
      .dtype(input_dtype())
      .rank(Unchecked(numel_only, Eq(1)))
      .size(Eq("input.size(1)", [](const Ctx& c) { return c.size("input", 1); }));
}

// batch_norm(Tensor input, Tensor? weight, Tensor? bias, Tensor? running_mean, Tensor? running_var,
//            bool training, float momentum, float eps, bool cudnn_enabled) -> Tensor
Spec batch_norm() {
  auto running_var = deviation("batch_norm.running_var_dtype_unchecked_when_strided",
      "a running_var of another dtype than input is taken when input is not contiguous: the kernel's path for "
      "other layouts computes with it as a tensor, the contiguous one reads it as input's dtype and refuses it",
      "ops-fuzz sweep batch_norm.default --invalid --config contract,transposed --seed 0 --max 1000");
  return Spec("batch_norm.default")
      .in(Tensor("input")
            .dtype(In(kNormDtypes))
            .rank(Ge(2))
            // An empty input returns before any check: no rule could be broken with one.
            .size(Scope(Ge(1))))
      .in(batch_norm_affine("weight"))
      .in(batch_norm_affine("bias"))
      .in(channel_tensor("running_mean"))
      .in(channel_tensor("running_var"))
      .in(Bool("training"))
      .in(Float("momentum"))
      .in(Float("eps"))
      .in(Bool("cudnn_enabled"))
      .joint("training, or running_mean and running_var are given",
             value("training") == 1 || (!is_none("running_mean") && !is_none("running_var")))
      .unchecked_on(running_var, "input is not contiguous", [](const Inputs& in) { return is_non_contiguous(in["input"]); },
                    {"running_var.dtype == input.dtype"});
}

// The mean or rstd native_group_norm saves: input's dtype, 2-d (its sizes [N, group] are joint).
ArgSpec group_norm_stat(const char* name, const DeviationRef& shape) {
  return Tensor(name).deps("input")
      .dtype(input_dtype())
      .rank(Unchecked(shape, Eq(2)));
}

Term shaped_n_by_group(const std::string& stat) {
  return size(stat, 0) == value("N") && size(stat, 1) == value("group");
}

// native_group_norm_backward(Tensor grad_out, Tensor input, Tensor mean, Tensor rstd, Tensor? weight,
//     SymInt N, SymInt C, SymInt HxW, int group, bool[3] output_mask) -> (Tensor, Tensor, Tensor)
// The gradient of bias is shaped like weight: both need it.
Spec native_group_norm_backward() {
  const std::string op = "native_group_norm_backward";
  auto unchecked = [&op](const char* id, const char* reason) {
    return deviation(op + "." + id, reason, "ops-fuzz sweep " + op + ".default --invalid --config contract --seed 0 --max 1000");
  };
  auto grad_shape = unchecked("grad_out_shape_unchecked", "the kernel checks only grad_out's number of elements, not its shape");
  auto stat_shape = unchecked("mean_rstd_shape_unchecked",
      "the kernel checks only the numbers of elements of mean and rstd (N * group), not their shapes");
  auto indivisible = unchecked("group_not_checked_to_divide_c",
      "the kernel does not check that group divides C (native_group_norm does)");
  auto weight_numel = unchecked("weight_numel_only", "the kernel checks only that weight has C elements, not that it is 1-d");
  auto empty = deviation(op + ".empty_input_unchecked",
      "with an empty input the kernel checks neither group >= 1 nor C >= 0 and HxW >= 0",
      "ops-fuzz sweep " + op + ".default --invalid --config contract,empty --seed 0 --max 1000");
  Spec spec(op + ".default");
  spec.in(grad_like_input("grad_out", grad_shape, input_dtype()))
      .in(group_norm_input())
      .in(group_norm_stat("mean", stat_shape))
      .in(group_norm_stat("rstd", stat_shape))
      .in(group_norm_affine("weight", weight_numel));
  group_norm_sizes(spec).in(output_mask("weight", "weight"));
  return group_norm_joints(spec, nullptr, indivisible, empty)
      .joint_unchecked(stat_shape, "mean.shape == [N, group]", shaped_n_by_group("mean"))
      .joint_unchecked(stat_shape, "rstd.shape == [N, group]", shaped_n_by_group("rstd"));
}

}  // namespace

std::span<const SpecFn> norm_specs() {
  static constexpr SpecFn table[] = {native_group_norm, native_layer_norm, layer_norm, group_norm, batch_norm,
                                     native_layer_norm_backward, native_group_norm_backward};
  return table;
}

}  // namespace opsfuzz::db
