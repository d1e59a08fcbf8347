#include "tools/hunt_command.h"

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <set>

#include "argtypes/text.h"
#include "engine/config.h"
#include "generators/generators.h"
#include "hunt/apfd.h"
#include "hunt/findings.h"
#include "opcall/opcall.h"
#include "opcall/pipes.h"
#include "runner/results.h"
#include "runner/run.h"
#include "suite/ids.h"
#include "suite/suite.h"
#include "tools/merge.h"
#include "tools/order.h"
#include "tools/reproducers.h"
#include "tools/run_command.h"
#include "tools/sweep.h"

namespace opsfuzz {

using nlohmann::json;

double parse_budget(const std::string& text) {
  size_t used = 0;
  double v = 0;
  try {
    v = std::stod(text, &used);
  } catch (const std::exception&) { used = 0; }
  const std::string unit = text.substr(used);
  const double scale = unit.empty() || unit == "s" ? 1 : unit == "m" ? 60 : unit == "h" ? 3600 : 0;
  if (used == 0 || scale == 0 || v <= 0)
    throw UsageError("--budget: '" + text + "' is not a duration (90s, 10m, 1.5h)");
  return v * scale;
}

namespace {

using Clock = std::chrono::steady_clock;
constexpr size_t kBatch = 1024;

// The configurations of --configs as --config words ("contract+half" as "contract,half"; "" for
// "default"), each checked: an unknown word throws.
std::vector<std::string> configs_as_words(const std::string& configs) {
  std::vector<std::string> out;
  for (std::string c : split(configs, ',')) {
    if (c == "default") c.clear();
    std::replace(c.begin(), c.end(), '+', ',');
    Config::parse(c);
    out.push_back(std::move(c));
  }
  return out;
}

// One unit of work: the items of one op under one configuration (or of one suite), made when its
// turn comes so that a long hunt holds one batch's tensors at a time.
using Unit = std::function<std::vector<runner::Item>()>;

// The units of samples in the order --order asks for: every sample of the selection made ahead
// (the pool), put in order, and handed out kSlice at a time; each sample is dropped once its item
// is made.
std::vector<Unit> ordered_units(const HuntCommand& o, const std::vector<SampleUnit>& chosen, std::ostream& err) {
  constexpr size_t kSlice = 64;
  const auto start = Clock::now();
  auto pool = std::make_shared<std::vector<std::pair<Sample, std::string>>>();  // (sample, config words)
  CandidatePool candidates;
  for (const SampleUnit& unit : chosen)
    for (Sample& s : unit_samples(unit, o.max, o.seed)) {
      candidates.add(*unit.spec, s, unit.words);
      pool->emplace_back(std::move(s), unit.words);
    }
  const double made = std::chrono::duration<double>(Clock::now() - start).count();
  auto order = std::make_shared<const std::vector<Ordered>>(candidates.order(o.order));
  err << std::fixed << std::setprecision(1) << "order: " << pool->size() << " samples of " << candidates.ops()
      << " ops made in " << made << " s, put in " << o.order.order << " order in "
      << std::chrono::duration<double>(Clock::now() - start).count() - made << " s\n";
  std::vector<Unit> out;
  for (size_t from = 0; from < order->size(); from += kSlice)
    out.push_back([pool, order, from] {
      std::vector<runner::Item> items;
      for (size_t rank = from; rank < std::min(from + kSlice, order->size()); ++rank) {
        auto& [sample, words] = (*pool)[(*order)[rank].index];
        items.push_back(runner::item_from_sample(sample, words));
        items.back().id = unit_item_id(sample, words);
        sample = Sample{};
      }
      return items;
    });
  return out;
}

// The suites' items, all of them, in the order --order asks for; items no spec reads (modules,
// ops without a spec) last, in suite order.
std::vector<runner::Item> ordered_suite_items(const HuntCommand& o) {
  CandidatePool pool;
  std::vector<runner::Item> all, read, left;
  for (const std::string& path : o.suites) {
    const suite::Suite suite = valid_suite(path);
    std::vector<runner::Item> items = runner::items_from_suite(suite, path, suite::IdFilter(""), o.seed);
    const std::vector<runner::SuiteItem> tests = runner::suite_items(suite, suite::IdFilter(""));
    for (size_t k = 0; k < items.size(); ++k)
      (pool.add(*tests[k].sides.front(), o.seed) ? read : left).push_back(std::move(items[k]));
  }
  for (const Ordered& next : pool.order(o.order)) all.push_back(std::move(read[next.index]));
  std::move(left.begin(), left.end(), std::back_inserter(all));
  return all;
}

std::vector<Unit> units(const HuntCommand& o, std::ostream& err) {
  std::vector<Unit> out;
  if (!o.order.given() && !o.suites.empty()) out.push_back([&o] { return ordered_suite_items(o); });
  else
    for (const std::string& path : o.suites)
      out.push_back([path, seed = o.seed] {
        return runner::items_from_suite(valid_suite(path), path, suite::IdFilter(""), seed);
      });
  OpSelection selection = o.selection;
  if (selection.ops.empty() && selection.globs.empty()) {
    if (!o.suites.empty()) return out;
    selection.globs = {"*"};
  }
  const std::vector<SampleUnit> chosen = sample_units(selection, o.configs, o.invalid);
  if (!o.order.given()) {
    std::vector<Unit> ordered = ordered_units(o, chosen, err);
    out.insert(out.end(), std::make_move_iterator(ordered.begin()), std::make_move_iterator(ordered.end()));
    return out;
  }
  for (const SampleUnit& unit : chosen)  // made when its turn comes
    out.push_back([&o, unit] {
      std::vector<runner::Item> items;
      for (const Sample& s : unit_samples(unit, o.max, o.seed)) {
        items.push_back(runner::item_from_sample(s, unit.words));
        items.back().id = unit_item_id(s, unit.words);
      }
      return items;
    });
  return out;
}

// A finding whose reproducers are still to be made, with its first item's origin.
using Pending = std::vector<std::pair<const hunt::Finding*, runner::Origin>>;

// Notes the findings `opened` by an item for reproduction (a suite's test has no sample to shrink).
void note_opened(const std::vector<const hunt::Finding*>& opened, const runner::Item& item, Pending& pending) {
  if (item.origin)
    for (const hunt::Finding* f : opened) pending.emplace_back(f, *item.origin);
}

// Replays the item records of a results file into `findings`, in file order (a cut last line of a
// killed hunt is skipped); returns their ids.
std::set<std::string> replay(const std::string& path, hunt::Findings& findings, uint64_t& position, Pending& opened) {
  std::set<std::string> done;
  runner::for_each_recorded_item(path, [&](runner::RecordedItem&& item) {
    note_opened(findings.add(item.result, position++), *item.item, opened);
    done.insert(item.item->id);
  });
  return done;
}

// The reproductions a stopped hunt's findings.jsonl already has, by finding id.
std::map<std::string, Reproduction> written_reproductions(const std::string& path) {
  std::map<std::string, Reproduction> out;
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);) {
    try {
      json j = json::parse(line);
      if (j.contains("reproducers")) out[j.at("id").get<std::string>()] = reproduction_from_json(j);
    } catch (const std::exception&) {}  // a line of another layout: made again
  }
  return out;
}

