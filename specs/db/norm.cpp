#include "specs/db/families.h"

namespace opsfuzz::db {
using namespace dsl;

namespace {
using S = c10::ScalarType;

// native_group_norm(Tensor input, Tensor? weight, Tensor? bias, SymInt N, SymInt C,
//                   SymInt HxW, int group, float eps) -> (Tensor, Tensor, Tensor)
// The kernel checks N, C and HxW only through their product, and the rank of the input not at all.
Spec native_group_norm() {
  auto layouts = deviation("native_group_norm.non_contiguous_input",
      "the kernel refuses inputs that are not contiguous in their suggested memory format "
      "(\"Expected X.is_contiguous(memory_format)\")",
      "ops-fuzz sweep native_group_norm.default --config contract,transposed,strided --seed 0 --max 300");
  auto negative = deviation("native_group_norm.negative_c_hxw",
      "negative C and HxW whose product matches are accepted and return uninitialised memory",
      "ops-fuzz sweep native_group_norm.default --invalid --config contract --seed 0 --max 300");
  auto affine = [](const char* name) {
    return TensorOpt(name).deps("input", "C")
        .dtype(Eq("input.dtype", [](const Ctx& c) { return c.dtype("input"); }))
        .rank(Eq(1));
  };
  return Spec("native_group_norm.default")
      .in(Tensor("input")
            .contiguous(layouts)
            .dtype(In(std::vector{S::Float, S::Double, S::BFloat16})))
      .in(affine("weight"))
      .in(affine("bias"))
      .in(Int("N").deps("input"))
      .in(Int("C").deps("input"))
      .in(Int("HxW").deps("input"))
      .in(Int("group").deps("C"))
      .in(Float("eps"))
      .joint("N >= 0", value("N") >= 0)
      .joint_unchecked(negative, "C >= 0 and HxW >= 0", value("C") >= 0 && value("HxW") >= 0)
      .joint("N * C * HxW == input.numel()", value("N") * value("C") * value("HxW") == numel("input"))
      .joint("group >= 1", value("group") >= 1)
      .joint("C % group == 0", value("C") % value("group") == 0)
      .joint("weight is None or weight.size(0) == C", is_none("weight") || size("weight", 0) == value("C"))
      .joint("bias is None or bias.size(0) == C", is_none("bias") || size("bias", 0) == value("C"));
}

}  // namespace

std::span<const SpecFn> norm_specs() {
  static constexpr SpecFn table[] = {native_group_norm};
  return table;
}

}  // namespace opsfuzz::db
