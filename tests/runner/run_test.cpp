// The runner: items from suites and samples, isolation and blame, comparisons, result records.
#include <cstdio>

#include <ATen/ATen.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "generators/generators.h"
#include "runner/results.h"
#include "runner/run.h"
#include "specs/db/db.h"
#include "suite/ids.h"
#include "suite/materialize.h"
#include "suite/suite.h"

namespace opsfuzz::runner {
namespace {

using ::testing::HasSubstr;

std::vector<Item> items_of(const std::string& yaml) {
  suite::LoadResult loaded = suite::read_suite_text(yaml, "test.yaml");
  EXPECT_FALSE(loaded.diagnostics.has_errors()) << loaded.diagnostics.str();
  return items_from_suite(loaded.suite, "test.yaml", suite::IdFilter(), 0);
}

const BackendResult& on(const ItemResult& r, const std::string& backend) {
  for (const auto& b : r.backends)
    if (b.backend == backend) return b;
  throw std::logic_error("no result for " + backend);
}

RunOptions against_eager(std::vector<std::string> backends) {
  RunOptions o;
  o.baseline = "eager_cpu";
  o.backends = std::move(backends);
  o.timeout_s = 60;
  return o;
}

const char* kThreeTests = R"(
tests:
  - id: before
    op: aten::add.Tensor
    in: [{type: tensor, shape: [4], dtype: float32}, {type: tensor, shape: [4], dtype: float32}]
  - id: crashes
    op: aten::_local_scalar_dense
    in: [{type: tensor, shape: [0], dtype: float32}]
  - id: after
    op: aten::mul.Tensor
    in: [{type: tensor, shape: [4], dtype: float32}, {type: tensor, shape: [4], dtype: float32}]
)";

TEST(Run, AKernelCrashIsTimedErrorOfItsItemAndEveryOtherItemIsThere) {
  // _local_scalar_dense on an empty tensor reads past its storage in libtorch 1.13 (SIGSEGV).
  auto items = items_of(kThreeTests);
  ASSERT_EQ(items.size(), 3u);
  std::vector<std::string> reported;
  auto results =
      run_items(items, against_eager({"eager_cpu_fp64"}), [&](const ItemResult& r) { reported.push_back(r.item->id); });
  EXPECT_EQ(reported, (std::vector<std::string>{"before", "crashes", "after"}));
  for (size_t i : {0, 2}) {
    EXPECT_EQ(results[i].baseline->res[0].status, Status::Ok);
    const BackendResult& fp64 = on(results[i], "eager_cpu_fp64");
    EXPECT_EQ(fp64.res[0].status, Status::Ok);
    ASSERT_TRUE(fp64.diff);
    EXPECT_TRUE(fp64.diff->at(0).match);
  }
  const BackendResult& fp64 = on(results[1], "eager_cpu_fp64");
  for (const BackendResult* r : std::initializer_list<const BackendResult*>{&*results[1].baseline, &fp64}) {
    EXPECT_EQ(r->res[0].status, Status::TimedError) << r->backend;
    EXPECT_THAT(r->res[0].err, HasSubstr("CRASH: signal 11"));
    EXPECT_FALSE(r->diff);
  }
}

TEST(Run, InProcessGivesTheSameResultsAsIsolated) {
  std::string yaml = R"(
tests:
  - id: sum
    op: aten::sum.dim_IntList
    in: [{type: tensor, shape: [3, 5], dtype: float32}, [1]]
  - id: refused
    op: aten::mm
    in: [{type: tensor, shape: [2, 3], dtype: float32}, {type: tensor, shape: [2, 3], dtype: float32}]
)";
  auto items = items_of(yaml);
  RunOptions isolated = against_eager({"eager_cpu_noncontig"});
  RunOptions in_process = isolated;
  in_process.isolate = false;
  auto a = run_items(items, isolated), b = run_items(items, in_process);
  auto without_times = [](const BackendResult& r) {
    nlohmann::json j = to_json(r);
    for (auto& side : j["res"]) side.erase("ms");
    return j.dump();
  };
  for (size_t i = 0; i < items.size(); ++i)
    EXPECT_EQ(without_times(a[i].backends[0]), without_times(b[i].backends[0])) << items[i].id;
  EXPECT_EQ(a[1].baseline->res[0].status, Status::InferFail);
  EXPECT_THAT(a[1].baseline->res[0].err, HasSubstr("RuntimeError: mat1 and mat2 shapes cannot be multiplied"));
}

