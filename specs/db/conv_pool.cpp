#include "specs/db/families.h"

namespace opsfuzz::db {
using namespace dsl;

namespace {
using S = c10::ScalarType;

// A per-spatial-dim parameter list: one value for all dims, or one per dim.
Cond param_length(int input) {
  return Named("one or one per spatial dim", In([input](const Ctx& c) { return IntList{1, c.rank(input) - 2}; }));
}

// The spatial output size of a convolution or pooling window (ATen's pooling_output_shape):
// the last window must start inside the input or the left padding.
Term window_count(Term in, Term kernel, Term stride, Term pad, Term dilation, Term ceil) {
  Term span = in + 2 * pad - dilation * (kernel - 1) - 1;
  Term out = (span + ite(ceil, stride - 1, 0)) / stride + 1;
  return ite(ceil && (out - 1) * stride >= in + pad, out - 1, out);
}

// The rules shared by max_pool2d_with_indices and avg_pool2d; dilation -1 means none.
struct Pool2d {
  int self, kernel, stride, padding, dilation, ceil;
  Term at(int list, int64_t axis) const { return list < 0 ? Term(1) : param(list, axis); }
  Term stride_at(int64_t axis) const {  // an empty stride is the kernel size
    return ite(length(stride) == 0, param(kernel, axis), param(stride, axis));
  }
  Term both_axes(const std::function<Term(int64_t)>& rule) const { return rule(0) && rule(1); }
  Term padding_fits() const {
    return both_axes([&](int64_t a) { return param(padding, a) <= param(kernel, a) / 2; });
  }
  Term output_positive() const {
    return both_axes([&](int64_t a) {
      return window_count(size(self, a - 2), param(kernel, a), stride_at(a), param(padding, a), at(dilation, a),
                          value(ceil)) >= 1;
    });
  }
};

// Pooling takes (C, H, W) or (N, C, H, W); only N may be empty.
ArgSpec pool_input(std::vector<c10::ScalarType> dtypes) {
  return Tensor("self")
      .dtype(In(std::move(dtypes)))
      .rank(Be(3, 4))
      .size(Named("only the batch dim may be empty", Ge([](const Ctx& c) { return c.index == 0 && c.count == 4 ? 0 : 1; })));
}
}  // namespace

void add_conv_pool(std::vector<Spec>& db) {
  // convolution(Tensor input, Tensor weight, Tensor? bias, int[] stride, SymInt[] padding,
  //             int[] dilation, bool transposed, SymInt[] output_padding, int groups) -> Tensor
  enum { Input, Weight, Bias, Stride, Padding, Dilation, Transposed, OutputPadding, Groups };
  db.push_back(Spec("convolution.default")
      .in(Tensor("input")
            // Some integral convolutions run in this build, others do not: generate floats only.
            .dtype(Scope(In(std::vector{S::Float, S::Double})))
            .rank(Be(3, 5))
            .size(Named("spatial dims empty only with no batch or no channels", Ge([](const Ctx& c) {
              return c.index >= 2 && (*c.partial)[0] > 0 && (*c.partial)[1] > 0 ? 1 : 0;
            }))))
      .in(Tensor("weight").deps(Input, Stride, Padding, Dilation, Groups)
            // An empty input returns before the dtypes are compared.
            .dtype(Eq([](const Ctx& c) -> std::optional<c10::ScalarType> {
              if (c.numel(Input) == 0) return std::nullopt;
              return c.dtype(Input);
            }))
            .rank(Eq([](const Ctx& c) { return c.rank(Input); })))
      .in(TensorOpt("bias").deps(Input, Weight)
            .dtype(Scope(Eq([](const Ctx& c) { return c.dtype(Input); })))  // some mixes run
            .rank(Eq(1))
            .size(Eq([](const Ctx& c) { return c.size(Weight, 0); })))
      .in(LengthList("stride").deps(Input)
            .length(param_length(Input)))
      .in(LengthList("padding").deps(Input)
            .length(param_length(Input)))
      .in(LengthList("dilation").deps(Input)
            .length(param_length(Input)))
      .in(Bool("transposed")
            .value(Scope(Eq(false))))
      .in(LengthList("output_padding").deps(Input)
            .length(param_length(Input))
            .value(Ge(0)))
      .in(Int("groups").deps(Input))
      .joint("stride positive", all_entries(Stride, [](Term s) { return s >= 1; }))
      .joint("padding non-negative", all_entries(Padding, [](Term p) { return p >= 0; }))
      .joint("dilation positive", all_entries(Dilation, [](Term d) { return d >= 1; }))
      .joint("groups positive", value(Groups) >= 1)
      .joint("groups divide input channels", size(Input, 1) % value(Groups) == 0)
      .joint("groups divide output channels", size(Weight, 0) % value(Groups) == 0)
      .joint("at least groups output channels", size(Weight, 0) >= value(Groups))
      .joint("weight.size(1) * groups == input channels", size(Weight, 1) * value(Groups) == size(Input, 1))
      .joint("non-empty kernel that fits the padded input", all(dims(Input, 2), [](int64_t d) {
        return size(Weight, d) >= 1 &&
               param(Dilation, d - 2) * (size(Weight, d) - 1) + 1 <= size(Input, d) + 2 * param(Padding, d - 2);
      })));

  // max_pool2d_with_indices(Tensor self, int[2] kernel_size, int[2] stride=[], int[2] padding=0,
  //                         int[2] dilation=1, bool ceil_mode=False) -> (Tensor, Tensor)
  // Large dilations wrap the output size in 32 bits and read out of bounds: the limits keep
  // every value small.
  {
    enum { Self, Kernel, Stride, Padding, Dilation, Ceil };
    Pool2d pool{Self, Kernel, Stride, Padding, Dilation, Ceil};
    db.push_back(Spec("max_pool2d_with_indices.default")
        .in(pool_input({S::Float, S::Double, S::BFloat16}))
        .in(LengthList("kernel_size").length(In(IntList{1, 2})))
        .in(LengthList("stride").length(In(IntList{0, 1, 2})))
        .in(LengthList("padding").length(In(IntList{1, 2})))
        .in(LengthList("dilation").length(In(IntList{1, 2})))
        .in(Bool("ceil_mode"))
        .joint("kernel positive", all_entries(Kernel, [](Term k) { return k >= 1; }))
        .joint("stride positive", all_entries(Stride, [](Term s) { return s >= 1; }))
        .joint("padding non-negative", all_entries(Padding, [](Term p) { return p >= 0; }))
        .joint("dilation positive", all_entries(Dilation, [](Term d) { return d >= 1; }))
        .joint("padding at most half the kernel", pool.padding_fits())
        .joint("output size positive", pool.output_positive()));
  }

  // avg_pool2d(Tensor self, int[2] kernel_size, int[2] stride=[], int[2] padding=0,
  //            bool ceil_mode=False, bool count_include_pad=True, int? divisor_override=None)
  {
    enum { Self, Kernel, Stride, Padding, Ceil, CountIncludePad, Divisor };
    Pool2d pool{Self, Kernel, Stride, Padding, -1, Ceil};
    db.push_back(Spec("avg_pool2d.default")
        .in(pool_input({S::Float, S::Double, S::BFloat16, S::Long}))
        .in(LengthList("kernel_size").length(In(IntList{1, 2})))
        .in(LengthList("stride").length(In(IntList{0, 1, 2})))
        .in(LengthList("padding").length(In(IntList{1, 2})))
        .in(Bool("ceil_mode"))
        .in(Bool("count_include_pad"))
        .in(IntOpt("divisor_override").value(Ne(0)))
        .joint("kernel positive", all_entries(Kernel, [](Term k) { return k >= 1; }))
        .joint("stride positive", all_entries(Stride, [](Term s) { return s >= 1; }))
        .joint("padding non-negative", all_entries(Padding, [](Term p) { return p >= 0; }))
        .joint("padding at most half the kernel", pool.padding_fits())
        .joint("output size positive", pool.output_positive()));
  }
}

}  // namespace opsfuzz::db
