// Parsed YAML values with their source positions, resolved as PyYAML (YAML 1.1) resolves them.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace opsfuzz::suite {

// Where a value was written. line and column are 1-based; 0 means unknown.
struct Pos {
  std::shared_ptr<const std::string> file;
  int line = 0;
  int column = 0;

  std::string str() const;  // "file:line:column"
};

class YamlValue {
 public:
  enum class Kind : uint8_t { Null, Bool, Int, Float, String, List, Map };
  using Entry = std::pair<YamlValue, YamlValue>;

  Kind kind = Kind::Null;
  bool quoted = false;  // a string written quoted (or tagged !!str): never a dim symbol
  bool b = false;
  int64_t i = 0;
  double f = 0.0;
  std::string s;
  std::vector<YamlValue> items;  // List
  std::vector<Entry> entries;    // Map, in document order
  Pos pos;

  static YamlValue null(Pos pos = {});
  static YamlValue boolean(bool v, Pos pos = {});
  static YamlValue integer(int64_t v, Pos pos = {});
  static YamlValue floating(double v, Pos pos = {});
  static YamlValue string(std::string v, bool quoted = false, Pos pos = {});
  static YamlValue list(Pos pos = {});
  static YamlValue map(Pos pos = {});

  bool is_null() const { return kind == Kind::Null; }
  bool is_bool() const { return kind == Kind::Bool; }
  bool is_int() const { return kind == Kind::Int; }
  bool is_float() const { return kind == Kind::Float; }
  bool is_number() const { return kind == Kind::Int || kind == Kind::Float; }
  bool is_string() const { return kind == Kind::String; }
  bool is_list() const { return kind == Kind::List; }
  bool is_map() const { return kind == Kind::Map; }
  // A plain (unquoted) string: the only form that may name a dim symbol.
  bool is_symbol() const { return kind == Kind::String && !quoted; }

  // Map lookup by string key (nullptr when absent or not a map).
  const YamlValue* find(std::string_view key) const;
  YamlValue* find(std::string_view key);
  void set(std::string key, YamlValue v);  // replaces or appends
  double number() const { return kind == Kind::Int ? static_cast<double>(i) : f; }

  std::string kind_name() const;  // "int", "string", "mapping", ...
};

// Python's str() of the value PyYAML would produce: True, None, 0.5, 1e-05, [1, 'a'], {'k': 'v'}.
std::string python_str(const YamlValue& v);
// s with `quote` and backslashes escaped, \n \r \t, and other control characters as \xNN: the
// escapes Python strings and YAML's double-quoted strings share.
std::string escaped(const std::string& s, char quote);
// Python's repr(): like str() but strings are quoted.
std::string python_repr(const YamlValue& v);
// Python's float repr (shortest round trip): 0.5, 1e-05, 100000.0, 1e+16, inf, nan.
std::string python_float(double x);
// The float as YAML 1.1 reads it back: Python's layout, but with a '.' in every exponent form
// (1.0e-05, 1.0e+16) since YAML 1.1 reads 1e-05 as a string; .inf, -.inf, .nan. The shortest
// decimal that reads back as x, or the one of `significant` digits (1 to 17) when given.
std::string yaml_float(double x, int significant = 0);

// A floating element written by its bit pattern: "bits:0x" then the pattern, read as an unsigned
// integer of the element's width, in two hex digits per byte ("bits:0xffc00000": a float32 NaN
// with its sign bit set). What .nan cannot say: a NaN's sign and payload.
struct ElementBits {
  uint64_t bits = 0;
  size_t bytes = 0;  // the width its digits give: 2, 4 or 8
};
std::optional<ElementBits> parse_bits(const YamlValue& v);  // nullopt unless a string of that form
std::string bits_text(uint64_t bits, size_t bytes);         // "bits:0x7fc00000" for (.., 4)

// Whether a literal value nests as `shape` says: lists of shape[0] entries, each nesting as the
// rest, down to non-list leaves.
bool nests_as(const YamlValue& value, std::span<const int64_t> shape);
// The leaves of a literal value, nested lists flattened in order.
void leaves(const YamlValue& value, std::vector<const YamlValue*>& out);
// Python == on the parsed values: 3 == 3.0 == True-free numbers, mappings ignore key order.
bool python_equal(const YamlValue& a, const YamlValue& b);

// YAML 1.1 implicit typing of a plain scalar, as PyYAML resolves it (bool, null, int with
// 0x/0b/0-octal/base-60/underscores, float needing a '.', .inf/.nan); anything else is a string.
YamlValue resolve_plain_scalar(const std::string& text, Pos pos = {});

// Python's float(text)/int(text) for numeric strings ("10", "1e5", " 2.5"); nullopt otherwise.
std::optional<YamlValue> parse_numeric_string(std::string_view text);

}  // namespace opsfuzz::suite