// A user's backend, registered from outside the library: eager with every float output nudged.
class OffByOne : public Backend {
 public:
  std::string name() const override { return "test_off_by_one"; }
  std::string description() const override { return "eager, every float output plus one"; }
  std::unique_ptr<Model> prepare(const Call& call) override {
    struct M : Model {
      Output run(const Call& c) override {
        opcall::Stack out = c.op->call(c.args);
        return Output{opcall::to_python(std::move(out)).toTensor() + 1, {}, {}, {}, {}};
      }
    };
    if (!call.op) throw Skip("operators only");
    return std::make_unique<M>();
  }
};

TEST(Run, AWrongBackendIsAMismatchThatSaysWhere) {
  register_backend(std::make_shared<OffByOne>());
  auto items = items_of(R"(
tests:
  - id: relu
    op: aten::relu
    in: [{type: tensor, shape: [2, 2], dtype: float32}]
)");
  auto results = run_items(items, against_eager({"test_off_by_one"}));
  const BackendResult& r = on(results[0], "test_off_by_one");
  ASSERT_TRUE(r.diff);
  EXPECT_TRUE(mismatched(r));
  EXPECT_THAT(r.diff->at(0).why, HasSubstr("output"));
  EXPECT_DOUBLE_EQ(r.diff->at(0).max_abs, 1.0);
  auto tallies = tally(results);
  ASSERT_EQ(tallies.size(), 2u);
  EXPECT_EQ(tallies[1].first, "test_off_by_one");
  EXPECT_EQ(tallies[1].second.mismatch, 1u);
}

TEST(Run, APairTestComparesSideAWithSideBOnEachBackend) {
  auto items = items_of(R"(
tests:
  - id: relu_vs_clamp
    a: {op: aten::relu, in: [{type: tensor, shape: [5], dtype: float32}]}
    b: {op: aten::clamp, in: [{type: tensor, shape: [5], dtype: float32}], kwargs: {min: 0.0}}
  - id: relu_vs_neg
    a: {op: aten::relu, in: [{type: tensor, shape: [5], dtype: float32}]}
    b: {op: aten::neg, in: [{type: tensor, shape: [5], dtype: float32}]}
)");
  ASSERT_EQ(items.size(), 2u);
  ASSERT_TRUE(items[0].pair());
  RunOptions o;
  o.backends = {"eager_cpu", "torchscript_cpu"};
  auto results = run_items(items, o);
  for (const auto& r : results[0].backends) {
    ASSERT_EQ(r.res.size(), 2u);
    ASSERT_TRUE(r.diff) << r.backend;
    EXPECT_TRUE(r.diff->at(0).match) << r.backend;
  }
  EXPECT_TRUE(mismatched(results[1].backends[0]));
  nlohmann::json record = item_record(results[0]);
  EXPECT_EQ(record["test_type"], "pair");
  EXPECT_EQ(record["cases"][0]["id"], "relu_vs_clamp__a");
  EXPECT_EQ(record["cases"][1]["op"], "aten::clamp");
  EXPECT_TRUE(record["baseline"].is_null());
}

