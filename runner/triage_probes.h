// Probes of the float64 function near a call's inputs, for triage (runner/triage.h): run only for
// a mismatch the element-wise rules leave standing. How far the value moves when the inputs move
// by their rounding; where the float64 kernel leaves its own range at the inputs' place in the
// dtype's range; how the inputs' inf and NaN elements enter the value. Also the helpers triage and
// its probes share. Internal to the runner library.
#pragma once

#include <ATen/core/Tensor.h>

#include <functional>
#include <optional>
#include <vector>

#include "runner/backend.h"
#include "runner/triage.h"
#include "runner/values.h"

namespace opsfuzz::runner::triage_detail {

// Floating or complex.
bool is_floating(const at::Tensor& t);
// t in float64 (complex128), as `inputs` says (triage.h Inputs), negated for `negated`.
at::Tensor in_float64(const at::Tensor& t, Inputs inputs, bool negated);
// The call's floating (and complex) tensor inputs, inside lists too.
std::vector<at::Tensor> floating_inputs(const Call& call);
// The call's outputs with its tensor inputs converted by `convert`, dtype arguments asking for a
// floating dtype asking for float64, and floating number arguments rounded to `numbers_in`.
c10::IValue evaluate_with(const Call& call, const std::function<at::Tensor(const at::Tensor&)>& convert,
                          std::optional<at::ScalarType> numbers_in);
// A tensor's values as a flat float64 (complex128) tensor.
at::Tensor flat_values(const at::Tensor& t, bool complex);
// Leaves of the same path and sizes (or both None).
bool same_structure(const Leaf& a, const Leaf& b);

// Where, at one far scale, the float64 kernel missed its own float64 value scaled alike, and its
// value there scaled back (flat, per element of a leaf).
struct Outside {
  at::Tensor missed, value;
};

// The inputs' non-finite elements taken one at a time, per leaf (flat, per element): the infinity
// each element of the float64 value tends to (NaN: none, or unknown), and whether the kernel
// multiplies one of them by 0 there.
struct OneAtATime {
  std::vector<at::Tensor> limit, zero_weight_touch;
};

// What the probes near the inputs say, per leaf.
struct Probes {
  std::vector<at::Tensor> moves;
  std::vector<std::vector<Outside>> outside;
  std::vector<at::Tensor> non_finite_weights;
  OneAtATime one_at_a_time;
};

// The probes for a call whose floating inputs promote to `dtype` (below float64), whose kernels
// compute with machine epsilon `eps`, against the float64 leaves `reference`.
Probes probe_near(const Call& call, const std::vector<Leaf>& reference, at::ScalarType dtype, double eps);

}  // namespace opsfuzz::runner::triage_detail
