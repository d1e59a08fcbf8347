#include "tools/prioritize_command.h"

#include <CLI/CLI.hpp>

#include <chrono>
#include <cstdio>
#include <vector>

#include "generators/generators.h"

namespace opsfuzz {

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

}  // namespace

int print_priorities(const PrioritizeCommand& o, std::ostream& out, std::ostream& err) {
  OpSelection selection = o.selection;
  if (selection.ops.empty() && selection.globs.empty()) selection.globs = {"*"};
  const std::vector<SampleUnit> units = sample_units(selection, o.configs, o.invalid);
  const auto start = Clock::now();
  CandidatePool pool;
  std::vector<std::string> ids;
  for (const SampleUnit& unit : units)
    for (const Sample& s : unit_samples(unit, o.max, o.seed)) {
      pool.add(*unit.spec, s, unit.words);
      ids.push_back(unit_item_id(s, unit.words));
    }
  const double generating = seconds_since(start);
  const auto ordering_start = Clock::now();
  const std::vector<Ordered> order = pool.order(o.order);
  const double ordering = seconds_since(ordering_start);
  out << "rank  score   item\n";
  for (size_t rank = 0; rank < order.size(); ++rank) {
    char score[16] = "-";
    if (o.order.order == "diversity") std::snprintf(score, sizeof score, "%.4f", order[rank].score);
    out << rank + 1 << "  " << score << "  " << ids[order[rank].index] << "\n";
  }
  char timing[160];
  std::snprintf(timing, sizeof timing,
                "%zu candidates of %zu ops: generated in %.1f s, ordered in %.1f ms (%.2f ms per 10,000)\n",
                pool.size(), pool.ops(), generating, 1e3 * ordering,
                pool.size() == 0 ? 0.0 : 1e7 * ordering / static_cast<double>(pool.size()));
  err << timing;
  return 0;
}

std::shared_ptr<void> add_prioritize_command(CLI::App& app, std::function<int()>& command, std::ostream& out,
                                             std::ostream& err) {
  auto o = std::make_shared<PrioritizeCommand>();
  auto* cmd = app.add_subcommand(
      "prioritize",
      "prints the order of the SpecDB samples a hunt with these options would run, without running them; "
      "--order diversity (the default) is OPERA's greedy, each sample scored by its op's weight (--existing) times "
      "the share of its argument classes and class pairs that its op's samples chosen before it do not cover");
  add_sample_options(cmd, o->selection, o->configs, o->invalid, o->max, o->seed);
  add_order_options(cmd, o->order, "diversity");
  cmd->callback([&command, o, &out, &err] { command = [o, &out, &err] { return print_priorities(*o, out, err); }; });
  return o;
}

}  // namespace opsfuzz
