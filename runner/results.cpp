#include "runner/results.h"

#include <torch/version.h>

#include <nlohmann/json.hpp>

#include <chrono>
#include <cmath>
#include <ctime>
#include <fstream>
#include <iomanip>
#include <sstream>

namespace opsfuzz::runner {

using nlohmann::json;

json json_number(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  return v;
}

json to_json(const Diff& diff) {
  json j;
  j["ok"] = diff.comparable;
  if (diff.comparable) {
    j["mse"] = json_number(diff.mse);
    j["max_abs"] = json_number(diff.max_abs);
    j["mean_abs"] = json_number(diff.mean_abs);
  } else {
    j["code"] = diff.code;
    j["msg"] = diff.msg.empty() ? json() : json(diff.msg);
  }
  j["verdict"] = diff.match ? "match" : "mismatch";
  j["ulp"] = json_number(diff.ulp);
  j["chebyshev"] = json_number(diff.chebyshev);
  if (!diff.match) j["why"] = diff.why;
  if (!diff.dtype.empty()) j["dtype"] = diff.dtype;
  if (diff.triage)
    j["triage"] = {{"verdict", diff.triage->verdict}, {"blame", diff.triage->blame}, {"why", diff.triage->why}};
  return j;
}

namespace {

json or_null(const std::string& s) { return s.empty() ? json(nullptr) : json(s); }
json or_null(const std::optional<double>& v) { return v ? json(*v) : json(nullptr); }
std::string text_or_empty(const json& j) { return j.is_string() ? j.get<std::string>() : ""; }

// The oracle writes non-finite distances as strings ("inf", "nan") or null.
double number(const json& j) {
  if (j.is_number()) return j.get<double>();
  if (j.is_string()) return std::strtod(j.get<std::string>().c_str(), nullptr);
  return std::nan("");
}

json side_json(const SideResult& s) {
  return {{"status", name(s.status)}, {"err", or_null(s.err)}, {"ms", or_null(s.ms)}};
}

}  // namespace

json to_json(const BackendResult& r) {
  json res = json::array(), times = json::array();
  bool timed = false;
  for (const SideResult& s : r.res) {
    res.push_back(side_json(s));
    times.push_back(s.times);
    timed = timed || !s.times.empty();
  }
  json diff = nullptr;
  if (r.diff) {
    diff = json::array();
    for (const Diff& d : *r.diff) diff.push_back(to_json(d));
  }
  json j = {{"backend", r.backend}, {"res", res}, {"times_all", timed ? times : json(nullptr)}, {"diff_all", diff}};
  if (!r.expected.empty()) {
    json expected = json::array();
    for (const auto& d : r.expected) expected.push_back(d ? to_json(*d) : json(nullptr));
    j["expected"] = expected;
  }
  if (!r.notes.empty()) {
    json notes = json::object();
    for (const auto& [key, value] : r.notes) notes[key] = value;
    j["notes"] = notes;
  }
  return j;
}

Diff diff_from_json(const json& j) {
  Diff d;
  d.comparable = j.at("ok").get<bool>();
  d.code = text_or_empty(j.value("code", json()));
  d.msg = text_or_empty(j.value("msg", json()));
  d.mse = number(j.value("mse", json(0)));
  d.max_abs = number(j.value("max_abs", json(0)));
  d.mean_abs = number(j.value("mean_abs", json(0)));
  d.ulp = number(j.value("ulp", json(0)));
  d.chebyshev = number(j.value("chebyshev", json(0)));
  d.match = j.value("verdict", std::string("match")) == "match";
  d.why = text_or_empty(j.value("why", json()));
  d.dtype = j.value("dtype", std::string());
  if (j.contains("triage")) {
    const json& t = j["triage"];
    d.triage =
        Triage{t.at("verdict").get<std::string>(), t.at("blame").get<std::string>(), t.at("why").get<std::string>()};
  }
  return d;
}

BackendResult backend_result_from_json(const json& j) {
  BackendResult r;
  r.backend = j.at("backend").get<std::string>();
  const json& times = j.at("times_all");
  for (size_t s = 0; s < j.at("res").size(); ++s) {
    const json& side = j["res"][s];
    SideResult sr;
    sr.status = parse_status(side.at("status").get<std::string>()).value_or(Status::Error);
    sr.err = text_or_empty(side.at("err"));
    if (side.at("ms").is_number()) sr.ms = side["ms"].get<double>();
    if (times.is_array()) sr.times = times.at(s).get<std::vector<double>>();
    r.res.push_back(std::move(sr));
  }
  if (j.at("diff_all").is_array()) {
    r.diff.emplace();
    for (const json& d : j["diff_all"]) r.diff->push_back(diff_from_json(d));
  }
  if (j.contains("expected"))
    for (const json& d : j["expected"])
      r.expected.push_back(d.is_null() ? std::nullopt : std::optional<Diff>(diff_from_json(d)));
  if (j.contains("notes"))
    for (const auto& [key, value] : j["notes"].items()) r.notes.emplace_back(key, value.get<std::string>());
  return r;
}

RecordedItem item_from_record(const json& record) {
  RecordedItem out{std::make_unique<Item>(), {}};
  Item& item = *out.item;
  item.id = record.at("id").get<std::string>();
  for (const json& c : record.at("cases")) {
    Side side;
    side.id = c.at("id").get<std::string>(), side.op = c.at("op").get<std::string>();
    side.yaml = text_or_empty(c.value("yaml", json()));
    item.sides.push_back(std::move(side));
  }
  if (record.contains("origin")) {
    const json& o = record["origin"];
    item.origin = Origin{o.at("spec"),
                         o.at("seed"),
                         o.at("index"),
                         o.at("valid"),
                         o.at("config"),
                         text_or_empty(o.at("violated")),
                         o.value("deviations", std::vector<std::string>()),
                         o.value("dtype", std::string())};
  }
  if (record.contains("not_compared")) item.no_compare = record["not_compared"].get<std::string>();
  out.result.item = &item;
  if (const json& b = record.at("baseline"); b.is_object()) {
    BackendResult base;
    base.backend = b.at("backend").get<std::string>();
    SideResult side;
    side.status = parse_status(b.at("status").get<std::string>()).value_or(Status::Error);
    side.err = text_or_empty(b.at("err"));
    if (b.contains("ms") && b["ms"].is_number()) side.ms = b["ms"].get<double>();
    base.res.assign(item.sides.size(), side);
    out.result.baseline = std::move(base);
  }
  for (const json& b : record.at("backends")) out.result.backends.push_back(backend_result_from_json(b));
  return out;
}

json item_record(const ItemResult& r) {
  const Item& item = *r.item;
  json cases = json::array();
  for (const Side& s : item.sides) cases.push_back({{"yaml", or_null(s.yaml)}, {"id", s.id}, {"op", s.op}});
  json baseline = nullptr;
  if (r.baseline) {
    // opdiff's baseline entry has one status: the worst side's.
    const SideResult* worst = &r.baseline->res.front();
    for (const SideResult& s : r.baseline->res)
      if (s.status > worst->status) worst = &s;
    baseline = {{"backend", r.baseline->backend},
                {"status", name(worst->status)},
                {"err", or_null(worst->err)},
                {"ms", or_null(r.baseline->res.front().ms)}};
  }
  json backends = json::array();
  for (const BackendResult& b : r.backends) backends.push_back(to_json(b));
  json record = {{"type", "item"}, {"id", item.id},        {"test_type", item.pair() ? "pair" : "single"},
                 {"cases", cases}, {"baseline", baseline}, {"backends", backends}};
  if (item.origin) {
    const Origin& o = *item.origin;
    record["origin"] = {{"spec", o.spec},   {"seed", o.seed},     {"index", o.index},
                        {"valid", o.valid}, {"config", o.config}, {"violated", or_null(o.violated)}};
    if (!o.deviations.empty()) record["origin"]["deviations"] = o.deviations;
    if (!o.dtype.empty()) record["origin"]["dtype"] = o.dtype;
  }
  if (item.no_compare) record["not_compared"] = *item.no_compare;
  return record;
}

namespace {

std::string now_iso() {
  auto now = std::chrono::system_clock::now();
  std::time_t t = std::chrono::system_clock::to_time_t(now);
  auto micros = std::chrono::duration_cast<std::chrono::microseconds>(now.time_since_epoch()).count() % 1000000;
  std::tm tm{};
  ::gmtime_r(&t, &tm);
  std::ostringstream s;
  s << std::put_time(&tm, "%Y-%m-%dT%H:%M:%S") << '.' << std::setw(6) << std::setfill('0') << micros << "+00:00";
  return s.str();
}

std::string cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  for (std::string line; std::getline(in, line);)
    if (line.starts_with("model name")) return line.substr(line.find(':') + 2);
  return "";
}

}  // namespace

