#include "argtypes/value.h"

#include "argtypes/names.h"

#include <cmath>
#include <sstream>
#include <stdexcept>

namespace opsfuzz {

std::string_view name(VarType t) {
  static constexpr std::string_view names[] = {"Bool",        "Int",          "Float",  "String", "ScalarDtype",
                                               "TensorDtype", "MemoryFormat", "Layout", "Device", "Tuple"};
  return names[static_cast<int>(t)];
}

bool is_numeric(const Value& v) {
  return std::holds_alternative<bool>(v) || std::holds_alternative<int64_t>(v) || std::holds_alternative<double>(v);
}

double as_double(const Value& v) {
  if (auto* b = std::get_if<bool>(&v)) return *b;
  if (auto* i = std::get_if<int64_t>(&v)) return static_cast<double>(*i);
  if (auto* d = std::get_if<double>(&v)) return *d;
  throw std::invalid_argument("not a number: " + to_string(v));
}

int64_t as_int(const Value& v) {
  if (auto* i = std::get_if<int64_t>(&v)) return *i;
  return static_cast<int64_t>(as_double(v));
}

size_t list_length(const Value& v) {
  if (auto* l = std::get_if<IntList>(&v)) return l->size();
  if (auto* l = std::get_if<Floats>(&v)) return l->size();
  if (auto* l = std::get_if<Bools>(&v)) return l->size();
  throw std::invalid_argument("not a list: " + to_string(v));
}

Value coerce(VarType t, const Value& v) {
  if (!is_numeric(v)) return v;
  switch (t) {
    case VarType::Bool: return as_double(v) != 0;
    case VarType::Int: {  // integral doubles within int64 become ints; others stay (no Int space holds them)
      double d = as_double(v);
      return d == std::floor(d) && d >= -0x1p63 && d < 0x1p63 ? Value(as_int(v)) : v;
    }
    case VarType::Float: return as_double(v);
    default: return v;
  }
}

namespace {
std::string double_text(double d) {
  if (std::isnan(d)) return "nan";
  if (std::isinf(d)) return d > 0 ? "inf" : "-inf";
  std::ostringstream os;
  os.precision(17);
  os << d;
  std::string s = os.str();
  if (s.find_first_of(".e") == std::string::npos) s += ".0";
  return s;
}

// "[a, b]" of the entries' texts.
template <class List> std::string list_text(const List& l) {
  std::string s = "[";
  for (size_t i = 0; i < l.size(); ++i)
    s += (i ? ", " : "") + to_string(Value(static_cast<typename List::value_type>(l[i])));
  return s + "]";
}

}  // namespace

std::string to_string(const Value& v) {
  struct {
    std::string operator()(bool b) const { return b ? "True" : "False"; }
    std::string operator()(int64_t i) const { return std::to_string(i); }
    std::string operator()(double d) const { return double_text(d); }
    std::string operator()(const std::string& s) const { return "'" + s + "'"; }
    std::string operator()(ScalarDtype d) const { return std::string(name(d)); }
    std::string operator()(c10::ScalarType t) const { return std::string(name(t)); }
    std::string operator()(c10::MemoryFormat f) const { return std::string(name(f)); }
    std::string operator()(c10::Layout l) const { return std::string(name(l)); }
    std::string operator()(c10::DeviceType d) const { return c10::DeviceTypeName(d, /*lower_case=*/true); }
    std::string operator()(const IntList& l) const { return list_text(l); }
    std::string operator()(const Floats& l) const { return list_text(l); }
    std::string operator()(const Bools& l) const { return list_text(l); }
  } visitor;
  return std::visit(visitor, v);
}

}  // namespace opsfuzz
