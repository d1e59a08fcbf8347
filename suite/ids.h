// Test ids, exactly as the suites' original framework forms them (see yaml-notes.md).
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "suite/value.h"

namespace opsfuzz::suite {

// Each code point that is not alphanumeric (Unicode-aware), '-' or '_' becomes one '_'.
std::string sanitize_id_value(std::string_view text);
// Each code point that is not alphanumeric becomes one '_' ('-' too).
std::string sanitize_op(std::string_view text);

// "<base>__name=value..." with one segment per var in name order; values rendered with Python's
// str() and sanitized; a value naming a dim keeps its symbol.
std::string template_id(const std::string& base, const std::vector<std::pair<std::string, YamlValue>>& assignment);

// Id of a test written without one: "<op sanitized>__<position in the merged tests list>".
std::string default_id(std::string_view op, size_t position);

// --test-ids patterns: exact ids, or prefixes when ending in '*'. Empty matches everything.
class IdFilter {
 public:
  IdFilter() = default;  // matches everything
  explicit IdFilter(std::string_view semicolon_list);
  bool matches(std::string_view id) const;
  bool empty() const { return patterns_.empty(); }

 private:
  std::vector<std::string> patterns_;
};

}  // namespace opsfuzz::suite
