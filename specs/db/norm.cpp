#include "specs/db/families.h"

namespace opsfuzz::db {
using namespace dsl;

namespace {
using S = c10::ScalarType;
}  // namespace

void add_norm(std::vector<Spec>& db) {
  // native_group_norm(Tensor input, Tensor? weight, Tensor? bias, SymInt N, SymInt C,
  //                   SymInt HxW, int group, float eps) -> (Tensor, Tensor, Tensor)
  // The kernel checks N, C and HxW only through their product and the rank of the input not
  // at all. Negative C and HxW whose product matches are accepted and return uninitialised
  // memory, so they are a generation scope, not a rule to violate.
  enum { Input, Weight, Bias, N, C, HxW, Group, Eps };
  auto affine = [](const char* name) {
    return TensorOpt(name).deps(Input, C)
        .dtype(Eq([](const Ctx& c) { return c.dtype(Input); }))
        .rank(Eq(1));
  };
  db.push_back(Spec("native_group_norm.default")
      .in(Tensor("input")  // the kernel refuses inputs that are not contiguous in their suggested format
            .contiguous()
            .dtype(In(std::vector{S::Float, S::Double, S::BFloat16})))
      .in(affine("weight"))
      .in(affine("bias"))
      .in(Int("N").deps(Input))
      .in(Int("C").deps(Input))
      .in(Int("HxW").deps(Input))
      .in(Int("group").deps(C))
      .in(Float("eps"))
      .joint("N non-negative", value(N) >= 0)
      .joint_scope("C and HxW non-negative", value(C) >= 0 && value(HxW) >= 0)
      .joint("N * C * HxW == input.numel()", value(N) * value(C) * value(HxW) == numel(Input))
      .joint("group positive", value(Group) >= 1)
      .joint("group divides C", value(C) % value(Group) == 0)
      .joint("weight has C entries", is_none(Weight) || size(Weight, 0) == value(C))
      .joint("bias has C entries", is_none(Bias) || size(Bias, 0) == value(C)));
}

}  // namespace opsfuzz::db
