#include "tools/sweep.h"

#include <nlohmann/json.hpp>

#include <chrono>
#include <fstream>
#include <map>

#include "argtypes/text.h"
#include "engine/config.h"
#include "generators/generators.h"
#include "runner/op_facts.h"
#include "runner/run.h"

namespace opsfuzz {

using opcall::CallOutcome;

namespace {

bool crashed(const CallOutcome& o) { return o.kind == CallOutcome::Crashed || o.kind == CallOutcome::TimedOut; }

// Whether sample `i`'s crash is a known crash of the linked libtorch. A crash that does not
// come back when the sample runs alone was caused by heap damage from another sample of the same
// worker; which one, re-running cannot always tell (the damage shows only with some allocations
// after it): the samples since the previous crash, and those up to the isolation window after
// it, are searched for a known one.
bool crash_is_known(const Spec& spec, const std::vector<Sample>& samples, const std::vector<CallOutcome>& outcomes,
                    size_t i, const SweepOptions& options, std::string& message) {
  if (runner::known_crash(spec.op(), samples[i].deviations, outcomes[i].message)) return true;
  CallOutcome alone = run_sweep_samples({samples[i]}, options).front();
  if (crashed(alone)) return false;
  size_t first = i;
  while (first > 0 && !crashed(outcomes[first - 1])) --first;
  size_t last = std::min(samples.size(), i + 1 + opcall::IsolationOptions{}.window);
  for (size_t j = first; j < last; ++j)
    if (const Deviation* k = runner::known_crash(spec.op(), samples[j].deviations, outcomes[i].message)) {
      message += "; alone it is " + std::string(name(alone.kind)) + ": blamed on #" + std::to_string(samples[j].index) +
                 " (" + k->id + ")";
      return true;
    }
  message += "; alone it is " + std::string(name(alone.kind)) + ": one of #" + std::to_string(samples[first].index) +
             "..#" + std::to_string(samples[last - 1].index) +
             " (the samples its worker ran) may have corrupted the heap";
  return false;
}

}  // namespace

bool OpSweep::passed() const {
  if (!error.empty() || expected != judged) return false;
  return std::none_of(events.begin(), events.end(), [](const SweepEvent& e) { return e.kind == SweepEvent::NewCrash; });
}

std::string sample_command(const std::string& op, uint64_t index, const SweepOptions& options) {
  std::string c =
      "ops-fuzz sweep " + op + " --seed " + std::to_string(options.seed) + " --index " + std::to_string(index);
  if (options.invalid) c += " --invalid";
  if (!options.config.empty()) c += " --config " + shell_quote(options.config);
  return c;
}

std::vector<CallOutcome> run_sweep_samples(const std::vector<Sample>& samples, const SweepOptions& options) {
  runner::RunOptions run;
  run.timeout_s = options.timeout_s, run.backtraces = options.backtraces;
  return runner::run_samples(samples, run);
}

std::vector<Sample> sweep_samples(const Spec& spec, const SweepOptions& options) {
  int64_t count = options.index >= 0 ? options.index + 1 : options.max;
  std::vector<Sample> samples =
      generate_samples(spec, Config::parse(options.config), options.seed,
                       options.invalid ? Validity::Invalid : Validity::Valid, static_cast<size_t>(count));
  if (options.index >= 0)
    samples.erase(samples.begin(), samples.begin() + std::min<int64_t>(options.index, samples.size()));
  return samples;
}

OpSweep sweep_op(const Spec& spec, const SweepOptions& options) {
  OpSweep r;
  r.op = spec.op();
  auto start = std::chrono::steady_clock::now();
  try {
    std::vector<Sample> samples = sweep_samples(spec, options);
    auto outcomes = run_sweep_samples(samples, options);
    for (size_t i = 0; i < samples.size(); ++i) {
      const Sample& x = samples[i];
      const CallOutcome& o = outcomes[i];
      ++r.samples;
      uint64_t* counts[] = {&r.accepted, &r.rejected, &r.bind_errors, &r.crashed, &r.timed_out};
      ++*counts[o.kind];
      // A valid sample is expected to be accepted, an invalid one refused; a binding error never.
      bool expected = o.kind != CallOutcome::BindError && (o.kind == CallOutcome::Accepted) == x.valid;
      // A sample in a deviation (contract configuration) on which the kernel departs from the
      // contract is a finding, not a failure.
      bool finding = !x.deviations.empty() && o.kind != CallOutcome::BindError;
      std::string message = o.message;
      SweepEvent::Kind kind = finding ? SweepEvent::Finding : SweepEvent::Unexpected;
      if (crashed(o))
        kind = crash_is_known(spec, samples, outcomes, i, options, message) ? SweepEvent::KnownCrash
                                                                            : SweepEvent::NewCrash;
      r.deviation += finding;
      if (!finding && kind != SweepEvent::KnownCrash) ++r.judged, r.expected += expected;  // findings are not judged
      if (expected && !crashed(o)) continue;
      std::string where = !x.deviations.empty() ? x.deviations.front() : x.valid ? "valid" : x.violated;
      r.events.push_back(SweepEvent{kind, x.index, where, std::string(name(o.kind)), message,
                                    sample_command(spec.op(), x.index, options)});
    }
  } catch (const std::exception& e) { r.error = e.what(); }
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return r;
}

// ------------------------------------------------------------------------------------- jobs

std::vector<OpSweep> sweep(const std::vector<const Spec*>& specs, const SweepOptions& options,
                           const std::function<void(size_t, const OpSweep&)>& done) {
  std::vector<OpSweep> results(specs.size());
  auto finish = [&](size_t i, OpSweep r) {
    results[i] = std::move(r);
    if (done) done(i, results[i]);
  };
  if (options.jobs <= 1 || specs.size() <= 1) {
    for (size_t i = 0; i < specs.size(); ++i) finish(i, sweep_op(*specs[i], options));
    return results;
  }
  opcall::run_jobs(
      specs.size(), options.jobs, [&](size_t i) { return to_json(sweep_op(*specs[i], options)).dump(); },
      [&](size_t i, const opcall::TaskResult& r) {
        if (r.kind == opcall::TaskResult::Done) return finish(i, op_sweep_from_json(nlohmann::json::parse(r.bytes)));
        OpSweep lost;
        lost.op = specs[i]->op();
        lost.error = "its sweep job " + std::string(r.kind == opcall::TaskResult::Threw ? "threw: " : "") + r.bytes;
        finish(i, std::move(lost));
      });
  return results;
}

// ------------------------------------------------------------------------------------- JSON

namespace {
const char* kEventKinds[] = {"unexpected", "finding", "known crash", "new crash"};
}

nlohmann::json to_json(const OpSweep& r) {
  nlohmann::json events = nlohmann::json::array();
  for (const auto& e : r.events)
    events.push_back({{"kind", kEventKinds[e.kind]},
                      {"index", e.index},
                      {"where", e.where},
                      {"outcome", e.outcome},
                      {"message", e.message},
                      {"command", e.command}});
  nlohmann::json j = {{"op", r.op},
                      {"samples", r.samples},
                      {"accepted", r.accepted},
                      {"rejected", r.rejected},
                      {"bind_errors", r.bind_errors},
                      {"crashed", r.crashed},
                      {"timed_out", r.timed_out},
                      {"deviation", r.deviation},
                      {"judged", r.judged},
                      {"expected", r.expected},
                      {"passed", r.passed()},
                      {"seconds", r.seconds},
                      {"events", events}};
  if (!r.error.empty()) j["error"] = r.error;
  return j;
}

OpSweep op_sweep_from_json(const nlohmann::json& j) {
  OpSweep r;
  r.op = j.at("op");
  r.samples = j.at("samples"), r.accepted = j.at("accepted"), r.rejected = j.at("rejected");
  r.bind_errors = j.at("bind_errors"), r.crashed = j.at("crashed"), r.timed_out = j.at("timed_out");
  r.deviation = j.at("deviation"), r.judged = j.at("judged"), r.expected = j.at("expected");
  r.seconds = j.at("seconds");
  r.error = j.value("error", "");
  for (const auto& e : j.at("events")) {
    SweepEvent ev;
    std::string kind = e.at("kind");
    for (int k = 0; k < 4; ++k)
      if (kind == kEventKinds[k]) ev.kind = static_cast<SweepEvent::Kind>(k);
    ev.index = e.at("index"), ev.where = e.at("where"), ev.outcome = e.at("outcome");
    ev.message = e.at("message"), ev.command = e.at("command");
    r.events.push_back(std::move(ev));
  }
  return r;
}

nlohmann::json sweep_report(const SweepOptions& options, const std::vector<OpSweep>& results) {
  nlohmann::json report = {{"seed", options.seed},
                           {"invalid", options.invalid},
                           {"config", options.config},
                           {"max", options.max},
                           {"ops", nlohmann::json::array()}};
  for (const auto& r : results) report["ops"].push_back(to_json(r));
  return report;
}

void write_sweep_report(const std::string& path, const nlohmann::json& report) {
  std::ofstream file(path);
  if (!(file << report.dump(2) << "\n")) throw std::runtime_error("cannot write " + path);
}

}  // namespace opsfuzz
