// calibrate: a spec measured against the linked CPU kernel. Samples come from the sweep's own
// generation (sweep_samples) and run as the sweep runs them (run_sweep_samples: eager_cpu in
// forked workers, backtraces and kernel warnings off), so calibrate and sweep see the same outcomes.
#include "tools/calibrate.h"

#include <ATen/ATen.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <fstream>
#include <map>
#include <regex>

#include "argtypes/text.h"
#include "engine/config.h"
#include "generators/generators.h"
#include "opcall/opcall.h"
#include "tools/commands.h"
#include "tools/sweep.h"

namespace opsfuzz {

using opcall::CallOutcome;

namespace {

SweepOptions sweep_options(const CalibrateOptions& options, bool invalid) {
  SweepOptions o;
  o.invalid = invalid, o.seed = options.seed, o.max = options.max, o.config = options.config;
  o.timeout_s = options.timeout_s;
  return o;
}

std::string first_line(const std::string& message) {
  size_t begin = message.find_first_not_of(" \n");
  if (begin == std::string::npos) return "";
  return message.substr(begin, message.find('\n', begin) - begin);
}

std::string shorten(const std::string& text, size_t n = 100) {
  return text.size() <= n ? text : text.substr(0, n - 3) + "...";
}

// ------------------------------------------------------------------------- dtype probes

// The value of spec argument `arg` in a sample: positional arguments and keywords keep the
// spec's order (ArgumentTupleGenerator).
c10::IValue& slot(Sample& s, const Spec& spec, size_t arg) {
  const ArgSpec& a = spec.args()[arg];
  if (a.keyword) {
    for (auto& [name, value] : s.kwargs)
      if (name == a.name) return value;
    throw std::logic_error("calibrate: " + spec.op() + ": no keyword '" + a.name + "' in a sample");
  }
  size_t position = 0;
  for (size_t i = 0; i < arg; ++i) position += !spec.args()[i].keyword;
  return s.args.at(position);
}

// The same tensor values in dtype `t`: a tensor, or every entry of a tensor list.
c10::IValue cast(const c10::IValue& v, c10::ScalarType t) {
  if (v.isTensor()) return v.toTensor().to(t);
  if (v.isTensorList()) {
    c10::List<at::Tensor> out;
    for (const at::Tensor& x : v.toTensorList()) out.push_back(x.to(t));
    return out;
  }
  if (v.isList()) {  // Tensor?[]
    c10::List<c10::optional<at::Tensor>> out;
    for (const c10::IValue& e : v.toListRef())
      out.push_back(e.isNone() ? c10::optional<at::Tensor>() : c10::optional<at::Tensor>(e.toTensor().to(t)));
    return out;
  }
  return v;
}

bool present(const MetaArg& m) {
  return !m.none && std::any_of(m.tensors.begin(), m.tensors.end(), [](const TensorMeta& t) { return !t.none; });
}

// The one dtype of an argument's tensors (a list's entries all of one), or nullopt.
std::optional<c10::ScalarType> one_dtype(const MetaArg& m) {
  std::optional<c10::ScalarType> out;
  for (const TensorMeta& t : m.tensors) {
    if (t.none) continue;
    if (out && *out != t.dtype) return std::nullopt;
    out = t.dtype;
  }
  return out;
}

// The tensor arguments whose dtype equals that of argument `a` in every valid sample that has
// both (and at least one does).
std::vector<size_t> tied_to(const Spec& spec, const std::vector<Sample>& valid, size_t a) {
  std::vector<size_t> out;
  for (size_t b = 0; b < spec.args().size(); ++b) {
    if (b == a || !has_tensors(spec.args()[b].type)) continue;
    size_t together = 0, equal = 0;
    for (const Sample& s : valid) {
      const MetaArg &ma = s.metas.at(a), &mb = s.metas.at(b);
      if (!present(ma) || !present(mb)) continue;
      ++together;
      const std::optional<c10::ScalarType> dtype = one_dtype(ma);
      equal += dtype && dtype == one_dtype(mb);
    }
    if (together > 0 && equal == together) out.push_back(b);
  }
  return out;
}

// How small a base sample is for argument `m`, smaller first: a base with elements and a dim
// says more about the kernel's dtype checks than an empty or 0-dim one, which some kernels
// take without dispatching on the dtype (or promote as a wrapped number).
std::tuple<bool, bool, int64_t> smallness(const MetaArg& m) {
  int64_t numel = 0;
  bool has_dims = false;
  for (const TensorMeta& t : m.tensors) {
    if (t.none) continue;
    int64_t n = 1;
    for (int64_t d : t.shape) n *= d;
    numel += n, has_dims |= !t.shape.empty();
  }
  return {numel == 0, !has_dims, numel};
}

// Up to `n` accepted valid samples in which argument `arg` is present, smallest first.
std::vector<size_t> pick_bases(const std::vector<Sample>& samples, const std::vector<CallOutcome>& outcomes, size_t arg,
                               int64_t n) {
  std::vector<size_t> candidates;
  for (size_t i = 0; i < samples.size(); ++i)
    if (outcomes[i].kind == CallOutcome::Accepted && present(samples[i].metas.at(arg))) candidates.push_back(i);
  std::stable_sort(candidates.begin(), candidates.end(), [&](size_t a, size_t b) {
    return smallness(samples[a].metas[arg]) < smallness(samples[b].metas[arg]);
  });
  if (static_cast<int64_t>(candidates.size()) > n) candidates.resize(static_cast<size_t>(n));
  return candidates;
}

void record(DtypeProbe& p, const CallOutcome& o) {
  switch (o.kind) {
    case CallOutcome::Accepted: ++p.accepted; return;
    case CallOutcome::Rejected: ++p.refused; break;
    case CallOutcome::BindError: ++p.bind_errors; break;
    case CallOutcome::Crashed:
    case CallOutcome::TimedOut: ++p.crashed; break;
  }
  if (p.message.empty()) p.message = first_line(o.message);
}

// The dtypes of a valid sample's argument `m`, as the spec generated them.
void mark_generated(const MetaArg& m, ArgCalibration& arg) {
  if (m.none) return;
  for (const TensorMeta& t : m.tensors)
    if (!t.none)
      for (auto& p : arg.dtypes) p.generated |= p.dtype == t.dtype;
}

// Each tensor argument cast to each dtype on its bases, with the arguments tied to it, every call
// in an isolated worker.
std::vector<ArgCalibration> probe_dtypes(const Spec& spec, const std::vector<Sample>& valid,
                                         const std::vector<CallOutcome>& outcomes, const CalibrateOptions& options) {
  TensorConfig allowed = Config::parse(options.config).tensor;
  std::vector<ArgCalibration> args;
  std::vector<Sample> probes;
  std::vector<std::pair<size_t, size_t>> where;  // per probe: (entry of args, entry of dtypes)
  for (size_t a = 0; a < spec.args().size(); ++a) {
    if (!has_tensors(spec.args()[a].type)) continue;
    ArgCalibration arg{spec.args()[a].name, {}, {}, {}};
    std::vector<size_t> cast_together = tied_to(spec, valid, a);
    for (size_t b : cast_together) arg.tied.push_back(spec.args()[b].name);
    cast_together.push_back(a);
    for (c10::ScalarType t : real_and_complex_dtypes()) {  // every dtype a tensor may have
      DtypeProbe& p = arg.dtypes.emplace_back();
      p.dtype = t, p.allowed = allowed.allows(t);
    }
    for (const Sample& s : valid) mark_generated(s.metas.at(a), arg);
    for (size_t b : pick_bases(valid, outcomes, a, options.bases)) {
      arg.bases.push_back(valid[b].index);
      for (size_t d = 0; d < arg.dtypes.size(); ++d) {
        Sample probe = valid[b];
        for (size_t moved : cast_together)
          slot(probe, spec, moved) = cast(slot(probe, spec, moved), arg.dtypes[d].dtype);
        probes.push_back(std::move(probe));
        where.emplace_back(args.size(), d);
      }
    }
    args.push_back(std::move(arg));
  }
  auto results = run_sweep_samples(probes, sweep_options(options, false));
  for (size_t i = 0; i < results.size(); ++i) record(args[where[i].first].dtypes[where[i].second], results[i]);
  return args;
}

// ------------------------------------------------------------------------- sample groups

// Groups in the order of their size, largest first; among equals, the first seen first.
std::vector<SampleGroup> sorted(std::map<std::string, SampleGroup> groups) {
  std::vector<SampleGroup> out;
  for (auto& [key, g] : groups) out.push_back(std::move(g));
  std::stable_sort(out.begin(), out.end(), [](const SampleGroup& a, const SampleGroup& b) {
    return a.count != b.count ? a.count > b.count : a.index < b.index;
  });
  return out;
}

void add(std::map<std::string, SampleGroup>& groups, const std::string& key, const Sample& s, const CallOutcome& o,
         const std::string& command) {
  SampleGroup& g = groups[key];
  if (g.count++ == 0) g.key = key, g.example = first_line(o.message), g.index = s.index, g.command = command;
}

// Valid samples the kernel refuses (or crashes on), by normalized message.
void judge_valid(const Spec& spec, const std::vector<Sample>& samples, const std::vector<CallOutcome>& outcomes,
                 const SweepOptions& options, Calibration& c, std::map<std::string, SampleGroup>& bind_errors) {
  std::map<std::string, SampleGroup> refused;
  for (size_t i = 0; i < samples.size(); ++i) {
    const CallOutcome& o = outcomes[i];
    if (o.kind == CallOutcome::Accepted) continue;
    std::string command = sample_command(spec.op(), samples[i].index, options);
    std::string key = std::string(name(o.kind)) + ": " + normalize_message(o.message);
    add(o.kind == CallOutcome::BindError ? bind_errors : refused, key, samples[i], o, command);
    c.valid_unbound += o.kind == CallOutcome::BindError;
  }
  c.valid = samples.size();
  c.valid_refused = sorted(std::move(refused));
}

// Invalid samples the kernel accepts, by the constraint they break, out of every sample that
// breaks it.
void judge_invalid(const Spec& spec, const std::vector<Sample>& samples, const std::vector<CallOutcome>& outcomes,
                   const SweepOptions& options, Calibration& c, std::map<std::string, SampleGroup>& bind_errors) {
  std::map<std::string, SampleGroup> accepted;
  std::map<std::string, uint64_t> totals;
  for (size_t i = 0; i < samples.size(); ++i) {
    const Sample& s = samples[i];
    const CallOutcome& o = outcomes[i];
    std::string command = sample_command(spec.op(), s.index, options);
    if (o.kind == CallOutcome::BindError) {
      add(bind_errors, "bind error: " + normalize_message(o.message), s, o, command);
      ++c.invalid_unbound;
      continue;
    }
    ++totals[s.violated];
    c.invalid_refused += o.kind == CallOutcome::Rejected;
    c.invalid_crashed += o.kind == CallOutcome::Crashed || o.kind == CallOutcome::TimedOut;
    if (o.kind == CallOutcome::Accepted) add(accepted, s.violated, s, o, command);
  }
  for (auto& [label, g] : accepted) g.total = totals[label];
  c.invalid = samples.size();
  c.invalid_accepted = sorted(std::move(accepted));
}

}  // namespace

std::vector<c10::ScalarType> ArgCalibration::suggested() const {
  std::vector<c10::ScalarType> out;
  for (const auto& p : dtypes)
    if (p.accepted > 0) out.push_back(p.dtype);
  return out;
}

std::vector<c10::ScalarType> ArgCalibration::mixed() const {
  std::vector<c10::ScalarType> out;
  for (const auto& p : dtypes)
    if (p.sometimes_accepted()) out.push_back(p.dtype);
  return out;
}

std::string normalize_message(const std::string& message) {
  static const std::regex brackets(R"(\[[^\[\]]*\])");
  static const std::regex numbers(R"((^|[^A-Za-z0-9_])-?[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?)");
  std::string s = first_line(message), before;
  while (before != s) before = s, s = std::regex_replace(s, brackets, "[...]");  // nested ones too
  return shorten(std::regex_replace(s, numbers, "$1N"), 200);
}

Calibration calibrate(const Spec& spec, const CalibrateOptions& options) {
  Calibration c;
  c.op = spec.op(), c.options = options;
  try {
    SweepOptions valid_options = sweep_options(options, false), invalid_options = sweep_options(options, true);
    std::vector<Sample> valid = sweep_samples(spec, valid_options);
    std::vector<CallOutcome> valid_outcomes = run_sweep_samples(valid, valid_options);
    std::vector<Sample> invalid = sweep_samples(spec, invalid_options);
    std::vector<CallOutcome> invalid_outcomes = run_sweep_samples(invalid, invalid_options);
    std::map<std::string, SampleGroup> bind_errors;
    judge_valid(spec, valid, valid_outcomes, valid_options, c, bind_errors);
    judge_invalid(spec, invalid, invalid_outcomes, invalid_options, c, bind_errors);
    c.bind_errors = sorted(std::move(bind_errors));
    c.args = probe_dtypes(spec, valid, valid_outcomes, options);
  } catch (const std::exception& e) { c.error = e.what(); }
  return c;
}

// ------------------------------------------------------------------------- report

namespace {

std::string dtype_set(const std::vector<c10::ScalarType>& dtypes) {
  std::string s;
  for (c10::ScalarType t : dtypes) s += (s.empty() ? "" : ", ") + std::string(name(t));
  return "{" + s + "}";
}

std::string verdict(const DtypeProbe& p) {
  if (p.tried() == 0) return "not tried";
  if (p.always_accepted()) return "accepted";
  if (p.bind_errors) return "bind error: " + shorten(p.message, 110);
  std::string what;
  if (p.crashed == p.tried()) {
    std::string signal = p.message.starts_with("CRASH: signal ") ? p.message.substr(14) : p.message;
    return "crashed (" + signal + ")";
  }
  if (p.accepted) what = "mixed: " + std::to_string(p.accepted) + " of " + std::to_string(p.tried()) + " accepted; ";
  return what + "refused: " + shorten(p.message, 110);
}

// How the spec and the kernel disagree about one dtype ("" when they agree).
std::string disagreement(const DtypeProbe& p) {
  if (!p.allowed && p.accepted == 0) return "";
  if (!p.allowed) return is_half(p.dtype) ? "(not generated without --config half)" : "(off under this --config)";
  if (p.always_accepted() && !p.generated) return "<- kernel accepts but spec never generates";
  if (p.accepted > 0 && !p.generated) return "<- kernel accepts (with some bases) but spec never generates";
  if (p.never_accepted() && p.generated) return "<- spec generates but kernel refuses";
  if (p.generated && p.accepted < p.tried()) return "<- generated, but refused with some bases";
  return "";
}

void print_arg(const ArgCalibration& a, std::ostream& out) {
  out << "  " << a.arg;
  if (a.bases.empty()) {
    out << ": no accepted valid sample has it: not probed\n";
    return;
  }
  out << " (cast on sample";
  for (size_t i = 0; i < a.bases.size(); ++i) out << (i ? ", #" : (a.bases.size() > 1 ? "s #" : " #")) << a.bases[i];
  if (!a.tied.empty()) out << "; with " << join(a.tied) << ", of its dtype in every valid sample";
  out << ")\n";
  std::vector<c10::ScalarType> generated;
  for (const auto& p : a.dtypes) {
    out << "    " << std::left;
    out.width(10);
    out << name(p.dtype) << " " << (p.generated ? "gen " : "    ") << verdict(p);
    if (auto d = disagreement(p); !d.empty()) out << "  " << d;
    out << "\n";
    if (p.generated) generated.push_back(p.dtype);
  }
  auto suggested = a.suggested();
  out << "    spec generates: " << dtype_set(generated) << "\n    suggested:      " << dtype_set(suggested)
      << (suggested == generated ? "  (the same)" : "") << "\n";
  if (auto mixed = a.mixed(); !mixed.empty())
    out << "    only with some bases (a rule on the other arguments?): " << dtype_set(mixed) << "\n";
}

void print_groups(const std::vector<SampleGroup>& groups, bool totals, std::ostream& out) {
  for (const auto& g : groups) {
    out << "  " << g.key << ": " << g.count;
    if (totals) out << " of " << g.total << " accepted";
    out << "\n    e.g. #" << g.index;
    if (!g.example.empty() && !totals) out << ": " << shorten(g.example, 160);
    out << "\n    repro: " << g.command << "\n";
  }
}

}  // namespace

void print(const Calibration& c, std::ostream& out) {
  out << "calibrate " << c.op << " (seed " << c.options.seed << ", --max " << c.options.max << ", config "
      << (c.options.config.empty() ? "default" : "'" + c.options.config + "'") << ")\n";
  if (!c.error.empty()) {
    out << "  not calibrated: " << c.error << "\n";
    return;
  }
  out << "\ndtypes per tensor argument (\"gen\": the spec's valid samples have it):\n";
  if (c.args.empty()) out << "  no tensor argument\n";
  for (const auto& a : c.args) print_arg(a, out);
  uint64_t refused = 0;
  for (const auto& g : c.valid_refused) refused += g.count;
  auto unbound = [](uint64_t n) { return n ? " (" + std::to_string(n) + " did not bind)" : std::string(); };
  out << "\nvalid samples the kernel refuses: " << refused << " of " << c.valid << unbound(c.valid_unbound) << "\n";
  print_groups(c.valid_refused, false, out);
  uint64_t accepted = 0;
  for (const auto& g : c.invalid_accepted) accepted += g.count;
  out << "\ninvalid samples the kernel accepts: " << accepted << " of " << c.invalid << " (" << c.invalid_refused
      << " refused, " << c.invalid_crashed << " crashed"
      << (c.invalid_unbound ? ", " + std::to_string(c.invalid_unbound) + " did not bind" : "") << ")\n";
  print_groups(c.invalid_accepted, true, out);
  out << "\nbinding errors (samples that do not fit the schema: a bug of ours, not a kernel refusal): "
      << c.valid_unbound + c.invalid_unbound << "\n";
  print_groups(c.bind_errors, false, out);
}

nlohmann::json to_json(const Calibration& c) {
  auto groups = [](const std::vector<SampleGroup>& gs) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& g : gs)
      out.push_back({{"key", g.key},
                     {"example", g.example},
                     {"count", g.count},
                     {"total", g.total},
                     {"index", g.index},
                     {"command", g.command}});
    return out;
  };
  nlohmann::json args = nlohmann::json::array();
  for (const auto& a : c.args) {
    nlohmann::json dtypes = nlohmann::json::object(), suggested = nlohmann::json::array();
    for (const auto& p : a.dtypes)
      dtypes[std::string(name(p.dtype))] = {
          {"accepted", p.accepted}, {"refused", p.refused},     {"crashed", p.crashed}, {"bind_errors", p.bind_errors},
          {"message", p.message},   {"generated", p.generated}, {"allowed", p.allowed}};
    for (c10::ScalarType t : a.suggested()) suggested.push_back(std::string(name(t)));
    args.push_back(
        {{"arg", a.arg}, {"tied", a.tied}, {"bases", a.bases}, {"dtypes", dtypes}, {"suggested", suggested}});
  }
  nlohmann::json j = {{"op", c.op},
                      {"args", args},
                      {"valid", c.valid},
                      {"valid_refused", groups(c.valid_refused)},
                      {"invalid", c.invalid},
                      {"invalid_accepted", groups(c.invalid_accepted)},
                      {"invalid_refused", c.invalid_refused},
                      {"invalid_crashed", c.invalid_crashed},
                      {"valid_unbound", c.valid_unbound},
                      {"invalid_unbound", c.invalid_unbound},
                      {"bind_errors", groups(c.bind_errors)}};
  if (!c.error.empty()) j["error"] = c.error;
  return j;
}

int run_calibrate(const CalibrateCommand& o, std::ostream& out, std::ostream& err) {
  const Spec& spec = *select_specs(OpSelection{{o.op}, {}}).front();  // an unknown op: a usage error
  Calibration c = calibrate(spec, o.options);
  print(c, out);
  if (!o.json.empty()) {
    std::ofstream file(o.json);
    if (!(file << to_json(c).dump(2) << "\n")) throw std::runtime_error("cannot write " + o.json);
  }
  if (!c.error.empty()) err << "calibrate: " << c.op << ": " << c.error << "\n";
  return c.error.empty() ? 0 : 1;
}

}  // namespace opsfuzz
