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

// convolution(Tensor input, Tensor weight, Tensor? bias, int[] stride, SymInt[] padding,
//             int[] dilation, bool transposed, SymInt[] output_padding, int groups) -> Tensor
Spec convolution() {
  auto bias_dtype = deviation("convolution.bias_dtype_mix",
      "a bias of another dtype than input is cast silently by the slow kernels (small inputs) and refused by "
      "the others (\"Input type (CPUFloatType) and bias type (CPUDoubleType) should be the same\")",
      "ops-fuzz sweep convolution.default --invalid --config contract --seed 0 --max 300");
  auto dilated_integral = deviation("convolution.dilated_integral",
      "the dilated kernel refuses uint8, int8, int16 and int32 inputs (\"slow_conv_dilated<>\" not implemented "
      "for 'Byte'), which the other paths take",
      "ops-fuzz sweep convolution.default --config contract --seed 0 --max 300");
  return Spec("convolution.default")
      .in(Tensor("input")
            // The CPU kernels cover the integral dtypes, bfloat16, float32 and float64 (not bool,
            // float16 or complex).
            .dtype(In(std::vector{S::Byte, S::Char, S::Short, S::Int, S::Long, S::BFloat16, S::Float, S::Double}))
            .dtype(Avoid(dilated_integral, NotIn(std::vector{S::Byte, S::Char, S::Short, S::Int})))
            .rank(Be(3, 5))
            .size(Ge("1 for spatial dims unless the batch or channels are empty", [](const Ctx& c) {
              return c.dim() >= 2 && c.solved()[0] > 0 && c.solved()[1] > 0 ? 1 : 0;
            }))
            // An empty input returns before its dtype is checked.
            .size(Scope(Ge("1 when its dtype is refused", [](const Ctx& c) {
              auto t = c.tensor().dtype;
              return t == S::Bool || t == S::Half || c10::isComplexType(t) ? 1 : 0;
            }))))
      .in(Tensor("weight").deps("input", "stride", "padding", "dilation", "groups")
            // An empty input returns before the dtypes are compared.
            .dtype(Eq("input.dtype (unless input is empty)", [](const Ctx& c) -> std::optional<c10::ScalarType> {
              if (c.numel("input") == 0) return std::nullopt;
              return c.dtype("input");
            }))
            .rank(Eq("input.rank", [](const Ctx& c) { return c.rank("input"); })))
      .in(TensorOpt("bias").deps("input", "weight")
            .dtype(Unchecked(bias_dtype, Eq("input.dtype", [](const Ctx& c) { return c.dtype("input"); })))
            .rank(Eq(1))
            .size(Eq("weight.size(0)", [](const Ctx& c) { return c.size("weight", 0); })))
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
      .in(Int("groups").deps("input"))
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
      }));
}

}  // namespace

std::span<const SpecFn> conv_pool_specs() {
  static constexpr SpecFn table[] = {convolution};
  return table;
}

}  // namespace opsfuzz::db
