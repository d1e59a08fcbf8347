// Validating value specifications (nodes) and turning them into typed Nodes.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>

#include "suite/diagnostics.h"
#include "suite/loader.h"
#include "suite/model.h"

namespace opsfuzz::suite {

// Resolves dtype names ("float32", "torch.int64", "long"); nullopt if unknown.
std::optional<c10::ScalarType> parse_dtype_name(const std::string& name);
// The dtype names the format lists, for messages.
const std::vector<std::string>& dtype_names();

class NodeParser {
 public:
  NodeParser(const Document& doc, Diagnostics& diagnostics);

  // Label of the test being parsed, for messages ("tests[3] (add_x)").
  void set_test(std::string label) { test_ = std::move(label); }
  const std::string& test() const { return test_; }

  // A node where inputs are expected. With literal_maps (constructor arguments), a mapping that
  // is not a node is a literal value; elsewhere it must be a node.
  std::optional<Node> node(const Value& v, const std::string& path, bool literal_maps = false);
  // A module node used as a test's op.
  std::optional<Node> module(const Value& v, const std::string& path);
  // Checks every preset once, so errors in unused presets are reported too.
  void check_presets();

  // Reports keys of `map` outside `allowed`, with a suggestion.
  void check_keys(const Value& map, const std::vector<std::string>& allowed,
                  const std::string& path);
  void error(const Value& at, const std::string& path, std::string message);

  // Numeric fields: numbers, numeric strings or dim symbols.
  std::optional<double> number(const Value& v, const std::string& path);
  std::optional<int64_t> integer(const Value& v, const std::string& path);

 private:
  std::optional<Node> typed(const std::string& type, const Value& v, const std::string& path);
  std::optional<Node> ref(const Value& v, const std::string& path);
  std::optional<Node> preset(const std::string& name, const Value& at, const std::string& path);
  std::optional<Node> tensor_like(NodeType type, const Value& v, const std::string& path);
  std::optional<Node> scalar(const Value& v, const std::string& path);
  std::optional<Node> int_list(const Value& v, const std::string& path);
  std::optional<Node> list(const Value& v, const std::string& path);
  std::optional<Node> tuple(const Value& v, const std::string& path);
  std::optional<Node> optional(const Value& v, const std::string& path);
  std::optional<Node> constant(const Value& v, const std::string& path);
  std::optional<Node> callable(NodeType type, const Value& v, const std::string& path);

  std::optional<c10::ScalarType> dtype(const Value& v, const std::string& path, bool scalar);
  bool sampling(Node& n, const Value& v, const std::string& path, bool is_scalar);
  bool parameters(Node& n, const Value& v, const std::string& path, bool is_scalar);
  bool init_method(Node& n, const Value& v, const std::string& path);
  std::optional<std::vector<int64_t>> shape(const Value& v, const std::string& path);
  bool value_matches_shape(const Value& value, const Node& n, size_t depth,
                           const std::string& path);
  const Value* required(const Value& map, const char* key, const std::string& path);

  const Document& doc_;
  Diagnostics& diagnostics_;
  std::string test_;
  std::map<std::string, std::optional<Node>> presets_;  // parsed presets, by name
  std::set<std::string> resolving_;                     // presets being parsed: ref cycles
};

}  // namespace opsfuzz::suite
