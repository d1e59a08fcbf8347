#include "specs/db/families.h"

namespace opsfuzz::db {
using namespace dsl;

namespace {
enum Arg { Input, Weight, Bias, Stride, Padding, Dilation, Transposed, OutputPadding, Groups };

int64_t spatial(const Ctx& c) { return c.rank(Input) - 2; }

// A per-spatial-dim parameter list: one value for all dims, or one per dim.
Cond param_length() {
  return Named("one or one per spatial dim", In([](const Ctx& c) { return IntList{1, spatial(c)}; }));
}
}  // namespace

void add_conv_pool(std::vector<Spec>& db) {
  // convolution(Tensor input, Tensor weight, Tensor? bias, int[] stride, SymInt[] padding,
  //             int[] dilation, bool transposed, SymInt[] output_padding, int groups) -> Tensor
  db.push_back(Spec("convolution.default")
      .in(Tensor("input")
            // Some integral convolutions run in this build, others do not: generate floats only.
            .dtype(Scope(In(std::vector{c10::ScalarType::Float, c10::ScalarType::Double})))
            .rank(Be(3, 5)))
      .in(Tensor("weight").deps(Input, Stride, Padding, Dilation, Groups)
            .dtype(Eq([](const Ctx& c) { return c.dtype(Input); }))
            .rank(Eq([](const Ctx& c) { return c.rank(Input); }))
            .size(Named("weight shape", Gen([](const Ctx& c) {
              GenSets g;
              int64_t groups = c.as_int(Groups);
              auto split = [&](auto&& ok) {
                for (int64_t v = 0; v <= 9; ++v) (ok(v) ? g.valid : g.invalid).push_back(v);
              };
              if (c.index == 0) split([&](int64_t v) { return v > 0 && v % groups == 0; });
              else if (c.index == 1) split([&](int64_t v) { return v == c.size(Input, 1) / groups; });
              else {
                int64_t i = c.index - 2;
                int64_t room = c.size(Input, c.index) + 2 * param(c, Padding, i) - 1;
                split([&](int64_t k) { return k >= 1 && (k - 1) * param(c, Dilation, i) <= room; });
              }
              return g;
            }))))
      .in(TensorOpt("bias").deps(Input, Weight)
            .dtype(Scope(Eq([](const Ctx& c) { return c.dtype(Input); })))  // some mixes run
            .rank(Eq(1))
            .size(Eq([](const Ctx& c) { return c.size(Weight, 0); })))
      .in(LengthList("stride").deps(Input)
            .length(param_length())
            .value(Ge(1)))
      .in(LengthList("padding").deps(Input)
            .length(param_length())
            .value(Ge(0)))
      .in(LengthList("dilation").deps(Input)
            .length(param_length())
            .value(Ge(1)))
      .in(Bool("transposed")
            .value(Scope(Eq(false))))
      .in(LengthList("output_padding").deps(Input)
            .length(param_length())
            .value(Ge(0)))
      .in(Int("groups").deps(Input)
            .value(Ge(1))
            .value(Named("divides input channels", In([](const Ctx& c) { return divisors(c.size(Input, 1), 8); })))));
}

}  // namespace opsfuzz::db