void write_findings(const std::string& path, const hunt::Findings& findings,
                    const std::map<std::string, Reproduction>& reproductions) {
  std::string tmp = path + ".tmp";
  {
    std::ofstream f(tmp);
    for (const hunt::Finding& finding : findings.all()) {
      json line = hunt::to_json(finding);
      if (auto it = reproductions.find(finding.id); it != reproductions.end()) line.update(to_json(it->second));
      f << line.dump() << "\n";
    }
  }
  std::filesystem::rename(tmp, path);  // readers never see a half-written file
}

std::string one_line(const hunt::Finding& f) {
  std::string message = f.message.size() > 100 ? f.message.substr(0, 97) + "..." : f.message;
  return f.id + (f.known ? " (known: " + *f.known + ")" : "") + ": " + message;
}

void print_table(const hunt::Findings& findings, std::ostream& out) {
  if (findings.all().empty()) {
    out << "no findings\n";
    return;
  }
  out << std::left << std::setw(56) << "finding" << std::right << std::setw(7) << "count"
      << "  known\n";
  for (const hunt::Finding& f : findings.all())
    out << std::left << std::setw(56) << f.id << std::right << std::setw(7) << f.count << "  "
        << (f.known ? *f.known : "-") << "\n";
}

// Why making a finding's reproducers failed: the finding stands without them.
Reproduction failed_reproduction(const std::string& why) {
  Reproduction failed;
  failed.why_not = "making the reproducers failed: " + why;
  return failed;
}

