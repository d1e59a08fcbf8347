// ops-fuzz hunt: SpecDB samples over many configurations (and YAML suites) run on backends
// against a baseline, their differences grouped into findings (hunt/findings.h), everything
// written to an output folder as it comes.
#pragma once

#include <functional>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "tools/commands.h"
#include "tools/order.h"

namespace CLI {
class App;
}

namespace opsfuzz {

struct Sample;
class Spec;

struct HuntCommand {
  std::vector<std::string> suites;  // YAML suites, run before the SpecDB samples
  OpSelection selection;            // every spec when nothing (and no suite) is named
  std::string configs =
      "default,contract,extremes,rounding,integral,empty,zerodim,transposed,permuted,strided,"
      "channels_last,half,complex";
  bool invalid = true;  // also invalid samples (default configuration)
  int64_t max = 20;     // samples per op and configuration
  uint64_t seed = 0;
  std::string backends =
      "eager_cpu_fp64;eager_cpu_noncontig;torchscript_cpu;torchscript_cpu_fused;torchscript_cpu_fused_dynamic;"
      "eager_cpu_grad";
  std::string baseline = "eager_cpu";
  std::string out;     // the output folder
  std::string budget;  // "10m", "90s", "1h": stops cleanly once spent; "" for none
  unsigned jobs = 1;
  double timeout_s = 60;
  bool triage = true;               // set aside the mismatches triage explains (runner/triage.h); counted per rule
  bool resume = false;              // carry on from DIR/results.jsonl: its items are not run again
  Shard shard;                      // item k of the hunt's order runs in shard k % N
  OrderOptions order{"diversity"};  // of the suites' items, then (apart) of the SpecDB samples
};

// The hunt's SpecDB work, op by op: each op under each configuration of --configs ("default", or
// "contract+half" as --config words "contract,half"), then under the default one with invalid
// samples when `invalid`. An unknown configuration word throws, before any sample is made.
struct SampleUnit {
  const Spec* spec = nullptr;
  std::string words;  // --config words, "" for the default configuration
  bool invalid = false;
};
std::vector<SampleUnit> sample_units(const OpSelection& selection, const std::string& configs, bool invalid);
// The unit's samples (--max, --seed), as sweep generates them.
std::vector<Sample> unit_samples(const SampleUnit& unit, int64_t max, uint64_t seed);
// A sample's item id in the hunt: its sample id, and its configuration's words when not the
// default ("add_Tensor__valid__0007__extremes").
std::string unit_item_id(const Sample& s, const std::string& words);

// Runs the hunt; exit 1 when it found anything not known (a marked deviation or a known crash).
int run_hunt(const HuntCommand& o, std::ostream& out, std::ostream& err);
// Seconds of a budget: "90s", "10m", "1.5h", or a number of seconds; a UsageError otherwise.
double parse_budget(const std::string& text);

// The options of the hunt's SpecDB samples: --ops, --configs, --no-invalid, --max, --seed.
void add_sample_options(CLI::App* cmd, OpSelection& selection, std::string& configs, bool& invalid, int64_t& max,
                        uint64_t& seed);

std::shared_ptr<void> add_hunt_command(CLI::App& app, std::function<int()>& command, std::ostream& out,
                                       std::ostream& err);

}  // namespace opsfuzz
