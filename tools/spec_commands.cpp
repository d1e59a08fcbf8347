// list-specs, generate, sweep: the SpecDB commands.
#include <ATen/ATen.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iomanip>
#include <map>
#include <optional>
#include <set>
#include <utility>

#include "argtypes/names.h"
#include "engine/config.h"
#include "generators/diversity.h"
#include "generators/generators.h"
#include "specs/db/db.h"
#include "tools/commands.h"
#include "tools/sample_json.h"
#include "tools/sample_yaml.h"

namespace opsfuzz {

Config parse_config(const std::string& words) {
  try {
    return Config::parse(words);
  } catch (const std::invalid_argument& e) { throw UsageError(std::string("--config: ") + e.what()); }
}

namespace {

// How a spec's joint constraints are solved under `cfg` ("" when it has none).
std::string joint_mode(const Spec& spec, const Config& cfg) {
  if (spec.joints().empty()) return "";
  std::string n = std::to_string(spec.joints().size()) + " joint constraint" + (spec.joints().size() > 1 ? "s" : "");
  if (cfg.joint == JointStrategy::Z3) return n + ", solved by Z3";
  return n + ", sampled with retry" + (have_z3() ? "" : " (built without Z3)");
}

// Says once per run which of the specs sample their joint constraints instead of solving them.
void note_sampling(const std::vector<const Spec*>& specs, const Config& cfg, std::ostream& err) {
  if (cfg.joint == JointStrategy::Z3) return;
  std::string ops;
  for (const Spec* s : specs)
    if (!s->joints().empty()) ops += (ops.empty() ? "" : ", ") + s->op();
  if (!ops.empty())
    err << "ops-fuzz: note: " << ops << ": joint constraints are sampled with retry"
        << (have_z3() ? "" : " (this build has no Z3)") << "; expect dead-ends\n";
}

struct OpSummary {
  uint64_t valid = 0, invalid = 0;
  std::set<std::string> dtypes;
  std::set<size_t> ranks;
  DiversityCounter diversity;  // OPERA's single-argument and argument-pair classes
  double seconds = 0;
  GenerationStats stats;
};

void observe(const Sample& s, OpSummary& sum) {
  (s.valid ? sum.valid : sum.invalid)++;
  for (const auto& m : s.metas)
    for (const auto& t : m.tensors)
      if (!m.none && !t.none) sum.dtypes.insert(std::string(name(t.dtype))), sum.ranks.insert(t.shape.size());
  sum.diversity.observe(s);
}

// After the summary table: where each op's dead ends happened, the most frequent causes first.
void print_dead_end_causes(const std::vector<std::pair<const Spec*, GenerationStats>>& ops, std::ostream& out) {
  constexpr size_t kShown = 5;
  const char* heading = "\ndead-ends by cause:\n";
  for (const auto& [spec, stats] : ops) {
    if (stats.dead_ends == 0) continue;
    out << std::exchange(heading, "") << "  " << spec->op() << " (" << stats.dead_ends << ")\n";
    std::map<std::string, uint64_t> by_cause;  // dead ends that differ in their labels' order read alike
    for (const auto& [dead_end, n] : stats.dead_end_causes) by_cause[dead_end.cause(*spec)] += n;
    std::vector<std::pair<uint64_t, std::string>> causes;
    for (const auto& [cause, n] : by_cause) causes.emplace_back(n, cause);
    std::stable_sort(causes.begin(), causes.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
    for (size_t i = 0; i < std::min(causes.size(), kShown); ++i)
      out << "    " << std::setw(8) << causes[i].first << "  " << causes[i].second << "\n";
    if (size_t more = causes.size() - std::min(causes.size(), kShown))
      out << "    and " << more << " more cause" << (more == 1 ? "" : "s") << "\n";
  }
}

std::string row(const char* format, auto... values) {
  char buf[512];
  std::snprintf(buf, sizeof buf, format, values...);
  return buf;
}

// Why an invalid stream of `spec` yields nothing: no rule to break, rules that only dtypes outside
// the configuration break, or rules that no input within the generation limits breaks alone.
std::string why_never_invalid(const Spec& spec, const Config& cfg) {
  const MetaArgTupleEngine engine(spec, cfg);
  std::string rules, out_of_config;
  auto add = [](std::string& list, const std::string& label) { list += (list.empty() ? "" : "; ") + label; };
  for (size_t i = 0; i < spec.args().size(); ++i) {
    const auto& cs = spec.args()[i].constraints;
    for (size_t k = 0; k < cs.size(); ++k)
      if (cs[k].negatable(cfg.contract))
        add(engine.breakable(static_cast<int>(i), k) ? rules : out_of_config, cs[k].label);
  }
  for (const JointConstraint& j : spec.joints())
    if (j.negatable(cfg.contract)) add(rules, j.label);
  if (rules.empty() && out_of_config.empty())
    return "every input is valid: the contract has no rule to break (any dtype, shape and value)";
  if (rules.empty())
    return "only dtypes this configuration leaves out break its rules (half, complex add them): " + out_of_config;
  return "no input within the generation limits breaks one of its rules alone: " + rules;
}

}  // namespace

std::vector<const Spec*> select_specs(const OpSelection& selection) {
  std::vector<const Spec*> out;
  std::set<const Spec*> chosen;
  auto add = [&](const Spec* s) {
    if (chosen.insert(s).second) out.push_back(s);
  };
  for (const auto& op : selection.ops) {
    const Spec* s = find_spec(op);
    if (!s) {
      throw UsageError("unknown op '" + op + "'" + suggestion(close_specs(op)) +
                       "; ops-fuzz list-specs lists them all");
    }
    add(s);
  }
  for (const auto& glob : selection.globs) {
    auto matched = specs_matching(glob);
    for (const Spec* s : matched) add(s);
    if (matched.empty()) throw UsageError("--ops: no op matches '" + glob + "' (ops-fuzz list-specs lists them all)");
  }
  if (selection.ops.empty() && selection.globs.empty())
    for (const auto& s : spec_db()) add(&s);
  return out;
}

int list_specs(bool deviations, std::ostream& out) {
  for (const auto& s : spec_db()) {
    if (deviations) {
      for (const auto& d : s.deviations())
        out << s.op() << "  " << d.deviation->id << "\n"
            << "  where:  " << d.where
            << (d.role == Role::Avoid ? "  (valid samples keep to it unless --config contract)"
                                      : "  (a rule the kernel does not check: broken only with --config contract)")
            << "\n  reason: " << d.deviation->reason << "\n  repro:  " << d.deviation->command << "\n";
      continue;
    }
    out << s.op() << "(";
    for (size_t i = 0; i < s.args().size(); ++i)
      out << (i ? ", " : "") << (s.args()[i].keyword ? "*" : "") << name(s.args()[i].type) << " " << s.args()[i].name;
    out << ")";
    if (auto mode = joint_mode(s, Config{}); !mode.empty()) out << "  [" << mode << "]";
    if (auto n = s.deviations().size()) out << "  [" << n << " deviation" << (n > 1 ? "s" : "") << "]";
    out << "\n";
  }
  return 0;
}

int generate(const GenerateOptions& o, std::ostream& out, std::ostream& err) {
  Config cfg = parse_config(o.config);
  if (o.with_out && o.format == SampleFormat::Yaml)
    throw UsageError("--out: a YAML suite passes no out= tensors to the op (its 'out' key is not an input)");
  auto specs = select_specs(o.selection);
  note_sampling(specs, cfg, err);
  bool summary = o.format == SampleFormat::Summary;
  if (summary)
    out << row("%-30s %8s %7s %8s %7s %6s %7s %7s %10s %8s %9s %10s\n", "op", "samples", "valid", "invalid", "dtypes",
               "ranks", "single", "pairs", "dead-ends", "redrawn", "z3-calls", "samples/s");
  std::optional<YamlSuiteWriter> yaml;
  if (o.format == SampleFormat::Yaml) yaml.emplace(out, YamlOrigin{o.seed, o.config, o.invalid, std::nullopt});
  int64_t count = o.index >= 0 ? o.index + 1 : o.max;
  std::vector<std::pair<const Spec*, GenerationStats>> stats;  // for the summary
  for (const Spec* spec : specs) {
    OpSummary sum;
    ArgumentTupleGenerator gen(*spec, cfg, o.seed, o.invalid ? Validity::Invalid : Validity::Valid, o.with_out);
    Sample s;
    auto start = std::chrono::steady_clock::now();
    for (int64_t i = 0; i < count && gen.next(s); ++i) {
      if (static_cast<int64_t>(s.index) < o.index) continue;
      observe(s, sum);
      if (o.format == SampleFormat::Jsonl) out << to_json(*spec, s) << '\n';
      if (yaml) yaml->add(*spec, s);
    }
    sum.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    sum.stats = gen.stats();
    if (!summary) continue;
    stats.emplace_back(spec, sum.stats);
    out << row("%-30s %8llu %7llu %8llu %7zu %6zu %7zu %7zu %10llu %8llu %9llu %10.0f\n", spec->op().c_str(),
               static_cast<unsigned long long>(sum.valid + sum.invalid), static_cast<unsigned long long>(sum.valid),
               static_cast<unsigned long long>(sum.invalid), sum.dtypes.size(), sum.ranks.size(),
               sum.diversity.single(), sum.diversity.pairs(), static_cast<unsigned long long>(sum.stats.dead_ends),
               static_cast<unsigned long long>(sum.stats.redrawn),
               static_cast<unsigned long long>(sum.stats.solver_calls),
               (sum.valid + sum.invalid) / std::max(sum.seconds, 1e-9));
  }
  if (summary) print_dead_end_causes(stats, out);
  if (yaml) yaml->finish();
  return 0;
}

int run_sweep(const SweepCommand& o, std::ostream& out, std::ostream& err) {
  auto selected = select_specs(o.selection);
  auto specs = take_shard(selected, o.shard);
  if (o.shard.sharded()) err << "sweep: " << o.shard.label() << specs.size() << " of " << selected.size() << " ops\n";
  const Config config = parse_config(o.sweep.config);
  note_sampling(specs, config, err);
  out << row("%-30s %8s %9s %8s %8s %8s %8s %10s\n", "op", "samples", "expected", "accepted", "rejected", "crashed",
             "bind-err", "deviation");
  // Rows in op order, each as soon as it and every op before it are done.
  std::vector<std::optional<OpSweep>> arrived(specs.size());
  size_t printed = 0, done = 0, failing = 0;
  auto start = std::chrono::steady_clock::now();
  auto print = [&](const OpSweep& r) {
    for (const auto& e : r.events) {
      const char* what[] = {"", "finding ", "known crash ", "new crash "};
      err << what[e.kind] << r.op << " #" << e.index << " (" << e.where << ") " << e.outcome << ": " << e.message
          << "\n  repro: " << e.command << "\n";
    }
    if (!r.error.empty()) err << r.op << ": not swept: " << r.error << "\n";
    if (o.sweep.invalid && r.samples == 0 && r.error.empty())
      err << r.op << ": no invalid sample: " << why_never_invalid(*find_spec(r.op), config) << "\n";
    out << row("%-30s %8llu %8.1f%% %8llu %8llu %8llu %8llu %10llu\n", r.op.c_str(),
               static_cast<unsigned long long>(r.samples), r.judged == 0 ? 100.0 : 100.0 * r.expected / r.judged,
               static_cast<unsigned long long>(r.accepted), static_cast<unsigned long long>(r.rejected),
               static_cast<unsigned long long>(r.crashed + r.timed_out), static_cast<unsigned long long>(r.bind_errors),
               static_cast<unsigned long long>(r.deviation));
    out.flush();
  };
  auto results = sweep(specs, o.sweep, [&](size_t i, const OpSweep& r) {
    arrived[i] = r;
    ++done, failing += !r.passed();
    if (o.progress) {
      double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      err << "\rsweep: " << done << "/" << specs.size() << " ops, " << failing << " failing, " << static_cast<int>(s)
          << " s " << (done == specs.size() ? "\n" : "") << std::flush;
    }
    while (printed < specs.size() && arrived[printed]) print(*arrived[printed++]);
  });
  if (!o.json.empty()) {
    nlohmann::json report = sweep_report(o.sweep, results);
    if (o.shard.sharded()) report["shard"] = o.shard.str();
    write_sweep_report(o.json, report);
  }
  size_t failed = std::count_if(results.begin(), results.end(), [](const OpSweep& r) { return !r.passed(); });
  if (failed) err << "sweep: " << o.shard.label() << failed << " of " << results.size() << " ops failed\n";
  return failed ? 1 : 0;
}

}  // namespace opsfuzz
