// A custom operator of the backend team's, registered with the dispatcher, and its opsfuzz spec.
#include <ATen/ATen.h>
#include <torch/library.h>

#include "specs/db/db.h"
#include "specs/model/dsl.h"

namespace {

// scaled_add(Tensor self, Tensor other, float alpha=1) -> Tensor: self + alpha * other, for
// float and double tensors of one shape and dtype.
at::Tensor scaled_add(const at::Tensor& self, const at::Tensor& other, double alpha) {
  TORCH_CHECK(self.sizes() == other.sizes(), "scaled_add: self and other must have one shape, got ", self.sizes(),
              " and ", other.sizes());
  TORCH_CHECK(self.scalar_type() == other.scalar_type(), "scaled_add: self and other must have one dtype, got ",
              self.scalar_type(), " and ", other.scalar_type());
  TORCH_CHECK(self.scalar_type() == at::kFloat || self.scalar_type() == at::kDouble,
              "scaled_add: float or double tensors only, got ", self.scalar_type());
  return self + other * alpha;
}

}  // namespace

TORCH_LIBRARY(opsfuzz_example, m) { m.def("scaled_add(Tensor self, Tensor other, float alpha=1) -> Tensor"); }
TORCH_LIBRARY_IMPL(opsfuzz_example, CPU, m) { m.impl("scaled_add", scaled_add); }

// Its contract: other has self's shape and dtype, float or double.
opsfuzz::Spec scaled_add_spec() {
  using namespace opsfuzz::dsl;
  using opsfuzz::Ctx;
  return opsfuzz::Spec("opsfuzz_example::scaled_add.default")
      .in(Tensor("self").dtype(In(std::vector{c10::kFloat, c10::kDouble})))
      .in(Tensor("other")
              .deps("self")
              .dtype(Eq("self.dtype", [](const Ctx& c) { return c.dtype("self"); }))
              .rank(Eq("self.rank", [](const Ctx& c) { return c.rank("self"); }))
              .size(Eq("self.size(dim)", [](const Ctx& c) { return c.size("self", c.dim()); })))
      .in(Float("alpha"));
}
OPSFUZZ_REGISTER_SPEC(scaled_add_spec);
