#include "specs/db/families.h"

namespace opsfuzz::db {
using namespace dsl;

void add_indexing(std::vector<Spec>& db) {
  // index_select(Tensor self, int dim, Tensor index) -> Tensor
  db.push_back(Spec("index_select.default")
      .in(Tensor("self"))
      .in(Dim("dim").deps(0)
            .value(dim_of(0)))
      .in(Tensor("index").deps(0, 1)
            .dtype(In(std::vector{c10::ScalarType::Long, c10::ScalarType::Int}))
            .rank(Le(1))
            .size(Scope(Named("one index for a zero-dim self", Eq([](const Ctx& c) -> std::optional<int64_t> {
              if (c.rank(0) == 0) return 1;  // more writes past the end of the result in this build
              return std::nullopt;
            }))))
            .value(Named("in range of self.size(dim)", Be(0, [](const Ctx& c) {
              return (c.rank(0) == 0 ? 1 : c.size(0, c.as_int(1))) - 1;
            })))));
}

}  // namespace opsfuzz::db
