#include "suite/value.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <regex>
#include <span>
#include <string_view>

namespace opsfuzz::suite {

std::string Pos::str() const {
  std::string out = file ? *file : std::string("<input>");
  if (line > 0) {
    out += ':';
    out += std::to_string(line);
    out += ':';
    out += std::to_string(column);
  }
  return out;
}

YamlValue YamlValue::null(Pos pos) {
  YamlValue v;
  v.pos = std::move(pos);
  return v;
}
YamlValue YamlValue::boolean(bool x, Pos pos) {
  YamlValue v = null(std::move(pos));
  v.kind = Kind::Bool;
  v.b = x;
  return v;
}
YamlValue YamlValue::integer(int64_t x, Pos pos) {
  YamlValue v = null(std::move(pos));
  v.kind = Kind::Int;
  v.i = x;
  return v;
}
YamlValue YamlValue::floating(double x, Pos pos) {
  YamlValue v = null(std::move(pos));
  v.kind = Kind::Float;
  v.f = x;
  return v;
}
YamlValue YamlValue::string(std::string x, bool quoted, Pos pos) {
  YamlValue v = null(std::move(pos));
  v.kind = Kind::String;
  v.s = std::move(x);
  v.quoted = quoted;
  return v;
}
YamlValue YamlValue::list(Pos pos) {
  YamlValue v = null(std::move(pos));
  v.kind = Kind::List;
  return v;
}
YamlValue YamlValue::map(Pos pos) {
  YamlValue v = null(std::move(pos));
  v.kind = Kind::Map;
  return v;
}

const YamlValue* YamlValue::find(std::string_view key) const {
  if (kind != Kind::Map) return nullptr;
  for (const auto& [k, v] : entries)
    if (k.is_string() && k.s == key) return &v;
  return nullptr;
}

YamlValue* YamlValue::find(std::string_view key) {
  return const_cast<YamlValue*>(static_cast<const YamlValue*>(this)->find(key));
}

void YamlValue::set(std::string key, YamlValue v) {
  if (YamlValue* old = find(key)) {
    *old = std::move(v);
    return;
  }
  entries.emplace_back(YamlValue::string(std::move(key), false, v.pos), std::move(v));
}

std::string YamlValue::kind_name() const {
  switch (kind) {
    case Kind::Null: return "null";
    case Kind::Bool: return "bool";
    case Kind::Int: return "int";
    case Kind::Float: return "float";
    case Kind::String: return "string";
    case Kind::List: return "list";
    case Kind::Map: return "mapping";
  }
  return "?";
}

// ---- Python rendering ----

namespace {

// A finite double in scientific form: its significant digits (no trailing zeros) and exponent.
struct Decimal {
  bool negative = false;
  std::string digits;
  int exponent = 0;
};

// Shortest round-trip digits, or `significant` digits rounded to nearest when given.
Decimal decimal(double x, int significant) {
  char buf[64];
  auto res = significant > 0 ? std::to_chars(buf, buf + sizeof buf, x, std::chars_format::scientific, significant - 1)
                             : std::to_chars(buf, buf + sizeof buf, x, std::chars_format::scientific);
  std::string sci(buf, res.ptr);  // "-1.2345e-05"
  Decimal d;
  d.negative = sci[0] == '-';
  if (d.negative) sci.erase(0, 1);
  size_t e = sci.find('e');
  d.exponent = std::stoi(sci.substr(e + 1));
  d.digits = sci.substr(0, e);
  d.digits.erase(std::remove(d.digits.begin(), d.digits.end(), '.'), d.digits.end());
  while (d.digits.size() > 1 && d.digits.back() == '0') d.digits.pop_back();
  return d;
}

// Python's repr layout: positional for exponents in [-4, 16), scientific outside ("1e-05", or
// "1.0e-05" with point_always).
std::string layout(const Decimal& d, bool point_always) {
  const std::string& digits = d.digits;
  int exponent = d.exponent;
  std::string out;
  if (exponent >= -4 && exponent < 16) {  // Python's repr switches to exponents outside this
    if (exponent < 0) {
      out = "0." + std::string(-exponent - 1, '0') + digits;
    } else if (static_cast<int>(digits.size()) <= exponent + 1) {
      out = digits + std::string(exponent + 1 - digits.size(), '0') + ".0";
    } else {
      out = digits.substr(0, exponent + 1) + "." + digits.substr(exponent + 1);
    }
  } else {
    out = digits.substr(0, 1);
    if (digits.size() > 1) out.append(".").append(digits, 1);
    else if (point_always) out += ".0";
    char exp[16];
    std::snprintf(exp, sizeof exp, "e%c%02d", exponent < 0 ? '-' : '+', std::abs(exponent));
    out += exp;
  }
  return d.negative ? "-" + out : out;
}

}  // namespace

std::string python_float(double x) {
  if (std::isnan(x)) return "nan";
  if (std::isinf(x)) return x > 0 ? "inf" : "-inf";
  return layout(decimal(x, 0), false);
}

std::string yaml_float(double x, int significant) {
  if (std::isnan(x)) return ".nan";
  if (std::isinf(x)) return x > 0 ? ".inf" : "-.inf";
  return layout(decimal(x, significant), true);
}

std::optional<ElementBits> parse_bits(const YamlValue& v) {
  static constexpr std::string_view kPrefix = "bits:0x";
  if (!v.is_string() || !v.s.starts_with(kPrefix)) return std::nullopt;
  std::string_view hex = std::string_view(v.s).substr(kPrefix.size());
  if (hex.size() != 4 && hex.size() != 8 && hex.size() != 16) return std::nullopt;
  ElementBits out{0, hex.size() / 2};
  auto res = std::from_chars(hex.data(), hex.data() + hex.size(), out.bits, 16);
  if (res.ec != std::errc() || res.ptr != hex.data() + hex.size()) return std::nullopt;
  return out;
}

std::string bits_text(uint64_t bits, size_t bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "bits:0x%0*llx", static_cast<int>(2 * bytes), static_cast<unsigned long long>(bits));
  return buf;
}

