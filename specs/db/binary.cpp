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

// add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor
Spec add_tensor() {
  return Spec("add.Tensor")
      .in(Tensor("self"))
      .in(Tensor("other").deps("self")
            .size(broadcastable_with({"self"})))
      .kw(Scalar("alpha").deps("self", "other")
            .dtype(In("{int} for integral self and other, {bool, int} for bool, {int, float} otherwise", [](const Ctx& c) {
              return alpha_dtypes(promoted(c, {"self", "other"}));
            })))
      .out(Tensor("out").deps("self", "other")
            .dtype(Eq("the promoted dtype of self and other", [](const Ctx& c) { return promoted(c, {"self", "other"}); })));
}

// mul.Scalar(Tensor self, Scalar other) -> Tensor
Spec mul_scalar() {
  return Spec("mul.Scalar")
      .in(Tensor("self"))
      .in(Scalar("other"));
}

// where.self(Tensor condition, Tensor self, Tensor other) -> Tensor
Spec where_self() {
  return Spec("where.self")
      .in(Tensor("condition")
            .dtype(In(std::vector{c10::ScalarType::Bool, c10::ScalarType::Byte})))
      .in(Tensor("self").deps("condition")
            .size(broadcastable_with({"condition"})))
      .in(Tensor("other").deps("condition", "self")
            .size(broadcastable_with({"condition", "self"})));
}

}  // namespace

std::span<const SpecFn> binary_specs() {
  static constexpr SpecFn table[] = {add_tensor, mul_scalar, where_self};
  return table;
}

}  // namespace opsfuzz::db
