// ops-fuzz: generate inputs for ATen operators from the SpecDB, and run them.
#include "generators/execute.h"
#include "specs/db/db.h"
#include "tools/sample_json.h"

#include <ATen/Parallel.h>

#include <chrono>
#include <cstdio>
#include <iostream>
#include <map>
#include <set>

#ifdef OPSFUZZ_HAVE_SUITE
#include "suite/cli.h"
#endif

namespace opsfuzz {
namespace {

constexpr const char* kUsage = R"(usage: ops-fuzz COMMAND [ARGS]

commands:
  list-specs                 the operators of the SpecDB
  generate [OP...] [opts]    generate samples (every op when none is named)
  sweep [OP...] [opts]       generate and run them on the CPU kernels in isolated children
%s
Run 'ops-fuzz COMMAND --help' for the options of a command.
)";

constexpr const char* kGenerateUsage = R"(usage: ops-fuzz %s [OP...] [options]

Generates samples for each OP (every op of the SpecDB when none is named)%s.

options:
  --invalid          samples that violate exactly one constraint (default: valid samples)
  --seed N           seed of the run (default 0); (op, seed, index) regenerates a sample
  --max N            samples per op (default %d); past one round of the coverage plan,
                     generation continues with new values
  --config WORDS     comma-separated: zerodim, empty, half, transposed, permuted, strided,
                     channels_last ('no' prefix switches a default off: nozerodim); contract
                     (the op's contract without the spec's deviations: samples may hit
                     them, and say which: see list-specs --deviations); and how
                     joint constraints are solved: z3 (look-ahead, the default when built
                     with Z3) or sampling (retry until they hold)
  --out              also generate out= tensors%s
  --help             this text
)";

struct Options {
  std::vector<std::string> ops;
  bool invalid = false, with_out = false, jsonl = false;
  uint64_t seed = 0;
  int64_t max = -1;
  Config cfg;
};

struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

int64_t parse_int(const std::string& flag, const std::string& v) {
  try {
    size_t used = 0;
    int64_t n = std::stoll(v, &used);
    if (used == v.size() && n >= 0) return n;
  } catch (const std::exception&) {
  }
  throw UsageError(flag + " expects a non-negative integer, got '" + v + "'");
}

Options parse(const std::vector<std::string>& args, bool allow_format) {
  Options o;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    auto value = [&]() -> const std::string& {
      if (i + 1 >= args.size()) throw UsageError(a + " expects a value");
      return args[++i];
    };
    if (a == "--invalid") o.invalid = true;
    else if (a == "--out") o.with_out = true;
    else if (a == "--seed") o.seed = static_cast<uint64_t>(parse_int(a, value()));
    else if (a == "--max") o.max = parse_int(a, value());
    else if (a == "--config") {
      try {
        o.cfg = Config::parse(value());
      } catch (const std::invalid_argument& e) {
        throw UsageError(e.what());
      }
    } else if (a == "--format" && allow_format) {
      const std::string& f = value();
      if (f != "summary" && f != "jsonl") throw UsageError("--format expects summary or jsonl, got '" + f + "'");
      o.jsonl = f == "jsonl";
    } else if (a.rfind("--", 0) == 0) throw UsageError("unknown option " + a);
    else o.ops.push_back(a);
  }
  return o;
}

// The specs named on the command line (all when none); exit 2 with suggestions on an unknown op.
std::vector<const Spec*> select(const std::vector<std::string>& ops) {
  std::vector<const Spec*> out;
  if (ops.empty())
    for (const auto& s : spec_db()) out.push_back(&s);
  for (const auto& op : ops) {
    const Spec* s = find_spec(op);
    if (!s) {
      std::string msg = "unknown op '" + op + "'";
      auto close = close_specs(op);
      for (size_t i = 0; i < close.size(); ++i) msg += (i ? ", " : "; did you mean ") + close[i];
      throw UsageError(msg + (close.empty() ? "" : "?") + " (ops-fuzz list-specs lists them all)");
    }
    out.push_back(s);
  }
  return out;
}

struct OpSummary {
  uint64_t valid = 0, invalid = 0;
  std::set<std::string> dtypes;
  std::set<size_t> ranks;
  double seconds = 0;
  GenerationStats stats;
};

void observe(const Sample& s, OpSummary& sum) {
  (s.valid ? sum.valid : sum.invalid)++;
  for (const auto& m : s.metas)
    for (const auto& t : m.tensors)
      if (!m.none && !t.none) sum.dtypes.insert(std::string(name(t.dtype))), sum.ranks.insert(t.shape.size());
}

