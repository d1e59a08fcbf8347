#include "bench/hand_written.h"

#include "specs/db/families.h"

namespace opsfuzz {
namespace {
using namespace dsl;
using db::param_length;

constexpr int64_t kMaxWeightSize = 9;
constexpr int64_t kMaxGroups = 8;

// weight (out, C / groups, kernel...): out in whole groups, each dilated kernel dim within the
// padded input; sizes 0 to 9.
GenSets weight_size(const Ctx& c) {
  const int64_t groups = c.as_int("groups"), d = c.dim();
  if (d == 0) return split(0, kMaxWeightSize, [groups](int64_t v) { return v > 0 && v % groups == 0; });
  if (d == 1) return split(0, kMaxWeightSize, [n = c.size("input", 1) / groups](int64_t v) { return v == n; });
  const int64_t room = c.size("input", d) + 2 * param(c, "padding", d - 2) - 1;
  const int64_t dilation = param(c, "dilation", d - 2);
  return split(0, kMaxWeightSize, [room, dilation](int64_t k) { return k >= 1 && (k - 1) * dilation <= room; });
}

// The baseline's arguments; `weight` and `groups` as the caller ties them to the others.
Spec convolution_baseline(ArgSpec weight, ArgSpec groups) {
  using S = c10::ScalarType;
  auto input_dtype = [](const Ctx& c) { return c.dtype("input"); };
  return Spec("convolution.default")
      .in(Tensor("input").dtype(Scope(In(std::vector{S::Float, S::Double}))).rank(Be(3, 5)))
      .in(std::move(weight.deps("input", "stride", "padding", "dilation", "groups")
                        .dtype(Eq("input.dtype", input_dtype))
                        .rank(Eq("input.rank", [](const Ctx& c) { return c.rank("input"); }))))
      .in(TensorOpt("bias")
              .deps("input", "weight")
              .dtype(Scope(Eq("input.dtype", input_dtype)))
              .rank(Eq(1))
              .size(Eq("weight.size(0)", [](const Ctx& c) { return c.size("weight", 0); })))
      .in(LengthList("stride").deps("input").length(param_length("input")).value(Ge(1)))
      .in(LengthList("padding").deps("input").length(param_length("input")).value(Ge(0)))
      .in(LengthList("dilation").deps("input").length(param_length("input")).value(Ge(1)))
      .in(Bool("transposed").value(Scope(Eq(false))))
      .in(LengthList("output_padding").deps("input").length(param_length("input")).value(Ge(0)))
      .in(std::move(groups.deps("input").value(Ge(1))));
}
}  // namespace

Spec hand_written_convolution() {
  return convolution_baseline(std::move(Tensor("weight").size(Gen("weight shape", weight_size))),
                              std::move(Int("groups").value(In("divides input channels", [](const Ctx& c) {
                                return divisors(c.size("input", 1), kMaxGroups);
                              }))));
}

Spec hand_written_convolution_as_joint() {
  Spec spec = convolution_baseline(std::move(Tensor("weight").size(Le(kMaxWeightSize))),
                                   std::move(Int("groups").value(Le(kMaxGroups))));
  return spec
      .joint("groups divides input.size(1)",
             size("input", 1) % value("groups") == 0 && value("groups") <= size("input", 1))
      .joint("weight.size(0) > 0 in whole groups", size("weight", 0) % value("groups") == 0 && size("weight", 0) > 0)
      .joint("weight.size(1) == input.size(1) / groups", size("weight", 1) * value("groups") == size("input", 1))
      .joint("each kernel dim >= 1 and its dilated extent fits the padded input", all(dims("input", 2), [](int64_t d) {
               return size("weight", d) >= 1 && param("dilation", d - 2) * (size("weight", d) - 1) + 1 <=
                                                    size("input", d) + 2 * param("padding", d - 2);
             }));
}

}  // namespace opsfuzz
