#include "suite/ids.h"

#include <algorithm>
#include <iterator>

namespace opsfuzz::suite {

namespace {

// Python's str.isalnum() for one code point.
bool is_alnum(char32_t c) {
  struct Range {
    char32_t first, last;
  };
  static constexpr Range kAlnum[] = {
#include "suite/unicode_alnum.inc"
  };
  auto it =
      std::upper_bound(std::begin(kAlnum), std::end(kAlnum), c, [](char32_t x, const Range& r) { return x < r.first; });
  return it != std::begin(kAlnum) && c <= std::prev(it)->last;
}

// Decodes one UTF-8 code point starting at text[k]; advances k. Invalid bytes count as one.
char32_t next_code_point(std::string_view text, size_t& k) {
  unsigned char c = text[k];
  int extra = c >= 0xF0 ? 3 : c >= 0xE0 ? 2 : c >= 0xC0 ? 1 : 0;
  if (k + extra >= text.size()) extra = 0;  // truncated sequence: take the byte alone
  char32_t cp = extra ? (c & (0x3F >> extra)) : c;
  for (int e = 1; e <= extra; ++e) cp = (cp << 6) | (static_cast<unsigned char>(text[k + e]) & 0x3F);
  k += extra + 1;
  return cp;
}

std::string sanitize(std::string_view text, bool keep_dash_underscore) {
  std::string out;
  for (size_t k = 0; k < text.size();) {
    size_t start = k;
    char32_t cp = next_code_point(text, k);
    bool keep = is_alnum(cp) || (keep_dash_underscore && (cp == '-' || cp == '_'));
    if (keep) out.append(text.substr(start, k - start));
    else out += '_';
  }
  return out;
}

}  // namespace

std::string sanitize_id_value(std::string_view text) { return sanitize(text, true); }

std::string sanitize_op(std::string_view text) { return sanitize(text, false); }

std::string template_id(const std::string& base, const std::vector<std::pair<std::string, YamlValue>>& assignment) {
  auto sorted = assignment;
  std::sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::string id = base;
  for (const auto& [name, value] : sorted) id += "__" + name + "=" + sanitize_id_value(python_str(value));
  return id;
}

std::string default_id(std::string_view op, size_t position) {
  return sanitize_op(op) + "__" + std::to_string(position);
}

IdFilter::IdFilter(std::string_view list) {
  size_t start = 0;
  while (start <= list.size()) {
    size_t end = list.find(';', start);
    if (end == std::string_view::npos) end = list.size();
    std::string_view pattern = list.substr(start, end - start);
    while (!pattern.empty() && pattern.front() == ' ') pattern.remove_prefix(1);
    while (!pattern.empty() && pattern.back() == ' ') pattern.remove_suffix(1);
    if (!pattern.empty()) patterns_.emplace_back(pattern);
    start = end + 1;
  }
}

bool IdFilter::matches(std::string_view id) const {
  if (patterns_.empty()) return true;
  for (const auto& p : patterns_) {
    if (p.back() == '*' ? id.starts_with(std::string_view(p).substr(0, p.size() - 1)) : id == p) return true;
  }
  return false;
}

}  // namespace opsfuzz::suite
