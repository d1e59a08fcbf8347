#include "specs/db/families.h"

namespace opsfuzz::db {
using namespace dsl;

void add_reduction(std::vector<Spec>& db) {
  // sum.dim_IntList(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor
  db.push_back(Spec("sum.dim_IntList")
      .in(Tensor("self"))
      .in(DimListOpt("dim").deps(0)
            .length(Le([](const Ctx& c) { return dim_rank(c, 0); }))
            .value(dim_of(0))
            .value(unique_dim_of(0)))
      .in(Bool("keepdim"))
      .kw(ScalarTypeOpt("dtype")));

  // _softmax(Tensor self, int dim, bool half_to_float) -> Tensor
  db.push_back(Spec("_softmax.default")
      .in(Tensor("self")
            .dtype(In(std::vector{c10::ScalarType::Float, c10::ScalarType::Double, c10::ScalarType::BFloat16}))
            // An empty tensor returns before its dtype is checked.
            .size(Scope(Named("non-empty when the dtype is refused", Ge([](const Ctx& c) {
              auto t = c.self().tensors.back().dtype;
              return t == c10::ScalarType::Float || t == c10::ScalarType::Double || t == c10::ScalarType::BFloat16 ? 0 : 1;
            })))))
      .in(Dim("dim").deps(0)
            .value(dim_of(0)))
      .in(Bool("half_to_float")
            .value(Named("no half_to_float on CPU", Eq(false)))));

  // topk(Tensor self, SymInt k, int dim=-1, bool largest=True, bool sorted=True) -> (Tensor values, Tensor indices)
  db.push_back(Spec("topk.default")
      .in(Tensor("self")  // bool and float16 are refused, but not on every early-return path
            .dtype(Scope(NotIn(std::vector{c10::ScalarType::Bool, c10::ScalarType::Half}))))
      .in(Length("k").deps(0, 2)
            .value(Be(0, [](const Ctx& c) { return c.rank(0) == 0 ? 1 : c.size(0, c.as_int(2)); })))
      .in(Dim("dim").deps(0)
            .value(dim_of(0)))
      .in(Bool("largest"))
      .in(Bool("sorted")));
}

}  // namespace opsfuzz::db
