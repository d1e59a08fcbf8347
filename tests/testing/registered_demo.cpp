// A program that registers tests through opsfuzz::gtest, run by gtest_support_test.cpp with
// different environments and filters (its own outcome is what those tests check).
#include <gtest/gtest.h>

#include <cstdio>

#include "generators/generators.h"
#include "specs/db/db.h"
#include "specs/model/dsl.h"
#include "testing/gtest.h"

namespace {

using opsfuzz::gtest::SpecDBTests;
using opsfuzz::gtest::YamlTests;

// A user's replacement of the SpecDB's abs spec: matrices only.
opsfuzz::Spec abs_of_matrices() {
  using namespace opsfuzz::dsl;
  return opsfuzz::Spec("abs.default").in(Tensor("self").rank(Eq(2)));
}
OPSFUZZ_REGISTER_SPEC(abs_of_matrices);

TEST(UserSpecs, ReplaceTheSpecDBsOfTheSameOp) {
  const opsfuzz::Spec* spec = opsfuzz::find_spec("abs.default");
  ASSERT_NE(spec, nullptr);
  size_t n = 0;
  for (const auto& s : opsfuzz::spec_db()) n += s.op() == "abs.default";
  EXPECT_EQ(n, 1u);
  for (const auto& sample : opsfuzz::generate_samples(*spec, opsfuzz::Config{}, 0, opsfuzz::Validity::Valid, 50))
    EXPECT_EQ(sample.args.at(0).toTensor().dim(), 2);
}

void register_tests() {
  SpecDBTests("abs.default").valid(2).targets({"eager_cpu_fp64"}).register_tests();
  SpecDBTests("neg.default")
      .valid(2)
      .targets({"eager_cpu", "eager_cpu_fp64", "eager_cpu_noncontig"})
      .only({"eager_cpu_fp64", "eager_cpu_noncontig"})
      .exclude({"eager_cpu_noncontig"})
      .register_tests();
  SpecDBTests("sqrt.default").valid(2).targets({"no_such_backend", "eager_cpu"}).register_tests();
  YamlTests(SETUP_FAILURE_YAML).register_tests();
  // prod's rules refuse float16 and bfloat16, which only the half configuration generates.
  SpecDBTests("prod.default").invalid(1).targets({"eager_cpu_fp64"}).register_tests();
  try {
    SpecDBTests("abs.default").valid(1).targets({"eager_cpu_fp64"}).register_tests();
  } catch (const std::invalid_argument& e) { std::printf("second registration: %s\n", e.what()); }
}

}  // namespace

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  register_tests();
  int status = RUN_ALL_TESTS();
  auto cache = opsfuzz::gtest::cache_stats();
  std::printf("fixtures: %zu built, %zu released, %zu held\n", cache.builds, cache.released, cache.live);
  return status;
}
