// The SpecDB sweep: every spec's valid samples must run on the CPU kernels, and at least 98 %
// of its invalid samples must be refused. Kernels run in forked children.
#include "generators/execute.h"
#include "specs/db/db.h"

#include <ATen/Parallel.h>
#include <gtest/gtest.h>

#include <set>
#include <tuple>

namespace opsfuzz {
namespace {

constexpr size_t kSamples = 300;

std::vector<Sample> generate(const Spec& spec, Validity v) {
  ArgumentTupleGenerator gen(spec, Config{}, 2026, v);
  std::vector<Sample> out;
  Sample s;
  while (out.size() < kSamples && gen.next(s)) out.push_back(s);
  return out;
}

class SpecDB : public ::testing::TestWithParam<const Spec*> {
 protected:
  static void SetUpTestSuite() { at::set_num_threads(1); }
};

TEST_P(SpecDB, ValidSamplesAreAccepted) {
  auto samples = generate(*GetParam(), Validity::Valid);
  ASSERT_EQ(samples.size(), kSamples);
  auto outcomes = execute_isolated(samples);
  for (size_t i = 0; i < samples.size(); ++i)
    EXPECT_EQ(outcomes[i].kind, Outcome::Accepted)
        << GetParam()->op() << " #" << samples[i].index << ": " << outcomes[i].message;
}

TEST_P(SpecDB, InvalidSamplesAreRejected) {
  auto samples = generate(*GetParam(), Validity::Invalid);
  if (samples.empty()) GTEST_SKIP() << GetParam()->op() << " has no constraint to violate";
  auto outcomes = execute_isolated(samples);
  size_t accepted = 0;
  for (size_t i = 0; i < samples.size(); ++i)
    if (outcomes[i].kind == Outcome::Accepted) {
      ++accepted;
      std::printf("accepted invalid %s #%llu: %s\n", GetParam()->op().c_str(),
                  static_cast<unsigned long long>(samples[i].index), samples[i].violated.c_str());
    }
  double rejected = 1.0 - static_cast<double>(accepted) / samples.size();
  std::printf("%s: %.1f %% of %zu invalid samples rejected\n", GetParam()->op().c_str(), 100 * rejected, samples.size());
  EXPECT_GE(rejected, 0.98);
}

std::vector<const Spec*> all_specs() {
  std::vector<const Spec*> out;
  for (const auto& s : spec_db()) out.push_back(&s);
  return out;
}

std::string test_name(const ::testing::TestParamInfo<const Spec*>& info) {
  std::string n = info.param->op();
  for (auto& c : n)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return n;
}

INSTANTIATE_TEST_SUITE_P(Ops, SpecDB, ::testing::ValuesIn(all_specs()), test_name);

// ---- Specs with joint constraints ---------------------------------------------------------

class JointSpec : public SpecDB {};

TEST_P(JointSpec, ValidGenerationNeverDeadEndsWithZ3) {
  if (!have_z3()) GTEST_SKIP() << "built without Z3 (OPSFUZZ_WITH_Z3=OFF): joint constraints are sampled with retry";
  ArgumentTupleGenerator gen(*GetParam(), Config{}, 2026, Validity::Valid);
  Sample s;
  for (size_t i = 0; i < kSamples; ++i) ASSERT_TRUE(gen.next(s));
  EXPECT_EQ(gen.stats().dead_ends, 0u) << GetParam()->op();
  EXPECT_EQ(gen.stats().attempts, kSamples) << GetParam()->op();
}

TEST_P(JointSpec, SampledWithoutLookAheadStillValid) {
  ArgumentTupleGenerator gen(*GetParam(), Config::parse("sampling"), 2026, Validity::Valid);
  std::vector<Sample> samples;
  Sample s;
  while (samples.size() < 100 && gen.next(s)) samples.push_back(s);
  ASSERT_FALSE(samples.empty());
  auto outcomes = execute_isolated(samples);
  for (size_t i = 0; i < samples.size(); ++i)
    EXPECT_EQ(outcomes[i].kind, Outcome::Accepted)
        << GetParam()->op() << " #" << samples[i].index << ": " << outcomes[i].message;
}

std::vector<const Spec*> joint_specs() {
  std::vector<const Spec*> out;
  for (const auto& s : spec_db())
    if (!s.joints().empty()) out.push_back(&s);
  return out;
}

INSTANTIATE_TEST_SUITE_P(Ops, JointSpec, ::testing::ValuesIn(joint_specs()), test_name);

// Distinct values of `key` over 200 valid samples of `op`.
template <class Key> size_t distinct(const char* op, Key key) {
  ArgumentTupleGenerator gen(*find_spec(op), Config{}, 2026, Validity::Valid);
  std::set<decltype(key(Sample{}))> seen;
  Sample s;
  for (int i = 0; i < 200 && gen.next(s); ++i) seen.insert(key(s));
  return seen.size();
}

IntList ints(const Sample& s, size_t arg) { return std::get<IntList>(s.metas.at(arg).value); }

TEST(JointDiversity, SplitSizes) {
  size_t n = distinct("split_with_sizes_copy.default", [](const Sample& s) { return ints(s, 1); });
  std::printf("split_with_sizes_copy: %zu distinct split_sizes in 200 samples\n", n);
  EXPECT_GE(n, 50u);
}

TEST(JointDiversity, ConvolutionParameters) {
  size_t n = distinct("convolution.default", [](const Sample& s) {
    return std::tuple(ints(s, 3), ints(s, 4), ints(s, 5), as_int(s.metas.at(8).value));
  });
  std::printf("convolution: %zu distinct (stride, padding, dilation, groups) in 200 samples\n", n);
  EXPECT_GE(n, 30u);
}

}  // namespace
}  // namespace opsfuzz
