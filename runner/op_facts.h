// What the project knows about particular ops, each fact with its reason: the one table that
// every caller reads (the oracle, the backends, the sweep, run, GoogleTest, the hunt).
// - Facts that hold for any call of an op are kept here, keyed by the op's name, since YAML
//   suites call ops the SpecDB has no spec for: random ops, uninitialized outputs, integer
//   division by zero, casts of floating values to integers, unique's unordered values, outputs
//   outside the contract, results that depend on strides, kernels that need contiguous inputs.
// - What a spec states lives in the spec (specs/db) and is read here through the same interface:
//   its deviations, among them the known crashes of the linked libtorch (a deviation of kind
//   crash: the signals a sample in it may die of).
#pragma once

#include <ATen/core/ivalue.h>

#include <optional>
#include <string>
#include <vector>

#include "runner/backend.h"
#include "specs/model/spec.h"

namespace opsfuzz::runner {

// Why the outputs of `call` must not be value-compared (two correct runs may differ), or nullopt:
// random ops (judged by name and arguments: a Generator argument, rand*, dropout with train on,
// ...), uninitialized memory (empty*, resize_ growing a tensor), integer division or remainder
// by zero, unique's values with sorted=False (no specified order), and casts of floating values
// to an integral dtype that are out of its range or not finite.
std::optional<std::string> not_value_comparable(const Call& call);

// The outputs of `call` its contract defines, the others replaced by None so that no comparison
// judges them: the gradients a backward op's output_mask does not ask for (a kernel may return
// them anyway), and _embedding_bag's bookkeeping outputs (offset2bag, bag_size, max_indices: their
// sizes depend on the kernel's path).
c10::IValue contract_outputs(const Call& call, const c10::IValue& outputs);

// Why an operator's contract rules out non-contiguous inputs, if it does: its result depends on
// the input's strides (as_strided reads the storage with strides of its own, view refuses
// incompatible strides, resize_ reinterprets the storage as contiguous), or its kernel requires
// contiguous inputs (internal ops whose public wrappers make them so).
std::optional<std::string> rules_out_noncontig(const opcall::Op& op);

// The crash deviation of `spec` (an op of the SpecDB: "index_select.default") that a sample in
// `deviations` (the ids it hits) dying with `message` is: the deviation crashes with the signal
// the message names ("CRASH: signal 6 (Aborted)" names Aborted). nullptr when none is, or the op
// has no spec.
const Deviation* known_crash(const std::string& spec, const std::vector<std::string>& deviations,
                             const std::string& message);
// Whether a sample of `spec` hitting `deviations` hits one that crashes (its crash may come and go
// with the heap's layout: an out-of-range read).
bool may_crash(const std::string& spec, const std::vector<std::string>& deviations);

}  // namespace opsfuzz::runner
