// The SpecDB sweep, under every tensor configuration: each spec's valid samples must run on the
// CPU kernels, and its invalid samples must be refused, but for those in marked deviations; a
// binding error is a fault of the spec, never a rejection. Kernels run in forked children.
#include "bench/hand_written.h"
#include "engine/engine.h"
#include "engine/joint.h"
#include "generators/classify.h"
#include "generators/generators.h"
#include "runner/run.h"
#include "specs/db/db.h"
#include "tests/specs/spec_ops.h"

#include <ATen/Parallel.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <tuple>

namespace opsfuzz {
namespace {

using opcall::CallOutcome;
using runner::run_samples;

constexpr size_t kSamples = 300;
// "default", then every tensor configuration word.
std::vector<std::string> tensor_configs() {
  std::vector<std::string> out = {"default"};
  for (const ConfigWord& w : config_words())
    if (w.kind == ConfigWord::Tensor) out.emplace_back(w.word);
  return out;
}
const std::vector<std::string> kConfigs = tensor_configs();

Config config_named(const std::string& name) { return Config::parse(name == "default" ? "" : name); }

std::vector<Sample> generate(const Spec& spec, const Config& cfg, Validity v, size_t n = kSamples,
                             uint64_t seed = 2026) {
  ArgumentTupleGenerator gen(spec, cfg, seed, v);
  std::vector<Sample> out;
  Sample s;
  while (out.size() < n && gen.next(s)) out.push_back(s);
  return out;
}

std::string describe(const Sample& s, const CallOutcome& o) {
  return s.op + " #" + std::to_string(s.index) + (s.valid ? "" : " (" + s.violated + ")") + " " +
         std::string(name(o.kind)) + ": " + o.message;
}

using Case = std::tuple<std::string, std::string>;  // op, config: names that read in CTest

class SpecDB : public ::testing::TestWithParam<Case> {
 protected:
  static void SetUpTestSuite() { at::set_num_threads(1); }
  const Spec& spec() const { return *find_spec(std::get<0>(GetParam())); }
  Config config() const { return config_named(std::get<1>(GetParam())); }
};

// kSamples valid samples of `spec`, each accepted by the kernel.
void expect_valid_samples_accepted(const Spec& spec, const Config& cfg) {
  auto samples = generate(spec, cfg, Validity::Valid);
  ASSERT_EQ(samples.size(), kSamples);
  auto outcomes = run_samples(samples);
  for (size_t i = 0; i < samples.size(); ++i)
    EXPECT_EQ(outcomes[i].kind, CallOutcome::Accepted) << describe(samples[i], outcomes[i]);
}

TEST_P(SpecDB, ValidSamplesAreAccepted) { expect_valid_samples_accepted(spec(), config()); }

// Every invalid sample is refused, except one that says it falls into a marked deviation (a rule
// the kernel does not check). A stream shorter than kSamples fails, unless no rule of the spec can
// be broken under the configuration: it produced nothing, and every dead end found no value
// breaking the rule it was to break (prod refuses float16, which only `half` generates).
TEST_P(SpecDB, InvalidSamplesAreRejected) {
  ArgumentTupleGenerator gen(spec(), config(), 2026, Validity::Invalid);
  std::vector<Sample> samples;
  for (Sample s; samples.size() < kSamples && gen.next(s);) samples.push_back(s);
  const auto& causes = gen.stats().dead_end_causes;
  const bool out_of_reach = std::all_of(causes.begin(), causes.end(), [](const auto& c) { return c.first.violating; });
  if (samples.empty() && out_of_reach) GTEST_SKIP() << "no rule to break under this configuration: " << gen.why_ended();
  EXPECT_EQ(samples.size(), kSamples) << gen.why_ended();
  auto outcomes = run_samples(samples);
  size_t in_deviations = 0;
  for (size_t i = 0; i < samples.size(); ++i) {
    EXPECT_NE(outcomes[i].kind, CallOutcome::BindError) << describe(samples[i], outcomes[i]);
    EXPECT_NE(outcomes[i].kind, CallOutcome::Crashed) << describe(samples[i], outcomes[i]);
    if (outcomes[i].kind != CallOutcome::Accepted) continue;
    if (samples[i].deviations.empty()) ADD_FAILURE() << "accepted: " << describe(samples[i], outcomes[i]);
    else ++in_deviations;
  }
  std::printf("%s [%s]: %zu invalid samples, %zu accepted in marked deviations\n", spec().op().c_str(),
              std::get<1>(GetParam()).c_str(), samples.size(), in_deviations);
}

using testing::all_ops;

std::string case_name(const ::testing::TestParamInfo<Case>& info) {
  return identifier(std::get<0>(info.param)) + "__" + std::get<1>(info.param);
}

INSTANTIATE_TEST_SUITE_P(Ops, SpecDB, ::testing::Combine(::testing::ValuesIn(all_ops()), ::testing::ValuesIn(kConfigs)),
                         case_name);

// The baseline generation_bench times convolution's joint spec against is held to the same test:
// a rate of invalid tuples would be no baseline.
TEST(Baselines, HandWrittenConvolutionSamplesAreAccepted) {
  at::set_num_threads(1);
  expect_valid_samples_accepted(hand_written_convolution(), Config{});
}

TEST(Baselines, HandWrittenConvolutionAsJointSamplesAreAccepted) {
  at::set_num_threads(1);
  expect_valid_samples_accepted(hand_written_convolution_as_joint(), Config{});
}

// The two baselines differ in how their rules are stated, not in what they allow: each one's
// samples keep every rule of the other.
TEST(Baselines, HandWrittenConvolutionAsJointStatesTheSameContract) {
  const Spec per_variable = hand_written_convolution(), joint = hand_written_convolution_as_joint();
  for (const auto& [from, other] : {std::pair{&per_variable, &joint}, std::pair{&joint, &per_variable}})
    for (const Sample& s : generate(*from, Config{}, Validity::Valid)) {
      const Classification c = classify(*other, in_spec_order(*other, s));
      EXPECT_TRUE(c.valid()) << s.op << " #" << s.index << " breaks " << (c.broken.empty() ? "" : c.broken[0]);
    }
}

// ---- Labels -------------------------------------------------------------------------------

// Every label names an argument of its spec and none reads like the old positional labels
// ("dim.Value.Be(dim_of(0))", "f(deps)").
TEST(SpecLabels, EveryLabelReadsAsASentenceAboutNamedArguments) {
  const std::regex attribute_suffix(R"(\.(Optional|Dtype|Length|Rank|Size|Value)\.)");
  const std::regex bare_position(R"(\b(?!size\b)[a-z_]+\(-?\d+\))");
  size_t labels = 0;
  for (const auto& spec : spec_db()) {
    std::vector<std::string> all;
    for (const auto* list : {&spec.args(), &spec.outs()})
      for (const auto& a : *list)
        for (const auto& c : a.constraints) all.push_back(c.label);
    for (const auto& j : spec.joints()) all.push_back(j.label);
    for (const auto& label : all) {
      ++labels;
      EXPECT_EQ(label.find("f(deps)"), std::string::npos) << spec.op() << ": " << label;
      EXPECT_FALSE(std::regex_search(label, attribute_suffix)) << spec.op() << ": " << label;
      EXPECT_FALSE(std::regex_search(label, bare_position)) << spec.op() << ": " << label;
      bool names_one = false;
      for (const auto* list : {&spec.args(), &spec.outs()})
        for (const auto& a : *list) names_one |= std::regex_search(label, std::regex("\\b" + a.name + "\\b"));
      EXPECT_TRUE(names_one) << spec.op() << ": '" << label << "' names none of its arguments";
    }
  }
  EXPECT_GT(labels, 100u);
}

TEST(SpecLabels, InvalidConvolutionSamplesCarryReadableLabels) {
  std::set<std::string> seen;
  for (const auto& s : generate(*find_spec("convolution.default"), Config{}, Validity::Invalid, 400, 0))
    seen.insert(s.violated);
  EXPECT_TRUE(seen.count("input.rank in [3, 5]"));
  EXPECT_TRUE(seen.count("weight.size(1) * groups == input.size(1) (not transposed)"));
  EXPECT_TRUE(seen.count("len(stride) in {1, input.rank - 2}"));
}

// ---- Deviations ---------------------------------------------------------------------------

// The sweep a deviation's command names: "ops-fuzz sweep OP [--invalid] --config C --seed S --max N".
struct Repro {
  std::string op, config;
  bool invalid = false;
  uint64_t seed = 0;
  size_t max = 200;
};

Repro parse_command(const std::string& command) {
  std::istringstream in(command);
  std::string word;
  Repro r;
  in >> word >> word;  // ops-fuzz sweep
  EXPECT_EQ(word, "sweep") << command;
  in >> r.op;
  while (in >> word) {
    if (word == "--invalid") r.invalid = true;
    else if (word == "--config") in >> r.config;
    else if (word == "--seed") in >> r.seed;
    else if (word == "--max") in >> r.max;
    else ADD_FAILURE() << "unknown word '" << word << "' in " << command;
  }
  return r;
}

// What a deviation's check reads of a sample run on the kernel.
struct SampleRun {
  bool valid;
  std::vector<std::string> deviations;  // the sample hits these
  CallOutcome::Kind kind;

