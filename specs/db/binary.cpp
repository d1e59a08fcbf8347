#include "specs/db/families.h"

namespace opsfuzz::db {
using namespace dsl;

namespace {
// The dtypes `alpha` may take for a result dtype: integral results refuse float alpha, and only
// bool results take a bool alpha.
std::vector<ScalarDtype> alpha_dtypes(c10::ScalarType result) {
  if (result == c10::ScalarType::Bool) return {ScalarDtype::Bool, ScalarDtype::Int};
  if (c10::isIntegralType(result, false)) return {ScalarDtype::Int};
  return {ScalarDtype::Int, ScalarDtype::Float};
}
}  // namespace

void add_binary(std::vector<Spec>& db) {
  // add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor
  db.push_back(Spec("add.Tensor")
      .in(Tensor("self"))
      .in(Tensor("other").deps(0)
            .size(broadcastable_with({0})))
      .kw(Scalar("alpha").deps(0, 1)
            .dtype(In([](const Ctx& c) { return alpha_dtypes(promoted(c, {0, 1})); })))
      .out(Tensor("out").deps(0, 1)
            .dtype(Eq([](const Ctx& c) { return promoted(c, {0, 1}); }))));

  // mul.Scalar(Tensor self, Scalar other) -> Tensor
  db.push_back(Spec("mul.Scalar")
      .in(Tensor("self"))
      .in(Scalar("other")));

  // where.self(Tensor condition, Tensor self, Tensor other) -> Tensor
  db.push_back(Spec("where.self")
      .in(Tensor("condition")
            .dtype(In(std::vector{c10::ScalarType::Bool, c10::ScalarType::Byte})))
      .in(Tensor("self").deps(0)
            .size(broadcastable_with({0})))
      .in(Tensor("other").deps(0, 1)
            .size(broadcastable_with({0, 1}))));
}

}  // namespace opsfuzz::db
