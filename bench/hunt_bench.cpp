// What triage, grouping and shrinking cost a hunt: `hunt` against `run` on the same selection
// (ops with real findings on extreme values, so that mismatches are triaged and findings shrunk),
// the same backends and one worker process, in items per second. Run pinned to one CPU:
//   taskset -c 0 build/bench/hunt_bench
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <filesystem>
#include <sstream>

#include "tools/cli.h"

namespace opsfuzz {
namespace {

const char* kOps = "fmod.Tensor,remainder.Tensor,add.Tensor,mm.default,sum.dim_IntList,mean.dim";
const char* kBackends = "eager_cpu_fp64;eager_cpu_noncontig";
constexpr int kMax = 60;  // samples per op: 360 items an iteration

std::filesystem::path scratch(const char* name) {
  return std::filesystem::temp_directory_path() / ("opsfuzz_hunt_bench_" + std::to_string(::getpid()) + name);
}

void cli(benchmark::State& state, const std::vector<std::string>& args) {
  for (auto _ : state) {
    std::ostringstream out, err;
    benchmark::DoNotOptimize(run_cli(args, out, err));
  }
  state.counters["items/s"] =
      benchmark::Counter(static_cast<double>(state.iterations()) * 6 * kMax, benchmark::Counter::kIsRate);
}

void run_command(benchmark::State& state) {
  const auto out = scratch("_run.jsonl");
  cli(state, {"run", "--ops", kOps, "--config", "extremes", "--max", std::to_string(kMax), "--backends", kBackends,
              "--baseline", "eager_cpu", "--out", out.string()});
  std::filesystem::remove(out);
}
BENCHMARK(run_command)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(3);

// The same items: --configs extremes, no invalid samples; every finding shrunk and its
// reproducers written, which the counter leaves in (per finding: findings.jsonl's shrink_seconds).
void hunt_command(benchmark::State& state) {
  const auto dir = scratch("_hunt");
  cli(state, {"hunt", "--ops", kOps, "--configs", "extremes", "--no-invalid", "--max", std::to_string(kMax),
              "--backends", kBackends, "--out", dir.string()});
  std::filesystem::remove_all(dir);
}
BENCHMARK(hunt_command)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(3);

}  // namespace
}  // namespace opsfuzz

BENCHMARK_MAIN();
