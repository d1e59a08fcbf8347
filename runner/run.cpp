#include "runner/run.h"

#include <ATen/ATen.h>
#include <c10/util/Exception.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>

#include "argtypes/argtypes.h"
#include "argtypes/rng.h"
#include "argtypes/text.h"
#include "generators/generators.h"
#include "runner/op_facts.h"
#include "runner/results.h"
#include "runner/triage.h"
#include "suite/materialize.h"
#include "suite/model.h"
#include "suite/modules.h"
#include "suite/selection.h"

namespace opsfuzz::runner {

namespace {

// "ExceptionType: message" in one line, 200 characters at most, with Python's exception names
// as opdiff writes them.
std::string error_text(const std::exception& e) {
  // Python's exception names, as opdiff writes them.
  const char* type = "RuntimeError";
  const std::string message = opcall::message_of(e);
  if (dynamic_cast<const c10::Error*>(&e)) {
    if (dynamic_cast<const c10::IndexError*>(&e)) type = "IndexError";
    else if (dynamic_cast<const c10::ValueError*>(&e)) type = "ValueError";
    else if (dynamic_cast<const c10::TypeError*>(&e)) type = "TypeError";
    else if (dynamic_cast<const c10::NotImplementedError*>(&e)) type = "NotImplementedError";
  } else if (dynamic_cast<const std::invalid_argument*>(&e)) {
    type = "TypeError";  // opcall's binding and lookup errors: Python raises TypeError
  }
  std::string text = std::string(type) + ": " + message;
  std::replace(text.begin(), text.end(), '\n', ' ');
  if (text.size() > 200) text.resize(200);
  return text;
}

}  // namespace

Side side_from_test(const suite::Test& test, const std::string& yaml, uint64_t run_seed) {
  Side side;
  side.id = test.id, side.yaml = yaml, side.op = test.module ? test.module->path : test.op;
  if (auto why = suite::unavailable_device(test)) {
    side.error = *why, side.skipped = true;
    return side;
  }
  try {
    Call call;
    call.seed =
        test.backend_seed.value_or(suite::input_seed(run_seed, test.pair.empty() ? test.id : test.pair, "backend"));
    suite::Inputs inputs = suite::materialize_inputs(test, run_seed);
    if (test.module) {
      call.module = suite::materialize_module(test, run_seed);
      call.module_path = test.module->path;
      call.args = std::move(inputs.args);
      call.kwargs = std::move(inputs.kwargs);
    } else {
      opcall::Resolved r = opcall::resolve(test.op, inputs.args, inputs.kwargs);
      call.op = r.op;
      call.args = std::move(r.stack);
      side.op = r.op->name();
    }
    side.call = std::move(call);
    side.expected = test.expected;
    side.expected_seed = suite::input_seed(run_seed, test.id, "out");
  } catch (const suite::UnsupportedModule& e) {
    side.error = std::string("unsupported: ") + e.what(), side.skipped = true;
  } catch (const std::exception& e) { side.error = error_text(e); }
  return side;
}

uint64_t backend_seed(const Sample& sample) { return derive_seed(sample.seed, sample.index); }

Item item_from_sample(const Sample& sample, const std::string& config) {
  Item item;
  item.id = sample_id(sample);
  std::string dtype;  // the first tensor input's
  for (const c10::IValue& v : sample.args)
    if (v.isTensor()) {
      dtype = opsfuzz::name(v.toTensor().scalar_type());
      break;
    }
  item.origin =
      Origin{sample.op, sample.seed, sample.index, sample.valid, config, sample.violated, sample.deviations, dtype};
  Side side;
  side.id = item.id, side.op = sample.op;
  try {
    Call call;
    call.op = &opcall::find_op(sample.op);
    call.args = call.op->bind(sample.args, sample.kwargs);
    call.seed = backend_seed(sample);
    side.op = call.op->name();
    side.call = std::move(call);
  } catch (const std::exception& e) { side.error = error_text(e); }
  item.sides.push_back(std::move(side));
  if (item.sides[0].call) item.no_compare = not_value_comparable(*item.sides[0].call);
  return item;
}

std::vector<SuiteItem> suite_items(const suite::Suite& suite, const suite::IdFilter& filter) {
  std::vector<SuiteItem> items;
  std::set<std::string> pairs_done;
  for (const suite::Test& test : suite.tests) {
    if (!suite::selected(test, filter)) continue;
    if (const suite::PairTest* pair = suite.pair_of(test)) {
      if (pairs_done.insert(pair->id).second)
        items.push_back({pair->id, {&suite.tests[pair->a], &suite.tests[pair->b]}});
    } else {
      items.push_back({test.id, {&test}});
    }
  }
  return items;
}

std::vector<Item> items_from_suite(const suite::Suite& suite, const std::string& yaml, const suite::IdFilter& filter,
                                   uint64_t run_seed) {
  std::vector<Item> items;
  for (const SuiteItem& selected : suite_items(suite, filter)) {
    Item item;
    item.id = selected.id;
    for (const suite::Test* test : selected.sides) item.sides.push_back(side_from_test(*test, yaml, run_seed));
    for (const Side& side : item.sides)
      if (side.call && !item.no_compare) item.no_compare = not_value_comparable(*side.call);
    items.push_back(std::move(item));
  }
  return items;
}

// ------------------------------------------------------------------------------- running

namespace {

using Clock = std::chrono::steady_clock;

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

// One side on one backend: its result, and its outputs (one per repeat) when it ran.
SideResult run_side(Backend& backend, const Call& call, const RunOptions& options, std::vector<Output>& outputs) {
  SideResult r;
  if (auto why = backend.unavailable()) return {Status::Skipped, *why, {}, {}};
  std::unique_ptr<Model> model;
  try {
    model = backend.prepare(deep_copy(call));
  } catch (const Skip& e) { return {Status::Skipped, e.what(), {}, {}}; } catch (const std::exception& e) {
    return {Status::ExportFail, error_text(e), {}, {}};
  }
  for (int rep = 0; rep < std::max(options.repeats, 1); ++rep) {
    Call inputs = deep_copy(call);
    auto start = Clock::now();
    try {
      outputs.push_back(model->run(inputs));
    } catch (const Skip& e) {  // whether a backend applies may depend on the values (gradients)
      outputs.clear();
      return {Status::Skipped, e.what(), {}, {}};
    } catch (const std::exception& e) {
      outputs.clear();
      return {rep == 0 ? Status::InferFail : Status::TimingFail, error_text(e), {}, {}};
    }
    r.times.push_back(std::chrono::duration<double, std::milli>(Clock::now() - start).count());
  }
  r.ms = median(r.times);
  if (options.mode != 2) r.times.clear();
  return r;
}

// The runs of one item on one backend, with the outputs kept for comparisons.
struct Run {
  BackendResult result;
  std::vector<std::vector<Output>> outputs;  // per side, per repeat
};

// Whether a node stands for values (const, const_tensor, a scalar with its value, lists of
// them) rather than for a sampled tensor.
bool fixed_values(const suite::Node& n) {
  using T = suite::NodeType;
  switch (n.type) {
    case T::Const:
    case T::ConstTensor:
    case T::IntList: return true;
    case T::Scalar:
    case T::ScalarTensor: return n.has_value;
    case T::List:
    case T::Tuple:
    case T::Optional: return std::all_of(n.elems.begin(), n.elems.end(), fixed_values);
    default: return false;
  }
}

// An output against its test's `out`: values compared as outputs are (exact for integral and
// bool, within the dtype's tolerance for floats); for a sampled tensor node, dtype and shape.
std::optional<Diff> check_expected(const Side& side, const c10::IValue& output) {
  const suite::Node& expected = *side.expected;
  if (fixed_values(expected)) return compare(output, suite::materialize(expected, side.expected_seed));
  if (expected.type != suite::NodeType::Tensor) return std::nullopt;
  Diff d;
  std::string want = sizes_text(expected.shape) + " " + std::string(opsfuzz::name(expected.dtype));
  if (!output.isTensor()) {
    d.match = false, d.why = "output: " + opcall::describe(output) + " vs expected tensor " + want;
  } else if (const at::Tensor& t = output.toTensor();
             t.sizes() != at::IntArrayRef(expected.shape) || t.scalar_type() != expected.dtype) {
    d.match = false;
    d.why =
        "output: " + sizes_text(t.sizes()) + " " + std::string(opsfuzz::name(t.scalar_type())) + " vs expected " + want;
  }
  return d;
}

Run run_backend(const Item& item, Backend& backend, const RunOptions& options) {
  Run run;
  run.result.backend = backend.name();
  run.outputs.resize(item.sides.size());
  bool skipped = options.skips.count({item.id, backend.name()}) > 0;
  for (size_t s = 0; s < item.sides.size(); ++s) {
    const Side& side = item.sides[s];
    if (skipped) run.result.res.push_back({Status::Skipped, "skipped by --skips", {}, {}});
    else if (!side.call) run.result.res.push_back({side.skipped ? Status::Skipped : Status::Error, side.error, {}, {}});
    else run.result.res.push_back(run_side(backend, *side.call, options, run.outputs[s]));
    if (side.expected && !run.outputs[s].empty() && !run.outputs[s][0].reference) {
      run.result.expected.resize(item.sides.size());
      run.result.expected[s] = check_expected(side, run.outputs[s][0].value);
    }
    for (const Output& out : run.outputs[s])
      for (const auto& note : out.notes)
        if (std::find(run.result.notes.begin(), run.result.notes.end(), note) == run.result.notes.end())
          run.result.notes.push_back(note);
  }
  return run;
}

bool all_ok(const BackendResult& r) {
  return std::all_of(r.res.begin(), r.res.end(), [](const SideResult& s) { return s.status == Status::Ok; });
}

// Triage of a mismatch (runner/triage.h); a triage that fails leaves the mismatch standing, with
// why, and never the backend's result.
std::optional<Triage> triage_or_why(const Call& call, const Output& out, const c10::IValue& reference) {
  try {
    return triage(call, out, reference);
  } catch (const std::exception& e) { return Triage{"no_reference", "", "triage failed: " + error_text(e)}; }
}

// opdiff's diff_all for a run: side a against side b for a pair; otherwise against the backend's
// own reference, or the baseline's outputs. nullopt when there is nothing to compare.
void compare_run(const Item& item, Run& run, const Run* baseline, bool triage_mismatches) {
  if (!all_ok(run.result) || item.no_compare) return;
  auto defined = [&](size_t side, const c10::IValue& v) { return contract_outputs(*item.sides[side].call, v); };
  std::vector<Diff> diffs;
  const auto& outs = run.outputs;
  for (size_t rep = 0; rep < outs[0].size(); ++rep) {
    Output out = outs[0][rep];
    if (out.reference) {  // its own reference (gradients): not the op's outputs
      diffs.push_back(compare(out, c10::IValue()));
      continue;
    }
    out.value = defined(0, out.value);
    if (item.pair()) diffs.push_back(compare(out, defined(1, outs[1][rep].value)));
    else if (baseline && all_ok(baseline->result) && !baseline->outputs[0].empty()) {
      const c10::IValue reference =
          defined(0, baseline->outputs[0][std::min(rep, baseline->outputs[0].size() - 1)].value);
      diffs.push_back(compare(out, reference));
      if (triage_mismatches && !diffs.back().match)
        diffs.back().triage = triage_or_why(*item.sides[0].call, out, reference);
    } else {
      return;
    }
  }
  run.result.diff = std::move(diffs);
}

// The task plan: item i on backend b is task i * backends + b; the baseline (when asked) is
// backend 0, so it runs first and its outputs stay in the worker for the others.
class Plan {
 public:
  Plan(const std::vector<Item>& items, const RunOptions& options, const std::vector<ItemResult>& results)
      : items_(items), options_(options), results_(results) {
    if (!options.baseline.empty()) backends_.push_back(find_backend(options.baseline));
    for (const auto& name : options.backends) backends_.push_back(find_backend(name));
    if (backends_.empty()) throw std::invalid_argument("no backends to run");
  }
  size_t tasks() const { return items_.size() * backends_.size(); }
  size_t width() const { return backends_.size(); }
  bool has_baseline() const { return !options_.baseline.empty(); }