  bool departs_from_contract() const {
    return valid ? kind != CallOutcome::Accepted : kind == CallOutcome::Accepted || kind == CallOutcome::Crashed;
  }
};

std::vector<SampleRun> run_command(const Spec& spec, const Config& cfg, const Repro& r) {
  auto samples = generate(spec, cfg, r.invalid ? Validity::Invalid : Validity::Valid, r.max, r.seed);
  auto outcomes = run_samples(samples);
  std::vector<SampleRun> runs;
  for (size_t i = 0; i < samples.size(); ++i)
    runs.push_back({samples[i].valid, samples[i].deviations, outcomes[i].kind});
  return runs;
}

// Under AddressSanitizer the heap is the sanitizer's, libtorch's allocations too: a kernel
// (uninstrumented) that writes past a buffer lands in a redzone, not in a neighbour, and the crash
// a heap-corrupting deviation names may not follow.
#if defined(__SANITIZE_ADDRESS__)
constexpr bool kSanitizerHeap = true;
#else
constexpr bool kSanitizerHeap = false;
#endif

// Each deviation's command reproduces it: under the contract some samples hit it, and the
// kernel departs from the contract on them (refuses or crashes on a valid one, accepts or
// crashes on an invalid one). A known crash that the sanitizer's heap keeps from crashing must
// still be hit.
TEST(Deviations, EachCommandReproducesItsDeviation) {
  at::set_num_threads(1);
  size_t deviations = 0;
  std::map<std::string, std::vector<SampleRun>> runs;  // by command: a third of the deviations share theirs
  for (const auto& spec : spec_db())
    for (const auto& d : spec.deviations()) {
      ++deviations;
      const std::string& command = d.deviation->command;
      Repro r = parse_command(command);
      ASSERT_EQ(r.op, spec.op()) << command;
      Config cfg = Config::parse(r.config);
      ASSERT_TRUE(cfg.contract) << command << " does not ask for the contract";
      auto [it, first] = runs.try_emplace(command);
      if (first) it->second = run_command(spec, cfg, r);
      size_t hits = 0, departures = 0;
      for (const SampleRun& x : it->second) {
        if (std::find(x.deviations.begin(), x.deviations.end(), d.deviation->id) == x.deviations.end()) continue;
        ++hits;
        departures += x.departs_from_contract();
      }
      std::printf("%s: %zu of %zu samples hit it, %zu of them depart from the contract\n", d.deviation->id.c_str(),
                  hits, it->second.size(), departures);
      if (kSanitizerHeap && !d.deviation->signals.empty() && departures == 0) {
        std::printf("  a known crash, kept from crashing by the sanitizer's heap: hit, not reproduced\n");
        EXPECT_GT(hits, 0u) << d.deviation->id << ": " << command;
        continue;
      }
      EXPECT_GT(departures, 0u) << d.deviation->id << ": " << command;
    }
  EXPECT_GE(deviations, 6u);
}

// ---- Specs with joint constraints ---------------------------------------------------------

class JointSpec : public ::testing::TestWithParam<std::string> {
 protected:
  static void SetUpTestSuite() { at::set_num_threads(1); }
  const Spec& spec() const { return *find_spec(GetParam()); }
};

TEST_P(JointSpec, ValidGenerationNeverDeadEndsWithZ3) {
  if (!have_z3()) GTEST_SKIP() << "built without Z3 (OPSFUZZ_WITH_Z3=OFF): joint constraints are sampled with retry";
  ArgumentTupleGenerator gen(spec(), Config{}, 2026, Validity::Valid);
  Sample s;
  for (size_t i = 0; i < kSamples; ++i) ASSERT_TRUE(gen.next(s));
  EXPECT_EQ(gen.stats().dead_ends, 0u) << GetParam();
  EXPECT_EQ(gen.stats().attempts, kSamples + gen.stats().redrawn) << GetParam();  // every attempt solved
}

TEST_P(JointSpec, SampledWithoutLookAheadStillValid) {
  auto samples = generate(spec(), Config::parse("sampling"), Validity::Valid, 100);
  ASSERT_FALSE(samples.empty());
  auto outcomes = run_samples(samples);
  for (size_t i = 0; i < samples.size(); ++i)
    EXPECT_EQ(outcomes[i].kind, CallOutcome::Accepted) << describe(samples[i], outcomes[i]);
}

// An instance's kept evaluation, re-evaluated only where a changed slot reaches (Instance::readers),
// agrees with a fresh one: over random assignments, each slot in turn changed in value or known.
// So does a kept congruent one, which also agrees with the plain value wherever that is known.
TEST_P(JointSpec, KeptEvaluationsAgreeWithFreshOnes) {
  Config cfg;
  AttributeEngine attrs(cfg);
  JointProblem p(spec(), cfg, attrs);
  Rng rng(7);
  size_t checked = 0;
  for (size_t k = 0; k < spec().joints().size(); ++k)
    for (const auto& in : p.instances(static_cast<int>(k)))
      for (int round = 0; round < 20; ++round) {
        Assignment a;
        a.reset(static_cast<size_t>(p.slot_count()));
        for (int slot : in.slots)
          if (rng.chance(0.8)) a.set(slot, rng.uniform_int(p.lo(slot), p.hi(slot)));
        Evaluations kept;  // plain, then congruent
        for (size_t e = 0; e < 2; ++e) kept.add(in.program, e == 1), kept.run(e, p, in.program, a);
        for (int slot : in.slots) {
          if (rng.chance(0.2)) a.known[static_cast<size_t>(slot)] ^= 1;
          else a.set(slot, rng.uniform_int(p.lo(slot), p.hi(slot)));
          for (size_t e = 0; e < 2; ++e) kept.rerun(e, p, in.program, a, in.readers_of(slot));
          const auto plain = p.eval(in.program, a);
          Evaluations fresh;
          fresh.add(in.program, true);
          fresh.run(0, p, in.program, a);
          const std::string at = spec().joints()[k].label + ", slot " + std::to_string(slot);
          ASSERT_EQ(kept.result(0), plain) << at;
          ASSERT_EQ(kept.result(1), fresh.result(0)) << at;
          if (plain) ASSERT_EQ(kept.result(1), plain) << at;
          ++checked;
        }
      }
  EXPECT_GT(checked, 0u);
}

std::vector<std::string> joint_ops() {
  std::vector<std::string> out;
  for (const auto& s : spec_db())
    if (!s.joints().empty()) out.push_back(s.op());
  return out;
}

INSTANTIATE_TEST_SUITE_P(Ops, JointSpec, ::testing::ValuesIn(joint_ops()), testing::op_param_name);

// Distinct values of `key` over 200 valid samples of `op`.
template <class Key> size_t distinct(const char* op, Key key) {
  std::set<decltype(key(Sample{}))> seen;
  for (const auto& s : generate(*find_spec(op), Config{}, Validity::Valid, 200)) seen.insert(key(s));
  return seen.size();
}

// An argument of a sample by name.
const MetaArg& arg(const Sample& s, const char* name) {
  return s.metas.at(static_cast<size_t>(find_spec(s.op)->index_of(name)));
}
IntList ints(const Sample& s, const char* name) { return std::get<IntList>(arg(s, name).value); }

TEST(JointDiversity, SplitSizes) {
  size_t n = distinct("split_with_sizes_copy.default", [](const Sample& s) { return ints(s, "split_sizes"); });
  std::printf("split_with_sizes_copy: %zu distinct split_sizes in 200 samples\n", n);
  EXPECT_GE(n, 50u);
}

TEST(JointDiversity, ConvolutionParameters) {
  size_t n = distinct("convolution.default", [](const Sample& s) {
    return std::tuple(ints(s, "stride"), ints(s, "padding"), ints(s, "dilation"), as_int(arg(s, "groups").value));
  });
  std::printf("convolution: %zu distinct (stride, padding, dilation, groups) in 200 samples\n", n);
  EXPECT_GE(n, 30u);
}

}  // namespace
}  // namespace opsfuzz
