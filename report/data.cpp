// Reads a hunt's folder (or a run's results file) into a Report.
#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <stdexcept>

#include "report/report.h"
#include "runner/results.h"
#include "runner/run.h"

namespace opsfuzz::report {

namespace fs = std::filesystem;
using nlohmann::json;

const char* name(Outcome o) {
  switch (o) {
    case Outcome::Ok: return "ok";
    case Outcome::Explained: return "explained";
    case Outcome::Mismatch: return "mismatch";
    case Outcome::Exception: return "exception";
    case Outcome::Crash: return "crash";
    case Outcome::Skipped: return "skipped";
  }
  return "?";
}

uint64_t Counts::total() const {
  uint64_t t = 0;
  for (uint64_t v : n) t += v;
  return t;
}

json parameters(const std::string& results) {
  std::ifstream in(results);
  std::string line;
  if (!std::getline(in, line)) return json::object();
  json meta = json::parse(line, nullptr, false);
  if (meta.is_discarded() || meta.value("type", "") != "meta") return json::object();
  const json extra = meta.value("meta", json::object()).value("extra", json::object());
  if (extra.contains("hunt")) return extra["hunt"];
  return extra.value("params", json::object());
}

namespace {

struct Paths {
  fs::path results, findings, dir;  // findings and dir empty for a results file
};

Paths paths_of(const std::string& source) {
  const fs::path p(source);
  if (fs::is_directory(p)) return {p / "results.jsonl", p / "findings.jsonl", p};
  return {p, {}, {}};
}

std::string read_text(const fs::path& path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// "diversity", "random (seed 3)", "given"; a run without --order ran in the given order.
std::string order_label(const json& params) {
  const std::string order = params.value("order", "given");
  return order == "random" ? "random (seed " + std::to_string(params.value("order_seed", 0ull)) + ")" : order;
}

Outcome outcome_of(const hunt::Difference& d) {
  if (d.set_aside) return Outcome::Explained;
  switch (d.kind) {
    case hunt::Kind::Crash:
    case hunt::Kind::Timeout: return Outcome::Crash;
    case hunt::Kind::Exception:
    case hunt::Kind::Unsupported: return Outcome::Exception;
    case hunt::Kind::Mismatch: return Outcome::Mismatch;
  }
  return Outcome::Mismatch;
}

// Each backend's outcome on an item, the baseline's first.
std::vector<std::pair<std::string, Outcome>> outcomes(const runner::ItemResult& r) {
  const std::vector<hunt::Difference> diffs = hunt::differences(r);
  std::vector<std::pair<std::string, Outcome>> out;
  for (const runner::BackendResult* b : runner::all_results(r)) {
    Outcome o = std::all_of(b->res.begin(), b->res.end(),
                            [](const runner::SideResult& s) { return s.status == runner::Status::Skipped; })
                    ? Outcome::Skipped
                    : Outcome::Ok;
    for (const hunt::Difference& d : diffs)
      if (d.backend == b->backend) o = outcome_of(d);
    out.emplace_back(b->backend, o);
  }
  return out;
}

void add_latencies(const runner::ItemResult& r, Report& report) {
  if (!r.baseline || r.baseline->res.empty() || !r.baseline->res[0].ms || *r.baseline->res[0].ms <= 0) return;
  for (const runner::BackendResult& b : r.backends)
    if (!b.res.empty() && !b.res[0].times.empty() && b.res[0].ms)
      report.latency_ratios[b.backend].push_back(*b.res[0].ms / *r.baseline->res[0].ms);
}

// Replays a results file's items through the findings, as the hunt met them; `each` sees every
// item's result.
hunt::Findings replay(const fs::path& results, const json& params, uint64_t& items,
                      const std::function<void(const runner::ItemResult&)>& each = {}) {
  if (!fs::exists(results)) throw std::runtime_error("cannot read " + results.string());
  hunt::Findings findings(!params.value("triage", true));  // a --no-triage hunt's findings
  items = 0;
  runner::for_each_recorded_item(results.string(), [&](runner::RecordedItem&& item) {
    findings.add(item.result, items++);
    if (each) each(item.result);
  });
  return findings;
}

Curve curve_of(const std::string& source, const hunt::Findings& findings, uint64_t items, const json& params) {
  Curve c;
  c.label = order_label(params) + ": " + source;
  c.items = items;
  for (const hunt::Finding& f : findings.all()) c.firsts.push_back(f.first);
  std::sort(c.firsts.begin(), c.firsts.end());
  return c;
}

// What shrinking made, from the finding's findings.jsonl line (one without it has none yet).
void add_reproduction(const json& line, const fs::path& dir, ReportFinding& f) {
  if (!line.contains("reproducers")) return;
  f.reproduction = reproduction_from_json(line);
  if (!f.reproduction.yaml.empty()) f.yaml = read_text(dir / f.reproduction.yaml);
  if (!f.reproduction.py.empty()) f.py = read_text(dir / f.reproduction.py);
}

std::map<std::string, json> finding_lines(const fs::path& path) {
  std::map<std::string, json> out;
  if (path.empty()) return out;
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);) {
    json j = json::parse(line, nullptr, false);
    if (!j.is_object() || !j.contains("id") || !j["id"].is_string()) continue;
    const std::string id = j["id"].get<std::string>();
    out[id] = std::move(j);
  }
  return out;
}

}  // namespace

std::string order_of(const std::string& results) { return order_label(parameters(results)); }

Report read_report(const std::string& source, const std::vector<std::string>& compared) {
  const Paths paths = paths_of(source);
  Report report;
  report.source = source;
  const json params = parameters(paths.results.string());
  report.baseline = params.value("baseline", json("")).is_string() ? params.value("baseline", "") : "";
  const hunt::Findings findings = replay(paths.results, params, report.items, [&](const runner::ItemResult& r) {
    if (report.backends.empty())
      for (const runner::BackendResult* b : runner::all_results(r)) report.backends.push_back(b->backend);
    for (const runner::BackendResult* b : runner::all_results(r))
      for (const runner::SideResult& s : b->res) ++report.statuses[b->backend][runner::name(s.status)];
    const runner::Item& item = *r.item;
    const std::string op = item.origin ? item.origin->spec : item.sides.front().op;
    const std::string dtype = item.origin && !item.origin->dtype.empty() ? item.origin->dtype : "-";
    for (const auto& [backend, o] : outcomes(r)) {
      ++report.matrix[op][backend][o];
      ++report.by_dtype[{op, dtype}][backend][o];
    }
    add_latencies(r, report);
  });
  if (report.baseline.empty() && !report.backends.empty()) report.baseline = report.backends.front();
  const std::map<std::string, json> lines = finding_lines(paths.findings);
  for (const hunt::Finding& f : findings.all()) {
    ReportFinding& rf = report.findings.emplace_back();
    rf.finding = f;
    if (auto it = lines.find(f.id); it != lines.end()) add_reproduction(it->second, paths.dir, rf);
  }
  report.set_aside = findings.set_aside();
  for (auto& [backend, ratios] : report.latency_ratios) std::sort(ratios.begin(), ratios.end());
  report.curves.push_back(curve_of(source, findings, report.items, params));
  for (const std::string& other : compared) {
    const Paths p = paths_of(other);
    uint64_t items = 0;
    const json theirs_params = parameters(p.results.string());
    const hunt::Findings theirs = replay(p.results, theirs_params, items);
    report.curves.push_back(curve_of(other, theirs, items, theirs_params));
  }
  return report;
}

}  // namespace opsfuzz::report
