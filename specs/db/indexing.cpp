#include "specs/db/families.h"

namespace opsfuzz::db {
using namespace dsl;

namespace {

// index_select(Tensor self, int dim, Tensor index) -> Tensor
Spec index_select() {
  auto many_indices = deviation("index_select.zero_dim_self_many_indices",
      "a zero-dim self with more than one index writes past the end of the result (heap corruption, "
      "often a crash in a later allocation)",
      "ops-fuzz sweep index_select.default --config contract --seed 0 --max 300");
  return Spec("index_select.default")
      .in(Tensor("self"))
      .in(Dim("dim").deps("self")
            .value(dim_of("self")))
      .in(Tensor("index").deps("self", "dim")
            .dtype(In(std::vector{c10::ScalarType::Long, c10::ScalarType::Int}))
            .rank(Le(1))
            // An empty dim has no index in range: no indices (implied by the rule on the values).
            .rank(Scope(Eq("1 when self.size(dim) is 0", [](const Ctx& c) -> std::optional<int64_t> {
              if (c.rank("self") > 0 && c.size("self", c.as_int("dim")) == 0) return 1;
              return std::nullopt;
            })))
            .size(Scope(Eq("0 when self.size(dim) is 0", [](const Ctx& c) -> std::optional<int64_t> {
              if (c.rank("self") > 0 && c.size("self", c.as_int("dim")) == 0) return 0;
              return std::nullopt;
            })))
            .size(Avoid(many_indices, Eq("1 when self is zero-dim", [](const Ctx& c) -> std::optional<int64_t> {
              if (c.rank("self") == 0) return 1;
              return std::nullopt;
            })))
            .value(Be(0, expr("self.size(dim) - 1", [](const Ctx& c) {
              return (c.rank("self") == 0 ? 1 : c.size("self", c.as_int("dim"))) - 1;
            }))));
}

}  // namespace

std::span<const SpecFn> indexing_specs() {
  static constexpr SpecFn table[] = {index_select};
  return table;
}

}  // namespace opsfuzz::db
