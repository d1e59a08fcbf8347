// The oracle: how a backend's outputs are judged against a reference (opdiff's diff_all entry
// plus our tolerance verdict, ULP and Chebyshev distances). What is known of particular ops (which
// calls must not be value-compared at all) is in op_facts.h; the statuses a run ends in in status.h.
#pragma once

#include <c10/core/ScalarType.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "runner/backend.h"
#include "runner/status.h"

namespace opsfuzz::runner {

// The tolerance two correct results of `dtype` may differ by: exact {0, 0} for integral and bool
// dtypes; per floating dtype as documented in oracle.cpp; a complex dtype as its float parts.
Tolerance default_tolerance(c10::ScalarType dtype);
// The tolerance for comparing leaves of dtypes a and b: the looser (largest atol, largest rtol) of
// both dtypes' defaults and of `precision`'s (a backend computing in Half compared with a float32
// reference gets Half's).
Tolerance tolerance_for(c10::ScalarType a, c10::ScalarType b, std::optional<c10::ScalarType> precision);

// What triage (runner/triage.h) made of a mismatch with the baseline: judged against a float64
// evaluation of the same inputs, whether it is a finding and which side departs.
struct Triage {
  // Set aside (not a finding), by the rule that explains it: "arbitration" (both sides within
  // their dtype's tolerance of the float64 value), "low_precision", "conditioning", "range".
  // Standing (a finding): "wrong_value", "non_finite", "no_reference" (no float64 evaluation).
  std::string verdict;
  std::string blame;  // "backend", "baseline", "both", "none"; "" without a float64 reference
  std::string why;    // the element that decided, with the three values and its bound
  bool set_aside() const;
};

// One comparison of an output with its reference: opdiff's diff_all entry plus our verdict.
struct Diff {
  // opdiff's "ok": the outputs are comparable (not: equal). When false, `code` says why:
  // NOT_COMPARABLE_SHAPE (structure, length or shape differ), NOT_COMPARABLE_EMPTY (an empty
  // leaf), NAN_IN_BASELINE, NAN_IN_OUTPUT; `msg` is opdiff's message ("" where opdiff's is None).
  bool comparable = true;
  std::string code, msg;
  double mse = 0, max_abs = 0, mean_abs = 0;  // opdiff's float64 metrics over all output leaves
  double ulp = 0;                             // largest distance in units in the last place of the compared dtype
  double chebyshev = 0;                       // largest |a - b| (NaN == NaN and equal infinities 0; inf vs finite inf)
  bool match = true;                          // our verdict under the tolerance
  // For a mismatch, the first difference found, naming the leaf and element:
  // "output 0 at [1, 4]: 1.5 vs reference 1.25 (atol 1e-05, rtol 1.3e-06)".
  std::string why;
  std::string dtype;             // for a mismatch of values, the dtype of the output that differs ("float32")
  std::optional<Triage> triage;  // a mismatch with the baseline, triaged (RunOptions::triage)
};

// Compares `output` with `reference` leaf by leaf (runner/values.h flatten). Integral and bool
// leaves compare exactly; floating and complex ones within `tolerance` when given, else
// tolerance_for(their dtypes, precision). Shape, dtype and structure differences are mismatches.
Diff compare(const c10::IValue& output, const c10::IValue& reference,
             std::optional<c10::ScalarType> precision = std::nullopt,
             std::optional<Tolerance> tolerance = std::nullopt);
// A backend's output against the baseline: against out.reference instead when the backend
// carries its own, with out.precision and out.tolerance.
Diff compare(const Output& out, const c10::IValue& baseline);

}  // namespace opsfuzz::runner
