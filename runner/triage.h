// Triage: whether a value mismatch between a backend and the baseline is a finding. Both outputs
// are judged, element by element, against a float64 (complex128) evaluation of the same inputs;
// a difference is set aside only where a rule explains it, and each rule says why:
// - arbitration: both sides lie within their dtype's tolerance of the float64 value;
// - low_precision: float16/bfloat16 outputs within two of their ulps at the size of the float64
//   value, of the magnitude below, or of the largest input times the largest number argument
//   (the rounding of the result, or of an intermediate term such as alpha·other, to the dtype);
//   or an output of any dtype below float64 within its tolerance of the float64 value of the call
//   with its floating number arguments (a Python scalar operand, alpha) rounded to that dtype, as
//   its kernels take them;
// - conditioning: within terms·eps·magnitude + 4·eps·largest input. The magnitude is the op in
//   float64 on the absolute values of the inputs' finite elements, and on them with all inputs but
//   the first negated (what the terms of a sum, a difference, a product, a matrix product, a
//   convolution or a norm add up to before they cancel); terms the elements of the largest
//   floating input (a bound on the terms any output element combines); eps the machine epsilon of
//   the type kernels accumulate in (float32's for float32, float16 and bfloat16; float64's for
//   float64): the error any order of summation makes, and the rounding of an input that a formula
//   subtracting its multiples carries (a - b·floor(a/b));
// - range: the float64 value or the magnitude lie within a factor 16 of the dtype's largest value
//   (no room for a formula's small constants: x·6/6, (e^x + e^-x)/2), or a reduction's partial
//   sums (terms per output element times the largest input) or terms (the largest input squared:
//   a norm's squares) lie beyond it: an overflow is the dtype's limit, and which of inf or NaN an
//   overflowed intermediate turns into is not compared.
// A mismatch still standing, on inputs below float64, is probed near its inputs:
// - conditioning: the float64 value moves by as much as the difference when every floating input
//   moves by one rounding of its dtype's kernels (and a quarter as far at least for half of one: a
//   continuous function, not a jump); or the float64 value is non-finite through an inf or NaN input
//   that enters it with a weight below the dtype's rounding (affine in the infinity replaced by
//   large values): rounding decided whether it entered; or one side (or the float64 value) is
//   NaN where the other tends to the infinity the inputs' infinities, taken one at a time, give,
//   and the kernel multiplies one of them by 0 (0·inf, a weight that rounding made exactly 0);
// - range: for output elements homogeneous in the floating inputs, the float64 kernel on the inputs
//   scaled to the same place in float64's range misses its own value scaled alike, and the side's
//   value is what it gives there (an intermediate such as a norm's |x|^p leaves the range).
// A side departing from the float64 value beyond all of these is blamed; the difference stands as
// a finding with the verdict wrong_value, or non_finite (inf or NaN where the exact value is finite
// and representable). Docs: docs/hunt.md.
#pragma once

#include <optional>

#include "runner/backend.h"
#include "runner/oracle.h"

namespace opsfuzz::runner {

// Triages a backend's output against the baseline's for one call (outputs as compared: outside
// the contract replaced by None). nullopt when the outputs differ in structure, dtype or shape,
// which no value judges.
std::optional<Triage> triage(const Call& call, const Output& output, const c10::IValue& baseline);

// How evaluate_in_float64 takes the call's tensor inputs: as given, as the absolute values of
// their finite elements, or so with every input but the first negated (magnitudes of terms).
enum class Inputs { AsGiven, Absolute, AbsoluteOthersNegated };

// The call's outputs evaluated in float64: floating tensor inputs in float64 (complex in
// complex128), dtype arguments asking for a floating dtype asking for float64, a module in a
// float64 copy (inputs as given only); with `numbers_in`, floating number arguments (a Python
// scalar operand, alpha) first rounded to that dtype, as its kernels take them.
c10::IValue evaluate_in_float64(const Call& call, Inputs inputs,
                                std::optional<at::ScalarType> numbers_in = std::nullopt);

}  // namespace opsfuzz::runner
