// Tuple generation per spec (valid and invalid, default config, one thread), the joint-constraint
// ablation (Z3 look-ahead vs sampling with retry), and space operations. Valid generation of an
// op FACTO also covers reports x_facto: our tuples/s over FACTO's (bench/facto-rates.tsv).
// hand_written/convolution.default is the per-variable baseline joint specs are held to;
// hand_written_as_joint/convolution.default states the same rules as joint constraints.
#include "bench/facto_rates.h"
#include "bench/hand_written.h"
#include "engine/engine.h"
#include "generators/generators.h"
#include "specs/db/db.h"

#include <ATen/Parallel.h>
#include <benchmark/benchmark.h>

#include <chrono>
#include <iostream>
#include <map>

namespace opsfuzz {
namespace {

// FACTO's tuples/s per op; empty (with a note) when the file cannot be read.
const std::map<std::string, double>& facto_rates() {
  static const std::map<std::string, double> rates = [] {
    std::map<std::string, double> m;
    try {
      for (const auto& r : read_facto_rates(OPSFUZZ_FACTO_RATES)) m[r.op] = r.tuples_per_s;
    } catch (const std::exception& e) { std::cerr << "generation_bench: no x_facto: " << e.what() << "\n"; }
    return m;
  }();
  return rates;
}

// Makes the first tuple before the timing and reports what it took (first_tuple_ms): it pays once
// per process for what later tuples reuse, the joint constraints' first model above all (one Z3
// solve, 260 ms for max_pool3d_with_indices), which would otherwise be most of a short run. When
// there is none the run is skipped, and its timing loop does not run.
void first_tuple(benchmark::State& state, ArgumentTupleGenerator& gen, Sample& s, const char* none) {
  const auto start = std::chrono::steady_clock::now();
  if (!gen.next(s)) state.SkipWithError(none);
  state.counters["first_tuple_ms"] =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

void generate(benchmark::State& state, const Spec& spec, Validity v) {
  at::set_num_threads(1);
  ArgumentTupleGenerator gen(spec, Config{}, 1, v);
  Sample s;
  first_tuple(state, gen, s, "the stream ended");
  for (auto _ : state)
    if (!gen.next(s)) {  // a stream that ended would time nothing
      state.SkipWithError("the stream ended");
      break;
    }
  state.counters["tuples/s"] = benchmark::Counter(static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
  state.counters["per_round"] = static_cast<double>(gen.tuples_per_round());
  auto facto = facto_rates().find(spec.op());
  if (v == Validity::Valid && facto != facto_rates().end() && find_spec(spec.op()) == &spec)  // not a baseline
    state.counters["x_facto"] =
        benchmark::Counter(static_cast<double>(state.iterations()) / facto->second, benchmark::Counter::kIsRate);
}

// The joint-constraint ablation: the same spec and seed with Z3 look-ahead and with sampling
// and retry. dead_end_frac: attempts that met an empty space or broke a joint constraint.
void generate_joint(benchmark::State& state, const Spec& spec, JointStrategy strategy) {
  at::set_num_threads(1);
  Config cfg;
  cfg.joint = strategy;
  ArgumentTupleGenerator gen(spec, cfg, 1, Validity::Valid);
  Sample s;
  first_tuple(state, gen, s, "no valid sample");
  for (auto _ : state)
    if (!gen.next(s)) {
      state.SkipWithError("no valid sample");
      break;
    }
  const auto& st = gen.stats();  // the first tuple's counts included
  state.counters["tuples/s"] = benchmark::Counter(static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
  state.counters["dead_end_frac"] =
      static_cast<double>(st.dead_ends) / static_cast<double>(std::max<uint64_t>(st.attempts, 1));
  state.counters["z3_calls/tuple"] =
      static_cast<double>(st.solver_calls) / static_cast<double>(std::max<uint64_t>(st.samples, 1));
  state.counters["skipped_tasks"] = static_cast<double>(st.skipped_tasks);
}

void register_all() {
  for (const auto& spec : spec_db()) {
    if (spec.joints().empty()) continue;
    if (have_z3())
      benchmark::RegisterBenchmark(("joint/z3/" + spec.op()).c_str(), generate_joint, std::cref(spec),
                                   JointStrategy::Z3);
    benchmark::RegisterBenchmark(("joint/sampling/" + spec.op()).c_str(), generate_joint, std::cref(spec),
                                 JointStrategy::Sampling);
  }
  for (const auto& spec : spec_db()) {
    benchmark::RegisterBenchmark(("valid/" + spec.op()).c_str(), generate, std::cref(spec), Validity::Valid);
    if (!MetaArgTupleEngine(spec, Config{}).invalid_tasks().empty())  // else there is nothing to time
      benchmark::RegisterBenchmark(("invalid/" + spec.op()).c_str(), generate, std::cref(spec), Validity::Invalid);
  }
  static const Spec hand_written = hand_written_convolution();
  benchmark::RegisterBenchmark("hand_written/convolution.default", generate, std::cref(hand_written), Validity::Valid);
  static const Spec as_joint = hand_written_convolution_as_joint();
  benchmark::RegisterBenchmark("hand_written_as_joint/convolution.default", generate, std::cref(as_joint),
                               Validity::Valid);
  // Forward checking alone: what the look-ahead adds to the rules above (their order never dead-ends).
  benchmark::RegisterBenchmark("hand_written_as_joint/sampling/convolution.default", generate_joint,
                               std::cref(as_joint), JointStrategy::Sampling);
}

// Element fills: one 4,096-element tensor of each dtype under each value profile, over the
// values its dtype holds (the generator clips them to its window). elements/s is what counts.
void fill_elements(benchmark::State& state, c10::ScalarType dtype, ValueProfile profile) {
  constexpr int64_t kElements = 4096;
  TensorConfig cfg;
  TensorGenerator gen(cfg);
  TensorMeta meta;
  meta.dtype = dtype, meta.shape = {kElements}, meta.profile = profile, meta.contiguous = true;
  meta.values = tensor_value_space(dtype);
  Rng rng(1);
  for (auto _ : state) benchmark::DoNotOptimize(gen.generate(meta, rng));
  state.counters["elements/s"] =
      benchmark::Counter(static_cast<double>(state.iterations() * kElements), benchmark::Counter::kIsRate);
}

void register_fills() {
  for (auto dtype : {c10::ScalarType::Float, c10::ScalarType::Double, c10::ScalarType::Long, c10::ScalarType::Int,
                     c10::ScalarType::Byte, c10::ScalarType::Bool})
    for (auto profile : {ValueProfile::Uniform, ValueProfile::Boundary, ValueProfile::Special, ValueProfile::Sparse})
      benchmark::RegisterBenchmark(
          ("elements/" + std::string(c10::toString(dtype)) + "/" + std::string(name(profile))).c_str(), fill_elements,
          dtype, profile);
}

void BM_SpaceNarrowing(benchmark::State& state) {
  for (auto _ : state) {
    auto s = VariableSpace::range(VarType::Int, -20, 20);
    s.ge(-3).lt(7).ne(int64_t{2});
    benchmark::DoNotOptimize(s.contains(int64_t{4}));
  }
}
BENCHMARK(BM_SpaceNarrowing);

void BM_SpaceIn(benchmark::State& state) {
  std::vector<Value> dims{int64_t{-2}, int64_t{-1}, int64_t{0}, int64_t{1}};
  for (auto _ : state) {
    VariableSpace s(VarType::TensorDtype);
    s.in(std::vector<Value>{c10::ScalarType::Float, c10::ScalarType::Double}).ne(c10::ScalarType::Double);
    auto i = VariableSpace::range(VarType::Int, -20, 20);
    i.in(dims);
    benchmark::DoNotOptimize(s.size() + i.size());
  }
}
BENCHMARK(BM_SpaceIn);

}  // namespace
}  // namespace opsfuzz

int main(int argc, char** argv) {
  opsfuzz::register_all();
  opsfuzz::register_fills();
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
}
