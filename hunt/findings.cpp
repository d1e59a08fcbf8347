#include "hunt/findings.h"

#include <nlohmann/json.hpp>

#include <regex>

#include "argtypes/text.h"
#include "runner/results.h"
#include "runner/run.h"
#include "specs/model/spec.h"

namespace opsfuzz::hunt {

const char* name(Kind kind) {
  switch (kind) {
    case Kind::Crash: return "crash";
    case Kind::Timeout: return "timeout";
    case Kind::Exception: return "exception";
    case Kind::Mismatch: return "mismatch";
    case Kind::Unsupported: return "unsupported";
  }
  return "?";
}

namespace {

using runner::BackendResult;
using runner::ItemResult;
using runner::Status;

// "RuntimeError" of "RuntimeError: expected ...": errors of different classes are different
// exceptions even where both sides fail.
std::string error_class(const std::string& err) { return err.substr(0, err.find(':')); }

// Whether both refusals are of different, specific classes. RuntimeError is what a runtime that
// wraps every kernel error reports (TorchScript's interpreter raises IndexError as RuntimeError,
// in Python too): against it, a specific class is the same refusal.
bool different_classes(const std::string& a, const std::string& b) {
  const std::string x = error_class(a), y = error_class(b);
  return x != y && x != "RuntimeError" && y != "RuntimeError";
}

// The category a mismatch's dtype falls in: mismatches of float32 and float64 may share a cause,
// those of float16 and bfloat16 another.
std::string dtype_category(const std::string& dtype) {
  if (dtype == "float16" || dtype == "bfloat16") return "half";
  if (dtype.starts_with("float")) return "floating";
  if (dtype.starts_with("complex")) return "complex";
  return dtype.empty() ? "" : "integral";
}

// How backend `r` departs from the baseline on side `s`, or nullopt.
std::optional<std::pair<Kind, std::string>> departure(const ItemResult& item, const BackendResult& r, size_t s) {
  const runner::SideResult& res = r.res.at(s);
  if (res.status == Status::TimedError)
    return std::pair{res.err.starts_with("TIMEOUT") ? Kind::Timeout : Kind::Crash, res.err};
  if (&r == &*item.baseline) return std::nullopt;  // the baseline departs only by dying
  const runner::SideResult& base = item.baseline->res.at(s);
  if (res.status == Status::Skipped || base.status == Status::Skipped || base.status == Status::TimedError)
    return std::nullopt;
  bool ok = res.status == Status::Ok, base_ok = base.status == Status::Ok;
  if (res.status == Status::ExportFail && base_ok) return std::pair{Kind::Unsupported, res.err};
  if (ok != base_ok) return std::pair{Kind::Exception, ok ? "accepted; the baseline refused: " + base.err : res.err};
  if (!ok && different_classes(res.err, base.err))
    return std::pair{Kind::Exception, res.err + "; the baseline: " + base.err};
  return std::nullopt;
}

}  // namespace

std::vector<Difference> differences(const ItemResult& result) {
  std::vector<Difference> out;
  if (!result.baseline) return out;
  const runner::Item& item = *result.item;
  auto difference = [&](const BackendResult& r, Kind kind, std::string message) {
    Difference d;
    d.op = item.origin ? item.origin->spec : item.sides.front().op;
    d.backend = r.backend, d.baseline = result.baseline->backend, d.kind = kind, d.message = std::move(message);
    if (item.origin) {
      d.dtype = item.origin->dtype;
      d.config = item.origin->config.empty() ? "default" : item.origin->config;
      if (!item.origin->deviations.empty()) d.known = item.origin->deviations.front();
    }
    return d;
  };
  for (const BackendResult* r : runner::all_results(result)) {
    std::optional<Difference> found;
    for (size_t s = 0; s < r->res.size() && !found; ++s)
      if (auto dep = departure(result, *r, s)) {
        found = difference(*r, dep->first, dep->second);
        if (const Deviation* known = runner::known_crash(item, r->res[s])) found->known = known->id;
      }
    if (!found && r->diff)
      for (const runner::Diff& diff : *r->diff)
        if (!diff.match) {
          found = difference(*r, Kind::Mismatch, diff.why.empty() ? diff.code + ": " + diff.msg : diff.why);
          found->output_dtype = diff.dtype;
          if (diff.triage) {
            found->verdict = diff.triage->verdict, found->blame = diff.triage->blame;
            found->set_aside = diff.triage->set_aside();
          }
          break;
        }
    if (found) out.push_back(std::move(*found));
  }
  return out;
}

std::string normalized(const std::string& message) {
  static const std::regex address(R"(0x[0-9a-fA-F]+)");
  static const std::regex brackets(R"(\[[^\]\[]*\])");
  static const std::regex dtypes(
      R"(\b(Byte|Char|Short|Int|Long|Half|Float|Double|BFloat16|Bool|ComplexFloat|ComplexDouble|uint8|int8|int16|int32|int64|float16|bfloat16|float32|float64|bool|complex64|complex128)\b)");
  static const std::regex numbers(R"([-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?|[-+]?\b(inf|nan)\b)");
  std::string s = std::regex_replace(message, address, "0x?");
  s = std::regex_replace(s, brackets, "[...]");
  s = std::regex_replace(s, dtypes, "DTYPE");
  return std::regex_replace(s, numbers, "N");
}

// What a crash says of its cause: its signal, and for glibc's abort on a damaged heap that the
// heap was damaged. Which of glibc's checks meets the damage first ("free(): invalid size",
// "malloc_consolidate(): invalid chunk size", ...) depends on the heap's layout, not on the cause,
// and so does how the isolation found the task to blame (the note in parentheses at the end).
std::string crash_cause(const std::string& message) {
  static const std::regex blame_note(R"( \((found |run again alone|the worker died|a task known)[^()]*\)$)");
  static const std::regex heap_abort(
      R"(^(CRASH: signal 6 \(Aborted\)): .*(free\(\)|malloc|corrupted|chunk|munmap|double free|tcache).*$)");
  return std::regex_replace(std::regex_replace(message, blame_note, ""), heap_abort, "$1: heap damage found by glibc");
}

std::string message_key(const Difference& d) {
  // An unsupported call's cause is the backend's: the op and the argument it names are instances.
  static const std::regex op_name(R"(\b[a-z_]+::[A-Za-z0-9_]+(\.[A-Za-z0-9_]+)?)");  // "aten::add.Scalar"
  static const std::regex argument_name(R"(argument '[^']*')");
  std::string message = d.message;
  if (d.kind == Kind::Unsupported)
    message = std::regex_replace(std::regex_replace(message, op_name, "OP"), argument_name, "argument 'ARG'");
  if (d.kind == Kind::Crash) message = crash_cause(message);
  std::string key = normalized(message);
  if (d.kind == Kind::Mismatch) key += " | " + d.verdict + " | " + dtype_category(d.output_dtype);
  return key;
}

// The op a finding's key names: none for an unsupported call, whose cause is the backend's.
std::string key_op(const Difference& d) { return d.kind == Kind::Unsupported ? "" : d.op; }

bool occurs_in(const Difference& d, const Finding& f) {
  return (d.kind == Kind::Unsupported || d.op == f.op) && d.backend == f.backend && d.kind == f.kind &&
         message_key(d) == f.key;
}

const Finding* Findings::add(const Difference& d, const std::string& item_id, uint64_t position) {
  if (d.set_aside) {
    ++set_aside_[d.verdict];
    if (!keep_set_aside_) return nullptr;
  }
  std::string message_key = hunt::message_key(d);
  std::string key = key_op(d) + " | " + d.backend + " | " + name(d.kind) + " | " + message_key;
  auto [it, fresh] = by_key_.try_emplace(key, nullptr);
  if (fresh) {
    Finding& f = findings_.emplace_back();
    std::string prefix = identifier(d.op) + "-" + d.backend + "-" + name(d.kind);
    f.id = prefix + "-" + std::to_string(++per_prefix_[prefix]);
    f.op = d.op, f.backend = d.backend, f.baseline = d.baseline, f.kind = d.kind;
    f.verdict = d.verdict, f.blame = d.blame;
    f.message = d.message, f.key = message_key, f.first = position, f.known = d.known;
    it->second = &f;
  }
  Finding& f = *it->second;
  ++f.count;
  if (f.samples.size() < Finding::kMaxSamples) f.samples.push_back(item_id);
  if (!d.config.empty()) f.configs.insert(d.config);
  if (!d.dtype.empty()) f.dtypes.insert(d.dtype);
  f.ops.insert(d.op);
  return fresh ? &f : nullptr;
}

std::vector<const Finding*> Findings::add(const ItemResult& result, uint64_t position) {
  std::vector<const Finding*> opened;
  for (const Difference& d : differences(result))
    if (const Finding* f = add(d, result.item->id, position)) opened.push_back(f);
  return opened;
}

nlohmann::json to_json(const Finding& f) {
  using nlohmann::json;
  return {{"id", f.id},
          {"op", f.op},
          {"backend", f.backend},
          {"baseline", f.baseline},
          {"kind", name(f.kind)},
          {"blame", f.blame.empty() ? json(nullptr) : json(f.blame)},
          {"triage", f.verdict.empty() ? json(nullptr) : json(f.verdict)},
          {"message", f.message},
          {"key", f.key},
          {"count", f.count},
          {"first", f.first},
          {"samples", f.samples},
          {"configs", f.configs},
          {"ops", f.ops},
          {"dtypes", f.dtypes},
          {"known", f.known ? json(*f.known) : json(nullptr)}};
}

}  // namespace opsfuzz::hunt
