// `ops-fuzz describe`: for every spec of the SpecDB, each label an invalid sample can carry stands
// in its description, as the spec model enumerates them and as generated invalid samples carry
// them; and the command reads as the other SpecDB commands do.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "engine/config.h"
#include "generators/generators.h"
#include "specs/db/db.h"
#include "tests/specs/spec_ops.h"
#include "tests/tools/cli_run.h"
#include "tools/describe.h"

namespace opsfuzz {
namespace {

using testing::cli;

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// Whether `label` stands alone in `text` (describe.h): after a space, and followed by the end of
// its line or by two spaces (a tag). A label that is only part of a longer one does not count.
bool names(const std::string& text, const std::string& label) {
  for (size_t at = text.find(label); at != std::string::npos; at = text.find(label, at + 1)) {
    const size_t end = at + label.size();
    const bool before = at > 0 && text[at - 1] == ' ';
    const bool after = end < text.size() && (text[end] == '\n' || text.compare(end, 2, "  ") == 0);
    if (before && after) return true;
  }
  return false;
}

// What the spec model says invalid samples can carry: the labels of its rules, and of the rules the
// kernel does not check (broken under the contract configuration), on arguments and joint.
std::set<std::string> breakable_labels(const Spec& spec) {
  std::set<std::string> out;
  for (const auto& a : spec.args())
    for (const auto& c : a.constraints)
      if (c.negatable(true)) out.insert(c.label);
  for (const auto& j : spec.joints())
    if (j.negatable(true)) out.insert(j.label);
  return out;
}

class Describe : public ::testing::TestWithParam<std::string> {
 protected:
  const Spec& spec() const { return *find_spec(GetParam()); }
};

TEST_P(Describe, NamesEveryLabelOfTheSpecModel) {
  const std::string text = describe_spec(spec());
  std::string missing;
  for (const auto& label : breakable_labels(spec()))
    if (!names(text, label)) missing += "  " + label + "\n";
  EXPECT_EQ(missing, "") << "labels missing from the description:\n" << missing << "in:\n" << text;
}

// 50 invalid samples under the default configuration and 50 under the contract (which breaks
// the Unchecked rules too): each one's label is in the description, and among the labels the
// model enumerates (so that the enumeration above misses none).
TEST_P(Describe, NamesTheLabelOfEveryInvalidSample) {
  constexpr size_t kSamples = 50;
  const std::string text = describe_spec(spec());
  const auto labels = breakable_labels(spec());
  size_t seen = 0;
  std::set<std::string> missing;
  for (const char* words : {"", "contract"}) {
    for (const Sample& s : generate_samples(spec(), Config::parse(words), 0, Validity::Invalid, kSamples)) {
      ++seen;
      EXPECT_TRUE(labels.count(s.violated)) << sample_id(s) << " (" << words << "): " << s.violated;
      if (!names(text, s.violated)) missing.insert(s.violated);
    }
  }
  if (seen == 0) GTEST_SKIP() << spec().op() << " has no rule to break";
  std::string list;
  for (const auto& l : missing) list += "  " + l + "\n";
  EXPECT_EQ(list, "") << "labels of invalid samples missing from the description:\n" << list << "in:\n" << text;
}

INSTANTIATE_TEST_SUITE_P(Ops, Describe, ::testing::ValuesIn(testing::all_ops()), testing::op_param_name);

TEST(DescribeCommand, SpellsOutWhatAFamilyBuilderMade) {
  auto run = cli({"describe", "add.Tensor"});
  ASSERT_EQ(run.code, 0) << run.err;
  EXPECT_EQ(run.out.rfind("add.Tensor(Tensor self, Tensor other, *, Scalar alpha)\n", 0), 0u) << run.out;
  EXPECT_TRUE(has(run.out, "other.size(d) broadcastable with self\n")) << run.out;
  EXPECT_TRUE(has(run.out, "\nout= arguments")) << run.out;
  EXPECT_TRUE(has(run.out, "\nconfigs ")) << run.out;
}

TEST(DescribeCommand, ShowsJointConstraintsDeviationsAndScope) {
  auto run = cli({"describe", "convolution.default"});
  ASSERT_EQ(run.code, 0) << run.err;
  EXPECT_TRUE(has(run.out, "\njoint constraints ")) << run.out;
  EXPECT_TRUE(has(run.out, "\n  convolution.bfloat16_not_transposed\n    reason    ")) << run.out;
  EXPECT_TRUE(has(run.out, "    command   ops-fuzz sweep convolution.default --config contract,half")) << run.out;
  EXPECT_TRUE(has(run.out, "\noutside the generation scope ")) << run.out;
  // Inputs on which the kernel skips checks are a deviation of their own, not an unchecked rule.
  EXPECT_TRUE(has(run.out, "\n  convolution.empty_input_unchecked\n")) << run.out;
  EXPECT_TRUE(has(run.out, "    unchecked every rule, when input is empty\n")) << run.out;
  EXPECT_TRUE(has(run.out, "contract       breaks 1 unchecked rule(s), breaks rules on 1 kind(s) of inputs the kernel"))
      << run.out;
}

TEST(DescribeCommand, SeveralOpsAreSeparatedByABlankLine) {
  auto run = cli({"describe", "add.Tensor", "mul.Tensor"});
  ASSERT_EQ(run.code, 0) << run.err;
  EXPECT_TRUE(has(run.out, "\n\nmul.Tensor(Tensor self, Tensor other)\n")) << run.out;
}

TEST(DescribeCommand, UnknownOpSuggestsTheClosestNames) {
  auto run = cli({"describe", "add.Tensr"});
  EXPECT_EQ(run.code, 2);
  EXPECT_TRUE(has(run.err, "ops-fuzz: unknown op 'add.Tensr' (did you mean 'add.Tensor'")) << run.err;
  EXPECT_EQ(run.out, "");
}

TEST(DescribeCommand, HelpNamesTheCommand) {
  auto run = cli({"describe", "--help"});
  EXPECT_EQ(run.code, 0);
  EXPECT_TRUE(has(run.out, "describe")) << run.out;
  EXPECT_TRUE(has(run.out, "[unchecked: D]")) << run.out;
}

}  // namespace
}  // namespace opsfuzz
