#include "specs/db/families.h"

namespace opsfuzz::db {
using namespace dsl;

namespace {
using S = c10::ScalarType;

// sum.dim_IntList(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor
Spec sum_dim() {
  return Spec("sum.dim_IntList")
      .in(Tensor("self"))
      .in(DimListOpt("dim").deps("self")
            .length(Le("self.rank", [](const Ctx& c) { return dim_rank(c, "self"); }))
            .value(dim_of("self"))
            .value(unique_dim_of("self")))
      .in(Bool("keepdim"))
      .kw(ScalarTypeOpt("dtype"));
}

// _softmax(Tensor self, int dim, bool half_to_float) -> Tensor
Spec softmax() {
  return Spec("_softmax.default")
      .in(Tensor("self")
            .dtype(In(std::vector{S::Float, S::Double, S::BFloat16}))
            // An empty tensor returns before its dtype is checked.
            .size(Scope(Ge("1 when its dtype is refused", [](const Ctx& c) {
              auto t = c.tensor().dtype;
              return t == S::Float || t == S::Double || t == S::BFloat16 ? 0 : 1;
            }))))
      .in(Dim("dim").deps("self")
            .value(dim_of("self")))
      .in(Bool("half_to_float")
            .value(Named("half_to_float is False on CPU", Eq(false))));
}

// topk(Tensor self, SymInt k, int dim=-1, bool largest=True, bool sorted=True) -> (Tensor values, Tensor indices)
Spec topk() {
  auto bool_half = deviation("topk.bool_half_self",
      "topk refuses bool and float16 self on some paths and takes them on early-return ones",
      "ops-fuzz sweep topk.default --config contract,half --seed 0 --max 300");
  return Spec("topk.default")
      .in(Tensor("self")
            .dtype(Avoid(bool_half, NotIn(std::vector{S::Bool, S::Half}))))
      .in(Length("k").deps("self", "dim")
            .value(Be(0, expr("self.size(dim)", [](const Ctx& c) {
              return c.rank("self") == 0 ? 1 : c.size("self", c.as_int("dim"));
            }))))
      .in(Dim("dim").deps("self")
            .value(dim_of("self")))
      .in(Bool("largest"))
      .in(Bool("sorted"));
}

}  // namespace

std::span<const SpecFn> reduction_specs() {
  static constexpr SpecFn table[] = {sum_dim, softmax, topk};
  return table;
}

}  // namespace opsfuzz::db