bool nests_as(const YamlValue& value, std::span<const int64_t> shape) {
  if (shape.empty()) return !value.is_list();
  if (!value.is_list() || static_cast<int64_t>(value.items.size()) != shape[0]) return false;
  return std::all_of(value.items.begin(), value.items.end(),
                     [&](const YamlValue& item) { return nests_as(item, shape.subspan(1)); });
}

void leaves(const YamlValue& value, std::vector<const YamlValue*>& out) {
  if (!value.is_list()) return out.push_back(&value);
  for (const auto& item : value.items) leaves(item, out);
}

std::string escaped(const std::string& s, char quote) {
  std::string out;
  for (unsigned char c : s) {
    if (c == '\\' || c == static_cast<unsigned char>(quote)) {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\r') {
      out += "\\r";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c < 0x20 || c == 0x7f) {
      char hex[8];
      std::snprintf(hex, sizeof hex, "\\x%02x", c);
      out += hex;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

static std::string python_string_repr(const std::string& s) {
  bool has_single = s.find('\'') != std::string::npos;
  bool has_double = s.find('"') != std::string::npos;
  char quote = has_single && !has_double ? '"' : '\'';
  return quote + escaped(s, quote) + quote;
}

std::string python_repr(const YamlValue& v) {
  switch (v.kind) {
    case YamlValue::Kind::Null: return "None";
    case YamlValue::Kind::Bool: return v.b ? "True" : "False";
    case YamlValue::Kind::Int: return std::to_string(v.i);
    case YamlValue::Kind::Float: return python_float(v.f);
    case YamlValue::Kind::String: return python_string_repr(v.s);
    case YamlValue::Kind::List: {
      std::string out = "[";
      for (size_t k = 0; k < v.items.size(); ++k) out += (k ? ", " : "") + python_repr(v.items[k]);
      return out + "]";
    }
    case YamlValue::Kind::Map: {
      std::string out = "{";
      for (size_t k = 0; k < v.entries.size(); ++k)
        out += (k ? ", " : "") + python_repr(v.entries[k].first) + ": " + python_repr(v.entries[k].second);
      return out + "}";
    }
  }
  return "";
}

std::string python_str(const YamlValue& v) { return v.is_string() ? v.s : python_repr(v); }

bool python_equal(const YamlValue& a, const YamlValue& b) {
  auto numeric = [](const YamlValue& v) { return v.is_number() || v.is_bool(); };
  if (numeric(a) && numeric(b)) {  // Python: True == 1 == 1.0
    auto as_double = [](const YamlValue& v) { return v.is_bool() ? double(v.b) : v.number(); };
    if (a.is_float() || b.is_float()) return as_double(a) == as_double(b);
    return (a.is_bool() ? int64_t(a.b) : a.i) == (b.is_bool() ? int64_t(b.b) : b.i);
  }
  if (a.kind != b.kind) return false;
  switch (a.kind) {
    case YamlValue::Kind::Null: return true;
    case YamlValue::Kind::String: return a.s == b.s;
    case YamlValue::Kind::List:
      if (a.items.size() != b.items.size()) return false;
      for (size_t k = 0; k < a.items.size(); ++k)
        if (!python_equal(a.items[k], b.items[k])) return false;
      return true;
    case YamlValue::Kind::Map:
      if (a.entries.size() != b.entries.size()) return false;
      for (const auto& [key, value] : a.entries) {
        bool found = false;
        for (const auto& [key2, value2] : b.entries)
          if (python_equal(key, key2)) {
            found = python_equal(value, value2);
            break;
          }
        if (!found) return false;
      }
      return true;
    default: return false;
  }
}

// ---- YAML 1.1 scalar resolution (the implicit resolvers of PyYAML) ----

namespace {

// YAML 1.1's words for null, booleans and the special floats, and its number syntax
// (yaml.org/type/int.html, float.html), matched by hand: a suite's scalars (keys, shapes, values)
// are many, and a regular expression per scalar made reading them slow.
constexpr std::string_view kNull[] = {"~", "null", "Null", "NULL", ""};
constexpr std::string_view kBool[] = {"yes",   "Yes",   "YES",   "no", "No", "NO", "true", "True", "TRUE",
                                      "false", "False", "FALSE", "on", "On", "ON", "off",  "Off",  "OFF"};
constexpr std::string_view kInf[] = {".inf", ".Inf", ".INF"};
constexpr std::string_view kNan[] = {".nan", ".NaN", ".NAN"};

bool is_one_of(std::string_view s, std::span<const std::string_view> words) {
  return std::ranges::find(words, s) != words.end();
}

bool digit(char c) { return c >= '0' && c <= '9'; }
bool digit_or_underscore(char c) { return digit(c) || c == '_'; }

// The length of the run of characters `in` accepts at the front of `s`.
template <class Pred> size_t run_of(std::string_view s, Pred in) {
  size_t n = 0;
  while (n < s.size() && in(s[n])) ++n;
  return n;
}

// Non-empty and every character accepted.
template <class Pred> bool all_of(std::string_view s, Pred in) { return !s.empty() && run_of(s, in) == s.size(); }

// Base 60's parts after the first: one or more ":" [0-5]?[0-9].
bool sexagesimal_tail(std::string_view s) {
  if (s.empty()) return false;
  while (!s.empty()) {
    if (s[0] != ':') return false;
    s.remove_prefix(1);
    const size_t n = run_of(s, digit);
    if (n == 0 || n > 2 || (n == 2 && s[0] > '5')) return false;
    s.remove_prefix(n);
  }
  return true;
}

// An exponent, or nothing: [eE][-+][0-9]+.
bool optional_exponent(std::string_view s) {
  return s.empty() ||
         (s.size() >= 3 && (s[0] == 'e' || s[0] == 'E') && (s[1] == '-' || s[1] == '+') && all_of(s.substr(2), digit));
}

// YAML 1.1's int: [-+]? then binary 0b.., octal 0.., decimal, hexadecimal 0x.. or base 60 (1:30);
// underscores between digits.
bool yaml_int_syntax(std::string_view text) {
  std::string_view s = text.substr(!text.empty() && (text[0] == '-' || text[0] == '+'));
  if (s.starts_with("0b")) return all_of(s.substr(2), [](char c) { return c == '0' || c == '1' || c == '_'; });
  if (s.starts_with("0x"))
    return all_of(s.substr(2), [](char c) { return std::isxdigit(static_cast<unsigned char>(c)) || c == '_'; });
  if (s == "0") return true;
  if (s.starts_with('0')) return all_of(s.substr(1), [](char c) { return (c >= '0' && c <= '7') || c == '_'; });
  if (s.empty() || !digit(s[0])) return false;
  const size_t head = run_of(s, digit_or_underscore);
  return head == s.size() || sexagesimal_tail(s.substr(head));
}

// YAML 1.1's float: [-+]? digits "." digits exponent?, "." digits exponent? (unsigned), base 60
// with a fraction (1:30.5), [-+]?.inf, .nan; underscores between digits.
bool yaml_float_syntax(std::string_view text) {
  const bool has_sign = !text.empty() && (text[0] == '-' || text[0] == '+');
  std::string_view s = text.substr(has_sign);
  if (is_one_of(s, kInf)) return true;
  if (s.starts_with('.')) {
    if (has_sign) return false;
    if (is_one_of(s, kNan)) return true;
    const size_t n = run_of(s.substr(1), digit_or_underscore);
    return n > 0 && optional_exponent(s.substr(1 + n));
  }
  if (s.empty() || !digit(s[0])) return false;
  s.remove_prefix(run_of(s, digit_or_underscore));
  const size_t dot = s.find('.');
  if (dot == std::string_view::npos) return false;
  const std::string_view fraction = s.substr(dot + 1);
  if (dot == 0) return optional_exponent(fraction.substr(run_of(fraction, digit_or_underscore)));
  return sexagesimal_tail(s.substr(0, dot)) && run_of(fraction, digit_or_underscore) == fraction.size();
}

std::string without_underscores(std::string_view text) {
  std::string out;
  for (char c : text)
    if (c != '_') out += c;
  return out;
}

// Splits off a leading sign; returns -1 or +1.
int take_sign(std::string& text) {
  if (!text.empty() && (text[0] == '-' || text[0] == '+')) {
    int sign = text[0] == '-' ? -1 : 1;
    text.erase(0, 1);
    return sign;
  }
  return 1;
}

std::optional<int64_t> parse_base(const std::string& digits, int base) {
  if (digits.empty()) return std::nullopt;
  int64_t v = 0;
  auto res = std::from_chars(digits.data(), digits.data() + digits.size(), v, base);
  if (res.ec != std::errc() || res.ptr != digits.data() + digits.size()) return std::nullopt;
  return v;
}

std::optional<int64_t> construct_int(std::string_view raw) {
  std::string text = without_underscores(raw);
  int sign = take_sign(text);
  // The sign goes with the digits, so that -9223372036854775808 (whose magnitude int64 lacks) reads.
  auto signed_digits = [&](size_t skip, int base) {
    std::string digits = sign < 0 ? "-" : "";
    return parse_base(digits.append(text, skip), base);
  };
  if (text == "0") return 0;
  if (text.starts_with("0b")) return signed_digits(2, 2);
  if (text.starts_with("0x")) return signed_digits(2, 16);
  if (text[0] == '0') return signed_digits(0, 8);
  if (text.find(':') == std::string::npos) return signed_digits(0, 10);
  int64_t total = 0;  // base 60: 1:30 -> 90
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find(':', start);
    if (end == std::string::npos) end = text.size();
    auto part = parse_base(text.substr(start, end - start), 10);
    if (!part) return std::nullopt;
    total = total * 60 + *part;
    start = end + 1;
  }
  return sign * total;
}

std::optional<double> construct_float(std::string_view raw) {
  std::string text = without_underscores(raw);
  for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  double sign = take_sign(text);
  if (text == ".inf") return sign * std::numeric_limits<double>::infinity();
  if (text == ".nan") return std::numeric_limits<double>::quiet_NaN();
  if (text.find(':') != std::string::npos) {  // base 60: 1:30.5 -> 90.5
    double total = 0;
    size_t start = 0;
    while (true) {
      size_t end = text.find(':', start);
      std::string part = text.substr(start, end == std::string::npos ? end : end - start);
      total = total * 60 + std::strtod(part.c_str(), nullptr);
      if (end == std::string::npos) break;
      start = end + 1;
    }
    return sign * total;
  }
  return sign * std::strtod(text.c_str(), nullptr);
}

bool may_be_number(const std::string& text) {
  return !text.empty() && std::string_view("-+0123456789.").find(text[0]) != std::string::npos;
}

}  // namespace

YamlValue resolve_plain_scalar(const std::string& text, Pos pos) {
  if (is_one_of(text, kNull)) return YamlValue::null(std::move(pos));
  if (is_one_of(text, kBool)) {
    char c = text[0];
    return YamlValue::boolean(
        c == 'y' || c == 'Y' || c == 't' || c == 'T' || ((c == 'o' || c == 'O') && (text[1] == 'n' || text[1] == 'N')),
        std::move(pos));
  }
  if (may_be_number(text)) {
    if (yaml_float_syntax(text))
      if (auto f = construct_float(text)) return YamlValue::floating(*f, std::move(pos));
    if (yaml_int_syntax(text))
      if (auto i = construct_int(text)) return YamlValue::integer(*i, std::move(pos));
  }
  return YamlValue::string(text, false, std::move(pos));
}

std::optional<YamlValue> parse_numeric_string(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) text.remove_prefix(1);
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.remove_suffix(1);
  static const std::regex kDecimalInt("[-+]?[0-9]+(?:_[0-9]+)*");
  static const std::regex kDecimalFloat(
      "[-+]?(?:(?:[0-9]+(?:_[0-9]+)*)?\\.?[0-9]+(?:_[0-9]+)*|[0-9]+(?:_[0-9]+)*\\.)"
      "(?:[eE][-+]?[0-9]+)?|[-+]?(?:inf|infinity|nan)",
      std::regex::icase);
  std::string s(text);
  if (std::regex_match(s, kDecimalInt)) {
    if (auto v = parse_base(without_underscores(s.substr(s[0] == '+' ? 1 : 0)), 10)) return YamlValue::integer(*v);
    return std::nullopt;
  }
  if (std::regex_match(s, kDecimalFloat))
    return YamlValue::floating(std::strtod(without_underscores(s).c_str(), nullptr));
  return std::nullopt;
}

}  // namespace opsfuzz::suite