TEST(Run, RecordsKeepOpdiffsLayout) {
  auto items = items_of(kThreeTests);
  items.erase(items.begin() + 1);
  RunOptions o = against_eager({"eager_cpu_fp64"});
  o.mode = 2;
  o.repeats = 3;
  auto results = run_items(items, o);
  nlohmann::json j = nlohmann::json::parse(item_record(results[0]).dump());
  EXPECT_EQ(j["type"], "item");
  EXPECT_EQ(j["id"], "before");
  EXPECT_EQ(j["test_type"], "single");
  EXPECT_EQ(j["cases"][0]["yaml"], "test.yaml");
  EXPECT_EQ(j["cases"][0]["op"], "aten::add.Tensor");
  EXPECT_EQ(j["baseline"]["backend"], "eager_cpu");
  EXPECT_EQ(j["baseline"]["status"], "OK");
  EXPECT_TRUE(j["baseline"]["err"].is_null());
  EXPECT_TRUE(j["baseline"]["ms"].is_number());
  const auto& b = j["backends"][0];
  EXPECT_EQ(b["backend"], "eager_cpu_fp64");
  EXPECT_EQ(b["res"][0]["status"], "OK");
  ASSERT_EQ(b["times_all"].size(), 1u);     // one side
  EXPECT_EQ(b["times_all"][0].size(), 3u);  // every repeat
  ASSERT_EQ(b["diff_all"].size(), 3u);      // one comparison per repeat in mode 2
  for (const char* key : {"ok", "mse", "max_abs", "mean_abs", "verdict", "ulp", "chebyshev"})
    EXPECT_TRUE(b["diff_all"][0].contains(key)) << key;
  nlohmann::json meta = meta_record({{"yaml", "test.yaml"}});
  EXPECT_EQ(meta["type"], "meta");
  EXPECT_EQ(meta["meta"]["format_name"], "opdiff_run");
  EXPECT_EQ(meta["meta"]["format_version"], 1);
  EXPECT_THAT(meta["meta"]["created_at"].get<std::string>(), HasSubstr("+00:00"));
}

TEST(Run, OutputsAreCheckedAgainstTheTestsOut) {
  auto items = items_of(R"(
tests:
  - id: right
    op: aten::add.Tensor
    in: [{type: const_tensor, shape: [2], dtype: int64, value: [1, 2]}, {type: const_tensor, shape: [2], dtype: int64, value: [10, 20]}]
    out: {type: const_tensor, shape: [2], dtype: int64, value: [11, 22]}
  - id: off_by_one
    op: aten::add.Tensor
    in: [{type: const_tensor, shape: [2], dtype: int64, value: [1, 2]}, {type: const_tensor, shape: [2], dtype: int64, value: [10, 20]}]
    out: {type: const_tensor, shape: [2], dtype: int64, value: [11, 23]}
  - id: shape_only
    op: aten::mm
    in: [{type: tensor, shape: [2, 3], dtype: float32}, {type: tensor, shape: [3, 4], dtype: float32}]
    out: {type: tensor, shape: [2, 5], dtype: float32}
  - id: not_a_node
    op: aten::relu
    in: [{type: tensor, shape: [2], dtype: float32}]
    out: whatever the author meant
)");
  RunOptions o;
  o.backends = {"eager_cpu", "torchscript_cpu"};
  auto results = run_items(items, o);
  for (const auto& b : results[0].backends) {
    ASSERT_EQ(b.expected.size(), 1u);
    EXPECT_TRUE(b.expected[0]->match) << b.backend;
    EXPECT_FALSE(mismatched(b));
  }
  const auto& wrong = results[1].backends[0];
  EXPECT_TRUE(mismatched(wrong));
  EXPECT_THAT(wrong.expected[0]->why, HasSubstr("22 vs reference 23"));
  EXPECT_THAT(results[2].backends[0].expected[0]->why, HasSubstr("[2, 4] float32 vs expected [2, 5] float32"));
  EXPECT_TRUE(results[3].backends[0].expected.empty());
  EXPECT_TRUE(item_record(results[1])["backends"][0].contains("expected"));
}

