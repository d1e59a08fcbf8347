// The SpecDB sweep: each op's samples generated and run on the CPU kernels (each sample in an
// isolated worker), ops spread over job processes, one result per op.
#pragma once

#include <nlohmann/json_fwd.hpp>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "specs/model/spec.h"

namespace opsfuzz {

struct Sample;  // generators/generators.h
namespace opcall {
struct CallOutcome;  // opcall/opcall.h
}

struct SweepOptions {
  bool invalid = false;
  uint64_t seed = 0;
  int64_t max = 200;        // samples per op
  int64_t index = -1;       // >= 0: only the sample with this index
  std::string config;       // as given to --config
  unsigned jobs = 1;        // processes sweeping ops side by side
  double timeout_s = 10;    // per sample
  bool backtraces = false;  // keep c10 error backtraces (slow: ~6 ms per refused call)
};

// A sample whose outcome is not what its spec expects, or a finding (a sample in a deviation on
// which the kernel departs from the contract), or a crash of the linked libtorch.
struct SweepEvent {
  enum Kind { Unexpected, Finding, KnownCrash, NewCrash } kind = Unexpected;
  uint64_t index = 0;
  std::string where;    // the violated constraint ("valid" for a valid sample) or the deviation
  std::string outcome;  // "accepted", "rejected", "crashed", ...
  std::string message;  // the kernel's error, the binding error or the signal
  std::string command;  // regenerates and runs this one sample
};

struct OpSweep {
  std::string op;
  uint64_t samples = 0, accepted = 0, rejected = 0, bind_errors = 0, crashed = 0, timed_out = 0;
  uint64_t deviation = 0;             // samples in a deviation (findings, not judged)
  uint64_t judged = 0, expected = 0;  // samples judged (not findings, not known crashes), as expected
  std::vector<SweepEvent> events;
  std::string error;  // the op could not be swept (generation failed, its job died)
  double seconds = 0;

  // Every judged sample as expected, no new crash, no error.
  bool passed() const;
};

// The samples of one op that `options` select: the first `max`, or the one at `index` (the ones
// before it are generated and dropped). Throws what generation throws (UnsatisfiableSpec, ...).
std::vector<Sample> sweep_samples(const Spec& spec, const SweepOptions& options);

// The samples on the CPU kernels, each in an isolated worker (runner::run_samples), with the
// options' timeout and backtraces: one outcome per sample.
std::vector<opcall::CallOutcome> run_sweep_samples(const std::vector<Sample>& samples, const SweepOptions& options);

// One op, in this process (its samples run in isolated workers).
OpSweep sweep_op(const Spec& spec, const SweepOptions& options);

// Every op, in `options.jobs` processes; `done` sees each result, with its op's index in
// `specs`, as it arrives. Results come back in the order of `specs`.
std::vector<OpSweep> sweep(const std::vector<const Spec*>& specs, const SweepOptions& options,
                           const std::function<void(size_t, const OpSweep&)>& done = {});

// The command that regenerates and runs sample `index` of `op`.
std::string sample_command(const std::string& op, uint64_t index, const SweepOptions& options);

nlohmann::json to_json(const OpSweep& r);
OpSweep op_sweep_from_json(const nlohmann::json& j);

// The --json report: the options that chose the samples, then every op's row ("ops").
nlohmann::json sweep_report(const SweepOptions& options, const std::vector<OpSweep>& results);
// Writes a report (the sweep's or a merge of shards') as the sweep does.
void write_sweep_report(const std::string& path, const nlohmann::json& report);

}  // namespace opsfuzz
