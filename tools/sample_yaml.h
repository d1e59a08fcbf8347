// Samples as a YAML test suite (`generate --format yaml`): one test per sample, each value written
// so that the suite's materialized inputs have the sample's exact bits (docs/yaml-format.md).
#pragma once

#include <ATen/core/ivalue.h>

#include <cstdint>
#include <ostream>
#include <optional>
#include <string>

#include "generators/generators.h"

namespace opsfuzz {

// What a run generated its samples from, written as comments that trace each test back.
struct YamlOrigin {
  uint64_t seed = 0;
  std::string config;  // the --config words; "" is the default configuration
  bool invalid = false;
  // Written as the test's backend_seed (hunt reproducers: the backend repeats the sample's own
  // choices); generate leaves it out, which opdiff refuses.
  std::optional<uint64_t> backend_seed;
};

// Writes a suite to `out` as samples arrive: the header comments and `tests:` at construction,
// a test per add(), and an empty list at finish() when no test came.
class YamlSuiteWriter {
 public:
  YamlSuiteWriter(std::ostream& out, YamlOrigin origin);
  void add(const Spec& spec, const Sample& s);
  void finish();

 private:
  std::ostream& out_;
  YamlOrigin origin_;
  size_t tests_ = 0;
};

// One test of the suite (an entry of `tests`), after comments naming its origin: op, seed, index,
// configuration, validity, the constraint an invalid sample violates, and the command that
// regenerates it.
std::string to_yaml_test(const Spec& spec, const Sample& s, const YamlOrigin& origin);

// A value as a node of the suite format, materializing to the same bits: a tensor as a
// const_tensor (a scalar_tensor when 0-dim) holding its values, contiguous; numbers, bools,
// strings, None and lists of them as const nodes (opdiff refuses a bare literal where a node is
// expected); a float NaN that .nan does not give as a scalar node of its bits; a list holding a
// node as a tuple node. Throws std::invalid_argument for a value the format has no form for.
std::string yaml_node(const c10::IValue& v);

// One argument's value read by its ArgType: dtype, memory-format and layout enums as const nodes
// of their names.
std::string yaml_argument(ArgType type, const c10::IValue& v);

}  // namespace opsfuzz
