// Reading the fields of nodes: bools, numbers and dim symbols, kind and dtype, shape, the range and
// distribution parameters, init.
#include <algorithm>
#include <cmath>
#include <span>

#include "argtypes/argtypes.h"
#include "argtypes/names.h"
#include "argtypes/text.h"
#include "suite/nodes.h"

namespace opsfuzz::suite {

namespace {

using Keys = std::vector<std::string>;

const std::vector<std::pair<std::string, Init>> kInits = {{"normal", Init::Normal},   {"uniform", Init::Uniform},
                                                          {"randint", Init::Randint}, {"zeros", Init::Zeros},
                                                          {"ones", Init::Ones},       {"bernoulli", Init::Bernoulli}};

std::vector<std::string> names_of(const std::map<std::string, int64_t>& m) {
  std::vector<std::string> out;
  for (const auto& [k, v] : m) out.push_back(k);
  return out;
}

// Which init methods make sense for a dtype (an init that cannot apply is a load-time error).
bool init_applies(Init init, c10::ScalarType t) {
  bool is_bool = t == c10::ScalarType::Bool;
  bool is_complex = c10::isComplexType(t);
  bool is_integral = c10::isIntegralType(t, false);
  switch (init) {
    case Init::Normal:
    case Init::Uniform: return !is_bool && !is_integral;
    case Init::Randint:
    case Init::Bernoulli: return !is_complex;
    default: return true;
  }
}

// bool, int or float (complex counts as float): what kind and dtype must agree on.
int scalar_kind_of(c10::ScalarType t) {
  if (t == c10::ScalarType::Bool) return 0;
  return c10::isIntegralType(t, false) ? 1 : 2;
}

}  // namespace

std::optional<bool> NodeParser::boolean(const YamlValue& v, const std::string& path) {
  if (v.is_bool()) return v.b;
  if (v.is_int() && (v.i == 0 || v.i == 1)) return v.i == 1;
  if (v.is_string()) {
    std::string s = v.s;
    for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    for (const char* t : {"true", "t", "yes", "y", "on", "1"})
      if (s == t) return true;
    for (const char* f : {"false", "f", "no", "n", "off", "0"})
      if (s == f) return false;
  }
  std::string key = path.substr(path.rfind('.') + 1);
  error(v, path, key + " must be a bool, got " + python_repr(v));
  return std::nullopt;
}

std::optional<double> NodeParser::number(const YamlValue& v, const std::string& path, bool symbols) {
  if (v.is_number()) return v.number();
  if (v.is_string()) {
    if (auto n = parse_numeric_string(v.s); n && !symbols) return n->number();
    if (!symbols) {
      std::string key = path.substr(path.rfind('.') + 1);
      error(v, path,
            "expected a number, got " + python_repr(v) + " (opdiff reads " + key +
                " as a number: dim symbols are not allowed here)");
      return std::nullopt;
    }
    if (auto dim = doc_.dims.find(v.s); dim != doc_.dims.end()) {
      if (v.quoted) warning(v, path, quoted_dim_message(v.s, dim->second));
      return static_cast<double>(dim->second);
    }
    if (auto n = parse_numeric_string(v.s)) return n->number();
    error(v, path, "unknown dim symbol '" + v.s + "'" + did_you_mean(v.s, names_of(doc_.dims)));
    return std::nullopt;
  }
  if (is_var_node(v)) {
    error(v, path, "template variables are not allowed here");
    return std::nullopt;
  }
  error(v, path, "expected a number or a dim symbol, got " + v.kind_name());
  return std::nullopt;
}

// An integer; a float with no fractional part (2.0) counts as one, as the original framework
// coerces it.
std::optional<int64_t> NodeParser::integer(const YamlValue& v, const std::string& path, bool symbols) {
  if (v.is_int()) return v.i;
  auto n = number(v, path, symbols);
  if (!n) return std::nullopt;
  if (*n != std::trunc(*n) || std::abs(*n) > 9.0e15) {
    error(v, path, "expected an integer, got " + python_repr(v));
    return std::nullopt;
  }
  return static_cast<int64_t>(*n);
}

std::optional<c10::ScalarType> NodeParser::dtype(const YamlValue& v, const std::string& path, bool scalar) {
  const YamlValue* kind = v.find("kind");
  const YamlValue* dtype = v.find("dtype");
  std::optional<c10::ScalarType> from_kind, from_dtype;
  if (kind) {
    std::string k = python_str(*kind);
    if (k == "float") from_kind = scalar ? c10::ScalarType::Double : c10::ScalarType::Float;
    else if (k == "int") from_kind = c10::ScalarType::Long;
    else if (k == "bool") from_kind = c10::ScalarType::Bool;
    else
      error(
          *kind, path + ".kind",
          "unknown kind '" + k + "'" + did_you_mean(k, Keys{"float", "int", "bool"}) + "; expected float, int or bool");
  }
  if (dtype) {
    // The format's names only: opdiff knows no alias (long, half, torch.float32), so neither do
    // we; an alias is named by what it stands for.
    std::string d = python_str(*dtype);
    auto names = dtype_names();
    if (std::find(names.begin(), names.end(), d) != names.end()) {
      from_dtype = parse_dtype(d);
    } else {
      std::string canonical;
      if (auto alias = parse_dtype(d))
        for (const auto& n : names)
          if (parse_dtype(n) == alias) canonical = n;
      error(*dtype, path + ".dtype",
            "unknown dtype '" + d + "'" +
                (canonical.empty() ? did_you_mean(d, names) : " (did you mean '" + canonical + "'?)") +
                "; expected one of: " + join(names));
    }
    if (from_dtype == c10::ScalarType::BFloat16)
      opdiff_refuses(*dtype, path + ".dtype", "dtype bfloat16",
                     "reads it (opdiff knows eleven dtypes: the list here without bfloat16)");
  }
  if (kind && dtype && from_kind && from_dtype && scalar_kind_of(*from_kind) != scalar_kind_of(*from_dtype))
    warning(v, path, "kind and dtype disagree: dtype " + python_str(*dtype) + " is used");
  if (!kind && !dtype) {
    error(v, path, "missing 'kind' or 'dtype'");
    return std::nullopt;
  }
  return from_dtype ? from_dtype : from_kind;
}

std::optional<std::vector<int64_t>> NodeParser::shape(const YamlValue& v, const std::string& path) {
  if (!v.is_list() || v.items.empty()) {
    error(v, path, "shape must be a non-empty list of sizes or dim symbols");
    return std::nullopt;
  }
  std::vector<int64_t> out;
  bool ok = true;
  for (size_t k = 0; k < v.items.size(); ++k) {
    std::string p = path + "[" + std::to_string(k) + "]";
    if (is_var_node(v.items[k])) {
      error(v.items[k], p, "template variables are not allowed in shape");
      ok = false;
      continue;
    }
    auto size = integer(v.items[k], p);
    if (size && *size < 0) error(v.items[k], p, "negative size " + std::to_string(*size));
    if (!size || *size < 0) ok = false;
    else out.push_back(*size);
  }
  if (!ok) return std::nullopt;
  return out;
}

bool elements_apart(const std::vector<int64_t>& shape, const std::vector<int64_t>& strides) {
  std::vector<std::pair<int64_t, int64_t>> dims;  // (stride, size)
  for (size_t d = 0; d < shape.size(); ++d)
    if (shape[d] > 1) dims.emplace_back(strides[d], shape[d]);
  std::sort(dims.begin(), dims.end());
  int64_t extent = 0;  // the largest offset the smaller strides reach
  for (const auto& [stride, size] : dims) {
    if (stride <= extent) return false;
    extent += stride * (size - 1);
  }
  return true;
}

bool NodeParser::layout(Node& n, const YamlValue& v, const std::string& path) {
  const YamlValue* strides = v.find("strides");
  const YamlValue* offset = v.find("offset");
  if (!strides && !offset) return true;
  bool ok = true;
  if (strides) {
    if (!strides->is_list() || strides->items.size() != n.shape.size()) {
      error(*strides, path + ".strides",
            "strides must be a list of one non-negative integer per dim (" + std::to_string(n.shape.size()) + ")");
      return false;
    }
    std::vector<int64_t> s;
    for (size_t k = 0; k < strides->items.size(); ++k) {
      std::string p = path + ".strides[" + std::to_string(k) + "]";
      auto stride = integer(strides->items[k], p, false);
      if (stride && *stride < 0) error(strides->items[k], p, "negative stride " + std::to_string(*stride));
      if (!stride || *stride < 0) return false;
      s.push_back(*stride);
    }
    if (!elements_apart(n.shape, s)) {
      error(*strides, path + ".strides",
            "these strides make elements share memory; a const_tensor's layout gives each element its own place");
      return false;
    }
    n.strides = std::move(s);
  }
  if (offset) {
    auto o = integer(*offset, path + ".offset", false);
    if (o && *o < 0) error(*offset, path + ".offset", "negative offset " + std::to_string(*o));
    if (!o || *o < 0) ok = false;
    else n.storage_offset = *o;
  }
  opdiff_ignores(strides ? *strides : *offset, path + (strides ? ".strides" : ".offset"),
                 "a tensor's layout (strides, offset)", "lays the tensor out so; opdiff passes it contiguous");
  return ok;
}

// low/high (inclusive), mean, std and p, with their bounds. A scalar needs both low and high,
// and low < high, or it cannot be sampled; a tensor keeps the default of the one not given, and
// bounds that cannot be sampled fail the test that uses it (as in the original framework).
bool NodeParser::parameters(Node& n, const YamlValue& v, const std::string& path, bool is_scalar) {
  bool ok = true;
  bool symbols = true;  // low and high take dim symbols
  auto field = [&](const char* key, double& into) {
    if (const YamlValue* f = v.find(key)) {
      if (auto x = number(*f, path + "." + key, symbols)) into = *x;
      else ok = false;
    }
  };
  if (is_scalar) {  // scalars default to [-3, 3], tensors to [0, 10]
    n.low = -3;
    n.high = 3;
  }
  const YamlValue* low = v.find("low");
  const YamlValue* high = v.find("high");
  if ((low == nullptr) != (high == nullptr)) {
    const YamlValue& given = low ? *low : *high;
    std::string where = path + (low ? ".low" : ".high");
    if (is_scalar) {
      error(given, where, "low and high must be given together");
      ok = false;
    } else {
      warning(given, where,
              std::string("low and high go together: ") + (low ? "high" : "low") + " keeps its default " +
                  (low ? "10" : "0"));
    }
  }
  n.has_range = low || high;
  field("low", n.low);
  field("high", n.high);
  symbols = false;  // opdiff reads these as plain floats
  field("mean", n.mean);
  field("std", n.std);
  field("p", n.p);
  if (!ok) return false;
  std::string bounds = "(low " + python_float(n.low) + ", high " + python_float(n.high) + ")";
  if (is_scalar && n.has_range && n.low >= n.high) {
    error(*low, path + ".low", "low must be less than high " + bounds);
    return false;
  }
  if (!is_scalar && n.has_range && n.low > n.high)
    defer(n, low ? *low : *high, path + (low ? ".low" : ".high"), "low must be at most high " + bounds);
  if (const YamlValue* p = v.find("p"); p && (n.p < 0 || n.p > 1)) {
    std::string message = "p must lie in [0, 1], got " + python_float(n.p);
    if (is_scalar) {
      error(*p, path + ".p", message);
      return false;
    }
    defer(n, *p, path + ".p", message);
  }
  if (const YamlValue* s = v.find("std"); s && n.std < 0)
    defer(n, *s, path + ".std", "std must be non-negative, got " + python_float(n.std));
  return true;
}

// The init method: given, or the dtype's default (bool: bernoulli, integer: randint, floating
// and complex: normal). One that cannot produce the dtype fails the test that uses the node.
bool NodeParser::init_method(Node& n, const YamlValue& v, const std::string& path) {
  n.init = n.dtype == c10::ScalarType::Bool      ? Init::Bernoulli
           : c10::isIntegralType(n.dtype, false) ? Init::Randint
                                                 : Init::Normal;
  const YamlValue* init = v.find("init");
  if (!init) return true;
  std::string name = python_str(*init);
  Keys names;
  for (const auto& e : kInits) names.push_back(e.first);
  auto it = std::find_if(kInits.begin(), kInits.end(), [&](auto& e) { return e.first == name; });
  if (it == kInits.end()) {
    error(*init, path + ".init",
          "unknown init '" + name + "'" + did_you_mean(name, names) + "; expected one of: " + join(names));
    return false;
  }
  n.init = it->second;
  if (!init_applies(it->second, n.dtype))
    defer(n, *init, path + ".init", "init '" + name + "' cannot produce dtype " + std::string(opsfuzz::name(n.dtype)));
  return true;
}

// init, low/high, mean/std, p, requires_grad: shared by tensors, scalar tensors and scalars.
bool NodeParser::sampling(Node& n, const YamlValue& v, const std::string& path, bool is_scalar) {
  bool ok = parameters(n, v, path, is_scalar);
  ok = init_method(n, v, path) && ok;
  if (const YamlValue* rg = v.find("requires_grad")) {
    auto flag = boolean(*rg, path + ".requires_grad");
    if (!flag) return false;
    n.requires_grad = *flag;
  }
  return ok;
}

}  // namespace opsfuzz::suite
