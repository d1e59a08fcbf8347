// A validated, expanded suite: concrete tests whose inputs are typed nodes.
#pragma once

#include <c10/core/ScalarType.h>

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "suite/value.h"

namespace opsfuzz::suite {

enum class NodeType : uint8_t {
  Tensor,
  Scalar,
  ScalarTensor,
  IntList,
  List,
  Tuple,
  Optional,
  Const,
  ConstTensor,
  Module,
  Construct,
};

enum class Init : uint8_t { Normal, Uniform, Randint, Zeros, Ones, Bernoulli };

const char* name(NodeType t);
const char* name(Init init);

// One value specification, with presets and dim symbols already resolved.
struct Node {
  NodeType type = NodeType::Const;
  Pos pos;

  // tensor, scalar_tensor, const_tensor, scalar
  std::vector<int64_t> shape;
  c10::ScalarType dtype = c10::ScalarType::Float;
  Init init = Init::Normal;
  double low = 0, high = 10, mean = 0, std = 1, p = 0.5;
  bool has_range = false;  // low/high were written
  bool requires_grad = false;
  // const_tensor: its layout in memory (ops-fuzz's extension); empty strides: contiguous
  std::vector<int64_t> strides;
  int64_t storage_offset = 0;

  // const, const_tensor, scalar, scalar_tensor: a literal value (is_null() when sampled)
  bool has_value = false;
  YamlValue value;

  // int_list
  std::vector<int64_t> ints;
  // list (len copies of elems[0]), tuple (elems), optional (elems[0])
  int64_t len = 0;
  double p_none = 0;
  std::vector<Node> elems;

  // A problem found at load time that the suites' original framework only meets when the test
  // runs: reported as a warning, then as the test's error (materializing the node throws it).
  std::string defect;

  // module, construct
  std::string path;
  std::vector<Node> args;
  std::vector<std::pair<std::string, Node>> kwargs;
};

enum class Device : uint8_t { Cpu, Gpu, Cuda, Mps };
const char* name(Device d);

// Whether a layout gives each element its own place in memory: dims of size > 1, by stride, each
// stride past the extent of the smaller ones (what transposed, permuted, channels-last and gapped
// layouts have; an expanded one does not).
bool elements_apart(const std::vector<int64_t>& shape, const std::vector<int64_t>& strides);

struct Test {
  std::string id;
  std::string impl;
  std::string op;              // an operator name, or empty when module is set
  std::optional<Node> module;  // op given as a module node
  std::vector<Node> in;
  std::vector<std::pair<std::string, Node>> kwargs;
  std::optional<YamlValue> out;  // kept as written: the spec does not validate it
  // `out` read as a node, when it is one (const, const_tensor, tensor, ...): what runners check
  // the output against. An `out` that is no valid node is no expectation, and no error.
  std::optional<Node> expected;
  Device device = Device::Cpu;
  bool cast_input0_to_complex = false;
  // The seed of the backends' own random choices (ops-fuzz's extension); when absent, drawn from
  // the run's seed and the test's id.
  std::optional<uint64_t> backend_seed;
  std::string pair;       // id of its pair test when this is side a or b
  std::string directory;  // of its suite file, for `file:` module paths
  Pos pos;
};

// Two tests (sides a and b) run on the same inputs and compared.
struct PairTest {
  std::string id;
  size_t a = 0, b = 0;  // indexes into Suite::tests
};

struct Suite {
  std::vector<Test> tests;
  std::vector<PairTest> pairs;
  std::vector<std::string> warnings;  // formatted diagnostics

  const PairTest* pair_of(const Test& t) const;
};

}  // namespace opsfuzz::suite
