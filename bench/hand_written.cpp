#include "bench/hand_written.h"

#include "specs/db/families.h"

namespace opsfuzz {
namespace {
using namespace dsl;
using db::param_length;

// weight (out, C / groups, kernel...): out in whole groups, each dilated kernel dim within the
// padded input; sizes 0 to 9.
GenSets weight_size(const Ctx& c) {
  GenSets g;
  const int64_t groups = c.as_int("groups"), d = c.dim();
  auto split = [&](auto&& valid) {
    for (int64_t v = 0; v <= 9; ++v) (valid(v) ? g.valid : g.invalid).push_back(Value(v));
  };
  if (d == 0) split([&](int64_t v) { return v > 0 && v % groups == 0; });
  else if (d == 1) split([&](int64_t v) { return v == c.size("input", 1) / groups; });
  else split([&](int64_t k) {
    const int64_t room = c.size("input", d) + 2 * param(c, "padding", d - 2) - 1;
    return k >= 1 && (k - 1) * param(c, "dilation", d - 2) <= room;
  });
  return g;
}
}  // namespace

Spec hand_written_convolution() {
  using S = c10::ScalarType;
  auto input_dtype = [](const Ctx& c) { return c.dtype("input"); };
  return Spec("convolution.default")
      .in(Tensor("input").dtype(Scope(In(std::vector{S::Float, S::Double}))).rank(Be(3, 5)))
      .in(Tensor("weight").deps("input", "stride", "padding", "dilation", "groups")
            .dtype(Eq("input.dtype", input_dtype))
            .rank(Eq("input.rank", [](const Ctx& c) { return c.rank("input"); }))
            .size(Gen("weight shape", weight_size)))
      .in(TensorOpt("bias").deps("input", "weight")
            .dtype(Scope(Eq("input.dtype", input_dtype)))
            .rank(Eq(1))
            .size(Eq("weight.size(0)", [](const Ctx& c) { return c.size("weight", 0); })))
      .in(LengthList("stride").deps("input").length(param_length("input")).value(Ge(1)))
      .in(LengthList("padding").deps("input").length(param_length("input")).value(Ge(0)))
      .in(LengthList("dilation").deps("input").length(param_length("input")).value(Ge(1)))
      .in(Bool("transposed").value(Scope(Eq(false))))
      .in(LengthList("output_padding").deps("input").length(param_length("input")).value(Ge(0)))
      .in(Int("groups").deps("input")
            .value(Ge(1))
            .value(In("divides input channels", [](const Ctx& c) { return divisors(c.size("input", 1), 8); })));
}

}  // namespace opsfuzz
