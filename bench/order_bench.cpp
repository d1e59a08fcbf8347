// What the diversity order costs (generators/diversity_order.h): ordering 100,000 candidates, the
// pools of every SpecDB op under 19 configurations of 20 samples each, as a hunt would order them.
// The candidates are real: the diversity keys of SpecDB samples (20 per op, generated before the
// timing), each op's pool standing for 19 configurations' pools. Run pinned to one CPU:
//   taskset -c 0 build/bench/order_bench
#include <benchmark/benchmark.h>

#include "engine/config.h"
#include "generators/diversity.h"
#include "generators/diversity_order.h"
#include "generators/generators.h"
#include "specs/db/db.h"

namespace opsfuzz {
namespace {

constexpr size_t kCandidates = 100000;
constexpr int kPerOp = 20;

std::vector<OrderCandidate> candidates() {
  std::vector<std::vector<uint64_t>> keys;  // per sample
  std::vector<uint32_t> ops;
  uint32_t op = 0;
  for (const Spec& spec : spec_db()) {
    try {
      for (const Sample& s : generate_samples(spec, Config{}, 0, Validity::Valid, kPerOp)) {
        keys.push_back(diversity_keys(s.metas));
        ops.push_back(op);
      }
    } catch (const std::exception&) {}  // an op without valid samples has no pool
    ++op;
  }
  std::vector<OrderCandidate> out;
  out.reserve(kCandidates);
  for (uint32_t copy = 0; out.size() < kCandidates; ++copy)
    for (size_t i = 0; i < keys.size() && out.size() < kCandidates; ++i) out.push_back({ops[i] + copy * op, keys[i]});
  return out;
}

void order_100k(benchmark::State& state) {
  static const std::vector<OrderCandidate> c = candidates();
  const std::vector<double> op_scores(c.back().op + 1, 1.0);
  for (auto _ : state) benchmark::DoNotOptimize(diversity_order(c, op_scores));
  state.counters["candidates"] = static_cast<double>(c.size());
  state.counters["pools"] = static_cast<double>(op_scores.size());
}
BENCHMARK(order_100k)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(5);

}  // namespace
}  // namespace opsfuzz

BENCHMARK_MAIN();
