// What the diversity order costs (generators/diversity_order.h): ordering 100,000 candidates made of
// real diversity keys, those of SpecDB samples (20 per op, generated before the timing) copied
// until there are 100,000, in small pools and in an op's pools as a hunt makes them. Run pinned
// to one CPU:
//   taskset -c 0 build/bench/order_bench
#include <benchmark/benchmark.h>

#include <algorithm>

#include "engine/config.h"
#include "generators/diversity.h"
#include "generators/diversity_order.h"
#include "generators/generators.h"
#include "specs/db/db.h"

namespace opsfuzz {
namespace {

constexpr size_t kCandidates = 100000;
constexpr int kPerOp = 20;

// `copies_apart`: each copy of the SpecDB's samples is a pool of its own (5,000 pools of 20, as
// small pools of many ops would be); otherwise each op's copies pool together (264 pools of about
// 380, as a hunt pools an op's samples over its configurations).
std::vector<OrderCandidate> candidates(bool copies_apart) {
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
    for (size_t i = 0; i < keys.size() && out.size() < kCandidates; ++i)
      out.push_back({ops[i] + (copies_apart ? copy * op : 0), keys[i]});
  return out;
}

void order(benchmark::State& state, const std::vector<OrderCandidate>& c) {
  uint32_t pools = 0;
  for (const OrderCandidate& x : c) pools = std::max(pools, x.op + 1);
  const std::vector<double> op_scores(pools, 1.0);
  for (auto _ : state) benchmark::DoNotOptimize(diversity_order(c, op_scores));
  state.counters["candidates"] = static_cast<double>(c.size());
  state.counters["pools"] = static_cast<double>(pools);
}
void order_100k(benchmark::State& state) {
  static const std::vector<OrderCandidate> c = candidates(true);
  order(state, c);
}
void order_100k_op_pools(benchmark::State& state) {
  static const std::vector<OrderCandidate> c = candidates(false);
  order(state, c);
}
BENCHMARK(order_100k)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(5);
BENCHMARK(order_100k_op_pools)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(5);

}  // namespace
}  // namespace opsfuzz

BENCHMARK_MAIN();