  BackendResult run_task(size_t task) {
    size_t i = task / width(), b = task % width();
    const Item& item = items_[i];
    Run run = run_backend(item, *backends_[b], options_);
    if (has_baseline() && b == 0) {
      baseline_item_ = i, baseline_ = std::move(run);
      return baseline_->result;
    }
    const Run* baseline = nullptr;
    if (has_baseline() && !item.pair()) {
      // A fresh worker runs the baseline again, unreported, if it ran well the first time (the
      // parent recorded that before forking this worker); never a baseline that crashed.
      if ((baseline_item_ != i || !baseline_) && results_[i].baseline && all_ok(*results_[i].baseline)) {
        baseline_ = run_backend(item, *backends_[0], options_);
        baseline_item_ = i;
      }
      if (baseline_item_ == i && baseline_) baseline = &*baseline_;
    }
    compare_run(item, run, baseline, options_.triage);
    return std::move(run.result);
  }

  // Whether the task's sample hits a deviation known to crash.
  bool may_crash(size_t task) const {
    const Item& item = items_[task / width()];
    return item.origin && runner::may_crash(item.origin->spec, item.origin->deviations);
  }

  // A task that gave no result: every side `status` with why.
  BackendResult failed_task(size_t task, Status status, const std::string& err) const {
    BackendResult r;
    r.backend = backends_[task % width()]->name();
    for (size_t s = 0; s < items_[task / width()].sides.size(); ++s) r.res.push_back({status, err, {}, {}});
    return r;
  }

