// The runner: items (a SpecDB sample or an expanded YAML test) run on backends, in isolated
// workers, judged by the oracle against a baseline; results as opdiff's records.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "runner/backend.h"
#include "runner/oracle.h"
#include "suite/model.h"

namespace opsfuzz {
struct Deviation;
struct Sample;
}  // namespace opsfuzz
namespace opsfuzz::suite {
class IdFilter;
}

namespace opsfuzz::runner {

// One side of an item: what the backends call.
struct Side {
  std::string id;                       // the test id ("mod_linear__a"), or the item's id
  std::string yaml;                     // the suite file; "" for a SpecDB sample
  std::string op;                       // "aten::add.Tensor", "torch.nn.Linear"
  std::optional<Call> call;             // nullopt when it could not be built: see error
  std::string error;                    // why there is no call ("ExceptionType: message")
  bool skipped = false;                 // the error is a reason to skip (a device this machine lacks)
  std::optional<suite::Node> expected;  // the test's `out`, checked on every backend
  uint64_t expected_seed = 0;           // materializes it
};

// Where a SpecDB sample came from: `ops-fuzz generate OP --seed S --index I [--invalid]` again.
struct Origin {
  std::string spec;  // "add.Tensor"
  uint64_t seed = 0;
  uint64_t index = 0;
  bool valid = true;
  std::string config;                   // generation config words
  std::string violated;                 // the constraint an invalid sample breaks
  std::vector<std::string> deviations;  // the deviations of its spec it hits (--config contract)
  std::string dtype;                    // its first tensor input's ("float32"), or ""
};

struct Item {
  std::string id;
  std::vector<Side> sides;                // one; two (a, b) for a pair test
  std::optional<std::string> no_compare;  // why outputs are not value-compared
  std::optional<Origin> origin;           // SpecDB samples
  bool pair() const { return sides.size() == 2; }
};

// A sample as an item: id "add_Tensor__valid__0007"; its call bound by opcall (a binding error
// is the side's error).
Item item_from_sample(const Sample& sample, const std::string& config);
// The seed of the backends' own random choices on a sample's call (Call::seed): from the
// sample's seed and index, so that a sample's run repeats wherever it runs.
uint64_t backend_seed(const Sample& sample);
// A test of a suite as a side: its inputs (and module) materialized from run_seed and its op
// resolved, or why not (an error; a skip for a device this machine lacks or an unsupported
// module).
Side side_from_test(const suite::Test& test, const std::string& yaml, uint64_t run_seed);
// A selected item of a suite, before anything is materialized: its id and its tests (one; a pair
// test's sides a and b), in suite order.
struct SuiteItem {
  std::string id;
  std::vector<const suite::Test*> sides;
};
std::vector<SuiteItem> suite_items(const suite::Suite& suite, const suite::IdFilter& filter);
// The selected tests of a suite as items (a pair test as one item with sides a and b), inputs
// materialized from run_seed.
std::vector<Item> items_from_suite(const suite::Suite& suite, const std::string& yaml, const suite::IdFilter& filter,
                                   uint64_t run_seed);

struct RunOptions {
  std::vector<std::string> backends;                    // names (find_backend)
  std::string baseline;                                 // "" for none
  std::set<std::pair<std::string, std::string>> skips;  // (item id, backend) not run
  int repeats = 1;                                      // runs per side; ms is their median
  int mode = 1;                                         // 1: one comparison; 2: per repeat times and comparisons
  double timeout_s = 60;                                // per backend and item, in a worker
  bool isolate = true;                                  // false: in this process (a crash ends the run)
  unsigned jobs = 1;                                    // processes running batches of items side by side
  bool backtraces = false;                              // keep c10 backtraces in error messages
  bool triage = false;  // judge each mismatch with the baseline against float64 (runner/triage.h)
};

// One side's run on one backend (opdiff's "res" entry).
struct SideResult {
  Status status = Status::Ok;
  std::string err;            // "ExceptionType: message" (200 characters at most), or ""
  std::optional<double> ms;   // median latency of the repeats
  std::vector<double> times;  // every repeat's time (mode 2)
};

struct BackendResult {
  std::string backend;
  std::vector<SideResult> res;            // one per side
  std::optional<std::vector<Diff>> diff;  // opdiff's diff_all; nullopt when not comparable
  // Per side, the output against the test's `out` (nullopt for a side without one); empty when
  // no side has one.
  std::vector<std::optional<Diff>> expected;
  std::vector<std::pair<std::string, std::string>> notes;  // fused, layout, kinks, ...
};

struct ItemResult {
  const Item* item = nullptr;
  std::optional<BackendResult> baseline;
  std::vector<BackendResult> backends;
};

// An item record read back from a results file: the item (its id, its sides' ids and ops, its
// origin; no call) and its results, which point at it. The baseline's one status stands for each
// of its sides.
struct RecordedItem {
  std::unique_ptr<Item> item;
  ItemResult result;
};

// Runs every item on the baseline and the backends; `report` sees each item's result as soon as
// it is final (to write and flush it): in order, or with options.jobs > 1 in the order batches
// finish. Returns them all, in order.
std::vector<ItemResult> run_items(const std::vector<Item>& items, const RunOptions& options,
                                  const std::function<void(const ItemResult&)>& report = {});

// One side on one backend in this process, with its output (the first repeat's): for tests that
// look at the values, which a run does not keep.
struct SideRun {
  SideResult result;
  c10::IValue output;
};
SideRun run_side_here(const Side& side, const std::string& backend = "eager_cpu");

// The known crash a side's result on an item is, or nullptr: a SpecDB sample in a deviation of
// kind crash (op_facts.h known_crash) whose worker died of one of that deviation's signals.
const Deviation* known_crash(const Item& item, const SideResult& result);

// What one side's run came to, as one call's outcome: OK is accepted; a failed call (INFER_FAIL
// and the other failures of a call) rejected; a side without a call (its op unknown or its
// arguments not bound) a binding error; a worker that died crashed or timed out.
opcall::CallOutcome call_outcome(const SideResult& result);

// SpecDB samples on eager_cpu (the kernels as the op is called), one outcome per sample, in
// order: what the sweep, calibrate and the SpecDB tests judge. Isolated unless options say not.
std::vector<opcall::CallOutcome> run_samples(const std::vector<Sample>& samples, const RunOptions& options = {});

// What a result says in one word: its worst status, or "mismatch" when a comparison failed.
bool mismatched(const BackendResult& r);

}  // namespace opsfuzz::runner