// Shrinks the findings' first samples and writes their reproducers (reproducers.h), side by side in
// options.jobs processes, each running its candidates in one worker at a time; `made` sees each
// finding's reproduction as JSON, as it completes.
void shrink_all(const Pending& todo, const runner::RunOptions& options, const std::string& dir,
                const std::function<void(const hunt::Finding&, const json&)>& made) {
  opcall::run_jobs(
      todo.size(), options.jobs,
      [&](size_t k) {
        try {
          return to_json(reproduce(*todo[k].first, todo[k].second, options, dir)).dump();
        } catch (const std::exception& e) { return to_json(failed_reproduction(opcall::message_of(e))).dump(); }
      },
      [&](size_t k, const opcall::TaskResult& r) {
        made(*todo[k].first, r.kind == opcall::TaskResult::Done
                                 ? json::parse(r.bytes)
                                 : to_json(failed_reproduction("the process shrinking it ended: " + r.bytes)));
      });
}

// The pending findings a stopped hunt has no reproducers for yet; `pending` is emptied.
Pending take_unmade(Pending& pending, const std::map<std::string, Reproduction>& reproductions) {
  Pending todo;
  for (const auto& entry : pending)
    if (!reproductions.count(entry.first->id)) todo.push_back(entry);
  pending.clear();
  return todo;
}

// Shrinking beside the next batch: a process forked at a batch's end makes the reproducers of the
// findings the batch opened while the hunt runs the next one (shrinking costs as much CPU either
// way; beside a batch it fills the cores a batch's tail and a lone finding leave idle). Its lines
// (finding id, tab, reproduction) come back through a file, read once the process has ended.
class BackgroundShrink {
 public:
  explicit BackgroundShrink(std::string path) : path_(std::move(path)) {}
  ~BackgroundShrink() {
    if (pid_ > 0) ::kill(pid_, SIGKILL), ::waitpid(pid_, nullptr, 0);
  }

  void start(Pending todo, const runner::RunOptions& options, const std::string& dir) {
    if (todo.empty()) return;
    ids_.clear();
    for (const auto& entry : todo) ids_.push_back(entry.first->id);
    std::fflush(nullptr);  // nothing buffered is written twice
    pid_ = ::fork();
    if (pid_ < 0) throw std::runtime_error(std::string("hunt: cannot fork a shrinking process: ") + strerror(errno));
    if (pid_ > 0) return;
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);  // a hunt killed midway takes it along
    {
      std::ofstream out(path_);
      shrink_all(todo, options, dir,
                 [&](const hunt::Finding& f, const json& j) { out << f.id << '\t' << j.dump() << std::endl; });
    }
    ::_exit(0);
  }

  // Waits for the running shrink, if any, and records what it made; a finding it did not get to
  // (the process died) gets a failed reproduction saying so.
  void collect(std::map<std::string, Reproduction>& reproductions) {
    if (pid_ <= 0) return;
    int status = 0;
    while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {}
    pid_ = -1;
    std::ifstream in(path_);
    for (std::string line; std::getline(in, line);) {
      const size_t tab = line.find('\t');
      try {
        reproductions[line.substr(0, tab)] = reproduction_from_json(json::parse(line.substr(tab + 1)));
      } catch (const std::exception&) {}  // a line cut by the process's end: made again below
    }
    for (const std::string& id : ids_)
      if (!reproductions.count(id))
        reproductions[id] = failed_reproduction("the process shrinking it ended: " + opcall::describe_exit(status));
    std::filesystem::remove(path_);
  }

 private:
  std::string path_;
  pid_t pid_ = -1;
  std::vector<std::string> ids_;
};

// Makes the reproducers of the pending findings here, waiting for them (a hunt's last ones).
void make_reproducers(Pending& pending, const runner::RunOptions& options, const std::string& dir,
                      std::map<std::string, Reproduction>& reproductions) {
  shrink_all(take_unmade(pending, reproductions), options, dir,
             [&](const hunt::Finding& f, const json& j) { reproductions[f.id] = reproduction_from_json(j); });
}

