// ops-fuzz calibrate: specs of the SpecDB and test-local ones measured against the linked CPU
// kernels (real calls in isolated workers).
#include <ATen/Parallel.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <fstream>
#include <sstream>

#include "specs/db/db.h"
#include "specs/model/dsl.h"
#include "tools/calibrate.h"
#include "tests/tools/cli_run.h"
#include "tools/cli.h"

namespace opsfuzz {
namespace {

using S = c10::ScalarType;

using testing::cli;

const ArgCalibration& arg(const Calibration& c, const std::string& name) {
  for (const auto& a : c.args)
    if (a.arg == name) return a;
  throw std::invalid_argument("no tensor argument " + name + " in the calibration of " + c.op);
}

const DtypeProbe& probe(const ArgCalibration& a, S t) {
  for (const auto& p : a.dtypes)
    if (p.dtype == t) return p;
  throw std::invalid_argument("no probe of " + std::string(name(t)));
}

bool contains(const std::vector<S>& set, S t) { return std::find(set.begin(), set.end(), t) != set.end(); }

const SampleGroup* group(const std::vector<SampleGroup>& groups, const std::string& key) {
  for (const auto& g : groups)
    if (g.key == key) return &g;
  return nullptr;
}

// The first line of `text` that starts with `prefix`.
std::string line_of(const std::string& text, const std::string& prefix) {
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    if (line.starts_with(prefix)) return line;
  return "";
}

CalibrateOptions small(int64_t max = 60) {
  CalibrateOptions o;
  o.max = max;
  return o;
}

class Calibrate : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { at::set_num_threads(1); }  // calls run in forked workers
};

TEST_F(Calibrate, MessagesMergeAcrossNumbersAndShapes) {
  EXPECT_EQ(
      normalize_message("The size of tensor a (3) must match the size of tensor b (4) at non-singleton dimension 1"),
      normalize_message("The size of tensor a (7) must match the size of tensor b (2) at non-singleton dimension 0"));
  EXPECT_EQ(normalize_message("shape '[2, 3]' is invalid for input of size 5\nsecond line"),
            "shape '[...]' is invalid for input of size N");
  EXPECT_EQ(normalize_message("Dimension out of range (expected to be in range of [-2, 1], but got -3)"),
            "Dimension out of range (expected to be in range of [...], but got N)");
  // Names with digits (dtypes, ops) are words, not numbers.
  EXPECT_EQ(normalize_message("expected int64 for conv2d, got 1.5e3"), "expected int64 for conv2d, got N");
  EXPECT_NE(normalize_message("\"abs_cpu\" not implemented for 'Bool'"),
            normalize_message("\"abs_cpu\" not implemented for 'Half'"));
}

// bitwise_and takes integral and bool tensors only: float self is refused on every base.
TEST_F(Calibrate, BitwiseAndRefusesFloatSelf) {
  Calibration c = calibrate(*find_spec("bitwise_and.Tensor"), small());
  ASSERT_TRUE(c.error.empty()) << c.error;
  const ArgCalibration& self = arg(c, "self");
  ASSERT_FALSE(self.bases.empty());
  for (S t : {S::Float, S::Double}) {
    EXPECT_TRUE(probe(self, t).never_accepted()) << name(t);
    EXPECT_NE(probe(self, t).message.find("not implemented"), std::string::npos) << probe(self, t).message;
    EXPECT_FALSE(contains(self.suggested(), t)) << name(t);
  }
  for (S t : {S::Bool, S::Byte, S::Int, S::Long}) EXPECT_TRUE(contains(self.suggested(), t)) << name(t);
  EXPECT_FALSE(probe(self, S::Float).generated);
  EXPECT_TRUE(probe(self, S::Long).generated);
  EXPECT_TRUE(c.valid_refused.empty()) << c.valid_refused.front().key;
  EXPECT_TRUE(c.bind_errors.empty()) << c.bind_errors.front().key;
  EXPECT_TRUE(self.tied.empty()) << self.tied.front();  // other's dtype may differ from self's
}

// mm ties mat2's dtype to self's: each is cast with the other (cast alone, every dtype but the
// sample's own was refused for the mismatch), so the kernel's own dtypes show, complex ones too.
TEST_F(Calibrate, TiedArgumentsAreCastTogether) {
  Calibration c = calibrate(*find_spec("mm.default"), small(30));
  ASSERT_TRUE(c.error.empty()) << c.error;
  for (const std::string name : {"self", "mat2"}) {
    const ArgCalibration& a = arg(c, name);
    EXPECT_EQ(a.tied, std::vector<std::string>{name == "self" ? "mat2" : "self"});
    for (S t : {S::Long, S::Double, S::ComplexFloat, S::ComplexDouble})
      EXPECT_TRUE(probe(a, t).always_accepted()) << name << " " << probe(a, t).message;
    EXPECT_TRUE(probe(a, S::Bool).never_accepted()) << name;
  }
}

// abs has no bool kernel; every number dtype is taken.
TEST_F(Calibrate, AbsRefusesBoolOnly) {
  Calibration c = calibrate(*find_spec("abs.default"), small(30));
  ASSERT_TRUE(c.error.empty()) << c.error;
  const ArgCalibration& self = arg(c, "self");
  EXPECT_TRUE(probe(self, S::Bool).never_accepted()) << probe(self, S::Bool).message;
  auto suggested = self.suggested();
  EXPECT_EQ(suggested.size(), all_dtypes().size() - 1 + complex_dtypes().size());  // complex ones too
  EXPECT_FALSE(contains(suggested, S::Bool));
  // Half dtypes are off without --config half: the spec does not generate them, the kernel takes them.
  EXPECT_FALSE(probe(self, S::Half).allowed);
  EXPECT_FALSE(probe(self, S::Half).generated);
  EXPECT_TRUE(probe(self, S::Half).always_accepted());
}

// A spec too narrow: abs of float32 only. The kernel accepts int64 too; the suggestion says so.
TEST_F(Calibrate, NarrowSpecIsWidenedBySuggestion) {
  using namespace dsl;
  Spec narrow = Spec("abs.default").in(Tensor("self").dtype(In(std::vector{S::Float})));
  Calibration c = calibrate(narrow, small(30));
  ASSERT_TRUE(c.error.empty()) << c.error;
  const ArgCalibration& self = arg(c, "self");
  EXPECT_TRUE(probe(self, S::Float).generated);
  EXPECT_FALSE(probe(self, S::Long).generated);
  EXPECT_TRUE(contains(self.suggested(), S::Long));
  EXPECT_TRUE(contains(self.suggested(), S::Float));
  EXPECT_FALSE(contains(self.suggested(), S::Bool));
  std::ostringstream report;
  print(c, report);
  EXPECT_EQ(line_of(report.str(), "    int64 "),
            "    int64          accepted  <- kernel accepts but spec never generates")
      << report.str();
  EXPECT_EQ(line_of(report.str(), "    float32 "), "    float32    gen accepted") << report.str();
}

// A spec too wide: bitwise_and of every dtype. Its float samples are refused, grouped by one
// normalized message with a command that reproduces them, and float32 is flagged.
TEST_F(Calibrate, WideSpecShowsRefusedValidSamples) {
  using namespace dsl;
  Spec wide = Spec("bitwise_and.Tensor").in(Tensor("self")).in(Tensor("other").rank(Le(0)));
  Calibration c = calibrate(wide, small(80));
  ASSERT_TRUE(c.error.empty()) << c.error;
  EXPECT_TRUE(probe(arg(c, "self"), S::Float).generated);
  EXPECT_TRUE(probe(arg(c, "self"), S::Float).never_accepted());
  ASSERT_FALSE(c.valid_refused.empty());
  uint64_t refused = 0;
  for (const auto& g : c.valid_refused) {
    refused += g.count;
    EXPECT_TRUE(g.key.starts_with("rejected: ")) << g.key;
    EXPECT_NE(g.command.find("--index " + std::to_string(g.index)), std::string::npos) << g.command;
    EXPECT_TRUE(g.command.starts_with("ops-fuzz sweep bitwise_and.Tensor --seed 0")) << g.command;
  }
  EXPECT_GT(refused, 0u);
  EXPECT_LT(refused, c.valid);  // integral samples pass
  EXPECT_TRUE(c.bind_errors.empty());
  std::ostringstream report;
  print(c, report);
  EXPECT_NE(report.str().find("spec generates but kernel refuses"), std::string::npos) << report.str();
}

// A rule the kernel does not check (abs of rank <= 2) is broken by invalid samples the kernel
// accepts: all of them, under that rule's label.
TEST_F(Calibrate, UncheckedRuleShowsAcceptedInvalidSamples) {
  using namespace dsl;
  Spec spec = Spec("abs.default").in(Tensor("self").dtype(In(std::vector{S::Float, S::Long})).rank(Le(2)));
  Calibration c = calibrate(spec, small(60));
  ASSERT_TRUE(c.error.empty()) << c.error;
  std::string rank_label, dtype_label;
  for (const auto& k : spec.args()[0].constraints)
    (k.attribute == Attribute::Rank ? rank_label : dtype_label) = k.label;
  const SampleGroup* rank = group(c.invalid_accepted, rank_label);
  ASSERT_NE(rank, nullptr) << rank_label;
  EXPECT_GT(rank->count, 0u);
  EXPECT_EQ(rank->count, rank->total);
  // Breaking the dtype rule gives bool (refused) or another dtype (accepted): some of them.
  const SampleGroup* dtype = group(c.invalid_accepted, dtype_label);
  ASSERT_NE(dtype, nullptr) << dtype_label;
  EXPECT_LT(dtype->count, dtype->total);
  EXPECT_GT(c.invalid_refused, 0u);
  std::ostringstream report;
  print(c, report);
  EXPECT_NE(report.str().find(rank_label + ": " + std::to_string(rank->count) + " of " + std::to_string(rank->total) +
                              " accepted"),
            std::string::npos)
      << report.str();
}

// A spec whose keyword does not fit the schema (alpah for alpha) is our bug: its samples are
// binding errors, never refusals of the kernel, and the dtype probes bind no better.
TEST_F(Calibrate, BindingErrorsAreNotRefusals) {
  using namespace dsl;
  Spec misnamed = Spec("add.Tensor").in(Tensor("self")).in(Tensor("other").rank(Le(0))).kw(Scalar("alpah"));
  Calibration c = calibrate(misnamed, small(20));
  ASSERT_TRUE(c.error.empty()) << c.error;
  EXPECT_EQ(c.valid, 20u);
  EXPECT_TRUE(c.valid_refused.empty()) << c.valid_refused.front().key;
  ASSERT_EQ(c.bind_errors.size(), 1u);
  EXPECT_EQ(c.bind_errors[0].count, c.valid + c.invalid);  // invalid samples (other of rank > 0) as well
  EXPECT_GT(c.invalid, 0u);
  EXPECT_EQ(c.invalid_refused, 0u);
  EXPECT_TRUE(c.invalid_accepted.empty());
  EXPECT_NE(c.bind_errors[0].key.find("alpah"), std::string::npos) << c.bind_errors[0].key;
  // No valid sample was accepted, so there is no base to probe dtypes on.
  EXPECT_TRUE(arg(c, "self").bases.empty());
  std::ostringstream report;
  print(c, report);
  EXPECT_EQ(c.valid_unbound, 20u);
  EXPECT_EQ(c.invalid_unbound, c.invalid);
  EXPECT_NE(report.str().find("valid samples the kernel refuses: 0 of 20 (20 did not bind)"), std::string::npos)
      << report.str();
  EXPECT_NE(report.str().find("not probed"), std::string::npos) << report.str();
}

TEST_F(Calibrate, CommandLine) {
  auto unknown = cli({"calibrate", "bitwise_andd.Tensor"});
  EXPECT_EQ(unknown.code, 2);
  EXPECT_NE(unknown.err.find("did you mean 'bitwise_and.Tensor'"), std::string::npos) << unknown.err;
  EXPECT_EQ(cli({"calibrate"}).code, 2);
  EXPECT_EQ(cli({"calibrate", "abs.default", "--bases", "0"}).code, 2);
  auto help = cli({"calibrate", "--help"});
  EXPECT_EQ(help.code, 0);
  for (const char* o : {"--seed", "--max", "--config", "--bases", "--json", "suggested"})
    EXPECT_NE(help.out.find(o), std::string::npos) << o;

  std::string path = ::testing::TempDir() + "/calibrate.json";
  std::vector<std::string> args = {"calibrate", "index_select.default", "--max", "40", "--seed", "3"};
  auto a = cli(args);
  args.insert(args.end(), {"--json", path});
  auto b = cli(args);
  ASSERT_EQ(a.code, 0) << a.err;
  EXPECT_EQ(a.out, b.out);  // deterministic
  for (const char* section : {"dtypes per tensor argument", "valid samples the kernel refuses",
                              "invalid samples the kernel accepts", "binding errors"})
    EXPECT_NE(a.out.find(section), std::string::npos) << section << "\n" << a.out;
  nlohmann::json j = nlohmann::json::parse(std::ifstream(path));
  EXPECT_EQ(j["op"], "index_select.default");
  EXPECT_EQ(j["valid"], 40);
  ASSERT_EQ(j["args"].size(), 2u);  // self, index
  EXPECT_EQ(j["args"][1]["arg"], "index");
  // index_select's index is int32 or int64.
  std::vector<std::string> index_dtypes = j["args"][1]["suggested"];
  EXPECT_EQ(index_dtypes, (std::vector<std::string>{"int32", "int64"})) << j["args"][1].dump();
}

}  // namespace
}  // namespace opsfuzz
