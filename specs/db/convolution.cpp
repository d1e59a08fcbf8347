#include "specs/db/families.h"

namespace opsfuzz::db {
using namespace dsl;

// A per-spatial-dim parameter list: one value for all dims, or one per dim.
Cond param_length(std::string input) {
  return In("{1, " + input + ".rank - 2}", [input](const Ctx& c) { return IntList{1, c.rank(input) - 2}; });
}

// The spatial output size of a convolution or pooling window (ATen's pooling_output_shape):
// the last window must start inside the input or the left padding.
Term window_count(Term in, Term kernel, Term stride, Term pad, Term dilation, Term ceil) {
  Term span = in + 2 * pad - dilation * (kernel - 1) - 1;
  Term out = (span + ite(ceil, stride - 1, 0)) / stride + 1;
  return ite(ceil && (out - 1) * stride >= in + pad, out - 1, out);
}

Term positive_entries(const char* list) { return all_entries(list, [](Term s) { return s >= 1; }); }
Term non_negative_entries(const char* list) { return all_entries(list, [](Term s) { return s >= 0; }); }

namespace {
using S = c10::ScalarType;

// The input dtypes of the convolution kernels: the integral dtypes, bfloat16, float32 and float64
// (not bool or float16); conv1d and conv2d take complex inputs too, as four real convolutions.
std::vector<S> conv_dtypes(bool complex = false) {
  std::vector<S> dtypes{S::Byte, S::Char, S::Short, S::Int, S::Long, S::BFloat16, S::Float, S::Double};
  return complex ? with_complex(std::move(dtypes)) : dtypes;
}

DeviationRef dilated_integral(const std::string& op) {
  return deviation(deviation_id(op, "dilated_integral"),
      "the dilated kernel refuses uint8, int8, int16 and int32 inputs (\"slow_conv_dilated<>\" not implemented "
      "for 'Byte'), which the other paths take",
      "ops-fuzz sweep " + op + " --config contract --seed 0 --max 300");
}

// A convolution's input, of rank `rank`, with `spatial` spatial dims (0: all but the first two).
// `narrow_integral`: the kernel refuses the integral dtypes but int64.
ArgSpec conv_input(Cond rank, int64_t spatial, const DeviationRef& narrow_integral, bool complex = false) {
  return Tensor("input")
      .dtype(In(conv_dtypes(complex)))
      .dtype(Avoid(narrow_integral, NotIn(std::vector{S::Byte, S::Char, S::Short, S::Int})))
      .rank(std::move(rank))
      .size(Ge("1 for spatial dims unless the batch or channels are empty", [spatial](const Ctx& c) {
        int64_t first = spatial ? c.rank() - spatial : 2;
        if (c.dim() < first) return 0;
        for (int64_t d = 0; d < first; ++d)
          if (c.solved(static_cast<size_t>(d)) == 0) return 0;
        return 1;
      }))
      // An empty input returns before its dtype is checked.
      .size(Scope(Ge("1 when its dtype is refused", [](const Ctx& c) {
        auto t = c.own_dtype();
        return t == S::Bool || t == S::Half || c10::isComplexType(t) ? 1 : 0;
      })));
}

// Keeps bfloat16 out of transposed convolutions, which its kernels do not convolve as such.
Cond not_bfloat16_when_transposed() {
  return NotIn("{bfloat16} when transposed", [](const Ctx& c) -> std::optional<std::vector<S>> {
    if (!c.as_int("transposed")) return std::nullopt;
    return std::vector{S::BFloat16};
  });
}

// A convolution's weight, of rank `rank`.
ArgSpec conv_weight(Cond rank) {
  return std::move(Tensor("weight").deps("input", "stride", "padding", "dilation", "groups")
      // An empty input returns before the dtypes are compared.
      .dtype(Eq("input.dtype (unless input is empty)", [](const Ctx& c) -> std::optional<c10::ScalarType> {
        if (c.numel("input") == 0) return std::nullopt;
        return c.dtype("input");
      }))
      .rank(std::move(rank)));
}

// Whether the kernels of an op compare the dtypes of bias and input on every path.
enum class BiasDtype { Checked, CastBySlowKernels };
// The bias of `op`: 1-d, of input's dtype; where some paths cast another dtype silently, a deviation.
ArgSpec conv_bias(const std::string& op, BiasDtype checked) {
  Cond dtype = Eq("input.dtype", [](const Ctx& c) { return c.dtype("input"); });
  if (checked == BiasDtype::CastBySlowKernels)
    dtype = Unchecked(deviation(deviation_id(op, "bias_dtype_mix"),
        "a bias of another dtype than input is cast silently by the slow kernels (small inputs) and refused by "
        "the others (\"Input type (CPUFloatType) and bias type (CPUDoubleType) should be the same\")",
        "ops-fuzz sweep " + op + " --invalid --config contract --seed 0 --max 300"), std::move(dtype));
  return std::move(TensorOpt("bias").deps("input", "weight").dtype(std::move(dtype)).rank(Eq(1)));
}
// Non-transposed: one bias entry per output channel.
ArgSpec conv_bias_per_channel(const std::string& op, BiasDtype checked) {
  return std::move(conv_bias(op, checked).size(Eq("weight.size(0)", [](const Ctx& c) { return c.size("weight", 0); })));
}

// Where a convolution's input keeps its channels, and the conjunction of `rule(input dim, weight
// dim, i)` over its spatial dims i. The rules build their own terms for each use, as convolution's
// always did (a shared term compiles differently).
using SpatialRule = std::function<Term(int64_t, int64_t, int64_t)>;
struct ConvDims {
  std::string channels_text;
  int64_t channels;  // the dim of input
  std::function<Term(const SpatialRule&)> spatial;
};
// convolution: (N, C, spatial...) of any rank.
ConvDims leading_channels() {
  return {"input.size(1)", 1, [](const SpatialRule& rule) {
            return all(dims("input", 2), [rule](int64_t d) { return rule(d, d, d - 2); });
          }};
}
// convNd: ([N,] C, n spatial dims), counted from the end.
ConvDims trailing_channels(int64_t n) {
  return {"input.size(" + std::to_string(-n - 1) + ")", -n - 1, [n](const SpatialRule& rule) {
            Term every = rule(-n, 2, 0);
            for (int64_t i = 1; i < n; ++i) every = every && rule(i - n, i + 2, i);
            return every;
          }};
}

using Rule = std::pair<std::string, Term>;  // a joint rule and its label

// The rules shared by every convolution: positive strides, dilations and groups, non-negative
// padding.
Spec& strides_and_padding(Spec& spec) {
  return spec.joint("stride[i] >= 1", positive_entries("stride")).joint("padding[i] >= 0", non_negative_entries("padding"));
}
Rule positive_dilations() { return {"dilation[i] >= 1", positive_entries("dilation")}; }
Rule positive_groups() { return {"groups >= 1", value("groups") >= 1}; }
// Those of a forward convolution, and its input channels in whole groups. The weight's rules of
// either kind imply the last (weight.size(1) * groups == C; weight.size(0) == C, in whole groups);
// stated, it rules out a groups that does not divide C when groups is drawn, where the look-ahead
// would have to find that out by search.
Spec& conv_common_rules(Spec& spec, const ConvDims& in) {
  strides_and_padding(spec);
  for (const auto& [label, term] : {positive_dilations(), positive_groups()}) spec.joint(label, term);
  return spec.joint(in.channels_text + " % groups == 0", size("input", in.channels) % value("groups") == 0);
}

// weight.size(0) (output channels, or input channels when transposed) in whole groups.
Spec& weight_in_groups(Spec& spec) {
  return spec.joint("weight.size(0) % groups == 0", size("weight", 0) % value("groups") == 0)
      .joint("weight.size(0) >= groups", size("weight", 0) >= value("groups"));
}

// A joint rule, where `kind` (when given: a term and its text) holds. Rules of one kind of
// convolution (plain or transposed) hold where `transposed` says they apply.
struct Kind {
  std::function<Term()> when;
  std::string text;
};
Rule of_kind(const std::optional<Kind>& kind, const Rule& r) {
  if (!kind) return r;
  return {r.first + " (" + kind->text + ")", implies(kind->when(), r.second)};
}
Spec& add_rules(Spec& spec, const std::optional<Kind>& kind, const std::vector<Rule>& rules) {
  for (const auto& r : rules) {
    auto [label, term] = of_kind(kind, r);
    spec.joint(label, term);
  }
  return spec;
}

// A plain convolution's output size along spatial dim (input dim d, weight dim k, parameter i),
// and a transposed one's.
Term conv_output_size(int64_t d, int64_t k, int64_t i) {
  return window_count(size("input", d), size("weight", k), param("stride", i), param("padding", i), param("dilation", i), 0);
}
Term transposed_output_size(int64_t d, int64_t k, int64_t i) {
  return (size("input", d) - 1) * param("stride", i) - 2 * param("padding", i) +
         param("dilation", i) * (size("weight", k) - 1) + param("output_padding", i) + 1;
}

// A plain convolution's channels and kernel: input channels in groups of weight.size(1), and each
// dilated kernel dim fits the padded input.
std::vector<Rule> plain_rules(const ConvDims& in) {
  const std::string& c = in.channels_text;
  return {{"weight.size(1) * groups == " + c, size("weight", 1) * value("groups") == size("input", in.channels)},
          {"each kernel dim >= 1 and its dilated extent fits the padded input", in.spatial([](int64_t d, int64_t k, int64_t i) {
             return size("weight", k) >= 1 &&
                    param("dilation", i) * (size("weight", k) - 1) + 1 <= size("input", d) + 2 * param("padding", i);
           })}};
}

// A transposed convolution's channels: weight (C, out / groups, kernel...).
Rule transposed_input_channels(const ConvDims& in) {
  return {"weight.size(0) == " + in.channels_text, size("weight", 0) == size("input", in.channels)};
}
Rule transposed_output_channels() { return {"weight.size(1) >= 1 (at least one output channel per group)", size("weight", 1) >= 1}; }
// Its output: each output padding below its stride or dilation, each output size >= 1.
std::vector<Rule> transposed_output_rules(const ConvDims& in) {
  return {{"output_padding[i] < stride[i] or output_padding[i] < dilation[i]", in.spatial([](int64_t, int64_t, int64_t i) {
             return param("output_padding", i) < param("stride", i) || param("output_padding", i) < param("dilation", i);
           })},
          {"each kernel dim of weight >= 1 and the output size along each spatial dim of input >= 1", in.spatial([](int64_t d, int64_t k, int64_t i) {
             return size("weight", k) >= 1 && transposed_output_size(d, k, i) >= 1;
           })}};
}

// A convolution's channels and kernel: input channels in groups of weight.size(1), and each
// dilated kernel dim fits the padded input.
Spec& conv_rules(Spec& spec, const ConvDims& in) {
  conv_common_rules(spec, in);
  return add_rules(weight_in_groups(spec), std::nullopt, plain_rules(in));
}

// A transposed convolution's channels and output: weight (C, out / groups, kernel...), each
// output size >= 1, and each output padding below its stride or dilation.
Spec& conv_transpose_rules(Spec& spec, const ConvDims& in) {
  conv_common_rules(spec, in).joint("output_padding[i] >= 0", non_negative_entries("output_padding"));
  add_rules(weight_in_groups(spec), std::nullopt, {transposed_input_channels(in), transposed_output_channels()})
      // Joint, so that weight.size(1) * groups stays within the sizes a bias can take.
      .joint("bias.size(0) == weight.size(1) * groups (bias given)",
             implies(!is_none("bias"), size("bias", 0) == size("weight", 1) * value("groups")));
  return add_rules(spec, std::nullopt, transposed_output_rules(in));
}

// convolution_backward's output_mask[i] (False past its end: a mask of another length is refused).
bool asks(const Ctx& c, size_t i) {
  const auto& mask = std::get<Bools>(c.meta("output_mask").value);
  return i < mask.size() && mask[i];
}
Term asks(int64_t i) { return elem("output_mask", i) != 0; }
// Whether the kernel convolves: an input with batches and channels (an empty one returns zeros).
bool convolves(const Ctx& c) { return c.rank("input") < 2 || (c.size("input", 0) > 0 && c.size("input", 1) > 0); }
// The kernel checks grad_output only where it convolves it: for the gradient of input or weight.
bool convolves_grad_output(const Ctx& c) { return (asks(c, 0) || asks(c, 1)) && convolves(c); }
const char* const kConvolved = "output_mask[0] or output_mask[1], and input.size(0), input.size(1) > 0";
const char* const kNotConvolved = "neither output_mask[0] nor output_mask[1], or input.size(0) or input.size(1) is 0";
Emptiness grad_output_not_convolved() {
  return {!(asks(0) || asks(1)) || size("input", 0) == 0 || size("input", 1) == 0, kConvolved, kNotConvolved};
}

// The kinds of convolution that `transposed` chooses.
const Kind kPlain{[] { return value("transposed") == 0; }, "not transposed"};
const Kind kTransposed{[] { return value("transposed") != 0; }, "transposed"};
// The output channels of either kind.
Term out_channels() { return ite(value("transposed") != 0, size("weight", 1) * value("groups"), size("weight", 0)); }

// The weight's groups, then the channel and kernel rules of the kind `transposed` says
// (convolution and its backward).
Spec& either_kind_rules(Spec& spec, const ConvDims& in) {
  return add_rules(add_rules(weight_in_groups(spec), kPlain, plain_rules(in)), kTransposed, {transposed_input_channels(in)});
}
// A transposed convolution's output rules, its output channels first.
std::vector<Rule> transposed_output_checks(const ConvDims& in) {
  std::vector<Rule> rules = transposed_output_rules(in);
  rules.insert(rules.begin(), transposed_output_channels());
  return rules;
}

// Where convolution_backward's kernel departs from its contract.
struct BackwardDeviations {
  DeviationRef unconvolved, weight_dtype, batch, bias_sizes, bias_none, bfloat16, dilated_int64, mixed, weight_layout,
      plain_dilation, grouped_channels;
};

// A rule of convolution_backward that the kernel checks where it convolves and `checked` holds;
// where it convolves and `unchecked` holds, the deviation `d`; where it does not convolve, the
// deviation `d.unconvolved`.
Spec& checked_where_convolved(Spec& spec, const DeviationRef& unconvolved, const DeviationRef& d, const Kind& checked,
                              const Kind& unchecked, const Rule& rule) {
  const Emptiness e = grad_output_not_convolved();
  const auto& [label, term] = rule;
  return spec.joint(label + " (" + e.has + "; " + checked.text + ")", implies(!e.empty && checked.when(), term))
      .joint_unchecked(d, label + " (" + e.has + "; " + unchecked.text + ")", implies(!e.empty && unchecked.when(), term))
      .joint_unchecked(unconvolved, label + " (" + e.is + ")", implies(e.empty, term));
}

// convolution_backward's rules: those of convolution, plain or transposed as `transposed` says,
// and grad_output shaped as the result (batch apart). The kernel checks the rules of the
// transposed output and grad_output only where it convolves (`unconvolved`); a plain
// convolution's dilations and grad_output's channels with groups > 1 not even there.
Spec& convolution_backward_rules(Spec& spec, const BackwardDeviations& d) {
  const DeviationRef& unconvolved = d.unconvolved;
  ConvDims in = leading_channels();
  checked_where_convolved(strides_and_padding(spec), unconvolved, d.plain_dilation, kTransposed, kPlain, positive_dilations());
  checked_unless_empty(spec, unconvolved, positive_groups().first, positive_groups().second, grad_output_not_convolved())
      .joint("output_padding[i] >= 0", non_negative_entries("output_padding"));
  either_kind_rules(spec, in);
  for (const auto& r : transposed_output_checks(in)) {
    auto [label, term] = of_kind(kTransposed, r);
    checked_unless_empty(spec, unconvolved, label, term, grad_output_not_convolved());
  }
  const Kind ungrouped{[] { return value("groups") == 1; }, "groups == 1"};
  const Kind grouped{[] { return value("groups") != 1; }, "groups != 1"};
  checked_where_convolved(spec, unconvolved, d.grouped_channels, ungrouped, grouped,
                          {"grad_output.size(1) == weight.size(0), or weight.size(1) * groups when transposed",
                           size("grad_output", 1) == out_channels()});
  return checked_unless_empty(spec, unconvolved, "grad_output.size(d) is the convolution's output size in each spatial dim",
                              in.spatial([](int64_t d, int64_t k, int64_t i) {
                                return size("grad_output", d) ==
                                       ite(value("transposed") != 0, transposed_output_size(d, k, i), conv_output_size(d, k, i));
                              }), grad_output_not_convolved());
}

// An empty input returns an empty result before several of the kernel's checks (dilation, the
// kernel's extent, input's rank, bias's dtype, output_padding): invalid samples keep away from it.
Spec& empty_input_unchecked(Spec& spec) {
  const std::string& op = spec.op();
  auto d = deviation(deviation_id(op, "empty_input_unchecked"),
      "an empty input returns an empty result before several checks: a negative dilation, a kernel larger than the "
      "padded input, an input of another rank or a bias of another dtype is taken",
      "ops-fuzz sweep " + op + " --invalid --config contract,empty --seed 0 --max 1000");
  return spec.unchecked_on(d, "input is empty", [](const Inputs& in) { return is_empty(in["input"]); });
}

// convolution's rules, plain or transposed as `transposed` says.
Spec& convolution_rules(Spec& spec) {
  ConvDims in = leading_channels();
  either_kind_rules(conv_common_rules(spec, in), in);
  // Joint, so that weight.size(1) * groups stays within the sizes a bias can take.
  return add_rules(spec, kTransposed, transposed_output_checks(in))
      .joint("bias.size(0) == weight.size(0), or weight.size(1) * groups when transposed (bias given)",
             implies(!is_none("bias"), size("bias", 0) == out_channels()));
}

// convolution(Tensor input, Tensor weight, Tensor? bias, int[] stride, SymInt[] padding,
//             int[] dilation, bool transposed, SymInt[] output_padding, int groups) -> Tensor
Spec convolution() {
  auto bfloat16 = deviation("convolution.bfloat16_not_transposed",
      "a transposed convolution of bfloat16 is convolved as if not transposed: the kernel checks the channels of a "
      "plain convolution (\"expected input[...] to have 6 channels\")",
      "ops-fuzz sweep convolution.default --config contract,half --seed 0 --max 300");
  Spec spec = Spec("convolution.default")
      .in(conv_input(Be(3, 5), 0, dilated_integral("convolution.default")).deps("transposed")
            .dtype(Avoid(bfloat16, not_bfloat16_when_transposed())))
      .in(conv_weight(Eq("input.rank", [](const Ctx& c) { return c.rank("input"); })))
      .in(conv_bias("convolution.default", BiasDtype::CastBySlowKernels))
      .in(LengthList("stride").deps("input")
            .length(param_length("input")))
      .in(LengthList("padding").deps("input")
            .length(param_length("input")))
      .in(LengthList("dilation").deps("input")
            .length(param_length("input")))
      .in(Bool("transposed"))
      .in(LengthList("output_padding").deps("input")
            .length(param_length("input"))
            .value(Ge(0)))
      .in(Int("groups").deps("input"));
  return empty_input_unchecked(convolution_rules(spec));
}

// A parameter list of a convolution over n spatial dims: one value for all, or one per dim.
ArgSpec conv_param(const char* name, int64_t n) { return std::move(LengthList(name).length(In(IntList{1, n}))); }

// convNd(Tensor input, Tensor weight, Tensor? bias=None, int[n] stride=1, int[n] padding=0,
//        int[n] dilation=1, int groups=1) -> Tensor: input ([N,] C, n spatial dims).
Spec conv_nd(const std::string& op, int64_t n, BiasDtype bias_dtype) {
  Spec spec = Spec(op)
      .in(conv_input(Be(n + 1, n + 2), n, dilated_integral(op), true))
      .in(conv_weight(Eq(n + 2)))
      .in(conv_bias_per_channel(op, bias_dtype))
      .in(conv_param("stride", n))
      .in(conv_param("padding", n))
      .in(conv_param("dilation", n))
      .in(Int("groups"));
  return empty_input_unchecked(conv_rules(spec, trailing_channels(n)));
}

// conv1d(Tensor input, Tensor weight, Tensor? bias=None, int[1] stride=1, int[1] padding=0, int[1] dilation=1, int groups=1)
Spec conv1d() { return conv_nd("conv1d.default", 1, BiasDtype::CastBySlowKernels); }
// conv2d(Tensor input, Tensor weight, Tensor? bias=None, int[2] stride=1, int[2] padding=0, int[2] dilation=1, int groups=1)
Spec conv2d() { return conv_nd("conv2d.default", 2, BiasDtype::Checked); }

// conv_transpose2d.input(Tensor input, Tensor weight, Tensor? bias=None, int[2] stride=1, int[2] padding=0,
//                        int[2] output_padding=0, int groups=1, int[2] dilation=1) -> Tensor
// weight is (C, out / groups, kH, kW); the output size is (in - 1) * stride - 2 * padding +
// dilation * (kernel - 1) + output_padding + 1.
Spec conv_transpose2d() {
  const std::string op = "conv_transpose2d.input";
  auto integral = deviation("conv_transpose2d.narrow_integral",
      "the transposed kernel refuses uint8, int8, int16 and int32 inputs (\"slow_conv_transpose2d_out_cpu\" not "
      "implemented for 'Byte'), which the other convolutions take",
      "ops-fuzz sweep " + op + " --config contract --seed 0 --max 300");
  auto bfloat16 = deviation("conv_transpose2d.bfloat16_not_transposed",
      "a bfloat16 input is convolved as if not transposed: the kernel checks the channels of a plain convolution "
      "(\"expected input[...] to have 6 channels\") and returns its smaller size",
      "ops-fuzz sweep " + op + " --config contract,half --seed 0 --max 300");
  Spec spec = Spec(op)
      .in(conv_input(Be(3, 4), 2, integral).dtype(Avoid(bfloat16, NotIn(std::vector{S::BFloat16}))))
      .in(conv_weight(Eq(4)).deps("output_padding"))
      .in(conv_bias(op, BiasDtype::Checked))
      .in(conv_param("stride", 2))
      .in(conv_param("padding", 2))
      .in(conv_param("output_padding", 2))
      .in(Int("groups"))
      .in(conv_param("dilation", 2));
  return empty_input_unchecked(conv_transpose_rules(spec, trailing_channels(2)));
}

// col2im(Tensor self, SymInt[2] output_size, int[2] kernel_size, int[2] dilation, int[2] padding,
//        int[2] stride) -> Tensor
// self is ([N,] C * kH * kW, L): one column per position of the dilated kernel in the padded
// output, L of them.
Spec col2im() {
  auto blocks = [](int64_t a) {  // the kernel's positions along output dim a
    Term extent = elem("dilation", a) * (elem("kernel_size", a) - 1) + 1;
    return (elem("output_size", a) + 2 * elem("padding", a) - extent) / elem("stride", a) + 1;
  };
  Spec spec = Spec("col2im.default")
      .in(Tensor("self")
            .dtype(In(with_complex(listed(floating_dtypes()))))
            .rank(Be(2, 3))
            .size(Ge("1 except for the batch dim of a 3-d self (0)", [](const Ctx& c) { return c.dim() == 0 && c.rank() == 3 ? 0 : 1; })));
  for (const char* list : {"output_size", "kernel_size", "dilation", "padding", "stride"}) spec.in(LengthList(list).length(Eq(2)));
  return spec.joint("output_size[i] >= 1", positive_entries("output_size"))
      .joint("kernel_size[i] >= 1", positive_entries("kernel_size"))
      .joint("dilation[i] >= 1", positive_entries("dilation"))
      .joint("padding[i] >= 0", non_negative_entries("padding"))
      .joint("stride[i] >= 1", positive_entries("stride"))
      .joint("the dilated kernel fits the padded output_size along each dim", blocks(0) >= 1 && blocks(1) >= 1)
      .joint("self.size(-2) % (kernel_size[0] * kernel_size[1]) == 0",
             size("self", -2) % (elem("kernel_size", 0) * elem("kernel_size", 1)) == 0)
      .joint("self.size(-1) == the number of kernel positions in the padded output_size",
             size("self", -1) == blocks(0) * blocks(1));
}

// grid_sampler_2d(Tensor input, Tensor grid, int interpolation_mode, int padding_mode,
//                 bool align_corners) -> Tensor
// input (N, C, H, W) sampled at grid (N, H_out, W_out, 2); the modes are enums: bilinear, nearest,
// bicubic; zeros, border, reflection.
Spec grid_sampler_2d() {
  auto half = deviation("grid_sampler_2d.half_floats",
      "the CPU kernel is not implemented for float16 and bfloat16 (\"grid_sampler_2d_cpu not implemented for Half\")",
      "ops-fuzz sweep grid_sampler_2d.default --config contract,half --seed 0 --max 100");
  auto modes = deviation("grid_sampler_2d.modes_unchecked",
      "the kernel checks neither mode against its enum: any interpolation_mode or padding_mode outside {0, 1, 2} "
      "is taken",
      "ops-fuzz sweep grid_sampler_2d.default --invalid --config contract --seed 0 --max 300");
  return Spec("grid_sampler_2d.default")
      .in(Tensor("input")
            .dtype(In(std::vector(floating_dtypes().begin(), floating_dtypes().end())))
            .dtype(Avoid(half, NotIn(std::vector{S::Half, S::BFloat16})))
            .rank(Eq(4))
            .size(Ge("1 for the spatial dims (2 and 3)", [](const Ctx& c) { return c.dim() >= 2 ? 1 : 0; })))
      .in(Tensor("grid").deps("input")
            .dtype(Eq("input.dtype", [](const Ctx& c) { return c.dtype("input"); }))
            .rank(Eq(4))
            .size(Eq("input.size(0) at dim 0, 2 at dim 3", [](const Ctx& c) -> std::optional<int64_t> {
              if (c.dim() == 0) return c.size("input", 0);
              if (c.dim() == 3) return 2;
              return std::nullopt;
            })))
      .in(Int("interpolation_mode").value(Unchecked(modes, Be(0, 2))))
      .in(Int("padding_mode").value(Unchecked(modes, Be(0, 2))))
      .in(Bool("align_corners"));
}

BackwardDeviations backward_deviations() {
  auto dev = [](const std::string& what, const char* reason, const char* config, int max = 300, int seed = 0,
                std::vector<std::string> signals = {}) {
    return deviation("convolution_backward." + what, reason,
                     "ops-fuzz sweep convolution_backward.default " + std::string(config) + " --seed " +
                         std::to_string(seed) + " --max " + std::to_string(max),
                     std::move(signals));
  };
  return {
      dev("unchecked_without_convolution",
          "with neither output_mask[0] nor output_mask[1], or an input without batches or channels, the kernel "
          "convolves nothing and takes a grad_output of any dtype and shape, any dtype of input, transposed output "
          "paddings and sizes it would refuse, and (on an empty input) non-positive dilations and groups (the bias "
          "gradient is a sum of grad_output)",
          "--invalid --config contract"),
      dev("weight_dtype_unchecked",
          "without output_mask[0], weight's dtype is not compared with input's (the weight gradient reads only its sizes)",
          "--invalid --config contract"),
      dev("grad_output_batch_unchecked",
          "the slow kernels of plain convolutions (float64, int64) do not compare grad_output.size(0) with "
          "input.size(0): a larger batch is taken, a smaller (or empty) one read past its end (segmentation fault)",
          "--invalid --config contract,empty", 300, 0, {kSegfault}),
      dev("bias_sizes_unchecked",
          "bias_sizes is read only on an input without batches or channels (the bias gradient is zeros of "
          "bias_sizes); elsewhere any bias_sizes is taken and the bias gradient is a sum of grad_output",
          "--invalid --config contract"),
      dev("bias_gradient_without_bias",
          "output_mask[2] with bias_sizes None is taken (the bias gradient is a sum of grad_output), and aborts on an "
          "input without batches or channels (bad optional access in a noexcept dereference)",
          "--invalid --config contract,empty", 1000, 0, {kAborted}),
      dev("bfloat16_transposed",
          "a transposed convolution of bfloat16 is refused (\"could not create a descriptor for a dilated convolution\")",
          "--config contract,half"),
      dev("dilated_int64",
          "the dilated kernels take int64 input, which the others refuse (\"slow_conv2d_cpu_grad_input\" not "
          "implemented for 'Long')",
          "--invalid --config contract"),
      dev("mkldnn_mixes_float32_bfloat16",
          "the mkldnn kernel takes float32 and bfloat16 mixed: a weight of the other one, and a grad_output of the "
          "other one for the gradient of input alone",
          "--invalid --config contract,half"),
      dev("weight_layout",
          "with an input in the channels-last memory format, the slow 2-d kernel refuses a weight contiguous in "
          "neither format (\"slow_conv2d: grad_weight must be contiguous\")",
          "--config contract,permuted", 300, 31),
      dev("plain_dilation_unchecked",
          "a plain convolution's dilations are not compared with 1: the mkldnn kernel (float32) takes a dilation of 0 "
          "or below wherever grad_output has the size it gives",
          "--invalid --config contract", 400, 5),
      dev("grouped_channels_unchecked",
          "with groups > 1, the slow kernels (float64, int64) split grad_output into groups without comparing its "
          "channels with the output channels: extra channels are ignored",
          "--invalid --config contract", 400, 10),
  };
}

// The dtype of grad_output or weight: input's, checked where `checked` says; float32 and bfloat16
// in place of each other are taken by the mkldnn kernel (`mixed`).
ArgSpec& backward_dtype(ArgSpec& a, const std::function<bool(const Ctx&)>& checked, const DeviationRef& unchecked,
                        const DeviationRef& mixed, const std::string& has, const std::string& is) {
  Cond refused = In("{input.dtype} (float32 and bfloat16 interchangeable)", [](const Ctx& c) {
    S t = c.dtype("input");
    return t == S::Float || t == S::BFloat16 ? std::vector{S::Float, S::BFloat16} : std::vector{t};
  });
  return checked_where(a, Attribute::Dtype, refused, checked, unchecked, has, is)
      .dtype(Unchecked(mixed, NotIn("{float32} for a bfloat16 input, {bfloat16} for a float32 one", [](const Ctx& c) -> std::optional<std::vector<S>> {
        S t = c.dtype("input");
        if (t != S::Float && t != S::BFloat16) return std::nullopt;
        return std::vector{t == S::Float ? S::BFloat16 : S::Float};
      })))
      .rank(Eq("input.rank", [](const Ctx& c) { return c.rank("input"); }));
}

// convolution_backward's input: bfloat16, float32 or float64, as the kernel checks when it
// computes a gradient from it (int64 taken by the dilated kernels).
ArgSpec backward_input(const BackwardDeviations& d) {
  ArgSpec input = Tensor("input").deps("transposed", "output_mask");
  checked_where(input, Attribute::Dtype, In(std::vector{S::BFloat16, S::Float, S::Double, S::Long}),
                [](const Ctx& c) { return asks(c, 0) || asks(c, 1); }, d.unconvolved, "output_mask[0] or output_mask[1]",
                "neither output_mask[0] nor output_mask[1]");
  return std::move(input.dtype(Unchecked(d.dilated_int64, NotIn(std::vector{S::Long})))
      .dtype(Avoid(d.bfloat16, not_bfloat16_when_transposed()))
      .rank(Be(3, 5))
      .size(Ge("1 for spatial dims unless the batch or channels are empty", [](const Ctx& c) {
        return c.dim() >= 2 && c.solved(0) > 0 && c.solved(1) > 0 ? 1 : 0;
      }))
      // An empty input returns before its dtype is checked.
      .size(Scope(Ge("1 when its dtype is refused", [](const Ctx& c) {
        auto t = c.own_dtype();
        return t == S::BFloat16 || t == S::Float || t == S::Double ? 0 : 1;
      }))));
}

// convolution_backward(Tensor grad_output, Tensor input, Tensor weight, SymInt[]? bias_sizes,
//     int[] stride, SymInt[] padding, int[] dilation, bool transposed, SymInt[] output_padding,
//     int groups, bool[3] output_mask) -> (Tensor, Tensor, Tensor)
// The arguments of convolution (plain or transposed), with grad_output shaped as its result and
// bias_sizes None or the bias's [out channels]; output_mask says which of the gradients of input,
// weight and bias to compute (the bias's only when there was one).
Spec convolution_backward() {
  const BackwardDeviations d = backward_deviations();
  auto out_channels = [](const Ctx& c) {
    return c.as_int("transposed") ? c.size("weight", 1) * c.as_int("groups") : c.size("weight", 0);
  };
  ArgSpec grad_output = Tensor("grad_output").deps("input", "output_mask");
  backward_dtype(grad_output, convolves_grad_output, d.unconvolved, d.mixed, kConvolved, kNotConvolved)
      .size(Unchecked(d.batch, Eq("input.size(0) at dim 0", [](const Ctx& c) -> std::optional<int64_t> {
        if (c.dim() > 0) return std::nullopt;  // the others are joint
        return c.size("input", 0);
      })));
  ArgSpec weight = Tensor("weight").deps("input", "output_mask");
  backward_dtype(weight, [](const Ctx& c) { return asks(c, 0) && convolves(c); }, d.weight_dtype, d.mixed,
                 "output_mask[0], input.size(0) and input.size(1) > 0", "not output_mask[0], or input.size(0) or input.size(1) is 0")
      .contiguous(d.weight_layout);
  Spec spec = Spec("convolution_backward.default")
      .in(grad_output)
      .in(backward_input(d))
      .in(weight)
      .in(LengthListOpt("bias_sizes").deps("weight", "transposed", "groups")
            .length(Unchecked(d.bias_sizes, Eq(1)))
            .value(Unchecked(d.bias_sizes, Eq("weight.size(0), or weight.size(1) * groups when transposed", out_channels))))
      .in(LengthList("stride"))
      .in(LengthList("padding"))
      .in(LengthList("dilation"))
      .in(Bool("transposed"))
      .in(LengthList("output_padding").deps("transposed")
            .value(Eq("0 unless transposed", [](const Ctx& c) -> std::optional<int64_t> {
              if (c.as_int("transposed")) return std::nullopt;
              return 0;
            })))
      .in(Int("groups").deps("input"))
      .in(BoolList("output_mask").length(Eq(3)));
  // Joint, so that the look-ahead completes the lists' entries at lengths they can take.
  for (const char* list : {"stride", "padding", "dilation", "output_padding"})
    spec.joint("len(" + std::string(list) + ") in {1, input.rank - 2}", length(list) == 1 || length(list) == rank("input") - 2);
  return convolution_backward_rules(spec, d)
      .joint_unchecked(d.bias_none, "output_mask[2] is False when bias_sizes is None",
                       implies(is_none("bias_sizes"), !asks(2)));
}

}  // namespace

std::span<const SpecFn> convolution_specs() {
  static constexpr SpecFn table[] = {convolution, conv1d, conv2d, conv_transpose2d, col2im, grid_sampler_2d,
                                     convolution_backward};
  return table;
}

}  // namespace opsfuzz::db