TEST(Run, SamplesBecomeItemsThatNameTheirOrigin) {
  Sample s;
  s.op = "add.Tensor";
  s.args = {at::ones({2}), at::ones({2})};
  s.kwargs = {{"alpha", c10::IValue(2)}};
  s.seed = 5, s.index = 7;
  Item item = item_from_sample(s, "half");
  EXPECT_EQ(item.id, "add_Tensor__valid__0007");
  ASSERT_TRUE(item.sides[0].call);
  EXPECT_EQ(item.sides[0].call->args.size(), 3u);  // bound: self, other, alpha
  EXPECT_EQ(item.origin->config, "half");
  s.kwargs = {{"beta", c10::IValue(2)}};  // no such argument: the side's error, not a refusal
  Item unbound = item_from_sample(s, "");
  EXPECT_FALSE(unbound.sides[0].call);
  EXPECT_THAT(unbound.sides[0].error, HasSubstr("TypeError"));
  RunOptions o;
  o.backends = {"eager_cpu"};
  auto results = run_items({unbound}, o);
  EXPECT_EQ(results[0].backends[0].res[0].status, Status::Error);
}

// A suite's test draws its backends' choices from the run's seed and its id, unless it gives its
// backend_seed (a hunt's reproducer gives its sample's: the backend repeats the sample's choices).
TEST(Run, ATestsBackendSeedIsItsCallsSeed) {
  Sample s;
  s.op = "relu.default", s.args = {at::ones({2})}, s.seed = 5, s.index = 7;
  EXPECT_EQ(item_from_sample(s, "").sides[0].call->seed, backend_seed(s));
  const std::string test =
      "tests:\n  - {id: t, op: aten::relu, in: [{type: const_tensor, shape: [2], dtype: "
      "float32, value: [1.0, 1.0]}]";
  const uint64_t drawn = items_of(test + "}\n").at(0).sides[0].call->seed;
  EXPECT_EQ(drawn, suite::input_seed(0, "t", "backend"));
  char seed[32];
  std::snprintf(seed, sizeof seed, "\"%llu\"", static_cast<unsigned long long>(backend_seed(s)));
  EXPECT_EQ(items_of(test + ", backend_seed: " + seed + "}\n").at(0).sides[0].call->seed, backend_seed(s));
}

// SpecDB samples on the kernels: a crash costs its sample, the others run; a binding error is
// never a rejection.
TEST(RunSamples, IsolationRecordsACrashAndContinues) {
  const Spec& spec = *find_spec("add.Tensor");
  std::vector<Sample> samples = generate_samples(spec, Config{}, 0, Validity::Valid, 3);
  Sample crash = samples[0];
  crash.op = "index_select.default";  // zero-dim self with many indices corrupts the heap in this build
  crash.args = {at::zeros({}), int64_t{0}, at::zeros({100000}, at::kLong)};
  crash.kwargs.clear();
  std::vector<Sample> batch{samples[0], crash, samples[1], samples[2]};
  for (int i = 0; i < 20; ++i) batch.insert(batch.begin() + 2, crash);
  RunOptions options;
  options.timeout_s = 30;
  auto outcomes = run_samples(batch, options);
  ASSERT_EQ(outcomes.size(), batch.size());
  EXPECT_EQ(outcomes.front().kind, opcall::CallOutcome::Accepted);
  EXPECT_EQ(outcomes.back().kind, opcall::CallOutcome::Accepted);
  Sample bad = samples[0];
  bad.args[1] = at::zeros({9, 9, 9});
  Sample unbound = samples[0];
  unbound.args.push_back(at::zeros({1}));
  unbound.args.push_back(at::zeros({1}));
  options.isolate = false;
  auto in_process = run_samples({bad, unbound}, options);
  EXPECT_EQ(in_process[0].kind, opcall::CallOutcome::Rejected) << in_process[0].message;
  EXPECT_EQ(in_process[1].kind, opcall::CallOutcome::BindError) << in_process[1].message;
}

}  // namespace
}  // namespace opsfuzz::runner
