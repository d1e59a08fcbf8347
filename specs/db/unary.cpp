#include "specs/db/families.h"

namespace opsfuzz::db {
using namespace dsl;

Spec unary_pointwise(std::string op, std::vector<c10::ScalarType> dtypes) {
  ArgSpec self = Tensor("self");
  if (!dtypes.empty()) self.dtype(In(std::move(dtypes)));
  return Spec(std::move(op)).in(std::move(self));
}

namespace {
using S = c10::ScalarType;

// neg(Tensor self) -> Tensor: not for bool (logical_not is)
Spec neg() {
  return unary_pointwise("neg.default", {S::Byte, S::Char, S::Short, S::Int, S::Long, S::Half, S::BFloat16, S::Float, S::Double});
}
// logical_not(Tensor self) -> Tensor
Spec logical_not() { return unary_pointwise("logical_not.default"); }
// isnan(Tensor self) -> Tensor
Spec isnan() { return unary_pointwise("isnan.default"); }

// clamp(Tensor self, Scalar? min=None, Scalar? max=None) -> Tensor
Spec clamp() {
  auto bool_half = deviation("clamp.bool_half_self",
      "clamp refuses bool and float16 self for some min/max combinations and takes them for others",
      "ops-fuzz sweep clamp.default --config contract,half --seed 0 --max 300");
  return Spec("clamp.default")
      .in(Tensor("self")
            .dtype(Avoid(bool_half, NotIn(std::vector{c10::ScalarType::Bool, c10::ScalarType::Half}))))
      .in(ScalarOpt("min"))
      .in(ScalarOpt("max").deps("min")
            .optional(Named("min or max is given", Eq("False when min is None", [](const Ctx& c) -> std::optional<bool> {
              if (c.is_none("min")) return false;
              return std::nullopt;
            }))));
}

}  // namespace

std::span<const SpecFn> unary_specs() {
  static constexpr SpecFn table[] = {clamp, neg, logical_not, isnan};
  return table;
}

}  // namespace opsfuzz::db
