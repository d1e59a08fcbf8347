// `ops-fuzz check`, run in-process: a suite of inputs that PyTorch's documentation calls valid
// classifies as valid by our specs, and each outcome (invalid, no spec, error) reads as it should.
#include <gtest/gtest.h>

#include <map>
#include <sstream>

#include "argtypes/text.h"
#include "suite/suite.h"
#include "tests/suite/run_util.h"
#include "tools/check.h"
#include "tests/tools/cli_run.h"
#include "tools/cli.h"

namespace opsfuzz {
namespace {

const std::string kData = OPSFUZZ_CHECK_DATA;

using testing::cli;

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// Every test, by the library: a failure names the test and the labels it breaks.
TEST(Check, DocumentedInputsAreValid) {
  suite::Suite s = suite::load_suite(kData + "/valid_from_docs.yaml");
  ASSERT_GE(s.tests.size(), 30u);
  for (const auto& test : s.tests) {
    TestCheck check = check_test(test, 0, Config{});
    EXPECT_EQ(check.status, TestCheck::Valid) << format(check);
  }
}

TEST(Check, DocumentedInputsAreValidThroughTheCommandLine) {
  auto run = cli({"check", kData + "/valid_from_docs.yaml", "--expect-valid"});
  EXPECT_EQ(run.code, 0) << run.out << run.err;
  EXPECT_TRUE(has(run.out, " 0 invalid, 0 undecided, 0 without a spec, 0 errors\n")) << run.out;
}

// The generation scope is not a rule: inputs past every limit of the default configuration keep or
// break the rules as inputs within them do, and the kernels agree (they run the valid ones and
// refuse the others).
TEST(Check, InputsBeyondTheScopeAreJudgedByTheRulesAlone) {
  suite::Suite s = suite::load_suite(kData + "/beyond_scope.yaml");
  const std::map<std::string, std::string> broken = {
      // the labels, joined by "; "
      {"invalid_add_sizes_past_8", "other.size(d) broadcastable with self"},
      {"invalid_index_select_index_2000", "index values in [0, self.size(dim) - 1]"},
      {"invalid_constant_pad_cropping_past_the_size", "pad[i] keeps the padded size of its dim positive"},
      {"invalid_einsum_repeated_output", "equation repeats no subscript in its output"},
      {"invalid_einsum_sizes_that_do_not_broadcast",
       "equation labels with one subscript only dims of tensors that broadcast (equal sizes or 1)"},
      {"invalid_einsum_ellipses_that_do_not_broadcast",
       "equation covers with ellipses only dims of tensors that broadcast (equal sizes or 1, aligned from the right)"},
  };
  size_t valid = 0, outside = 0;
  for (const auto& test : s.tests) {
    const TestCheck check = check_test(test, 0, Config{});
    outside += !check.classification.outside_scope.empty();
    const suite::Ran ran = suite::run_test(test);
    if (test.id.starts_with("valid_")) {
      ++valid;
      EXPECT_EQ(check.status, TestCheck::Valid) << format(check);
      EXPECT_EQ(ran.status, runner::Status::Ok) << test.id << ": " << ran.message;
    } else {
      EXPECT_EQ(join(check.classification.broken, "; "), broken.at(test.id)) << format(check);
      EXPECT_EQ(ran.status, runner::Status::InferFail) << test.id << " runs";  // the kernel refuses it
    }
  }
  EXPECT_EQ(valid, 35u);
  EXPECT_GE(outside, 30u);  // past a size, rank or length limit (values past theirs are not listed)
}

TEST(Check, EachOutcomeReadsAsItShould) {
  auto run = cli({"check", kData + "/mixed.yaml"});
  EXPECT_EQ(run.code, 0) << run.err;  // classifications are information
  EXPECT_TRUE(has(run.out, "valid_add  add.Tensor  valid\n")) << run.out;
  EXPECT_TRUE(has(run.out, "sum_past_the_last_dim  sum.dim_IntList  invalid: dim[i] in [-self.rank, self.rank)\n"))
      << run.out;
  EXPECT_TRUE(has(run.out, "a_module  torch.nn.ReLU  no spec (a module)\n")) << run.out;
  EXPECT_TRUE(has(run.out, "no_spec_for_dot  aten::dot  no spec\n")) << run.out;
  EXPECT_TRUE(has(run.out, "does_not_bind  aten::add.Tensor  error: ")) << run.out;
  EXPECT_TRUE(has(run.out, "1 valid, 1 invalid, 0 undecided, 2 without a spec, 1 errors\n")) << run.out;
}

TEST(Check, ExpectValidFailsOnAnyOtherOutcome) {
  EXPECT_EQ(cli({"check", kData + "/mixed.yaml", "--expect-valid"}).code, 1);
  EXPECT_EQ(cli({"check", kData + "/mixed.yaml", "--expect-valid", "--test-ids", "valid_add;a_module"}).code, 0);
}

TEST(Check, OptionsAndErrors) {
  auto help = cli({"check", "--help"});
  EXPECT_EQ(help.code, 0);
  for (const char* o : {"--test-ids", "--config", "--seed", "--expect-valid"}) EXPECT_TRUE(has(help.out, o)) << o;
  EXPECT_EQ(cli({"check", kData + "/mixed.yaml", "--config", "transposd"}).code, 2);
  auto missing = cli({"check", kData + "/no_such_file.yaml"});
  EXPECT_EQ(missing.code, 1);
  EXPECT_TRUE(has(missing.err, "no_such_file.yaml")) << missing.err;
}

}  // namespace
}  // namespace opsfuzz
