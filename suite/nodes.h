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

// The warning for a quoted dim name ("N"), which is read as the dim.
std::string quoted_dim_message(const std::string& name, int64_t value);

// A var node: {type: var, name: x} or its short form {var: x}.
bool is_var_node(const YamlValue& v);

// The first mapping key inside v that is not a string, if any: opdiff reads literal values
// (const values, template var values) as JSON, whose keys are strings only.
const YamlValue* non_string_key(const YamlValue& v);

class NodeParser {
 public:
  NodeParser(const Document& doc, Diagnostics& diagnostics);

  // Label of the test being parsed, for messages ("tests[3] (add_x)").
  void set_test(std::string label) { test_ = std::move(label); }
  const std::string& test() const { return test_; }

  // A node where inputs are expected. With literal_maps (constructor arguments), a mapping that
  // is not a node is a literal value; elsewhere it must be a node, and a literal, a module or a
  // construct node is what opdiff refuses there (its values are value nodes only).
  std::optional<Node> node(const YamlValue& v, const std::string& path, bool literal_maps = false);
  // A module node used as a test's op.
  std::optional<Node> module(const YamlValue& v, const std::string& path);
  // Checks every preset once, so errors in unused presets are reported too.
  void check_presets();

  // Reports keys of `map` outside `allowed`, with a suggestion.
  void check_keys(const YamlValue& map, const std::vector<std::string>& allowed, const std::string& path);
  void error(const YamlValue& at, const std::string& path, std::string message);
  void warning(const YamlValue& at, const std::string& path, std::string message);
  // A problem that fails only the test that uses the node: a warning now, n's defect at run time.
  void defer(Node& n, const YamlValue& at, const std::string& path, std::string message);
  // Something opdiff refuses when it loads the suite, that ops-fuzz reads on purpose (`reading`
  // says how): a warning, so that a suite checked here is no trap for a team that also runs
  // opdiff. One warning per kind of refusal (`what`), at its first place, counting the others:
  // a generated suite has one at every test. report_opdiff_refusals() issues them.
  void opdiff_refuses(const YamlValue& at, const std::string& path, const std::string& what,
                      const std::string& reading);
  // The same for a key opdiff ignores (its node models take unknown keys): the test runs there,
  // but without what the key says.
  void opdiff_ignores(const YamlValue& at, const std::string& path, const std::string& what,
                      const std::string& reading);
  void report_opdiff_refusals();
  size_t opdiff_refusals() const { return refusals_.size(); }

  // A bool as the suites' original framework reads one: true/false (any YAML 1.1 spelling), 0/1,
  // or the strings "true", "t", "y", "1", ... in any case.
  std::optional<bool> boolean(const YamlValue& v, const std::string& path);

  // Numeric fields: numbers, numeric strings or dim symbols (or no dim symbols where opdiff
  // reads the field as a plain float or int: mean, std, p, p_none, int_list elems).
  std::optional<double> number(const YamlValue& v, const std::string& path, bool symbols = true);
  std::optional<int64_t> integer(const YamlValue& v, const std::string& path, bool symbols = true);
  // A key whose value opdiff reads as a string (id, impl): a string or null, nothing else.
  bool optional_string(const YamlValue& map, const char* key, const std::string& path);

 private:
  std::optional<Node> typed(const std::string& type, const YamlValue& v, const std::string& path);
  std::optional<Node> ref(const YamlValue& v, const std::string& path);
  std::optional<Node> preset(const std::string& name, const YamlValue& at, const std::string& path);
  std::optional<Node> tensor_like(NodeType type, const YamlValue& v, const std::string& path);
  std::optional<Node> scalar(const YamlValue& v, const std::string& path);
  std::optional<Node> int_list(const YamlValue& v, const std::string& path);
  std::optional<Node> list(const YamlValue& v, const std::string& path);
  std::optional<Node> tuple(const YamlValue& v, const std::string& path);
  std::optional<Node> optional(const YamlValue& v, const std::string& path);
  std::optional<Node> constant(const YamlValue& v, const std::string& path);
  std::optional<Node> callable(NodeType type, const YamlValue& v, const std::string& path);

  std::optional<c10::ScalarType> dtype(const YamlValue& v, const std::string& path, bool scalar);
  bool sampling(Node& n, const YamlValue& v, const std::string& path, bool is_scalar);
  bool parameters(Node& n, const YamlValue& v, const std::string& path, bool is_scalar);
  bool init_method(Node& n, const YamlValue& v, const std::string& path);
  std::optional<std::vector<int64_t>> shape(const YamlValue& v, const std::string& path);
  // A const_tensor's strides and offset (ops-fuzz's extension), checked against its shape.
  bool layout(Node& n, const YamlValue& v, const std::string& path);
  void check_value(Node& n, const YamlValue& value, const std::string& path);
  bool scalar_tensor_value(const Node& n, const YamlValue& value, const std::string& path);
  const YamlValue* required(const YamlValue& map, const char* key, const std::string& path);

  const Document& doc_;
  Diagnostics& diagnostics_;
  std::string test_;
  std::map<std::string, std::optional<Node>> presets_;  // parsed presets, by name
  std::set<std::string> resolving_;                     // presets being parsed: ref cycles
  void note_opdiff(const YamlValue& at, const std::string& path, const std::string& what, const std::string& says);

  struct Refusal {
    Diagnostic first;
    std::set<std::string> places;  // "file:line:column path" of each, counted once
  };
  std::map<std::string, Refusal> refusals_;  // by kind of refusal
  std::vector<std::string> refusal_order_;   // kinds, in the order first met
};

}  // namespace opsfuzz::suite
