// The backend team's test program: SpecDB samples, a YAML suite and a custom operator's samples
// as GoogleTest tests on the toy backend, one test per (sample or test id, target).
#include <gtest/gtest.h>

#include <ATen/ATen.h>

#include <cstdio>
#include <map>

#include "opcall/opcall.h"
#include "specs/db/db.h"
#include "specs/model/schema_check.h"
#include "testing/gtest.h"
#include "toy_backend.h"

namespace {

using opsfuzz::gtest::SpecDBTests;
using opsfuzz::gtest::YamlTests;

constexpr const char* kCustomOp = "opsfuzz_example::scaled_add.default";

TEST(CustomOp, SpecAgreesWithTheRegisteredSchema) {
  const opsfuzz::Spec* spec = opsfuzz::find_spec(kCustomOp);
  ASSERT_NE(spec, nullptr);
  auto problems = opsfuzz::schema_mismatches(*spec, opsfuzz::opcall::find_op(kCustomOp).schema());
  EXPECT_TRUE(problems.empty()) << problems.front();
}

// Equal values, NaN equal to NaN.
bool same_values(const at::Tensor& a, const at::Tensor& b) {
  return a.sizes() == b.sizes() && a.scalar_type() == b.scalar_type() && ((a == b) | (a != a)).all().item<bool>();
}

// A check that changes its inputs in place: the next test of the same sample (another target)
// must still see the values the first one saw, since each test gets its own deep copy.
std::optional<std::string> overwrite_inputs(opsfuzz::runner::Item& item, const std::string& target) {
  static std::map<std::string, at::Tensor> first_seen;
  at::Tensor self = item.sides.at(0).call->args.at(0).toTensor();
  auto [seen, first] = first_seen.try_emplace(item.id, self.clone());
  if (!first && !same_values(self, seen->second))
    return "the inputs of " + item.id + " on " + target + " were changed by an earlier test";
  self.fill_(7);
  return std::nullopt;
}

void register_tests() {
  // Passing tests; skipped on the accelerator this machine lacks; none on TorchScript.
  SpecDBTests("add.Tensor,mul.Tensor")
      .valid(3)
      .targets({"toy_cpu", "toy_gpu", "torchscript_cpu"})
      .exclude({"torchscript_cpu"})
      .register_tests();
  // The toy's clamp bug, known: XFAIL (sample 2); samples 0 and 1 pass (XPASS: no lower bound).
  SpecDBTests("clamp.default")
      .valid(3)
      .targets({"toy_cpu"})
      .known_failing({"toy_cpu"}, "the toy clamp's lower bound is off by one")
      .register_tests();
  // The YAML suite: its clamp test catches the bug (a failure), its add test passes.
  YamlTests(SUITE_YAML).targets({"toy_cpu"}).register_tests();
  // The custom operator: valid samples accepted, invalid ones refused, by its kernel.
  SpecDBTests("opsfuzz_example::*").valid(8).baseline("").register_tests();
  SpecDBTests("opsfuzz_example::*").invalid(8).baseline("").register_tests();
  // Cached fixtures are handed out as deep copies.
  SpecDBTests("mul.Tensor")
      .valid(2)
      .seed(5)
      .targets({"eager_cpu", "eager_cpu_fp64"})
      .check(overwrite_inputs)
      .register_tests();
}

}  // namespace

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  register_toy_backends();
  register_tests();
  int status = RUN_ALL_TESTS();
  auto cache = opsfuzz::gtest::cache_stats();
  std::printf("opsfuzz fixtures: %zu built, %zu released, %zu held\n", cache.builds, cache.released, cache.live);
  return status;
}