// How a spec's joint constraints are solved under `cfg` ("" when it has none).
std::string joint_mode(const Spec& spec, const Config& cfg) {
  if (spec.joints().empty()) return "";
  std::string n = std::to_string(spec.joints().size()) + " joint constraint" + (spec.joints().size() > 1 ? "s" : "");
  if (cfg.joint == JointStrategy::Z3) return n + ", solved by Z3";
  return n + ", sampled with retry" + (have_z3() ? "" : " (built without Z3)");
}

// Says once per run which of the specs sample their joint constraints instead of solving them.
void note_sampling(const std::vector<const Spec*>& specs, const Config& cfg) {
  if (cfg.joint == JointStrategy::Z3) return;
  std::string ops;
  for (const Spec* s : specs)
    if (!s->joints().empty()) ops += (ops.empty() ? "" : ", ") + s->op();
  if (!ops.empty())
    std::fprintf(stderr, "ops-fuzz: note: %s: joint constraints are sampled with retry%s; expect dead-ends\n",
                 ops.c_str(), have_z3() ? "" : " (this build has no Z3)");
}

// Each deviation of the SpecDB: where the linked kernel departs from an op's contract.
int list_deviations() {
  for (const auto& s : spec_db())
    for (const auto& d : s.deviations()) {
      std::cout << s.op() << "  " << d.deviation->id << "\n"
                << "  where:  " << d.where
                << (d.role == Role::Avoid ? "  (valid samples keep to it unless --config contract)"
                                          : "  (a rule the kernel does not check: broken only with --config contract)")
                << "\n  reason: " << d.deviation->reason << "\n  repro:  " << d.deviation->command << "\n";
    }
  return 0;
}

int cmd_list_specs(const std::vector<std::string>& args) {
  if (!args.empty() && args[0] == "--help") {
    std::cout << "usage: ops-fuzz list-specs [--deviations]\n\nPrints each op of the SpecDB with its arguments, and how its joint\n"
                 "constraints (relations across arguments) are solved in this build.\n\n"
                 "  --deviations   instead, every deviation: where the linked kernel departs from the\n"
                 "                 op's contract, why, and a command that reproduces it\n";
    return 0;
  }
  if (args.size() == 1 && args[0] == "--deviations") return list_deviations();
  if (!args.empty()) throw UsageError("list-specs takes no arguments but --deviations");
  for (const auto& s : spec_db()) {
    std::cout << s.op() << "(";
    for (size_t i = 0; i < s.args().size(); ++i)
      std::cout << (i ? ", " : "") << (s.args()[i].keyword ? "*" : "") << name(s.args()[i].type) << " "
                << s.args()[i].name;
    std::cout << ")";
    if (auto mode = joint_mode(s, Config{}); !mode.empty()) std::cout << "  [" << mode << "]";
    if (auto n = s.deviations().size()) std::cout << "  [" << n << " deviation" << (n > 1 ? "s" : "") << "]";
    std::cout << "\n";
  }
  return 0;
}

int cmd_generate(const std::vector<std::string>& args) {
  Options o = parse(args, true);
  if (o.max < 0) o.max = 100;
  std::vector<std::pair<const Spec*, OpSummary>> rows;
  auto specs = select(o.ops);
  note_sampling(specs, o.cfg);
  for (const Spec* spec : specs) {
    OpSummary sum;
    ArgumentTupleGenerator gen(*spec, o.cfg, o.seed, o.invalid ? Validity::Invalid : Validity::Valid, o.with_out);
    Sample s;
    auto start = std::chrono::steady_clock::now();
    for (int64_t i = 0; i < o.max && gen.next(s); ++i) {
      observe(s, sum);
      if (o.jsonl) std::cout << to_json(*spec, s) << '\n';
    }
    sum.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    sum.stats = gen.stats();
    rows.emplace_back(spec, std::move(sum));
  }
  if (o.jsonl) return 0;
  std::printf("%-30s %8s %7s %8s %7s %6s %10s %9s %10s\n", "op", "samples", "valid", "invalid", "dtypes", "ranks",
              "dead-ends", "z3-calls", "samples/s");
  for (const auto& [spec, s] : rows)
    std::printf("%-30s %8llu %7llu %8llu %7zu %6zu %10llu %9llu %10.0f\n", spec->op().c_str(),
                static_cast<unsigned long long>(s.valid + s.invalid), static_cast<unsigned long long>(s.valid),
                static_cast<unsigned long long>(s.invalid), s.dtypes.size(), s.ranks.size(),
                static_cast<unsigned long long>(s.stats.dead_ends),
                static_cast<unsigned long long>(s.stats.solver_calls), (s.valid + s.invalid) / std::max(s.seconds, 1e-9));
  return 0;
}

