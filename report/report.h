// ops-fuzz report: what a hunt (or a run) found, as one self-contained HTML page and as Markdown.
// Everything is read back from the folder's results.jsonl, replayed through the hunt's findings
// (hunt/findings.h) as the hunt met them, and from findings.jsonl and reproducers/ for what
// shrinking made.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "hunt/findings.h"
#include "hunt/reproduction.h"

namespace opsfuzz::report {

// What one backend did on one item, as the support matrix colours it.
enum class Outcome : uint8_t { Ok, Explained, Mismatch, Exception, Crash, Skipped };
inline constexpr std::array<Outcome, 6> kOutcomes = {Outcome::Ok,        Outcome::Explained, Outcome::Mismatch,
                                                     Outcome::Exception, Outcome::Crash,     Outcome::Skipped};
const char* name(Outcome o);  // "ok", "explained", "mismatch", "exception", "crash", "skipped"

struct Counts {
  std::array<uint64_t, kOutcomes.size()> n{};
  uint64_t total() const;
  uint64_t& operator[](Outcome o) { return n[static_cast<size_t>(o)]; }
  uint64_t operator[](Outcome o) const { return n[static_cast<size_t>(o)]; }
};

struct ReportFinding {
  hunt::Finding finding;
  Reproduction reproduction;  // as findings.jsonl has it (empty paths when none was made)
  std::string yaml, py;       // the reproducers' text; "" when not written
};

// The cumulative findings of one execution order: the 0-based positions of their first items.
struct Curve {
  std::string label;  // the order ("diversity", "random (seed 3)") and its folder
  uint64_t items = 0;
  std::vector<uint64_t> firsts;  // sorted
};

struct Report {
  std::string source;  // the folder or results file read
  std::string baseline;
  std::vector<std::string> backends;  // the baseline first, then as run
  uint64_t items = 0;
  std::map<std::string, std::map<std::string, uint64_t>> statuses;  // backend -> status -> sides
  std::vector<ReportFinding> findings;
  std::map<std::string, uint64_t> set_aside;                                              // triage rule -> differences
  std::map<std::string, std::map<std::string, Counts>> matrix;                            // op -> backend -> outcomes
  std::map<std::pair<std::string, std::string>, std::map<std::string, Counts>> by_dtype;  // (op, dtype)
  std::vector<Curve> curves;                                  // this order's first, then those compared with it
  std::map<std::string, std::vector<double>> latency_ratios;  // backend -> sorted ms / baseline ms
};

// The parameters of a results file's meta record: a hunt's ("hunt") or a run's ("params").
nlohmann::json parameters(const std::string& results);

// The order a results file's items ran in, from its meta record: "diversity", "random (seed 3)",
// "given" (a run without --order).
std::string order_of(const std::string& results);

// Reads a hunt's folder (results.jsonl, findings.jsonl, reproducers/) or a run's results file;
// `compared` are other hunts' folders (or results files) whose orders the curves overlay. Throws
// std::runtime_error naming the file it cannot read.
Report read_report(const std::string& source, const std::vector<std::string>& compared = {});

// One HTML page: inline CSS and SVG, no script, nothing fetched.
std::string html(const Report& r);
// The summary and the findings table (for CI comments).
std::string markdown(const Report& r);

}  // namespace opsfuzz::report
