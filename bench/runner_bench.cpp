// The runner's overhead per item: 1,000 small elementwise items (add.Tensor on 16-element float
// tensors) on eager_cpu, in this process and in one long-lived isolated worker; and refused calls
// with and without c10 error backtraces, which decide the speed of invalid sweeps.
#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#include <benchmark/benchmark.h>

#include "opcall/opcall.h"
#include "runner/run.h"

namespace opsfuzz::runner {
namespace {

std::vector<Item> elementwise_items(size_t n) {
  at::manual_seed(0);
  const opcall::Op& add = opcall::find_op("add.Tensor");
  std::vector<Item> items(n);
  for (size_t i = 0; i < n; ++i) {
    Call call;
    call.op = &add;
    call.args = add.bind({at::randn({16}), at::randn({16})});
    items[i].id = "add_" + std::to_string(i);
    Side side;
    side.id = items[i].id, side.op = add.name(), side.call = std::move(call);
    items[i].sides.push_back(std::move(side));
  }
  return items;
}

void thousand_items(benchmark::State& state) {
  at::set_num_threads(1);
  opcall::set_backtraces(false);
  auto items = elementwise_items(1000);
  RunOptions options;
  options.backends = {"eager_cpu"};
  options.isolate = state.range(0) != 0;
  for (auto _ : state) benchmark::DoNotOptimize(run_items(items, options));
  state.counters["items/s"] =
      benchmark::Counter(static_cast<double>(state.iterations() * items.size()), benchmark::Counter::kIsRate);
}
BENCHMARK(thousand_items)->ArgName("isolated")->Arg(0)->Arg(1)->UseRealTime()->Unit(benchmark::kMillisecond);

// A call the kernel refuses (mm of [2, 3] by [2, 3]), as invalid samples are.
void refused_call(benchmark::State& state) {
  at::set_num_threads(1);
  bool before = opcall::backtraces();
  opcall::set_backtraces(state.range(0) != 0);
  const opcall::Op& mm = opcall::find_op("mm.default");
  opcall::Stack args = {at::ones({2, 3}), at::ones({2, 3})};
  for (auto _ : state) benchmark::DoNotOptimize(opcall::try_call(mm, args));
  opcall::set_backtraces(before);
  state.counters["calls/s"] = benchmark::Counter(static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
}
BENCHMARK(refused_call)->ArgName("backtraces")->Arg(0)->Arg(1)->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace opsfuzz::runner

BENCHMARK_MAIN();