json meta_record(const json& extra) {
  json env = {{"python", nullptr}, {"torch", TORCH_VERSION},  {"libtorch", TORCH_VERSION},
              {"opsfuzz", "0.1"},  {"compiler", __VERSION__}, {"cpu", or_null(cpu_model())}};
  return {{"type", "meta"},
          {"meta",
           {{"format_name", "opdiff_run"},
            {"format_version", 1},
            {"created_at", now_iso()},
            {"env", env},
            {"extra", extra}}}};
}

JsonlWriter::JsonlWriter(const std::string& path, bool append) {
  bool cut = false;
  if (append) {
    std::ifstream in(path, std::ios::binary | std::ios::ate);
    if (in && in.tellg() > 0) {
      in.seekg(-1, std::ios::end);
      cut = in.get() != '\n';
    }
  }
  file_ = std::fopen(path.c_str(), append ? "ab" : "wb");
  if (!file_) throw std::runtime_error(path + ": cannot open for writing");
  if (cut) std::fputc('\n', file_);
}

JsonlWriter::~JsonlWriter() {
  if (file_) std::fclose(file_);
}

void JsonlWriter::write(const json& record) {
  std::string line = record.dump() + "\n";
  std::fwrite(line.data(), 1, line.size(), file_);
  std::fflush(file_);
}

