#include "tools/reproducers.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <set>

#include "argtypes/text.h"
#include "engine/config.h"
#include "generators/classify.h"
#include "generators/generators.h"
#include "hunt/findings.h"
#include "runner/results.h"
#include "runner/values.h"
#include "specs/db/db.h"
#include "suite/ids.h"
#include "suite/suite.h"
#include "tools/python_reproducer.h"
#include "tools/sample_yaml.h"
#include "tools/sweep.h"

namespace opsfuzz {

using nlohmann::json;

namespace {

int64_t elements(const Sample& s) {
  int64_t n = 0;
  auto count = [&](const c10::IValue& v) {
    runner::map_tensors(v, [&](const at::Tensor& t) {
      n += t.numel();
      return t;
    });
  };
  for (const c10::IValue& v : s.args) count(v);
  for (const auto& [name, v] : s.kwargs) count(v);
  return n;
}

// The samples ordered by their input elements, smallest first (ties in their order).
void smallest_first(std::vector<Sample>& samples) {
  std::stable_sort(samples.begin(), samples.end(),
                   [](const Sample& a, const Sample& b) { return elements(a) < elements(b); });
}

// Whether the finding occurs in a result: a difference with its key.
bool occurs(const hunt::Finding& f, const runner::ItemResult& result) {
  for (const hunt::Difference& d : hunt::differences(result))
    if (hunt::occurs_in(d, f)) return true;
  return false;
}

// The first of `items` (in order) on which the finding occurs. The items run in chunks of 4, 8,
// 16, ... (a worker each) so that the search stops soon after the first occurrence: a TorchScript
// backend compiles each candidate anew, while a worker's start costs as much as a few eager calls.
std::optional<size_t> first_occurrence(const hunt::Finding& f, const std::vector<runner::Item>& items,
                                       const runner::RunOptions& options) {
  for (size_t from = 0, chunk = 4; from < items.size(); from += chunk, chunk *= 2) {
    const size_t to = std::min(items.size(), from + chunk);
    std::vector<runner::Item> part(items.begin() + static_cast<std::ptrdiff_t>(from),
                                   items.begin() + static_cast<std::ptrdiff_t>(to));
    std::vector<runner::ItemResult> results = runner::run_items(part, options);
    for (size_t i = 0; i < results.size(); ++i)
      if (occurs(f, results[i])) return from + i;
  }
  return std::nullopt;
}

// Candidates of the same spec, seed, configuration and validity under smaller limits, smallest
// first; only those smaller than `than` (and, invalid, violating the same rule).
std::vector<Sample> smaller_samples(const Spec& spec, const runner::Origin& origin, int64_t size, int64_t than) {
  Config cfg = Config::parse(origin.config);
  cfg.limits.max_size = size, cfg.limits.max_rank = size;
  cfg.limits.max_int_list = std::max<int64_t>(size, 2), cfg.limits.max_tensor_list = size;
  constexpr size_t kCandidates = 16;
  std::vector<Sample> out;
  try {
    for (Sample& s :
         generate_samples(spec, cfg, origin.seed, origin.valid ? Validity::Valid : Validity::Invalid, kCandidates))
      if (elements(s) < than && (origin.valid || s.violated == origin.violated)) out.push_back(std::move(s));
  } catch (const std::exception&) {}  // no sample fits these limits: the next rung is larger
  smallest_first(out);
  return out;
}

// The sample with every tensor t mapped to fn(t) (inside lists too).
Sample with_tensors(const Sample& s, const std::function<at::Tensor(const at::Tensor&)>& fn) {
  Sample out = s;
  for (c10::IValue& v : out.args) v = runner::map_tensors(v, fn);
  for (auto& [name, v] : out.kwargs) v = runner::map_tensors(v, fn);
  return out;
}

// Candidates one cut smaller, keeping the values: for each dim size (counted from the right, as
// broadcasting aligns dims) every tensor that has it narrowed to its first or its second half.
// Only those the spec classifies as the sample was (valid, or breaking the same rule).
std::vector<Sample> narrowed(const Spec& spec, const Sample& s) {
  std::set<std::pair<int64_t, int64_t>> cuts;  // (dim from the right, size)
  with_tensors(s, [&](const at::Tensor& t) {
    for (int64_t d = 0; d < t.dim(); ++d)
      if (t.size(d) > 1) cuts.emplace(t.dim() - d, t.size(d));
    return t;
  });
  std::vector<Sample> out;
  for (const auto& cut : cuts)
    for (bool second : {false, true}) {
      const int64_t from_right = cut.first, size = cut.second;  // not bound: clang 14's lambdas capture no binding
      const int64_t length = second ? size / 2 : (size + 1) / 2, start = second ? size - length : 0;
      Sample c = with_tensors(s, [&](const at::Tensor& t) {
        const int64_t d = t.dim() - from_right;
        if (d < 0 || t.size(d) != size) return t;
        return t.narrow(d, start, length).clone(at::MemoryFormat::Preserve);
      });
      try {
        Classification k = classify(spec, in_spec_order(spec, c));
        const bool same =
            s.valid ? k.valid() : std::find(k.broken.begin(), k.broken.end(), s.violated) != k.broken.end();
        if (same) out.push_back(std::move(c));
      } catch (const std::exception&) {}  // inputs the spec cannot read: not a candidate
    }
  smallest_first(out);
  return out;
}

std::vector<runner::Item> items_of(const std::vector<Sample>& samples, const std::string& config) {
  std::vector<runner::Item> items;
  for (const Sample& s : samples) items.push_back(runner::item_from_sample(s, config));
  return items;
}

void write_file(const std::filesystem::path& path, const std::string& text) {
  std::ofstream f(path);
  f << text;
  if (!f) throw std::runtime_error("cannot write " + path.string());
}

std::string yaml_reproducer(const Spec& spec, const Sample& s, const hunt::Finding& f, const runner::Origin& origin,
                            const std::string& file, int64_t before) {
  std::string header = "# Reproduces finding " + f.id + " of `ops-fuzz hunt`: " + f.backend + " departs from " +
                       f.baseline + " on " + f.op + " (" + hunt::name(f.kind) + ").\n";
  for (const std::string& line : split(f.message, '\n')) header += "#   " + line + "\n";
  header += "# Run: ops-fuzz run " + file + " --backends '" + f.backend + "' --baseline " + f.baseline + "\n";
  if (elements(s) < before)
    header += "# Shrunk from " + std::to_string(before) + " to " + std::to_string(elements(s)) +
              " input elements: the command below regenerates the first sample, not this one; the values "
              "here are exact.\n";
  return header + "tests:\n" +
         to_yaml_test(spec, s, YamlOrigin{origin.seed, origin.config, !origin.valid, runner::backend_seed(s)});
}

// Whether running the YAML file's test gives the finding's key again. A crash from damaged memory,
// or from a read past a buffer, need not happen on every run: a crash's test runs up to 3 times.
bool yaml_reproduces(const std::string& path, const hunt::Finding& f, const runner::RunOptions& options) {
  suite::LoadResult loaded = suite::read_suite(path);
  if (loaded.diagnostics.has_errors()) return false;
  std::vector<runner::Item> items = runner::items_from_suite(loaded.suite, path, suite::IdFilter(""), 0);
  for (runner::Item& item : items) item.origin.reset();  // a suite's test, as `run` sees it
  const int runs = f.kind == hunt::Kind::Crash ? 3 : 1;
  for (int run = 0; run < runs; ++run)
    for (const runner::ItemResult& r : runner::run_items(items, options))
      for (hunt::Difference d : hunt::differences(r)) {
        d.op = f.op;  // a suite's test has no origin: its differences name its op as the suite does
        if (hunt::occurs_in(d, f)) return true;
      }
  return false;
}

}  // namespace

Reproduction reproduce(const hunt::Finding& f, const runner::Origin& origin, const runner::RunOptions& run,
                       const std::string& dir) {
  const auto start = std::chrono::steady_clock::now();
  Reproduction r;
  const Spec* spec = find_spec(origin.spec);
  if (!spec) return r.why_not = "the op " + origin.spec + " has no spec", r;
  runner::RunOptions options = run;
  options.backends = {f.backend};
  options.skips.clear();
  options.jobs = 1;  // candidates run one chunk at a time (first_occurrence), in one worker each

  SweepOptions sampling;
  sampling.invalid = !origin.valid, sampling.seed = origin.seed, sampling.config = origin.config;
  sampling.index = static_cast<int64_t>(origin.index);
  std::vector<Sample> first = sweep_samples(*spec, sampling);
  if (first.empty()) return r.why_not = "the first sample no longer generates", r;
  Sample best = first.front();
  r.elements_before = elements(best);
  for (int64_t size : {1, 2, 3, 4}) {
    std::vector<Sample> candidates = smaller_samples(*spec, origin, size, elements(best));
    if (candidates.empty()) continue;
    if (auto found = first_occurrence(f, items_of(candidates, origin.config), options)) {
      best = candidates[*found];
      break;
    }
  }
  // Then halve dims of the sample itself while the finding occurs (values kept, so a value that
  // matters stays), at most kRounds times.
  constexpr int kRounds = 24;
  for (int round = 0; round < kRounds; ++round) {
    std::vector<Sample> candidates = narrowed(*spec, best);
    if (candidates.empty()) break;
    auto found = first_occurrence(f, items_of(candidates, origin.config), options);
    if (!found) break;
    best = candidates[*found];
  }
  r.elements_after = elements(best);

  const std::filesystem::path folder = std::filesystem::path(dir) / "reproducers";
  std::filesystem::create_directories(folder);
  r.yaml = "reproducers/" + f.id + ".yaml";
  const std::string yaml_path = (std::filesystem::path(dir) / r.yaml).string();
  write_file(yaml_path, yaml_reproducer(*spec, best, f, origin, r.yaml, r.elements_before));
  r.yaml_reproduces = yaml_reproduces(yaml_path, f, options);

  runner::Item item = runner::item_from_sample(best, origin.config);
  if (item.sides[0].call) {
    PythonFinding pf{f.id, f.backend, f.baseline, hunt::name(f.kind), f.message};
    if (auto script = python_reproducer(*item.sides[0].call, pf, r.why_not)) {
      r.py = "reproducers/" + f.id + ".py";
      write_file(std::filesystem::path(dir) / r.py, *script);
    }
  } else {
    r.why_not = "the sample's arguments do not bind: " + item.sides[0].error;
  }
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return r;
}

}  // namespace opsfuzz
