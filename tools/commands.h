// The commands of ops-fuzz, each on its parsed options; tools/cli.cpp parses the command line.
#pragma once

#include <cstdint>
#include <ostream>
#include <stdexcept>
#include <string>
#include <vector>

#include "tools/calibrate.h"
#include "tools/sweep.h"

namespace CLI {
class App;
}

namespace opsfuzz {

namespace suite {
struct Suite;
}

// A problem of the command line (exit code 2), reported with the command's name.
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Which ops of the SpecDB a command works on: named ops and globs (`add.*`); all when empty.
struct OpSelection {
  std::vector<std::string> ops;    // positional: exact names
  std::vector<std::string> globs;  // --ops 'add.*,sub.*'
};
std::vector<const Spec*> select_specs(const OpSelection& selection);
// --ops GLOB,...: the shared option of the commands that select ops of the SpecDB.
void add_ops_option(CLI::App* cmd, OpSelection& s);
// --seed, --max, --config (its words checked when parsed): what selects the samples of an op.
void add_samples(CLI::App* cmd, uint64_t& seed, int64_t& max, std::string& config, const char* max_help);
// --index: only the sample with this index of each op's stream.
void add_index(CLI::App* cmd, int64_t& index);
// --backends and --baseline: what run and hunt run items on, and compare with.
void add_backends(CLI::App* cmd, std::string& backends, std::string& baseline);
// --jobs and --timeout-s: the workers run and hunt run items in.
void add_workers(CLI::App* cmd, unsigned& jobs, double& timeout_s);

// --shard I/N: one part of a split that is the same on every machine (element k of a command's
// ordered work belongs to shard k % N), so that CTest, Kubernetes or Slurm can run the parts side
// by side; results record it as "shard": "I/N", which `merge` drops (tools/merge.h).
struct Shard {
  size_t index = 0, count = 1;
  bool sharded() const { return count > 1; }
  std::string str() const { return std::to_string(index) + "/" + std::to_string(count); }
  // What progress and summary lines begin with: "shard 1/3: ", or "" when not sharded.
  std::string label() const { return sharded() ? "shard " + str() + ": " : ""; }
};
// "I/N" with 0 <= I < N; otherwise a UsageError saying why (tools/merge.cpp; the option's
// validator puts "--shard: " before it).
Shard parse_shard(const std::string& text);
// The elements of `all` that belong to `shard`, in their order.
template <class T> std::vector<T> take_shard(std::vector<T> all, const Shard& shard) {
  std::vector<T> mine;
  for (size_t k = shard.index; k < all.size(); k += shard.count) mine.push_back(std::move(all[k]));
  return mine;
}

// How generate prints samples: a table per op, one JSON object a line, or a YAML test suite.
enum class SampleFormat : uint8_t { Summary, Jsonl, Yaml };

struct GenerateOptions {
  OpSelection selection;
  bool invalid = false, with_out = false;
  SampleFormat format = SampleFormat::Summary;
  uint64_t seed = 0;
  int64_t max = 100;
  int64_t index = -1;
  std::string config;
  bool minimal = false;  // the fewest samples of a pool covering its classes (tools/minimal_suites.h)
  int64_t pool = 1000;   // --minimal's pool per op
  std::string out_dir;   // --minimal --format yaml: one suite per op there
};

struct SweepCommand {
  OpSelection selection;
  SweepOptions sweep;
  std::string json;  // --json FILE
  bool progress = false;
  Shard shard;
};

struct CalibrateCommand {
  std::string op;
  CalibrateOptions options;
  std::string json;  // --json FILE
};

int list_specs(bool deviations, std::ostream& out);
int generate(const GenerateOptions& o, std::ostream& out, std::ostream& err);
struct Config;
// --config words as a Config; a UsageError naming --config otherwise.
Config parse_config(const std::string& words);
int run_sweep(const SweepCommand& o, std::ostream& out, std::ostream& err);
int run_calibrate(const CalibrateCommand& o, std::ostream& out, std::ostream& err);

struct SuiteCommand {
  std::string file;
  std::string test_ids;
  uint64_t seed = 0;
};
int validate_yaml(const SuiteCommand& o, std::ostream& out, std::ostream& err);
// The suite at `path`; a std::runtime_error naming it, with its diagnostics, when it is not valid.
suite::Suite valid_suite(const std::string& path);
int list_tests(const SuiteCommand& o, std::ostream& out, std::ostream& err);
int run_eager(const SuiteCommand& o, std::ostream& out, std::ostream& err);

struct CheckCommand {
  SuiteCommand suite;
  std::string config;         // --config words
  bool expect_valid = false;  // a test that is not valid (or cannot be checked) fails the run
};
// Classifies each selected test's inputs by its op's spec. Exit 1 when the suite cannot be
// loaded, or with expect_valid when a test with a spec is not valid; 0 otherwise.
int check_suite(const CheckCommand& o, std::ostream& out, std::ostream& err);

}  // namespace opsfuzz