namespace {

// Calls fn(record, line number) on each item record of a results file.
void for_each_numbered_record(const std::string& path, const std::function<void(const json&, size_t)>& fn) {
  std::ifstream in(path);
  size_t n = 0;
  for (std::string line; std::getline(in, line);) {
    ++n;
    json j = json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (j.is_object() && j.contains("type") && j["type"] == "item" && j.contains("id") && j["id"].is_string()) fn(j, n);
  }
}

}  // namespace

void for_each_item_record(const std::string& path, const std::function<void(const json&)>& fn) {
  for_each_numbered_record(path, [&](const json& j, size_t) { fn(j); });
}

void for_each_recorded_item(const std::string& path, const std::function<void(RecordedItem&&)>& fn) {
  for_each_numbered_record(path, [&](const json& j, size_t line) {
    RecordedItem item;
    try {
      item = item_from_record(j);
    } catch (const json::exception& e) {
      throw std::runtime_error(path + ":" + std::to_string(line) + ": an item record that does not read: " + e.what());
    }
    fn(std::move(item));
  });
}

std::set<std::string> completed_items(const std::string& path) {
  std::set<std::string> ids;
  for_each_item_record(path, [&](const json& j) { ids.insert(j["id"].get<std::string>()); });
  return ids;
}

bool unexpected(const ItemResult& item, const BackendResult& r, size_t side) {
  Status status = r.res.at(side).status;
  if (status == Status::TimedError) return !known_crash(*item.item, r.res[side]);
  if (status == Status::Skipped) return false;
  bool ok = status == Status::Ok;
  if (item.baseline && &r != &*item.baseline) {
    Status base = item.baseline->res.at(side).status;
    return base != Status::Skipped && base != Status::TimedError && ok != (base == Status::Ok);
  }
  bool valid = !item.item->origin || item.item->origin->valid;
  return ok != valid;
}

namespace {

std::string xml_escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default:
        if (static_cast<unsigned char>(c) >= 0x20 || c == '\n' || c == '\t') out += c;
    }
  }
  return out;
}

}  // namespace

std::vector<const BackendResult*> all_results(const ItemResult& r) {
  std::vector<const BackendResult*> all;
  if (r.baseline) all.push_back(&*r.baseline);
  for (const BackendResult& b : r.backends) all.push_back(&b);
  return all;
}

