// Turning nodes into values: tensors, scalars, lists, modules; deterministic from seeds.
#pragma once

#include <ATen/core/ivalue.h>

#include <cstdint>
#include <string_view>

#include "suite/model.h"
#include "suite/modules.h"

namespace opsfuzz::suite {

// The seed of one input: a stable hash of (run seed, test id, input path), so a test gets the
// same inputs whatever other tests run.
uint64_t input_seed(uint64_t run_seed, std::string_view test_id, std::string_view path);

// One node's value, drawing every random choice from a CPU generator seeded with `seed`.
// `directory` resolves `file:` paths of construct nodes.
c10::IValue materialize(const Node& node, uint64_t seed, const std::string& directory = "");

// A literal YAML value as an IValue (lists typed when homogeneous, mappings as dicts).
c10::IValue literal_ivalue(const YamlValue& v);

// The positional and keyword inputs of a test, seeded by its id (by its pair's id for the sides
// of a pair test, so both sides see the same inputs); input 0 is made complex when asked.
struct Inputs {
  std::vector<c10::IValue> args;
  Kwargs kwargs;
};
Inputs materialize_inputs(const Test& test, uint64_t run_seed);

// The test's module (op given as a module node), constructed with its arguments; weights are
// initialized from input_seed(run_seed, id or pair id, "op").
std::shared_ptr<Module> materialize_module(const Test& test, uint64_t run_seed);

// A complex tensor from a real one packed as [..., 2] (real, imaginary).
at::Tensor complex_from_packed(const at::Tensor& packed);

}  // namespace opsfuzz::suite
