// `ops-fuzz check`: classifies the inputs of a YAML suite's tests by the specs of their ops
// (generators/classify.h): valid, or which rules they break and which deviations they hit.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/config.h"
#include "generators/classify.h"
#include "opcall/opcall.h"
#include "suite/model.h"

namespace opsfuzz {

struct TestCheck {
  enum Status : uint8_t { Valid, Invalid, Undecided, NoSpec, Error } status = Error;
  std::string id;
  std::string op;  // the spec's op ("add.Tensor"), or the overload or module the test calls
  Classification classification;
  std::string message;  // an Error's cause; "a module" for a NoSpec module test
};

// A test's inputs materialized (seeded as run-eager seeds them), bound to the overload they call
// (defaults filled), in the order of that overload's spec's arguments; no spec (and no values)
// for an overload without one. Throws what materializing and binding throw. Not for a module test.
struct SpecInputs {
  const Spec* spec = nullptr;
  std::string overload;  // "aten::add.Tensor"
  std::vector<c10::IValue> values;
};
SpecInputs spec_inputs(const suite::Test& test, uint64_t run_seed);
// The same for arguments given as values: bound to the overload `op` names (or, without an
// overload, the first that takes them). Throws opcall's LookupError and BindError.
SpecInputs bind_to_spec(std::string_view op, const opcall::Stack& args, const opcall::Kwargs& kwargs);

// Materializes the test's inputs (seeded as run-eager seeds them), binds them to the overload
// they call (defaults filled), and classifies them by that overload's spec. Tests of modules
// and of ops without a spec are NoSpec; inputs that cannot be made, bound or observed are an
// Error naming the test. Never throws for problems of the test.
TestCheck check_test(const suite::Test& test, uint64_t run_seed, const Config& cfg);

// "id  op  valid", "id  op  invalid: label; label", ..., then indented lines for deviations,
// constraints not evaluated and what lies outside the generation scope.
std::string format(const TestCheck& check);

}  // namespace opsfuzz
