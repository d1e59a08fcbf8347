#include "tools/cli.h"

#include <CLI/CLI.hpp>
#include <dlfcn.h>
#include <unistd.h>

#include <functional>
#include <iostream>

#include "engine/config.h"
#include "tools/apfd_command.h"
#include "tools/minimal_suites.h"
#include "tools/report_command.h"
#include "tools/commands.h"
#include "tools/describe.h"
#include "tools/hunt_command.h"
#include "tools/merge.h"
#include "tools/prioritize_command.h"
#include "tools/run_command.h"

namespace opsfuzz {

namespace {

// --config: checked when parsed, so a bad word is a usage error naming the option.
CLI::Validator config_validator() {
  return CLI::Validator(
      [](std::string& words) {
        try {
          Config::parse(words);
          return std::string();
        } catch (const std::invalid_argument& e) { return std::string(e.what()); }
      },
      "WORDS");
}

// The words of engine/config.h, each with what it does.
std::string config_help() {
  std::string help = "comma-separated words ('no' switches one off: nozerodim):";
  for (const ConfigWord& w : config_words()) help += " " + std::string(w.word) + " (" + std::string(w.help) + ");";
  help.back() = '.';
  return help;
}

}  // namespace

void add_ops_option(CLI::App* cmd, OpSelection& s) {
  cmd->add_option("--ops", s.globs, "ops of the SpecDB by glob, comma-separated: 'add.*,sub.*'")->delimiter(',');
}

void add_samples(CLI::App* cmd, uint64_t& seed, int64_t& max, std::string& config, const char* max_help) {
  cmd->add_option("--seed", seed, "seed of the run; (op, seed, index) regenerates a sample")->capture_default_str();
  cmd->add_option("--max", max, max_help)->capture_default_str()->check(CLI::NonNegativeNumber);
  cmd->add_option("--config", config, config_help())->check(config_validator());
}

void add_backends(CLI::App* cmd, std::string& backends, std::string& baseline) {
  cmd->add_option("--backends", backends, "semicolon-separated backends (list-backends)")->capture_default_str();
  cmd->add_option("--baseline", baseline, "the backend the others are compared with")->capture_default_str();
}

void add_workers(CLI::App* cmd, unsigned& jobs, double& timeout_s) {
  cmd->add_option("--timeout-s", timeout_s, "per item and backend, in an isolated worker")->capture_default_str();
  cmd->add_option("--jobs,-j", jobs, "processes running items side by side")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
}

void add_index(CLI::App* cmd, int64_t& index) {
  cmd->add_option("--index", index, "only the sample with this index (the ones before it are generated and dropped)")
      ->check(CLI::NonNegativeNumber);
}

namespace {

void add_selection(CLI::App* cmd, OpSelection& s) {
  cmd->add_option("OP", s.ops, "ops of the SpecDB by name (every op when none is named)");
  add_ops_option(cmd, s);
}

void add_generation(CLI::App* cmd, bool& invalid, uint64_t& seed, int64_t& max, int64_t& index, std::string& config) {
  cmd->add_flag("--invalid", invalid, "samples that violate exactly one constraint (default: valid ones)");
  add_samples(cmd, seed, max, config, "samples per op");
  add_index(cmd, index);
}

const char* kCalibrateHelp =
    "The spec of OP measured against the linked CPU kernel, every call in an isolated worker (a crash is "
    "reported, not fatal). (1) Per tensor argument, the dtypes the kernel accepts: the "
    "argument of a few accepted valid samples (--bases; the smallest with elements and dims first) is cast to each dtype "
    "(complex ones too), with the tensor arguments whose dtype equals its own in every valid sample (the spec ties "
    "them: mm's self and mat2), the others unchanged; a dtype is accepted when every base takes it ('mixed' when only some do: "
    "the rule depends on another argument), and compared with the dtypes the spec's valid samples have. "
    "The suggested set is the dtypes some base accepted, those only some took listed apart. (2) The valid samples the kernel refuses, grouped "
    "by message (first line, numbers and bracketed lists normalized). (3) The invalid samples (as many, "
    "--max) the kernel accepts, grouped by the constraint they violate, out of the samples violating it. "
    "Samples that do not bind to the schema are counted apart: a bug of ours, not a refusal. Each group "
    "names a command that reproduces its first sample. Exit code 0 with a report, 1 when the spec cannot "
    "generate.";

// Opens a user's shared library: its static initializers register specs (OPSFUZZ_REGISTER_SPEC),
// backends (runner::register_backend) and operators (TORCH_LIBRARY) with this process.
void load_plugin(const std::string& path) {
  if (!::dlopen(path.c_str(), RTLD_NOW | RTLD_GLOBAL)) throw UsageError("--load " + path + ": " + ::dlerror());
}

// The command line parsed; the command run only when `run` (else 0 once it parses).
int command_line(const std::vector<std::string>& args, std::ostream& out, std::ostream& err, bool run) {
  CLI::App app{"Generates inputs for ATen operators from their specs, and runs them on the CPU kernels.", "ops-fuzz"};
  app.require_subcommand(1);
  app.fallthrough(false);
  std::function<int()> command;

  bool deviations = false;
  auto* list = app.add_subcommand("list-specs", "the operators of the SpecDB and their arguments");
  list->add_flag("--deviations", deviations,
                 "instead, every deviation: where the linked kernel departs from the op's contract, "
                 "why, and a command that reproduces it");
  list->callback([&] { command = [&] { return list_specs(deviations, out); }; });

  GenerateOptions gen;
  std::string format = "summary";
  auto* generate_cmd = app.add_subcommand("generate", "generates samples and prints a table per op, or the samples");
  add_selection(generate_cmd, gen.selection);
  add_generation(generate_cmd, gen.invalid, gen.seed, gen.max, gen.index, gen.config);
  generate_cmd->add_flag("--out", gen.with_out, "also generate out= tensors");
  generate_cmd->add_flag("--minimal", gen.minimal,
                         "per op, the fewest samples of a pool (--pool) covering every argument class the pool "
                         "reaches (every dtype and type category of each tensor argument) and 90 % of its class "
                         "pairs: a small suite to review (StableHLO's G1/G2)");
  generate_cmd->add_option("--pool", gen.pool, "--minimal: the samples per op it chooses from")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  generate_cmd->add_option("--out-dir", gen.out_dir, "--minimal --format yaml: write one suite per op here");
  generate_cmd
      ->add_option("--format", format,
                   "summary (a table per op), jsonl (one sample a line) or yaml (a test suite for run-eager: "
                   "one test per sample, values and layouts exact)")
      ->capture_default_str()
      ->check(CLI::IsMember({"summary", "jsonl", "yaml"}));
  generate_cmd->callback([&] {
    gen.format = format == "jsonl"  ? SampleFormat::Jsonl
                 : format == "yaml" ? SampleFormat::Yaml
                                    : SampleFormat::Summary;
    command = [&] { return gen.minimal ? generate_minimal(gen, out, err) : generate(gen, out, err); };
  });

  SweepCommand sw;
  auto* sweep_cmd = app.add_subcommand(
      "sweep",
      "generates samples and runs them on the CPU kernels, each in an isolated worker; reports per op "
      "how many came out as expected (valid: accepted; invalid: refused; a binding error never). Samples "
      "in a deviation (--config contract) are findings; crashes of the linked libtorch listed as known "
      "are findings too, a new crash fails the sweep");
  add_selection(sweep_cmd, sw.selection);
  add_generation(sweep_cmd, sw.sweep.invalid, sw.sweep.seed, sw.sweep.max, sw.sweep.index, sw.sweep.config);
  sweep_cmd->add_option("--jobs,-j", sw.sweep.jobs, "processes sweeping ops side by side")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  sweep_cmd->add_option("--timeout", sw.sweep.timeout_s, "seconds a sample may run")->capture_default_str();
  sweep_cmd->add_flag("--backtraces", sw.sweep.backtraces,
                      "keep C++ backtraces in kernel errors (for a reproducer; each refused call costs ~6 ms)");
  sweep_cmd->add_option("--json", sw.json, "also write the per-op table and every unexpected result to FILE");
  add_shard_option(sweep_cmd, sw.shard, "op");
  sweep_cmd->callback([&] {
    sw.progress = &err == &std::cerr && ::isatty(STDERR_FILENO);
    command = [&] { return run_sweep(sw, out, err); };
  });

  CalibrateCommand cal;
  auto* calibrate_cmd =
      app.add_subcommand("calibrate",
                         "for spec authors: the dtypes the CPU kernel takes per tensor argument, the spec's valid "
                         "samples it refuses and invalid samples it accepts");
  calibrate_cmd->footer(kCalibrateHelp);
  calibrate_cmd->add_option("OP", cal.op, "an op of the SpecDB")->required();
  add_samples(calibrate_cmd, cal.options.seed, cal.options.max, cal.options.config,
              "valid samples run, and as many invalid ones");
  calibrate_cmd
      ->add_option("--bases", cal.options.bases, "accepted valid samples each tensor argument's dtypes are probed on")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  calibrate_cmd->add_option("--timeout", cal.options.timeout_s, "seconds a call may run")->capture_default_str();
  calibrate_cmd->add_option("--json", cal.json, "also write the report to FILE");
  calibrate_cmd->callback([&] { command = [&] { return run_calibrate(cal, out, err); }; });

  SuiteCommand suite;
  auto* validate_cmd = app.add_subcommand(
      "validate-yaml", "checks a YAML test suite (with its includes): every error and warning, with file:line:column");
  auto* list_cmd = app.add_subcommand(
      "list-tests", "the expanded test ids of a YAML suite, in order; a pair test as its id, then its sides");
  auto* run_cmd = app.add_subcommand(
      "run-eager",
      "runs each selected test of a YAML suite on the CPU kernels, in isolated workers (a crash costs its test)");
  for (auto* cmd : {validate_cmd, list_cmd, run_cmd}) cmd->add_option("FILE", suite.file, "the suite")->required();
  for (auto* cmd : {list_cmd, run_cmd})
    cmd->add_option("--test-ids", suite.test_ids, "semicolon-separated ids; one ending in '*' is a prefix");
  run_cmd->add_option("--seed", suite.seed, "seed of the inputs")->capture_default_str();
  validate_cmd->callback([&] { command = [&] { return validate_yaml(suite, out, err); }; });
  list_cmd->callback([&] { command = [&] { return list_tests(suite, out, err); }; });
  run_cmd->callback([&] { command = [&] { return run_eager(suite, out, err); }; });

  CheckCommand check;
  auto* check_cmd = app.add_subcommand(
      "check",
      "classifies each test of a YAML suite that calls an op with a spec: its inputs (bound to the op's "
      "schema, defaults filled) are valid by the spec, or break its rules (listed by label); deviations "
      "they hit, and what lies outside the generation scope (Scope constraints, the configuration's "
      "limits: not rules), are listed under it. Modules and ops without a spec are listed as such. "
      "Exit 0 whatever the classification (1 when the suite cannot be loaded), unless --expect-valid");
  check_cmd->add_option("FILE", check.suite.file, "the suite")->required();
  check_cmd->add_option("--test-ids", check.suite.test_ids, "semicolon-separated ids; one ending in '*' is a prefix");
  check_cmd->add_option("--seed", check.suite.seed, "seed of the inputs (as run-eager's)")->capture_default_str();
  check_cmd
      ->add_option("--config", check.config,
                   "the configuration whose limits (dtypes, rank, sizes, list lengths) bound the generation "
                   "scope: " +
                       std::string(config_help()))
      ->check(config_validator());
  check_cmd->add_flag("--expect-valid", check.expect_valid,
                      "exit 1 unless every selected test with a spec is valid (for CI of hand-written suites)");
  check_cmd->callback([&] { command = [&] { return check_suite(check, out, err); }; });

  auto run_options = add_run_commands(app, command, out, err);
  auto merge_options = add_merge_command(app, command, out, err);
  auto hunt_options = add_hunt_command(app, command, out, err);
  auto apfd_options = add_apfd_command(app, command, out);
  auto prioritize_options = add_prioritize_command(app, command, out, err);
  auto report_options = add_report_command(app, command, out);
  auto describe_options = add_describe_command(app, command, out);
  std::vector<std::string> plugins;
  app.add_option("--load", plugins,
                 "shared libraries to open first (before the command): specs of users' own operators, "
                 "their backends and custom ops, registered by the libraries' static initializers")
      ->check(CLI::ExistingFile);

  try {
    std::vector<std::string> reversed(args.rbegin(), args.rend());  // CLI11 parses from the back
    app.parse(reversed);
  } catch (const CLI::ParseError& e) { return app.exit(e, out, err) == 0 ? 0 : 2; }
  if (!run) return 0;
  try {
    for (const std::string& path : plugins) load_plugin(path);
    return command();
  } catch (const UsageError& e) {
    err << "ops-fuzz: " << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    err << "ops-fuzz: " << e.what() << "\n";
    return 1;
  }
}

}  // namespace

int run_cli(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  return command_line(args, out, err, true);
}

int parse_cli(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  return command_line(args, out, err, false);
}

}  // namespace opsfuzz