// What triage explained, per rule: nothing vanishes without a count.
void print_set_aside(const hunt::Findings& findings, bool triage, std::ostream& out) {
  if (findings.set_aside().empty()) return;
  out << (triage ? "set aside by triage:" : "triage would set aside (--no-triage: listed as findings):");
  for (const auto& [rule, count] : findings.set_aside()) out << " " << rule << " " << count;
  out << " differences\n";
}

}  // namespace

std::vector<SampleUnit> sample_units(const OpSelection& selection, const std::string& configs, bool invalid) {
  std::vector<std::pair<std::string, bool>> chosen;  // (words, invalid)
  for (std::string& words : configs_as_words(configs)) chosen.emplace_back(std::move(words), false);
  if (invalid) chosen.emplace_back("", true);
  std::vector<SampleUnit> out;
  for (const Spec* spec : select_specs(selection))
    for (const auto& [words, invalid_samples] : chosen) out.push_back({spec, words, invalid_samples});
  return out;
}

std::vector<Sample> unit_samples(const SampleUnit& unit, int64_t max, uint64_t seed) {
  SweepOptions sampling;
  sampling.invalid = unit.invalid, sampling.seed = seed, sampling.max = max, sampling.config = unit.words;
  return sweep_samples(*unit.spec, sampling);
}

std::string unit_item_id(const Sample& s, const std::string& words) {
  return sample_id(s) + (words.empty() ? "" : "__" + identifier(words));
}

int run_hunt(const HuntCommand& o, std::ostream& out, std::ostream& err) {
  if (o.out.empty()) throw UsageError("hunt: --out DIR is required");
  configs_as_words(o.configs);  // an unknown word fails here, before any work
  if (o.baseline.empty()) throw UsageError("hunt: --baseline names the backend the others are compared with");
  runner::RunOptions options = backend_options(o.backends, o.baseline);
  options.jobs = o.jobs, options.timeout_s = o.timeout_s, options.triage = true;
  const double budget = o.budget.empty() ? 0 : parse_budget(o.budget);

  std::filesystem::create_directories(o.out);
  const std::string findings_path = (std::filesystem::path(o.out) / "findings.jsonl").string();
  const std::string results_path = (std::filesystem::path(o.out) / "results.jsonl").string();
  hunt::Findings findings(!o.triage);
  uint64_t position = 0;
  const bool resuming = o.resume && std::filesystem::exists(results_path);
  std::set<std::string> done;
  Pending pending;  // findings opened, waiting for their reproducers
  std::map<std::string, Reproduction> reproductions;
  if (resuming) {
    done = replay(results_path, findings, position, pending);
    reproductions = written_reproductions(findings_path);
    err << "resume: " << done.size() << " items already in " << results_path << ", " << findings.all().size()
        << " findings\n";
  }
  runner::JsonlWriter results(results_path, resuming);
  if (!resuming) {
    json extra = {{"hunt",
                   {{"backends", options.backends},
                    {"baseline", o.baseline},
                    {"configs", o.configs},
                    {"max", o.max},
                    {"seed", o.seed},
                    {"invalid", o.invalid},
                    {"triage", o.triage},
                    {"order", o.order.order},
                    {"order_seed", o.order.seed},
                    {"existing", o.order.existing},
                    {"ops", o.selection.globs},
                    {"suites", o.suites}}}};
    if (o.shard.sharded()) extra["shard"] = o.shard.str();  // not a parameter: merge drops it
    results.write(runner::meta_record(extra));
  }
  const bool progress = ::isatty(STDERR_FILENO);
  const auto start = Clock::now();
  auto seconds = [&] { return std::chrono::duration<double>(Clock::now() - start).count(); };
  bool spent = false;
  BackgroundShrink shrinking((std::filesystem::path(o.out) / ".shrinking.jsonl").string());
  const std::vector<Unit> all = units(o, err);
  uint64_t k = 0;  // the hunt's order over the items of every unit: shards split it
  for (size_t next = 0; next < all.size();) {
    if (budget > 0 && seconds() >= budget) {
      spent = true;
      break;
    }
    // Units are small (an op under one configuration): they run together, kBatch items at least
    // at a time, so that starting workers costs little.
    std::vector<runner::Item> items;
    while (next < all.size() && items.size() < kBatch) {
      for (runner::Item& item : all[next++]())
        if (k++ % o.shard.count == o.shard.index && !done.count(item.id)) items.push_back(std::move(item));
    }
    runner::run_items(items, options, [&](const runner::ItemResult& r) {
      results.write(runner::item_record(r));
      auto opened = findings.add(r, position++);
      if (!opened.empty()) {
        if (progress) err << "\r\033[K";
        for (const hunt::Finding* f : opened) err << "finding " << one_line(*f) << "\n";
        note_opened(opened, *r.item, pending);
        write_findings(findings_path, findings, reproductions);
      }
      if (progress)
        err << "\r" << position << " items, " << std::fixed << std::setprecision(1) << position / seconds()
            << " items/s, " << findings.all().size() << " findings; " << r.item->id << "\033[K" << std::flush;
    });
    // The last batch's reproducers are made now (beside this batch), this batch's beside the next.
    shrinking.collect(reproductions);
    write_findings(findings_path, findings, reproductions);
    shrinking.start(take_unmade(pending, reproductions), options, o.out);
  }
  shrinking.collect(reproductions);
  if (!spent) make_reproducers(pending, options, o.out, reproductions);
  if (progress) err << "\r\033[K";
  write_findings(findings_path, findings, reproductions);
  print_table(findings, out);
  print_set_aside(findings, o.triage, out);
  size_t fresh = std::count_if(findings.all().begin(), findings.all().end(), [](const auto& f) { return !f.known; });
  out << o.shard.label() << position << " items in " << std::fixed << std::setprecision(1) << seconds() << " s"
      << (spent ? " (the budget is spent)" : "") << ", " << findings.all().size() << " findings (" << fresh
      << " new); written to " << o.out << "\n";
  std::vector<uint64_t> firsts;
  for (const hunt::Finding& f : findings.all()) firsts.push_back(f.first);
  out << hunt::apfd_line(firsts, position) << ": how early this order reached them (ops-fuzz apfd)\n";
  return fresh > 0 ? 1 : 0;
}