 private:
  const std::vector<Item>& items_;
  const RunOptions& options_;
  const std::vector<ItemResult>& results_;  // what the parent has recorded so far
  std::vector<std::shared_ptr<Backend>> backends_;
  std::optional<Run> baseline_;
  size_t baseline_item_ = 0;
};

// opdiff's err for a worker that died: "CRASH: signal 11 (Segmentation fault) ..." or
// "TIMEOUT: timeout_s=S".
std::string ended_text(const opcall::TaskResult& r, double timeout_s) {
  if (r.kind == opcall::TaskResult::TimedOut) { return "TIMEOUT: timeout_s=" + opcall::format_seconds(timeout_s); }
  std::string how = r.bytes;
  if (how.starts_with("killed by ")) how = how.substr(10);  // "signal 11 (Segmentation fault)"
  return "CRASH: " + how;
}

// Runs the items in this process or in isolated workers; `add` sees each task's result as soon as
// it is final (in task order), with its JSON when it came from a worker.
void run_plan(Plan& plan, const RunOptions& options,
              const std::function<void(size_t, BackendResult, const std::string*)>& add) {
  if (!options.isolate) {
    for (size_t t = 0; t < plan.tasks(); ++t) add(t, plan.run_task(t), nullptr);
    return;
  }
  opcall::IsolationOptions iso;
  iso.timeout_s = options.timeout_s;
  iso.backtraces = options.backtraces;
  iso.crashes_by_itself = [&](size_t t) { return plan.may_crash(t); };
  opcall::run_tasks(
      plan.tasks(), [&](size_t t) { return to_json(plan.run_task(t)).dump(); }, iso,
      [&](size_t t, const opcall::TaskResult& r) {
        switch (r.kind) {
          case opcall::TaskResult::Done:
            add(t, backend_result_from_json(nlohmann::json::parse(r.bytes)), &r.bytes);
            break;
          case opcall::TaskResult::Threw:
            add(t, plan.failed_task(t, Status::Error, "RuntimeError: " + r.bytes), nullptr);
            break;
          default: add(t, plan.failed_task(t, Status::TimedError, ended_text(r, options.timeout_s)), nullptr);
        }
      });
}

// One process's share of the items: every item's result as they come.
std::vector<ItemResult> run_here(const std::vector<Item>& items, const RunOptions& options,
                                 const std::function<void(const ItemResult&)>& report,
                                 const std::function<void(size_t, size_t, const std::string&)>& task_json = {}) {
  std::vector<ItemResult> results(items.size());
  Plan plan(items, options, results);
  run_plan(plan, options, [&](size_t task, BackendResult r, const std::string* json) {
    size_t i = task / plan.width(), b = task % plan.width();
    bool noted = false;  // a known crash, noted here: the worker's JSON lacks it
    for (const SideResult& side : r.res)
      if (const Deviation* d = known_crash(items[i], side)) r.notes.emplace_back("known_crash", d->id), noted = true;
    if (task_json) task_json(i, b, json && !noted ? *json : to_json(r).dump());
    ItemResult& result = results[i];
    result.item = &items[i];
    if (plan.has_baseline() && b == 0) result.baseline = std::move(r);
    else result.backends.push_back(std::move(r));
    if (b + 1 == plan.width() && report) report(result);
  });
  return results;
}

// The items in batches over options.jobs processes. A batch's results come back as one message
// (each task's JSON as its worker wrote it), so batches stay small enough for the results to
// arrive steadily.
std::vector<ItemResult> run_in_jobs(const std::vector<Item>& items, const RunOptions& options,
                                    const std::function<void(const ItemResult&)>& report) {
  size_t batch = std::clamp<size_t>(items.size() / (options.jobs * 8), 1, 32);
  size_t batches = (items.size() + batch - 1) / batch;
  bool has_baseline = !options.baseline.empty();
  std::vector<ItemResult> results(items.size());
  opcall::run_jobs(
      batches, options.jobs,
      [&](size_t b) {
        std::vector<Item> mine(items.begin() + b * batch, items.begin() + std::min(items.size(), (b + 1) * batch));
        // Per item: [baseline or null, [backends...]], the tasks' JSON spliced in as text.
        std::vector<std::string> baselines(mine.size(), "null"), backends(mine.size());
        run_here(mine, options, {}, [&](size_t i, size_t backend, const std::string& json) {
          if (has_baseline && backend == 0) baselines[i] = json;
          else backends[i] += (backends[i].empty() ? "" : ",") + json;
        });
        std::string out = "[";
        for (size_t i = 0; i < mine.size(); ++i) out += (i ? ",[" : "[") + baselines[i] + ",[" + backends[i] + "]]";
        return out + "]";
      },
      [&](size_t b, const opcall::TaskResult& r) {
        nlohmann::json batch_results =
            r.kind == opcall::TaskResult::Done ? nlohmann::json::parse(r.bytes) : nlohmann::json(nullptr);
        for (size_t i = b * batch; i < std::min(items.size(), (b + 1) * batch); ++i) {
          ItemResult& result = results[i];
          result.item = &items[i];
          if (batch_results.is_null()) {  // the job itself died: the batch is lost, said per item
            BackendResult lost;
            lost.backend = "job";
            lost.res.push_back({Status::TimedError, "CRASH: the job running this batch " + r.bytes, {}, {}});
            result.backends.push_back(lost);
          } else {
            const nlohmann::json& j = batch_results.at(i - b * batch);
            if (!j[0].is_null()) result.baseline = backend_result_from_json(j[0]);
            for (const nlohmann::json& x : j[1]) result.backends.push_back(backend_result_from_json(x));
          }
          if (report) report(result);
        }
      });
  return results;
}

}  // namespace

std::vector<ItemResult> run_items(const std::vector<Item>& items, const RunOptions& options,
                                  const std::function<void(const ItemResult&)>& report) {
  if (options.jobs > 1 && items.size() > 1) return run_in_jobs(items, options, report);
  return run_here(items, options, report);
}

SideRun run_side_here(const Side& side, const std::string& backend) {
  if (!side.call) return {{side.skipped ? Status::Skipped : Status::Error, side.error, {}, {}}, {}};
  std::vector<Output> outputs;
  RunOptions options;
  SideResult result = run_side(*find_backend(backend), *side.call, options, outputs);
  return {std::move(result), outputs.empty() ? c10::IValue() : outputs.front().value};
}

const Deviation* known_crash(const Item& item, const SideResult& result) {
  if (!item.origin || result.status != Status::TimedError || item.origin->deviations.empty()) return nullptr;
  return runner::known_crash(item.origin->spec, item.origin->deviations, result.err);
}

opcall::CallOutcome call_outcome(const SideResult& r) {
  using K = opcall::CallOutcome::Kind;
  switch (r.status) {
    case Status::Ok: return {K::Accepted, r.err};
    case Status::Error:  // the side has no call: its op or its arguments did not resolve
      return {K::BindError, r.err};
    case Status::TimedError: return {r.err.starts_with("TIMEOUT:") ? K::TimedOut : K::Crashed, r.err};
    default: return {K::Rejected, r.err};
  }
}

std::vector<opcall::CallOutcome> run_samples(const std::vector<Sample>& samples, const RunOptions& options) {
  std::vector<Item> items;
  items.reserve(samples.size());
  for (const Sample& s : samples) items.push_back(item_from_sample(s, ""));
  RunOptions eager = options;
  eager.backends = {"eager_cpu"}, eager.baseline.clear(), eager.repeats = 1, eager.mode = 1;
  std::vector<opcall::CallOutcome> outcomes;
  outcomes.reserve(samples.size());
  for (const ItemResult& r : run_items(items, eager)) outcomes.push_back(call_outcome(r.backends.front().res.front()));
  return outcomes;
}

bool mismatched(const BackendResult& r) {
  auto wrong = [](const Diff& d) { return !d.match; };
  auto unexpected_output = [&](const std::optional<Diff>& d) { return d && wrong(*d); };
  return (r.diff && std::any_of(r.diff->begin(), r.diff->end(), wrong)) ||
         std::any_of(r.expected.begin(), r.expected.end(), unexpected_output);
}

}  // namespace opsfuzz::runner
