#include "tools/prioritize_command.h"

#include <CLI/CLI.hpp>

#include <chrono>
#include <cstdio>
#include <vector>

#include "generators/generators.h"
#include "runner/run.h"
#include "suite/ids.h"
#include "suite/suite.h"

namespace opsfuzz {

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

// The candidates to order and their ids; `left` are a suite's tests with no spec to read classes
// by (a module, an op without a spec, inputs that cannot be made or bound): they come last.
struct Candidates {
  CandidatePool pool;
  std::vector<std::string> ids, left;
};

void add_samples(const PrioritizeCommand& o, Candidates& c) {
  OpSelection selection = o.selection;
  if (selection.ops.empty() && selection.globs.empty()) selection.globs = {"*"};
  for (const SampleUnit& unit : sample_units(selection, o.configs, o.invalid))
    for (const Sample& s : unit_samples(unit, o.max, o.seed)) {
      c.pool.add(*unit.spec, s, unit.words);
      c.ids.push_back(unit_item_id(s, unit.words));
    }
}

// A suite's items (a pair test is one item), each read by its first test (CandidatePool::add).
void add_tests(const std::string& path, uint64_t seed, Candidates& c) {
  const suite::Suite suite = valid_suite(path);
  for (const runner::SuiteItem& item : runner::suite_items(suite, suite::IdFilter("")))
    (c.pool.add(*item.sides.front(), seed) ? c.ids : c.left).push_back(item.id);
}

}  // namespace

int print_priorities(const PrioritizeCommand& o, std::ostream& out, std::ostream& err) {
  const auto start = Clock::now();
  Candidates c;
  for (const std::string& path : o.suites) add_tests(path, o.seed, c);
  if (o.suites.empty() || !o.selection.ops.empty() || !o.selection.globs.empty()) add_samples(o, c);
  const double generating = seconds_since(start);
  const auto ordering_start = Clock::now();
  const std::vector<Ordered> order = c.pool.order(o.order);
  const double ordering = seconds_since(ordering_start);
  out << "rank  score   item\n";
  size_t rank = 0;
  for (const Ordered& next : order) {
    char score[16] = "-";
    if (o.order.order == "diversity") std::snprintf(score, sizeof score, "%.4f", next.score);
    out << ++rank << "  " << score << "  " << c.ids[next.index] << "\n";
  }
  for (const std::string& id : c.left) out << ++rank << "  -  " << id << "\n";
  char timing[200];
  std::snprintf(timing, sizeof timing,
                "%zu candidates of %zu ops: made in %.1f s, ordered in %.1f ms (%.2f ms per 10,000)\n", c.pool.size(),
                c.pool.ops(), generating, 1e3 * ordering,
                c.pool.size() == 0 ? 0.0 : 1e7 * ordering / static_cast<double>(c.pool.size()));
  err << timing;
  if (!c.left.empty())
    err << c.left.size() << " tests without a spec to read their classes by (modules, ops without one, inputs "
        << "that cannot be made or bound) come last, in suite order\n";
  return 0;
}

std::shared_ptr<void> add_prioritize_command(CLI::App& app, std::function<int()>& command, std::ostream& out,
                                             std::ostream& err) {
  auto o = std::make_shared<PrioritizeCommand>();
  auto* cmd = app.add_subcommand(
      "prioritize",
      "prints the order of the SpecDB samples a hunt with these options would run (or of a YAML suite's tests), "
      "without running them; --order diversity (the default) is OPERA's greedy, each sample scored by its op's "
      "weight (--existing) times the share of its argument classes and class pairs that its op's samples chosen "
      "before it do not cover");
  cmd->add_option("SUITE", o->suites, "YAML suites whose tests to order (their inputs made with --seed)")
      ->check(CLI::ExistingFile);
  add_sample_options(cmd, o->selection, o->configs, o->invalid, o->max, o->seed);
  add_order_options(cmd, o->order, "diversity");
  cmd->callback([&command, o, &out, &err] { command = [o, &out, &err] { return print_priorities(*o, out, err); }; });
  return o;
}

}  // namespace opsfuzz
