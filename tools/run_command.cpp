#include "tools/run_command.h"

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>
#include <unistd.h>

#include <filesystem>
#include <iostream>

#include "argtypes/text.h"
#include "generators/generators.h"
#include "runner/results.h"
#include "runner/run.h"
#include "suite/ids.h"
#include "suite/suite.h"
#include "tools/merge.h"
#include "tools/sweep.h"

namespace opsfuzz {

using nlohmann::json;

runner::RunOptions backend_options(const std::string& backends, const std::string& baseline) {
  runner::RunOptions r;
  r.backends = split(backends, ';');
  r.baseline = baseline;
  for (const auto& name : r.backends) runner::find_backend(name);  // unknown names fail here
  if (!r.baseline.empty()) runner::find_backend(r.baseline);
  return r;
}

namespace {

runner::RunOptions run_options(const RunCommand& o) {
  runner::RunOptions r = backend_options(o.backends, o.baseline);
  for (const std::string& skip : split(o.skips, ';')) {
    size_t colon = skip.rfind(':');
    if (colon == std::string::npos) throw UsageError("--skips: '" + skip + "' is not ID:BACKEND");
    r.skips.insert({skip.substr(0, colon), skip.substr(colon + 1)});
  }
  r.repeats = o.repeats, r.mode = o.mode, r.timeout_s = o.timeout_s;
  r.isolate = o.isolate, r.backtraces = o.backtraces, r.jobs = o.jobs;
  return r;
}

// The items of the run: the suite's selected tests (each once per sampled input), or samples.
std::vector<runner::Item> make_items(const RunCommand& o, std::ostream& err) {
  std::vector<runner::Item> items;
  if (!o.file.empty()) {
    suite::LoadResult loaded = suite::read_suite(o.file);
    err << loaded.diagnostics.str();
    if (loaded.diagnostics.has_errors()) throw std::runtime_error(o.file + ": the suite is not valid");
    for (int64_t k = 0; k < o.sampled_inputs; ++k) {
      auto batch = runner::items_from_suite(loaded.suite, o.file, suite::IdFilter(o.test_ids), o.seed + k);
      for (auto& item : batch) {
        if (o.sampled_inputs > 1) item.id += "__input" + std::to_string(k);
        items.push_back(std::move(item));
      }
    }
  }
  if (!o.selection.ops.empty() || !o.selection.globs.empty()) {
    SweepOptions sampling;
    sampling.invalid = o.invalid, sampling.seed = o.seed, sampling.max = o.max, sampling.config = o.config;
    sampling.index = o.index;
    CandidatePool pool;
    std::vector<runner::Item> samples;
    for (const Spec* spec : select_specs(o.selection))
      for (const Sample& s : sweep_samples(*spec, sampling)) {
        if (!o.order.given()) pool.add(*spec, s, o.config);
        samples.push_back(runner::item_from_sample(s, o.config));
      }
    if (o.order.given()) std::move(samples.begin(), samples.end(), std::back_inserter(items));
    else
      for (const Ordered& next : pool.order(o.order)) items.push_back(std::move(samples[next.index]));
  }
  return items;
}

json params(const RunCommand& o) {
  return {{"backends", split(o.backends, ';')},
          {"baseline", o.baseline.empty() ? json(nullptr) : json(o.baseline)},
          {"seed", o.seed},
          {"mode", o.mode},
          {"repeats", o.repeats},
          {"num_sampled_inputs", o.sampled_inputs},
          {"timeout_s", o.timeout_s},
          {"test_ids", o.test_ids},
          {"skips", o.skips},
          {"ops", o.selection.globs},
          {"invalid", o.invalid},
          {"config", o.config},
          {"max", o.max},
          {"order", o.order.order},
          {"order_seed", o.order.seed},
          {"existing", o.order.existing}};
}

// The command that reruns one item on one backend: its sample by index, or its test by id.
std::string rerun_command(const RunCommand& o, const runner::Item& item, const std::string& backend) {
  std::string c = "ops-fuzz run ";
  if (const auto& origin = item.origin) {
    c += "--ops " + shell_quote(origin->spec) + " --seed " + std::to_string(origin->seed) + " --index " +
         std::to_string(origin->index) + (origin->valid ? "" : " --invalid") +
         (origin->config.empty() ? "" : " --config " + shell_quote(origin->config));
  } else {
    c += shell_quote(o.file) + " --test-ids " + shell_quote(item.id) + " --seed " + std::to_string(o.seed);
  }
  c += " --backends " + shell_quote(backend);
  if (!o.baseline.empty() && o.baseline != backend) c += " --baseline " + shell_quote(o.baseline);
  return c;
}

// The failing items after the summary: id, backend, why, and the command that reruns it; the
// first kListed, then how many more.
void list_failures(const RunCommand& o, const std::vector<runner::ItemResult>& results, std::ostream& out) {
  constexpr size_t kListed = 20;
  size_t n = 0;
  for (const auto& r : results)
    for (const runner::BackendResult* b : runner::all_results(r)) {
      std::string why = runner::failure_reason(r, *b);
      if (why.empty() || n++ >= kListed) continue;
      if (n == 1) out << "failing:\n";
      out << "  " << r.item->id << "  " << b->backend << "  " << why << "\n    "
          << rerun_command(o, *r.item, b->backend) << "\n";
    }
  if (n > kListed) out << "  ... and " << n - kListed << " more (the results file has them all)\n";
}

}  // namespace

int run_items_command(const RunCommand& o, std::ostream& out, std::ostream& err) {
  if (o.file.empty() && o.selection.ops.empty() && o.selection.globs.empty())
    throw UsageError("run: name a YAML suite, or ops of the SpecDB (OP or --ops GLOB)");
  runner::RunOptions options = run_options(o);
  std::vector<runner::Item> all = make_items(o, err);
  size_t selected = all.size();
  std::vector<runner::Item> items = take_shard(std::move(all), o.shard);
  if (o.shard.sharded()) err << "run: " << o.shard.label() << items.size() << " of " << selected << " items\n";
  size_t total = items.size();
  if (o.resume && !o.out_path.empty() && std::filesystem::exists(o.out_path)) {
    std::set<std::string> done = runner::completed_items(o.out_path);
    std::erase_if(items, [&](const runner::Item& item) { return done.count(item.id) > 0; });
    err << "resume: " << total - items.size() << " of " << total << " items already in " << o.out_path << "\n";
  }
  std::optional<runner::JsonlWriter> writer;
  if (!o.out_path.empty()) {
    writer.emplace(o.out_path, o.append || o.resume);
    json extra = {{"yaml", o.file.empty() ? json(nullptr) : json(o.file)}, {"params", params(o)}};
    if (o.shard.sharded()) extra["shard"] = o.shard.str();  // not a parameter: merge drops it
    writer->write(runner::meta_record(extra));
  }
  bool progress = ::isatty(STDERR_FILENO);
  size_t finished = 0;
  auto report = [&](const runner::ItemResult& r) {
    if (writer) writer->write(runner::item_record(r));
    ++finished;
    if (progress) err << "\r[" << finished << "/" << items.size() << "] " << r.item->id << "\033[K" << std::flush;
  };
  std::vector<runner::ItemResult> results = runner::run_items(items, options, report);
  if (progress) err << "\r\033[K";
  auto tallies = runner::tally(results);
  runner::print_summary(tallies, out);
  list_failures(o, results, out);
  if (!o.junit.empty()) runner::write_junit(o.junit, results);
  size_t failures = 0;
  for (const auto& [backend, t] : tallies) failures += t.mismatch + t.unexpected;
  out << o.shard.label() << results.size() << " items, " << failures
      << " failing (mismatches and unexpected statuses)\n";
  return failures > 0 ? 1 : 0;
}

int list_backends(std::ostream& out) {
  for (const std::string& name : runner::backend_names()) {
    auto backend = runner::find_backend(name);
    out << name << "  " << backend->description();
    if (auto why = backend->unavailable()) out << " [unavailable: " << *why << "]";
    out << "\n";
  }
  return 0;
}

std::shared_ptr<void> add_run_commands(CLI::App& app, std::function<int()>& command, std::ostream& out,
                                       std::ostream& err) {
  auto o = std::make_shared<RunCommand>();
  auto* run = app.add_subcommand(
      "run",
      "runs a YAML suite's tests, or SpecDB samples (--ops), on backends in isolated workers, compares each "
      "with the baseline (pair tests: side a with side b) and writes opdiff's JSONL. Exit 1 on any mismatch, "
      "crash or unexpected status");
  run->add_option("FILE", o->file, "a YAML test suite")->check(CLI::ExistingFile);
  add_ops_option(run, o->selection);
  run->add_flag("--invalid", o->invalid, "SpecDB samples that violate one constraint");
  add_order_options(run, o->order, "given");
  add_samples(run, o->seed, o->max, o->config, "SpecDB samples per op");
  add_index(run, o->index);
  add_backends(run, o->backends, o->baseline);
  run->add_option("--test-ids", o->test_ids, "semicolon-separated test ids; one ending in '*' is a prefix");
  run->add_option("--skips", o->skips, "semicolon-separated ID:BACKEND pairs not to run");
  run->add_option("--out", o->out_path, "results file (JSONL, one record per item, flushed as they come)");
  run->add_flag("--append", o->append, "append to --out instead of replacing it");
  run->add_flag("--resume", o->resume, "skip the items already in --out and append the others");
  run->add_option("--junit", o->junit, "JUnit XML file: one testcase per item and backend");
  run->add_option("--repeats", o->repeats, "runs per item and backend (ms is their median)")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  run->add_option("--num-sampled-inputs", o->sampled_inputs, "runs of each YAML test, each with its own inputs")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  run->add_option("--mode", o->mode, "1: accuracy (one comparison); 2: timing (every repeat's time and comparison)")
      ->capture_default_str()
      ->check(CLI::Range(1, 2));
  add_workers(run, o->jobs, o->timeout_s);
  run->add_flag("!--no-isolate", o->isolate, "run in this process (faster; a crashing kernel ends the run)");
  run->add_flag("--backtraces", o->backtraces, "keep C++ backtraces in kernel error messages (slow)");
  add_shard_option(run, o->shard, "item");
  run->callback([&command, o, &out, &err] { command = [o, &out, &err] { return run_items_command(*o, out, err); }; });

  auto* list = app.add_subcommand("list-backends", "the backends run can use, built-in and registered");
  list->callback([&command, &out] { command = [&out] { return list_backends(out); }; });
  return o;
}

}  // namespace opsfuzz