void add_sample_options(CLI::App* cmd, OpSelection& selection, std::string& configs, bool& invalid, int64_t& max,
                        uint64_t& seed) {
  add_ops_option(cmd, selection);
  cmd->add_option("--configs", configs, "comma-separated configurations, each a +-joined word list or 'default'")
      ->capture_default_str();
  cmd->add_flag("!--no-invalid", invalid, "no invalid samples");
  cmd->add_option("--max", max, "samples per op and configuration")->capture_default_str();
  cmd->add_option("--seed", seed, "seed of the samples")->capture_default_str();
}

std::shared_ptr<void> add_hunt_command(CLI::App& app, std::function<int()>& command, std::ostream& out,
                                       std::ostream& err) {
  auto o = std::make_shared<HuntCommand>();
  auto* cmd = app.add_subcommand(
      "hunt",
      "generates SpecDB samples under many configurations (and runs YAML suites), runs them on backends against "
      "a baseline and groups their differences into findings, one per root cause, written to --out DIR "
      "(results.jsonl, findings.jsonl) as they come. Exit 1 when it found anything not known");
  cmd->add_option("SUITE", o->suites, "YAML test suites to run as well")->check(CLI::ExistingFile);
  cmd->add_option("--out", o->out, "the output folder")->required();
  add_sample_options(cmd, o->selection, o->configs, o->invalid, o->max, o->seed);
  add_backends(cmd, o->backends, o->baseline);
  cmd->add_option("--budget", o->budget, "stop cleanly once this much time is spent: 90s, 10m, 1.5h");
  add_workers(cmd, o->jobs, o->timeout_s);
  add_order_options(cmd, o->order, "diversity");
  add_shard_option(cmd, o->shard, "item");
  cmd->add_flag("!--no-triage", o->triage,
                "list every difference as a finding, also those triage explains by rounding, conditioning, range "
                "or low precision (still judged and labelled)");
  cmd->add_flag("--resume", o->resume,
                "carry on a stopped hunt: the items in DIR/results.jsonl count, and are not run again");
  cmd->callback([&command, o, &out, &err] { command = [o, &out, &err] { return run_hunt(*o, out, err); }; });
  return o;
}

}  // namespace opsfuzz
