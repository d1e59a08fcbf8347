#include "specs/db/families.h"

namespace opsfuzz::db {
using namespace dsl;

void add_unary(std::vector<Spec>& db) {
  // clamp(Tensor self, Scalar? min=None, Scalar? max=None) -> Tensor
  db.push_back(Spec("clamp.default")
      .in(Tensor("self")  // bool and float16 run for some min/max combinations only
            .dtype(Scope(NotIn(std::vector{c10::ScalarType::Bool, c10::ScalarType::Half}))))
      .in(ScalarOpt("min"))
      .in(ScalarOpt("max").deps(1)
            .optional(Named("min or max given", Eq([](const Ctx& c) -> std::optional<bool> {
              if (c.is_none(1)) return false;
              return std::nullopt;
            })))));
}

}  // namespace opsfuzz::db
