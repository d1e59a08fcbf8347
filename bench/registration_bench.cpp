// Registering GoogleTest tests through opsfuzz::gtest: 10,000 tests (SpecDB samples x targets).
// Registration only names tests (nothing is generated until a test runs); the goal is < 1 s.
#include <benchmark/benchmark.h>
#include <gtest/gtest.h>

#include "testing/gtest.h"

namespace {

void Register10000Tests(benchmark::State& state) {
  uint64_t seed = 0;  // a new seed per round: each round's names are new
  for (auto _ : state) {
    size_t n = opsfuzz::gtest::SpecDBTests("add.Tensor,mul.Tensor")
                   .valid(2500)
                   .seed(++seed)
                   .targets({"eager_cpu", "eager_cpu_fp64"})
                   .register_tests();
    if (n != 10000) state.SkipWithError("not 10,000 tests");
  }
  state.counters["tests/s"] = benchmark::Counter(10000.0 * state.iterations(), benchmark::Counter::kIsRate);
}
BENCHMARK(Register10000Tests)->Unit(benchmark::kMillisecond)->Iterations(5);

}  // namespace

BENCHMARK_MAIN();
