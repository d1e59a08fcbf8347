// Results as opdiff's JSONL records (our fields beside opdiff's), JUnit XML, and the summary.
#pragma once

#include <nlohmann/json_fwd.hpp>

#include <cstdio>
#include <functional>
#include <map>
#include <ostream>
#include <set>
#include <string>
#include <vector>

#include "runner/run.h"

namespace opsfuzz::runner {

// JSON has no NaN or infinity: a finite number as itself, the others as the strings "nan", "inf"
// and "-inf" (valid JSON; Python's float() and opdiff's report scripts read them back).
nlohmann::json json_number(double v);

// opdiff's keys exactly — {"ok": true, "mse", "max_abs", "mean_abs"} or {"ok": false, "code",
// "msg"} (msg null when empty) — plus ours beside them: "verdict": "match" | "mismatch", "ulp",
// "chebyshev", and "why" for a mismatch; non-finite numbers as json_number writes them.
nlohmann::json to_json(const Diff& diff);

// A backend's entry: {"backend", "res": [{"status", "err", "ms"}], "times_all", "diff_all"} and
// our "notes" object beside them.
nlohmann::json to_json(const BackendResult& r);
BackendResult backend_result_from_json(const nlohmann::json& j);
Diff diff_from_json(const nlohmann::json& j);

// {"type": "item", "id", "test_type", "cases", "baseline", "backends"} plus our "origin" (a
// SpecDB sample's op, seed, index, validity, config, violated constraint) and "not_compared".
nlohmann::json item_record(const ItemResult& r);
// An item record read back (run.h RecordedItem), the baseline's latency with it; throws
// nlohmann::json's errors on a malformed one.
RecordedItem item_from_record(const nlohmann::json& record);
// {"type": "meta", "meta": {"format_name": "opdiff_run", "format_version": 1, "created_at",
// "env": {versions}, "extra": {"yaml", "params"}}}.
nlohmann::json meta_record(const nlohmann::json& extra);

// Appends records to a JSONL file, one a line, each flushed as soon as it is written. A file left
// with a cut last line (a run killed while writing) is continued on a fresh line.
class JsonlWriter {
 public:
  JsonlWriter(const std::string& path, bool append);
  ~JsonlWriter();
  JsonlWriter(const JsonlWriter&) = delete;
  JsonlWriter& operator=(const JsonlWriter&) = delete;
  void write(const nlohmann::json& record);

 private:
  std::FILE* file_ = nullptr;
};

// Calls fn on each item record of a results file, in order; unreadable lines (a cut last line of
// a killed run) are skipped.
void for_each_item_record(const std::string& path, const std::function<void(const nlohmann::json&)>& fn);
// The item records of a results file read back (item_from_record), in order, unreadable lines
// skipped as for_each_item_record does. Throws std::runtime_error naming the file and line of an
// item record that does not read back.
void for_each_recorded_item(const std::string& path, const std::function<void(RecordedItem&&)>& fn);
// The ids of the item records already in a results file (unreadable lines are ignored).
std::set<std::string> completed_items(const std::string& path);

// JUnit XML: one testcase per item and backend (classname the backend), failed on a mismatch or
// an unexpected status, skipped when SKIPPED.
void write_junit(const std::string& path, const std::vector<ItemResult>& results);

// What happened to one side on one backend, as counted in the summary.
struct Tally {
  std::map<std::string, size_t> statuses;            // "OK" -> count (per side)
  size_t match = 0, mismatch = 0, not_compared = 0;  // per item with every side OK
  size_t unexpected = 0;     // statuses that disagree with the baseline (or the sample's validity)
  size_t known_crashes = 0;  // crashes that are deviations of kind crash of the sample's spec
};
// Per backend (the baseline included), in run order.
std::vector<std::pair<std::string, Tally>> tally(const std::vector<ItemResult>& results);
// Whether a backend's side status is a finding: a crash (but a known crash: run.h known_crash), or accepted where the
// baseline (or, with none, the sample's validity) says it should be refused, or the other way round.
bool unexpected(const ItemResult& item, const BackendResult& r, size_t side);
// Every backend result of an item, the baseline first.
std::vector<const BackendResult*> all_results(const ItemResult& r);
// Why a backend's result fails (a mismatch, a wrong expected output, an unexpected status), or "".
std::string failure_reason(const ItemResult& item, const BackendResult& r);

void print_summary(const std::vector<std::pair<std::string, Tally>>& tallies, std::ostream& out);

}  // namespace opsfuzz::runner
