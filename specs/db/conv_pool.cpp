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
// (not bool, float16 or complex).
std::vector<S> conv_dtypes() { return {S::Byte, S::Char, S::Short, S::Int, S::Long, S::BFloat16, S::Float, S::Double}; }

DeviationRef dilated_integral(const std::string& op) {
  return deviation(op.substr(0, op.find('.')) + ".dilated_integral",
      "the dilated kernel refuses uint8, int8, int16 and int32 inputs (\"slow_conv_dilated<>\" not implemented "
      "for 'Byte'), which the other paths take",
      "ops-fuzz sweep " + op + " --config contract --seed 0 --max 300");
}

// A convolution's input, of rank `rank`, with `spatial` spatial dims (0: all but the first two).
// `narrow_integral`: the kernel refuses the integral dtypes but int64.
ArgSpec conv_input(Cond rank, int64_t spatial, const DeviationRef& narrow_integral) {
  return Tensor("input")
      .dtype(In(conv_dtypes()))
      .dtype(Avoid(narrow_integral, NotIn(std::vector{S::Byte, S::Char, S::Short, S::Int})))
      .rank(std::move(rank))
      .size(Ge("1 for spatial dims unless the batch or channels are empty", [spatial](const Ctx& c) {
        int64_t first = spatial ? c.rank() - spatial : 2;
        if (c.dim() < first) return 0;
        for (int64_t d = 0; d < first; ++d)
          if (c.solved()[static_cast<size_t>(d)] == 0) return 0;
        return 1;
      }))
      // An empty input returns before its dtype is checked.
      .size(Scope(Ge("1 when its dtype is refused", [](const Ctx& c) {
        auto t = c.tensor().dtype;
        return t == S::Bool || t == S::Half || c10::isComplexType(t) ? 1 : 0;
      })));
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
    dtype = Unchecked(deviation(op.substr(0, op.find('.')) + ".bias_dtype_mix",
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

// The rules shared by every convolution: positive strides, dilations and groups, non-negative
// padding, and output channels in whole groups.
Spec& conv_common_rules(Spec& spec) {
  return spec.joint("stride[i] >= 1", positive_entries("stride"))
      .joint("padding[i] >= 0", non_negative_entries("padding"))
      .joint("dilation[i] >= 1", positive_entries("dilation"))
      .joint("groups >= 1", value("groups") >= 1);
}

// weight.size(0) (output channels, or input channels when transposed) in whole groups.
Spec& weight_in_groups(Spec& spec) {
  return spec.joint("weight.size(0) % groups == 0", size("weight", 0) % value("groups") == 0)
      .joint("weight.size(0) >= groups", size("weight", 0) >= value("groups"));
}

// A convolution's channels and kernel: input channels in groups of weight.size(1), and each
// dilated kernel dim fits the padded input.
Spec& conv_rules(Spec& spec, const ConvDims& in) {
  const std::string& c = in.channels_text;
  conv_common_rules(spec).joint(c + " % groups == 0", size("input", in.channels) % value("groups") == 0);
  return weight_in_groups(spec)
      .joint("weight.size(1) * groups == " + c, size("weight", 1) * value("groups") == size("input", in.channels))
      .joint("each kernel dim >= 1 and its dilated extent fits the padded input", in.spatial([](int64_t d, int64_t k, int64_t i) {
        return size("weight", k) >= 1 &&
               param("dilation", i) * (size("weight", k) - 1) + 1 <= size("input", d) + 2 * param("padding", i);
      }));
}

// A transposed convolution's channels and output: weight (C, out / groups, kernel...), each
// output size >= 1, and each output padding below its stride or dilation.
Spec& conv_transpose_rules(Spec& spec, const ConvDims& in) {
  conv_common_rules(spec).joint("output_padding[i] >= 0", non_negative_entries("output_padding"));
  return weight_in_groups(spec)
      .joint("weight.size(0) == " + in.channels_text, size("weight", 0) == size("input", in.channels))
      .joint("weight.size(1) >= 1 (at least one output channel per group)", size("weight", 1) >= 1)
      // Joint, so that weight.size(1) * groups stays within the sizes a bias can take.
      .joint("bias.size(0) == weight.size(1) * groups (bias given)",
             implies(!is_none("bias"), size("bias", 0) == size("weight", 1) * value("groups")))
      .joint("output_padding[i] < stride[i] or output_padding[i] < dilation[i]", in.spatial([](int64_t, int64_t, int64_t i) {
        return param("output_padding", i) < param("stride", i) || param("output_padding", i) < param("dilation", i);
      }))
      .joint("each kernel dim of weight >= 1 and the output size along each spatial dim of input >= 1", in.spatial([](int64_t d, int64_t k, int64_t i) {
        Term out = (size("input", d) - 1) * param("stride", i) - 2 * param("padding", i) +
                   param("dilation", i) * (size("weight", k) - 1) + param("output_padding", i) + 1;
        return size("weight", k) >= 1 && out >= 1;
      }));
}

// convolution(Tensor input, Tensor weight, Tensor? bias, int[] stride, SymInt[] padding,
//             int[] dilation, bool transposed, SymInt[] output_padding, int groups) -> Tensor
Spec convolution() {
  Spec spec = Spec("convolution.default")
      .in(conv_input(Be(3, 5), 0, dilated_integral("convolution.default")))
      .in(conv_weight(Eq("input.rank", [](const Ctx& c) { return c.rank("input"); })))
      .in(conv_bias_per_channel("convolution.default", BiasDtype::CastBySlowKernels))
      .in(LengthList("stride").deps("input")
            .length(param_length("input")))
      .in(LengthList("padding").deps("input")
            .length(param_length("input")))
      .in(LengthList("dilation").deps("input")
            .length(param_length("input")))
      .in(Bool("transposed")
            .value(Scope(Eq(false))))
      .in(LengthList("output_padding").deps("input")
            .length(param_length("input"))
            .value(Ge(0)))
      .in(Int("groups").deps("input"));
  return conv_rules(spec, leading_channels());
}

// A parameter list of a convolution over n spatial dims: one value for all, or one per dim.
ArgSpec conv_param(const char* name, int64_t n) { return std::move(LengthList(name).length(In(IntList{1, n}))); }

// convNd(Tensor input, Tensor weight, Tensor? bias=None, int[n] stride=1, int[n] padding=0,
//        int[n] dilation=1, int groups=1) -> Tensor: input ([N,] C, n spatial dims).
Spec conv_nd(const std::string& op, int64_t n, BiasDtype bias_dtype) {
  Spec spec = Spec(op)
      .in(conv_input(Be(n + 1, n + 2), n, dilated_integral(op)))
      .in(conv_weight(Eq(n + 2)))
      .in(conv_bias_per_channel(op, bias_dtype))
      .in(conv_param("stride", n))
      .in(conv_param("padding", n))
      .in(conv_param("dilation", n))
      .in(Int("groups"));
  return conv_rules(spec, trailing_channels(n));
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
  return conv_transpose_rules(spec, trailing_channels(2));
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
  std::vector<S> dtypes(floating_dtypes().begin(), floating_dtypes().end());
  dtypes.insert(dtypes.end(), complex_dtypes().begin(), complex_dtypes().end());
  Spec spec = Spec("col2im.default")
      .in(Tensor("self")
            .dtype(In(std::move(dtypes)))
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

// convolution_backward(Tensor grad_output, Tensor input, Tensor weight, SymInt[]? bias_sizes,
//     int[] stride, SymInt[] padding, int[] dilation, bool transposed, SymInt[] output_padding,
//     int groups, bool[3] output_mask) -> (Tensor, Tensor, Tensor)
// The arguments of convolution, with grad_output shaped as its result and bias_sizes None or
// [out_channels]; output_mask says which gradients to compute.
Spec convolution_backward() {
  auto bias_sizes = deviation("convolution_backward.bias_sizes_unchecked",
      "bias_sizes other than [weight.size(0)] are taken on some paths (the bias gradient is a sum of grad_output)",
      "ops-fuzz sweep convolution_backward.default --invalid --config contract --seed 0 --max 300");
  auto same_as_input = [](const char* name) {
    return Tensor(name).deps("input")
        .dtype(Eq("input.dtype", [](const Ctx& c) { return c.dtype("input"); }))
        .rank(Eq("input.rank", [](const Ctx& c) { return c.rank("input"); }));
  };
  return Spec("convolution_backward.default")
      .in(same_as_input("grad_output").deps("weight")
            .size(Eq("[input.size(0), weight.size(0)] in its first two dims", [](const Ctx& c) -> std::optional<int64_t> {
              if (c.dim() >= 2) return std::nullopt;  // the spatial sizes are joint
              return c.dim() == 0 ? c.size("input", 0) : c.size("weight", 0);
            })))
      .in(Tensor("input")
            .dtype(In(std::vector{S::BFloat16, S::Float, S::Double}))
            .rank(Be(3, 5))
            .size(Ge("1 for spatial dims unless the batch or channels are empty", [](const Ctx& c) {
              return c.dim() >= 2 && c.solved()[0] > 0 && c.solved()[1] > 0 ? 1 : 0;
            })))
      .in(same_as_input("weight"))
      .in(LengthListOpt("bias_sizes").deps("weight")
            .length(Unchecked(bias_sizes, Eq(1)))
            .value(Unchecked(bias_sizes, Eq("weight.size(0)", [](const Ctx& c) { return c.size("weight", 0); }))))
      .in(LengthList("stride").deps("input").length(param_length("input")))
      .in(LengthList("padding").deps("input").length(param_length("input")))
      .in(LengthList("dilation").deps("input").length(param_length("input")))
      .in(Bool("transposed").value(Scope(Eq(false))))
      .in(LengthList("output_padding").deps("input", "transposed").length(param_length("input"))
            .value(Eq("0 unless transposed", [](const Ctx& c) -> std::optional<int64_t> {
              if (c.as_int("transposed")) return std::nullopt;
              return 0;
            })))
      .in(Int("groups").deps("input"))
      .in(BoolList("output_mask").length(Eq(3)))
      .joint("stride[i] >= 1", positive_entries("stride"))
      .joint("padding[i] >= 0", non_negative_entries("padding"))
      .joint("dilation[i] >= 1", positive_entries("dilation"))
      .joint("groups >= 1", value("groups") >= 1)
      .joint("input.size(1) % groups == 0", size("input", 1) % value("groups") == 0)
      .joint("weight.size(0) % groups == 0", size("weight", 0) % value("groups") == 0)
      .joint("weight.size(0) >= groups", size("weight", 0) >= value("groups"))
      .joint("weight.size(1) * groups == input.size(1)", size("weight", 1) * value("groups") == size("input", 1))
      .joint("each kernel dim >= 1 and its dilated extent fits the padded input", all(dims("input", 2), [](int64_t d) {
        return size("weight", d) >= 1 &&
               param("dilation", d - 2) * (size("weight", d) - 1) + 1 <= size("input", d) + 2 * param("padding", d - 2);
      }))
      .joint("grad_output.size(d) is the convolution's output size in each spatial dim", all(dims("input", 2), [](int64_t d) {
        return size("grad_output", d) == window_count(size("input", d), size("weight", d), param("stride", d - 2),
                                                      param("padding", d - 2), param("dilation", d - 2), 0);
      }));
}

}  // namespace

std::span<const SpecFn> conv_pool_specs() {
  static constexpr SpecFn table[] = {convolution, conv1d, conv2d, conv_transpose2d, col2im, grid_sampler_2d,
                                     convolution_backward};
  return table;
}

}  // namespace opsfuzz::db
