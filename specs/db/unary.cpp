#include "specs/db/families.h"

namespace opsfuzz::db {
using namespace dsl;

namespace {

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
  static constexpr SpecFn table[] = {clamp};
  return table;
}

}  // namespace opsfuzz::db