// A sample's outcome is what its spec expects: a valid one accepted, an invalid one refused
// (rejected, or a crash). A binding error is never expected: it is a fault of the spec.
bool as_expected(const Sample& s, const CallOutcome& o) {
  if (o.kind == CallOutcome::BindError) return false;
  return (o.kind == CallOutcome::Accepted) == s.valid;
}

int cmd_sweep(const std::vector<std::string>& args) {
  Options o = parse(args, false);
  if (o.max < 0) o.max = 200;
  int failures = 0;
  std::printf("%-30s %8s %9s %8s %8s %8s %8s %10s\n", "op", "samples", "expected", "accepted", "rejected", "crashed",
              "bind-err", "deviation");
  auto specs = select(o.ops);
  note_sampling(specs, o.cfg);
  for (const Spec* spec : specs) {
    ArgumentTupleGenerator gen(*spec, o.cfg, o.seed, o.invalid ? Validity::Invalid : Validity::Valid);
    std::vector<Sample> samples;
    Sample s;
    while (static_cast<int64_t>(samples.size()) < o.max && gen.next(s)) samples.push_back(s);
    auto outcomes = execute_isolated(samples);
    uint64_t counts[CallOutcome::kinds] = {};
    uint64_t expected = 0, judged = 0, deviating = 0;
    for (size_t i = 0; i < samples.size(); ++i) {
      const Sample& x = samples[i];
      const CallOutcome& out = outcomes[i];
      counts[out.kind]++;
      bool ok = as_expected(x, out);
      // A sample in a deviation (contract configuration) is a finding when the kernel departs
      // from the contract on it, not a failure of the sweep.
      bool finding = !x.deviations.empty() && out.kind != CallOutcome::BindError;
      if (finding) ++deviating;
      else ++judged, expected += ok;
      if (!ok)
        std::fprintf(stderr, "%s%s%s%s #%llu (%s) %s: %s\n", finding ? "finding " : "",
                     finding ? x.deviations.front().c_str() : "", finding ? ": " : "", x.op.c_str(), static_cast<unsigned long long>(x.index), x.valid ? "valid" : x.violated.c_str(),
                     std::string(name(out.kind)).c_str(), out.message.c_str());
    }
    failures += expected != judged;
    std::printf("%-30s %8zu %8.1f%% %8llu %8llu %8llu %8llu %10llu\n", spec->op().c_str(), samples.size(),
                judged == 0 ? 100.0 : 100.0 * expected / judged,
                static_cast<unsigned long long>(counts[CallOutcome::Accepted]),
                static_cast<unsigned long long>(counts[CallOutcome::Rejected]),
                static_cast<unsigned long long>(counts[CallOutcome::Crashed] + counts[CallOutcome::TimedOut]),
                static_cast<unsigned long long>(counts[CallOutcome::BindError]), static_cast<unsigned long long>(deviating));
    std::fflush(stdout);
  }
  return failures ? 1 : 0;
}

std::string suite_usage() {
#ifdef OPSFUZZ_HAVE_SUITE
  return suite::cli_usage();
#else
  return "";
#endif
}

int run(const std::string& cmd, const std::vector<std::string>& args) {
  bool help = !args.empty() && args[0] == "--help";
  if (cmd == "list-specs") return cmd_list_specs(args);
  if (cmd == "generate" || cmd == "sweep") {
    if (help) {
      bool g = cmd == "generate";
      std::printf(kGenerateUsage, cmd.c_str(), g ? "" : ", runs them on the CPU kernels, each child process\n"
                  "isolated, and reports how many valid samples were accepted (invalid: rejected; a binding\n"
                  "error is counted apart and never expected). Samples in a deviation (--config contract) are\n"
                  "findings: printed when the kernel departs from the contract on them, and left out of the rate",
                  g ? 100 : 200, g ? "\n  --format F         summary (default: a table per op) or jsonl (one sample a line)" : "");
      return 0;
    }
    return cmd == "generate" ? cmd_generate(args) : cmd_sweep(args);
  }
#ifdef OPSFUZZ_HAVE_SUITE
  if (suite::is_cli_command(cmd)) return suite::run_cli(cmd, args, std::cout, std::cerr);
#endif
  throw UsageError("unknown command '" + cmd + "'");
}

}  // namespace
}  // namespace opsfuzz

int main(int argc, char** argv) {
  using namespace opsfuzz;
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty() || args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
    std::printf(kUsage, suite_usage().c_str());
    return args.empty() ? 2 : 0;
  }
  at::set_num_threads(1);  // isolated children are forked from this process
  try {
    return run(args[0], {args.begin() + 1, args.end()});
  } catch (const UsageError& e) {
    std::fprintf(stderr, "ops-fuzz: %s\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ops-fuzz: %s\n", e.what());
    return 1;
  }
}
