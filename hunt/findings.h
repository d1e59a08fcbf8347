// Findings: the differences of a run grouped by root cause. A difference is one backend departing
// from the baseline on one item (a crash, a timeout, an exception on one side only, a mismatch);
// differences with the same key — op, backend, kind and their message with every number, shape,
// dtype and address stripped — are one finding, counted, with its first item in execution order.
#pragma once

#include <nlohmann/json_fwd.hpp>

#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace opsfuzz::runner {
struct ItemResult;
}

namespace opsfuzz::hunt {

// unsupported: the backend could not build its model (EXPORT_FAIL) for a call the baseline runs;
// one finding per backend and message over every op, since the cause is the backend's, not an op's.
enum class Kind : uint8_t { Crash, Timeout, Exception, Mismatch, Unsupported };
const char* name(Kind kind);  // "crash", "timeout", "exception", "mismatch", "unsupported"

// One backend's departure from the baseline on one item.
struct Difference {
  std::string op;       // the op overload ("erf.default"), or the suite test's op or module
  std::string backend;  // the side at fault as run: the baseline itself for its own crash
  std::string baseline;
  Kind kind = Kind::Mismatch;
  std::string message;               // the error, the signal, or the first differing element, as reported
  std::string dtype;                 // the sample's first tensor input's ("float32"); "" for a suite's test
  std::string output_dtype;          // a mismatch's: the dtype of the output that differs
  std::string config;                // the sample's generation config ("default"), or "" for a suite's test
  std::optional<std::string> known;  // the deviation the sample is in, or the known crash it is
  std::string verdict;               // a mismatch's triage verdict (runner/triage.h), "" untriaged
  std::string blame;                 // the side triage blames, "" untriaged
  bool set_aside = false;            // triage explains it: not a finding
};

// The differences in an item's result, one per backend at most (its first differing side).
std::vector<Difference> differences(const runner::ItemResult& result);

// A difference's part of its finding's key (Finding::key): its message normalized and, for a
// mismatch, its triage verdict and the category of the differing output's dtype.
std::string message_key(const Difference& d);

// What occurrences of one root cause share: the message with numbers (and inf, nan), bracketed
// shapes and index lists, dtype names and addresses replaced by placeholders.
std::string normalized(const std::string& message);

struct Finding {
  std::string id;  // "erf_default-eager_cpu_noncontig-mismatch-1"
  std::string op, backend, baseline;
  Kind kind = Kind::Mismatch;
  std::string verdict, blame;  // the first occurrence's triage ("" untriaged)
  std::string message;         // the first occurrence's
  std::string key;             // what its occurrences share: message_key()
  uint64_t count = 0;
  uint64_t first = 0;                // the execution position of its first item
  std::vector<std::string> samples;  // the first kMaxSamples item ids
  std::set<std::string> configs, dtypes;
  std::set<std::string> ops;         // the ops it was seen on (several for an unsupported finding)
  std::optional<std::string> known;  // a marked deviation or known crash: not new

  static constexpr size_t kMaxSamples = 20;
};

// Whether a difference is an occurrence of the finding.
bool occurs_in(const Difference& d, const Finding& f);

// findings.jsonl's line (docs/hunt.md): {"id", "op", "backend", "baseline", "kind", "blame",
// "triage", "message", "count", "first", "samples", "configs", "dtypes", "known", ...}.
nlohmann::json to_json(const Finding& finding);

class Findings {
 public:
  // keep_set_aside (--no-triage): differences triage explains are findings too.
  explicit Findings(bool keep_set_aside = false) : keep_set_aside_(keep_set_aside) {}
  // Adds the differences of the item run at `position`; returns the findings they opened.
  std::vector<const Finding*> add(const runner::ItemResult& result, uint64_t position);
  const std::deque<Finding>& all() const { return findings_; }
  // How many differences each triage rule set aside (kept as findings with keep_set_aside).
  const std::map<std::string, uint64_t>& set_aside() const { return set_aside_; }

 private:
  // Adds one difference of item `item_id`; returns its finding when it opened one.
  const Finding* add(const Difference& d, const std::string& item_id, uint64_t position);

  bool keep_set_aside_ = false;
  std::map<std::string, uint64_t> set_aside_;
  std::map<std::string, Finding*> by_key_;
  std::map<std::string, int> per_prefix_;  // findings so far per (op, backend, kind): ids count them
  std::deque<Finding> findings_;           // stable addresses
};

}  // namespace opsfuzz::hunt
