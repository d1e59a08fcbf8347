// The SpecDB sweep: every spec's valid samples must run on the CPU kernels, and at least 98 %
// of its invalid samples must be refused. Kernels run in forked children.
#include "generators/execute.h"
#include "specs/db/db.h"

#include <ATen/Parallel.h>
#include <gtest/gtest.h>

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

INSTANTIATE_TEST_SUITE_P(Ops, SpecDB, ::testing::ValuesIn(all_specs()), [](const auto& info) {
  std::string n = info.param->op();
  for (auto& c : n)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return n;
});

}  // namespace
}  // namespace opsfuzz
