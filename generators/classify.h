// The inverse of generation: given an op's inputs, which constraints of its spec they break.
//
// Each input is observed into a MetaArg (dtype, shape, None, list entries, a scalar's kind and
// value) and the spec's arguments are walked in dependency order as the engine solves them, so
// every constraint function sees the context it sees in generation. Each constraint is tested on
// its own: its condition narrows the whole space of the variable (not the configuration's
// limits), and the observed value is in it or not; a Gen constraint's rule judges the value itself
// (its candidates are only what generation draws from). A tensor's Value constraints hold when
// every element keeps them (NaN only where the space admits it); joint constraints are evaluated
// on the observed attributes.
//
// What a missed constraint means depends on its role:
//   Rule       the label goes to `broken` (the inputs are invalid)
//   Unchecked  the label goes to `broken`, its deviation id to `deviations`
//   Avoid      its deviation id goes to `deviations` (valid inputs the kernel mishandles)
//   Scope      the label goes to `outside_scope`: not a rule, generation just never makes them
// An invalid sample's `violated` is exactly the label found in `broken`.
#pragma once

#include "engine/config.h"
#include "generators/generators.h"
#include "specs/model/spec.h"

#include <ATen/core/ivalue.h>

#include <stdexcept>
#include <string>
#include <vector>

namespace opsfuzz {

struct Classification {
  std::vector<std::string> broken;      // labels of the rules broken
  std::vector<std::string> deviations;  // ids of the deviations hit
  // Labels of Scope constraints missed, and limits of the configuration passed (a dtype it does
  // not allow, a rank or size past its limits), suffixed " (the configuration)".
  std::vector<std::string> outside_scope;
  // "label: why" for constraints that cannot be evaluated on these inputs (a constraint reading
  // a dim that an invalid dim argument names, say): neither kept nor broken.
  std::vector<std::string> unevaluated;

  bool valid() const { return broken.empty() && unevaluated.empty(); }
};

// An input that does not fit its argument's ArgType (a string for a Tensor, a complex Scalar).
struct ObserveError : std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};

// What the engine would have solved for this value of argument `arg`. Throws ObserveError
// naming the argument.
MetaArg observe(const ArgSpec& arg, const c10::IValue& value);

// Classifies inputs given one per argument of `spec`, in the order of spec.args(). The
// configuration's limits only decide `outside_scope`; the rest does not depend on it (Avoid and
// Unchecked constraints are reported as deviations under any configuration). Throws
// ObserveError (naming the op and argument) when an input does not fit its argument.
Classification classify(const Spec& spec, const std::vector<c10::IValue>& args, const Config& cfg = {});

// A sample's inputs in the order of spec.args() (positional ones, then keywords by name).
std::vector<c10::IValue> in_spec_order(const Spec& spec, const Sample& sample);

}  // namespace opsfuzz