std::string failure_reason(const ItemResult& item, const BackendResult& r) {
  if (r.diff)
    for (const Diff& d : *r.diff)
      if (!d.match) return "mismatch: " + d.why;
  for (const auto& d : r.expected)
    if (d && !d->match) return "not the expected output: " + d->why;
  for (size_t s = 0; s < r.res.size(); ++s)
    if (unexpected(item, r, s))
      return std::string(name(r.res[s].status)) + (r.res[s].err.empty() ? "" : ": " + r.res[s].err);
  return "";
}

void write_junit(const std::string& path, const std::vector<ItemResult>& results) {
  size_t tests = 0, failures = 0, skipped = 0;
  std::ostringstream cases;
  for (const ItemResult& item : results)
    for (const BackendResult* r : all_results(item)) {
      ++tests;
      double seconds = 0;
      for (const SideResult& s : r->res) seconds += s.ms.value_or(0) / 1000;
      cases << "  <testcase classname=\"" << xml_escape(r->backend) << "\" name=\"" << xml_escape(item.item->id)
            << "\" time=\"" << seconds << "\">";
      std::string why = failure_reason(item, *r);
      bool skip =
          std::all_of(r->res.begin(), r->res.end(), [](const SideResult& s) { return s.status == Status::Skipped; });
      if (!why.empty()) {
        ++failures;
        cases << "<failure message=\"" << xml_escape(why) << "\"/>";
      } else if (skip) {
        ++skipped;
        cases << "<skipped message=\"" << xml_escape(r->res.front().err) << "\"/>";
      }
      cases << "</testcase>\n";
    }
  std::ofstream out(path);
  if (!out) throw std::runtime_error(path + ": cannot open for writing");
  out << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuite name=\"opsfuzz\" tests=\"" << tests << "\" failures=\""
      << failures << "\" skipped=\"" << skipped << "\">\n"
      << cases.str() << "</testsuite>\n";
}

std::vector<std::pair<std::string, Tally>> tally(const std::vector<ItemResult>& results) {
  std::vector<std::pair<std::string, Tally>> tallies;
  auto slot = [&](const std::string& backend) -> Tally& {
    for (auto& [name, t] : tallies)
      if (name == backend) return t;
    return tallies.emplace_back(backend, Tally{}).second;
  };
  for (const ItemResult& item : results)
    for (const BackendResult* r : all_results(item)) {
      Tally& t = slot(r->backend);
      bool all_ok = true;
      for (size_t s = 0; s < r->res.size(); ++s) {
        ++t.statuses[name(r->res[s].status)];
        all_ok = all_ok && r->res[s].status == Status::Ok;
        t.unexpected += unexpected(item, *r, s);
        t.known_crashes += known_crash(*item.item, r->res[s]) != nullptr;
      }
      if (mismatched(*r)) ++t.mismatch;
      else if (r->diff) ++t.match;
      else if (all_ok && (!item.baseline || r != &*item.baseline)) ++t.not_compared;
    }
  return tallies;
}

void print_summary(const std::vector<std::pair<std::string, Tally>>& tallies, std::ostream& out) {
  const char* statuses[] = {"OK", "SKIPPED", "EXPORT_FAIL", "INFER_FAIL", "TIMING_FAIL", "TIMED_ERROR", "ERROR"};
  out << std::left << std::setw(30) << "backend";
  for (const char* s : statuses) out << std::right << std::setw(12) << s;
  for (const char* s : {"match", "mismatch", "uncompared", "unexpected"}) out << std::setw(12) << s;
  out << "\n";
  for (const auto& [backend, t] : tallies) {
    out << std::left << std::setw(30) << backend;
    for (const char* s : statuses) {
      auto it = t.statuses.find(s);
      out << std::right << std::setw(12) << (it == t.statuses.end() ? 0 : it->second);
    }
    for (size_t n : {t.match, t.mismatch, t.not_compared, t.unexpected}) out << std::setw(12) << n;
    out << "\n";
  }
  // Known crashes are counted among the TIMED_ERRORs but not as unexpected: said, so that no
  // crash vanishes from the summary.
  for (const auto& [backend, t] : tallies)
    if (t.known_crashes)
      out << backend << ": " << t.known_crashes << " of its TIMED_ERRORs are known crashes (deviations of kind crash; "
          << "the records' notes name them)\n";
}

}  // namespace opsfuzz::runner
