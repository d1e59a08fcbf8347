#include "argtypes/text.h"

#include <cctype>

namespace opsfuzz {

std::vector<std::string> split(std::string_view text, char sep) {
  std::vector<std::string> parts;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find(sep, start);
    if (end == std::string_view::npos) end = text.size();
    if (end > start) parts.emplace_back(text.substr(start, end - start));
    start = end + 1;
  }
  return parts;
}

namespace {

template <class Range> std::string joined(const Range& parts, std::string_view sep) {
  std::string out;
  bool first = true;
  for (const std::string& part : parts) {
    if (!first) out += sep;
    out += part, first = false;
  }
  return out;
}

}  // namespace

std::string join(std::span<const std::string> parts, std::string_view sep) { return joined(parts, sep); }
std::string join(const std::set<std::string>& parts, std::string_view sep) { return joined(parts, sep); }

std::string shell_quote(std::string_view word) {
  if (!word.empty() && word.find_first_of(" \t\n'\"*?[]{}();&|<>$`\\!#~") == std::string_view::npos)
    return std::string(word);
  std::string out = "'";
  for (char c : word) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::string identifier(std::string_view text) {
  std::string out(text);
  for (char& c : out)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') c = '_';
  return out;
}

std::string sizes_text(std::span<const int64_t> sizes) {
  std::string text = "[";
  for (size_t i = 0; i < sizes.size(); ++i) text += (i ? ", " : "") + std::to_string(sizes[i]);
  return text + "]";
}

}  // namespace opsfuzz
