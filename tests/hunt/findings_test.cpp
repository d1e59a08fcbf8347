// Findings: differences grouped by root cause, on libtorch's own messages.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <ATen/ATen.h>
#include <nlohmann/json.hpp>

#include "hunt/findings.h"
#include "runner/run.h"

namespace opsfuzz::hunt {
namespace {

using runner::BackendResult;
using runner::Item;
using runner::ItemResult;
using runner::Status;

// Occurrences of one cause that differ in sizes, dims, dtypes and values normalize alike; other
// causes do not.
TEST(Normalized, KeepsTheCauseAndDropsTheInstance) {
  EXPECT_EQ(normalized("RuntimeError: The size of tensor a (3) must match the size of tensor b (4) at non-singleton "
                       "dimension 1"),
            normalized("RuntimeError: The size of tensor a (5) must match the size of tensor b (2) at non-singleton "
                       "dimension 0"));
  EXPECT_EQ(normalized("RuntimeError: expected scalar type Float but found Double"),
            normalized("RuntimeError: expected scalar type Long but found Int"));
  EXPECT_EQ(normalized("output 0 at [1, 4]: 1.5 vs reference 1.25 (atol 1e-05, rtol 1.3e-06)"),
            normalized("output 0 at [0]: -inf vs reference nan (atol 0.001, rtol 0.016)"));
  EXPECT_EQ(normalized("free(): invalid pointer at 0x55d4c2a1b2c0"), normalized("free(): invalid pointer at 0x7f00"));
  EXPECT_NE(normalized("IndexError: index 5 is out of bounds for dimension 0 with size 3"),
            normalized("RuntimeError: index 5 is out of bounds for dimension 0 with size 3"));
  EXPECT_NE(normalized("CRASH: signal 11 (Segmentation fault)"), normalized("CRASH: signal 6 (Aborted)"));
}

// An item of op `op` run on the baseline eager_cpu and on `backend`, with a float32 input.
struct Fixture {
  Item item;
  ItemResult result;
  Fixture(const std::string& op, const std::string& config) {
    item.id = op + "__valid__0000";
    runner::Side side;
    side.id = item.id;
    side.call.emplace();
    side.call->args.push_back(at::zeros({2}));
    item.sides.push_back(side);
    item.origin = runner::Origin{op, 0, 0, true, config, "", {}, "float32"};
    result.item = &item;
  }
  BackendResult& with(const std::string& backend, Status status, std::string err = "") {
    BackendResult r;
    r.backend = backend;
    r.res.push_back({status, std::move(err), {}, {}});
    if (backend == "eager_cpu") return result.baseline.emplace(std::move(r));
    return result.backends.emplace_back(std::move(r));
  }
};

runner::Diff mismatch(const std::string& why) {
  runner::Diff d;
  d.match = false, d.why = why;
  return d;
}

TEST(Findings, OneFindingPerRootCauseCountedWithItsFirstItem) {
  Findings findings;
  for (uint64_t k = 0; k < 3; ++k) {
    Fixture f("erf.default", k == 2 ? "extremes" : "");
    f.with("eager_cpu", Status::Ok);
    f.with("eager_cpu_noncontig", Status::Ok).diff = {
        {mismatch("output 0 at [" + std::to_string(k) + "]: " + std::to_string(k) + ".5 vs reference 1.25")}};
    f.with("torchscript_cpu", Status::InferFail, "RuntimeError: expected scalar type Float but found Double");
    auto opened = findings.add(f.result, 10 + k);
    EXPECT_EQ(opened.size(), k == 0 ? 2u : 0u);
  }
  ASSERT_EQ(findings.all().size(), 2u);
  const Finding& m = findings.all()[0];
  EXPECT_EQ(m.id, "erf_default-eager_cpu_noncontig-mismatch-1");
  EXPECT_EQ(m.kind, Kind::Mismatch);
  EXPECT_EQ(m.count, 3u);
  EXPECT_EQ(m.first, 10u);
  EXPECT_EQ(m.configs, (std::set<std::string>{"default", "extremes"}));
  EXPECT_EQ(m.dtypes, (std::set<std::string>{"float32"}));
  const Finding& e = findings.all()[1];
  EXPECT_EQ(e.id, "erf_default-torchscript_cpu-exception-1");
  EXPECT_EQ(e.message, "RuntimeError: expected scalar type Float but found Double");

  nlohmann::json j = to_json(m);
  for (const char* key : {"id", "op", "backend", "baseline", "kind", "blame", "triage", "message", "count", "first",
                          "samples", "configs", "dtypes", "known"})
    EXPECT_TRUE(j.contains(key)) << key;
  EXPECT_EQ(j["kind"], "mismatch");
  EXPECT_EQ(j["samples"].size(), 3u);
  EXPECT_TRUE(j["known"].is_null());
}

TEST(Findings, CrashesOfTheBaselineAndErrorsOfAnotherClassAreFindings) {
  Fixture f("index_select.default", "");
  f.with("eager_cpu", Status::TimedError, "CRASH: signal 11 (Segmentation fault)");
  f.with("eager_cpu_fp64", Status::TimedError, "TIMEOUT: timeout_s=10");
  f.with("torchscript_cpu", Status::InferFail, "IndexError: index out of range");
  auto diffs = differences(f.result);
  ASSERT_EQ(diffs.size(), 2u);
  EXPECT_EQ(diffs[0].backend, "eager_cpu");
  EXPECT_EQ(diffs[0].kind, Kind::Crash);
  EXPECT_EQ(diffs[1].kind, Kind::Timeout);

  // Refusals of two specific classes differ; RuntimeError, the class TorchScript's interpreter
  // gives every kernel error, is the same refusal as IndexError.
  Fixture g("mm.default", "");
  g.with("eager_cpu", Status::InferFail, "IndexError: Dimension out of range (expected to be in range of [-1, 0])");
  g.with("torchscript_cpu", Status::InferFail, "RuntimeError: Dimension out of range (expected to be in range of)");
  g.with("eager_cpu_fp64", Status::InferFail, "ValueError: dimension out of range");
  g.with("eager_cpu_noncontig", Status::Ok);
  auto refused = differences(g.result);
  ASSERT_EQ(refused.size(), 2u);
  EXPECT_EQ(refused[0].backend, "eager_cpu_fp64");
  EXPECT_EQ(refused[0].kind, Kind::Exception);
  EXPECT_EQ(refused[1].backend, "eager_cpu_noncontig");
  EXPECT_EQ(refused[1].message,
            "accepted; the baseline refused: IndexError: Dimension out of range (expected to be in range of [-1, 0])");
}

// One kernel writing past its buffer kills its worker in whichever of glibc's heap checks meets the
// damage first, found by the isolation in one way or another: one finding. A segfault, or an abort
// of another cause, is another.
TEST(Findings, AHeapDamagedIsOneCrashWhicheverCheckFindsIt) {
  auto key = [](const std::string& message) {
    Difference d;
    d.kind = Kind::Crash, d.message = message;
    return message_key(d);
  };
  const std::string heap = key("CRASH: signal 6 (Aborted): free(): invalid size");
  EXPECT_EQ(heap, key("CRASH: signal 6 (Aborted): malloc_consolidate(): invalid chunk size"));
  EXPECT_EQ(heap, key("CRASH: signal 6 (Aborted): free(): invalid next size (fast) (run again alone, this task kills "
                      "its worker again)"));
  EXPECT_EQ(heap, key("CRASH: signal 6 (Aborted): double free or corruption (out) (found during the later task #158; "
                      "run again from this task the tasks crash again, from the next one they do not)"));
  EXPECT_EQ(key("CRASH: signal 11 (Segmentation fault)"),
            key("CRASH: signal 11 (Segmentation fault) (a task known to crash now and then: its own crash)"));
  EXPECT_NE(heap, key("CRASH: signal 11 (Segmentation fault)"));
  EXPECT_NE(heap, key("CRASH: signal 6 (Aborted): terminate called after throwing an instance of 'c10::Error'"));
  EXPECT_NE(key("CRASH: signal 8 (Floating point exception)"), key("CRASH: signal 11 (Segmentation fault)"));
}

// A backend that cannot build its model for a call the baseline runs is one unsupported finding
// per backend and message, over every op it happens on.
TEST(Findings, UnsupportedCallsAreOneFindingOverOps) {
  Findings findings;
  for (auto [op, argument] : {std::pair{"add.Scalar", "other"}, std::pair{"mul.Scalar", "alpha"}}) {
    Fixture f(op, "");
    f.with("eager_cpu", Status::Ok);
    f.with("torchscript_cpu", Status::ExportFail,
           std::string("RuntimeError: aten::") + op +
               ": TorchScript does not accept the bound arguments: Expected a value of type 'number' for argument '" +
               argument + "' but instead found type 'bool'.");
    findings.add(f.result, 0);
  }
  ASSERT_EQ(findings.all().size(), 1u);
  const Finding& u = findings.all()[0];
  EXPECT_EQ(u.kind, Kind::Unsupported);
  EXPECT_EQ(u.id, "add_Scalar-torchscript_cpu-unsupported-1");
  EXPECT_EQ(u.count, 2u);
  EXPECT_EQ(u.ops, (std::set<std::string>{"add.Scalar", "mul.Scalar"}));
}

// A mismatch triage explains is counted under its rule, not a finding; with --no-triage it is one,
// labelled with the verdict.
TEST(Findings, MismatchesTriageSetsAsideAreCountedPerRule) {
  for (bool keep : {false, true}) {
    Findings findings(keep);
    Fixture f("sum.default", "extremes");
    f.with("eager_cpu", Status::Ok);
    runner::Diff d = mismatch("output: 2 vs reference 0 (atol 1e-05, rtol 1.3e-06)");
    d.dtype = "float32";
    d.triage = runner::Triage{"conditioning", "none", "output: 2 vs baseline 0, float64 2"};
    f.with("eager_cpu_fp64", Status::Ok).diff = {{d}};
    findings.add(f.result, 0);
    EXPECT_EQ(findings.set_aside().at("conditioning"), 1u);
    ASSERT_EQ(findings.all().size(), keep ? 1u : 0u);
    if (keep) EXPECT_EQ(to_json(findings.all()[0])["triage"], "conditioning");
  }
}

TEST(Findings, ASampleInAMarkedDeviationIsAKnownFinding) {
  Fixture f("fmod.Tensor", "contract,integral");
  f.item.origin->deviations = {"fmod.lowest_dividend_by_minus_one"};
  f.with("eager_cpu", Status::Ok);
  f.with("eager_cpu_fp64", Status::Ok).diff = {{mismatch("output 0 at [0]: 0 vs reference -2147483648")}};
  Findings findings;
  findings.add(f.result, 0);
  ASSERT_EQ(findings.all().size(), 1u);
  EXPECT_EQ(findings.all()[0].known, "fmod.lowest_dividend_by_minus_one");
}

}  // namespace
}  // namespace opsfuzz::hunt
