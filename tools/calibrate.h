// Calibration of a spec against the linked CPU kernel, for spec authors: which dtypes the kernel
// takes per tensor argument, the spec's valid samples it refuses and invalid samples it accepts.
#pragma once

#include <c10/core/ScalarType.h>
#include <nlohmann/json_fwd.hpp>

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "specs/model/spec.h"

namespace opsfuzz {

struct CalibrateOptions {
  uint64_t seed = 0;
  int64_t max = 200;      // valid samples, and as many invalid ones
  std::string config;     // as given to --config
  int64_t bases = 3;      // valid samples each tensor argument's dtypes are probed on
  double timeout_s = 10;  // per call
};

// What the kernel did with one tensor argument cast to one dtype, over the base samples.
struct DtypeProbe {
  c10::ScalarType dtype = c10::ScalarType::Float;
  uint64_t accepted = 0, refused = 0, crashed = 0, bind_errors = 0;
  std::string message;     // the first refusal, crash or binding error, one line
  bool generated = false;  // the spec's valid samples give the argument this dtype
  bool allowed = true;     // the configuration lets the spec generate it (half is off by default)

  uint64_t tried() const { return accepted + refused + crashed + bind_errors; }
  bool always_accepted() const { return tried() > 0 && accepted == tried(); }
  bool sometimes_accepted() const { return accepted > 0 && accepted < tried(); }
  // No base took it: the kernel refuses this dtype here.
  bool never_accepted() const { return tried() > 0 && accepted == 0 && bind_errors == 0; }
};

struct ArgCalibration {
  std::string arg;
  // The tensor arguments cast with it: their dtype equals its own in every valid sample (the spec
  // ties them to it, as mm's self and mat2), so that a cast does not break the tie.
  std::vector<std::string> tied;
  std::vector<uint64_t> bases;     // indices of the valid samples it was probed on
  std::vector<DtypeProbe> dtypes;  // one per dtype of all_dtypes() and complex_dtypes(), in that order
  // The dtypes some base accepted: what the spec could generate for this argument (a dtype only
  // some bases accepted needs a rule relating it to the other arguments: see mixed()).
  std::vector<c10::ScalarType> suggested() const;
  // The dtypes some bases accepted and others refused.
  std::vector<c10::ScalarType> mixed() const;
};

// Samples of one kind of surprise: one normalized kernel message (valid samples refused) or one
// violated constraint (invalid samples accepted), with a command that reproduces the first.
struct SampleGroup {
  std::string key;      // the normalized message, or the constraint's label
  std::string example;  // the first sample's message (first line)
  uint64_t count = 0;
  uint64_t total = 0;  // invalid samples: how many broke this constraint
  uint64_t index = 0;  // the first sample
  std::string command;
};

struct Calibration {
  std::string op;
  CalibrateOptions options;
  std::vector<ArgCalibration> args;
  uint64_t valid = 0, invalid = 0;            // samples run
  std::vector<SampleGroup> valid_refused;     // by normalized message, largest first
  std::vector<SampleGroup> invalid_accepted;  // by violated constraint, largest first
  uint64_t invalid_refused = 0, invalid_crashed = 0;
  uint64_t valid_unbound = 0, invalid_unbound = 0;  // of the samples run, binding errors
  std::vector<SampleGroup> bind_errors;             // samples that did not bind: our bug, not the kernel's
  std::string error;                                // generation failed
};

// Calibrates any spec (the SpecDB's or one of a test) against the kernel of its op. Every call
// runs in an isolated worker, so a crashing kernel costs one result.
Calibration calibrate(const Spec& spec, const CalibrateOptions& options);

// A kernel message reduced to what samples share: its first line, numbers as N, bracketed
// lists (shapes, ranges) as [...]. "size [2, 3] at dim 1" -> "size [...] at dim N".
std::string normalize_message(const std::string& message);

void print(const Calibration& c, std::ostream& out);
nlohmann::json to_json(const Calibration& c);

}  // namespace opsfuzz
