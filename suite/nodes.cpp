#include "suite/nodes.h"

#include <cmath>
#include <span>

#include "argtypes/names.h"

namespace opsfuzz::suite {

namespace {

using Keys = std::vector<std::string>;

const Keys kNodeTypes = {"ref",  "tensor", "scalar",   "scalar_tensor", "int_list",
                         "list", "tuple",  "optional", "const",         "const_tensor",
                         "var",  "module", "construct"};

const std::vector<std::pair<std::string, Init>> kInits = {
    {"normal", Init::Normal}, {"uniform", Init::Uniform}, {"randint", Init::Randint},
    {"zeros", Init::Zeros},   {"ones", Init::Ones},       {"bernoulli", Init::Bernoulli}};

std::string join(std::span<const std::string> names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

std::string join_ints(const std::vector<int64_t>& ints) {
  std::string out;
  for (int64_t i : ints) out += (out.empty() ? "" : ", ") + std::to_string(i);
  return out;
}

std::vector<std::string> names_of(const std::map<std::string, int64_t>& m) {
  std::vector<std::string> out;
  for (const auto& [k, v] : m) out.push_back(k);
  return out;
}

std::vector<std::string> names_of(const std::map<std::string, Definition>& m) {
  std::vector<std::string> out;
  for (const auto& [k, v] : m) out.push_back(k);
  return out;
}

bool is_var_node(const YamlValue& v) {
  if (!v.is_map()) return false;
  const YamlValue* type = v.find("type");
  return type ? type->is_string() && type->s == "var" : v.find("var") != nullptr;
}

// Which init methods make sense for a dtype (an init that cannot apply is a load-time error).
bool init_applies(Init init, c10::ScalarType t) {
  bool is_bool = t == c10::ScalarType::Bool;
  bool is_complex = c10::isComplexType(t);
  bool is_integral = c10::isIntegralType(t, false);
  switch (init) {
    case Init::Normal:
    case Init::Uniform:
      return !is_bool && !is_integral;
    case Init::Randint:
    case Init::Bernoulli:
      return !is_complex;
    default:
      return true;
  }
}

// The dtype a literal scalar value carries.
c10::ScalarType literal_dtype(const YamlValue& v) {
  return v.is_bool() ? c10::ScalarType::Bool : v.is_int() ? c10::ScalarType::Long : c10::ScalarType::Double;
}

// bool, int or float (complex counts as float): what kind and dtype must agree on.
int scalar_kind_of(c10::ScalarType t) {
  if (t == c10::ScalarType::Bool) return 0;
  return c10::isIntegralType(t, false) ? 1 : 2;
}

}  // namespace

std::string quoted_dim_message(const std::string& name, int64_t value) {
  return "\"" + name + "\" is quoted, but dim symbols are written bare: read as dim " + name +
         " = " + std::to_string(value) + " (write " + name + " unquoted)";
}

NodeParser::NodeParser(const Document& doc, Diagnostics& diagnostics)
    : doc_(doc), diagnostics_(diagnostics) {}

void NodeParser::error(const YamlValue& at, const std::string& path, std::string message) {
  diagnostics_.error(at.pos, test_, path, std::move(message));
}

void NodeParser::warning(const YamlValue& at, const std::string& path, std::string message) {
  diagnostics_.warning(at.pos, test_, path, std::move(message));
}

void NodeParser::defer(Node& n, const YamlValue& at, const std::string& path, std::string message) {
  warning(at, path, message + ": the test fails when it runs");
  if (n.defect.empty()) n.defect = path + ": " + message;
}

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

void NodeParser::check_keys(const YamlValue& map, const Keys& allowed, const std::string& path) {
  for (const auto& [key, value] : map.entries) {
    std::string k = python_str(key);
    if (std::find(allowed.begin(), allowed.end(), k) == allowed.end())
      error(key, path, "unknown key '" + k + "'" + did_you_mean(k, allowed));
  }
}

const YamlValue* NodeParser::required(const YamlValue& map, const char* key,
                                      const std::string& path) {
  const YamlValue* v = map.find(key);
  if (!v) error(map, path, std::string("missing required key '") + key + "'");
  return v;
}

std::optional<double> NodeParser::number(const YamlValue& v, const std::string& path) {
  if (v.is_number()) return v.number();
  if (v.is_string()) {
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
std::optional<int64_t> NodeParser::integer(const YamlValue& v, const std::string& path) {
  if (v.is_int()) return v.i;
  auto n = number(v, path);
  if (!n) return std::nullopt;
  if (*n != std::trunc(*n) || std::abs(*n) > 9.0e15) {
    error(v, path, "expected an integer, got " + python_repr(v));
    return std::nullopt;
  }
  return static_cast<int64_t>(*n);
}

std::optional<Node> NodeParser::node(const YamlValue& v, const std::string& path,
                                     bool literal_maps) {
  if (!v.is_map()) {  // a literal value, passed as written
    Node n;
    n.type = NodeType::Const;
    n.pos = v.pos;
    n.has_value = true;
    n.value = v;
    return n;
  }
  const YamlValue* type = v.find("type");
  if (!type) {
    if (v.find("ref")) return ref(v, path);
    if (v.find("var")) {
      error(v, path, "template variable used outside a template");
      return std::nullopt;
    }
    if (literal_maps) return constant(v, path);
    error(v, path, "node has no 'type' (one of: " + join(kNodeTypes) + ")");
    return std::nullopt;
  }
  if (!type->is_string() ||
      std::find(kNodeTypes.begin(), kNodeTypes.end(), type->s) == kNodeTypes.end()) {
    std::string t = python_str(*type);
    error(*type, path + ".type",
          "unknown node type '" + t + "'" + did_you_mean(t, kNodeTypes) +
              "; expected one of: " + join(kNodeTypes));
    return std::nullopt;
  }
  return typed(type->s, v, path);
}

std::optional<Node> NodeParser::typed(const std::string& type, const YamlValue& v,
                                      const std::string& path) {
  if (type == "ref") return ref(v, path);
  if (type == "tensor") return tensor_like(NodeType::Tensor, v, path);
  if (type == "scalar_tensor") return tensor_like(NodeType::ScalarTensor, v, path);
  if (type == "const_tensor") return tensor_like(NodeType::ConstTensor, v, path);
  if (type == "scalar") return scalar(v, path);
  if (type == "int_list") return int_list(v, path);
  if (type == "list") return list(v, path);
  if (type == "tuple") return tuple(v, path);
  if (type == "optional") return optional(v, path);
  if (type == "const") return constant(v, path);
  if (type == "construct") return callable(NodeType::Construct, v, path);
  if (type == "module") return callable(NodeType::Module, v, path);
  // var: substituted during template expansion, so one reaching here is outside a template.
  check_keys(v, {"type", "name"}, path);
  const YamlValue* name = v.find("name");
  if (!name || !name->is_string() || name->s.empty())
    error(v, path, "a var node needs a non-empty string 'name'");
  else
    error(v, path, "template variable '" + name->s + "' used outside a template");
  return std::nullopt;
}

std::optional<Node> NodeParser::ref(const YamlValue& v, const std::string& path) {
  check_keys(v, v.find("type") ? Keys{"type", "ref"} : Keys{"ref"}, path);
  const YamlValue* target = required(v, "ref", path);
  if (!target) return std::nullopt;
  if (is_var_node(*target)) {
    error(*target, path + ".ref", "template variable used outside a template");
    return std::nullopt;
  }
  if (!target->is_string()) {
    error(*target, path + ".ref", "ref must be a preset name, got " + target->kind_name());
    return std::nullopt;
  }
  return preset(target->s, *target, path + ".ref");
}

std::optional<Node> NodeParser::preset(const std::string& name, const YamlValue& at,
                                       const std::string& path) {
  auto def = doc_.presets.find(name);
  if (def == doc_.presets.end()) {
    error(at, path, "unknown preset '" + name + "'" + did_you_mean(name, names_of(doc_.presets)));
    return std::nullopt;
  }
  if (auto done = presets_.find(name); done != presets_.end()) return done->second;
  if (resolving_.count(name)) {
    error(at, path, "preset '" + name + "' refers to itself");
    return std::nullopt;
  }
  resolving_.insert(name);
  std::string saved = test_;
  test_.clear();  // errors inside a preset belong to the preset, not to the test using it
  auto parsed = node(*def->second.value, "presets." + name);
  test_ = saved;
  resolving_.erase(name);
  presets_[name] = parsed;
  return parsed;
}

void NodeParser::check_presets() {
  for (const auto& [name, def] : doc_.presets) preset(name, *def.value, "presets." + name);
}

std::optional<c10::ScalarType> NodeParser::dtype(const YamlValue& v, const std::string& path,
                                                 bool scalar) {
  const YamlValue* kind = v.find("kind");
  const YamlValue* dtype = v.find("dtype");
  std::optional<c10::ScalarType> from_kind, from_dtype;
  if (kind) {
    std::string k = python_str(*kind);
    if (k == "float")
      from_kind = scalar ? c10::ScalarType::Double : c10::ScalarType::Float;
    else if (k == "int")
      from_kind = c10::ScalarType::Long;
    else if (k == "bool")
      from_kind = c10::ScalarType::Bool;
    else
      error(*kind, path + ".kind",
            "unknown kind '" + k + "'" + did_you_mean(k, Keys{"float", "int", "bool"}) +
                "; expected float, int or bool");
  }
  if (dtype) {
    std::string d = python_str(*dtype);
    from_dtype = parse_dtype(d);
    if (!from_dtype)
      error(*dtype, path + ".dtype",
            "unknown dtype '" + d + "'" + did_you_mean(d, dtype_names()) +
                "; expected one of: " + join(dtype_names()));
  }
  if (kind && dtype && from_kind && from_dtype &&
      scalar_kind_of(*from_kind) != scalar_kind_of(*from_dtype))
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
    if (!size || *size < 0)
      ok = false;
    else
      out.push_back(*size);
  }
  if (!ok) return std::nullopt;
  return out;
}

// low/high (inclusive), mean, std and p, with their bounds. A scalar needs both low and high,
// and low < high, or it cannot be sampled; a tensor keeps the default of the one not given, and
// bounds that cannot be sampled fail the test that uses it (as in the original framework).
bool NodeParser::parameters(Node& n, const YamlValue& v, const std::string& path, bool is_scalar) {
  bool ok = true;
  auto field = [&](const char* key, double& into) {
    if (const YamlValue* f = v.find(key)) {
      if (auto x = number(*f, path + "." + key))
        into = *x;
      else
        ok = false;
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
              std::string("low and high go together: ") + (low ? "high" : "low") +
                  " keeps its default " + (low ? "10" : "0"));
    }
  }
  n.has_range = low || high;
  field("low", n.low);
  field("high", n.high);
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
          "unknown init '" + name + "'" + did_you_mean(name, names) +
              "; expected one of: " + join(names));
    return false;
  }
  n.init = it->second;
  if (!init_applies(it->second, n.dtype))
    defer(n, *init, path + ".init",
          "init '" + name + "' cannot produce dtype " + std::string(c10::toString(n.dtype)));
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

namespace {

// A complex tensor's value may give each element as a [real, imaginary] pair: one level deeper.
bool complex_pairs(const Node& n, const YamlValue& value) {
  if (!c10::isComplexType(n.dtype)) return false;
  std::vector<int64_t> shape = n.shape;
  shape.push_back(2);
  return nests_as(value, shape);
}

// The bytes of an element written as bits: a floating element's, or a complex part's in pairs;
// 0 where elements cannot be written as bits.
size_t bits_width(const Node& n, bool pairs) {
  if (pairs) return c10::elementSize(c10::toRealValueType(n.dtype));
  return c10::isFloatingType(n.dtype) ? c10::elementSize(n.dtype) : 0;
}

// Why a literal tensor element cannot be read, if it cannot.
std::optional<std::string> element_problem(const YamlValue& e, size_t width, c10::ScalarType dtype) {
  if (e.is_bool() || e.is_number()) return std::nullopt;
  auto bits = parse_bits(e);
  if (!bits) return "value element " + python_repr(e) + " is not a number";
  std::string where = "a " + std::string(c10::toString(dtype)) + " element";
  if (width == 0) return "value element " + python_repr(e) + " gives bits, which only floating elements take";
  if (bits->bytes != width)
    return "value element " + python_repr(e) + " has " + std::to_string(2 * bits->bytes) + " hex digits, " +
           where + (c10::isComplexType(dtype) ? "'s part" : "") + " has " + std::to_string(2 * width);
  return std::nullopt;
}

}  // namespace

// A literal tensor value: numbers (or bools) nested as the shape says. A value whose elements
// are as many as the shape holds is reshaped to it; a float for an integral dtype is truncated;
// both with a warning, as the original framework's torch.tensor(value).reshape(shape) reads them.
// Beyond that framework: floating elements written by their bits, complex ones as pairs.
void NodeParser::check_value(Node& n, const YamlValue& value, const std::string& path) {
  bool pairs = complex_pairs(n, value);
  std::vector<const YamlValue*> elements;
  leaves(value, elements);
  for (const YamlValue* e : elements)
    if (auto problem = element_problem(*e, bits_width(n, pairs), n.dtype)) return defer(n, *e, path, *problem);
  if (pairs) return;
  int64_t numel = 1;
  for (int64_t size : n.shape) numel *= size;
  std::string dtype = c10::toString(n.dtype);
  if (!nests_as(value, n.shape)) {
    std::string shape = "[" + join_ints(n.shape) + "]";
    if (static_cast<int64_t>(elements.size()) != numel)
      return defer(n, value, path,
                   "value has " + std::to_string(elements.size()) + " elements, shape " + shape +
                       " holds " + std::to_string(numel));
    warning(value, path, "value is not nested as shape " + shape + ": its elements are reshaped to it");
  }
  if (c10::isIntegralType(n.dtype, true))
    for (const YamlValue* e : elements)
      if (e->is_float() && e->f != std::trunc(e->f)) {
        warning(*e, path, "value element " + python_repr(*e) + " is truncated to dtype " + dtype);
        break;
      }
}

std::optional<Node> NodeParser::tensor_like(NodeType type, const YamlValue& v,
                                            const std::string& path) {
  Keys keys = {"type", "kind", "dtype", "init", "low", "high", "mean", "std", "p", "requires_grad"};
  if (type != NodeType::Tensor) keys.push_back("value");
  if (type != NodeType::ScalarTensor) keys.push_back("shape");
  check_keys(v, keys, path);
  Node n;
  n.type = type;
  n.pos = v.pos;
  auto dt = dtype(v, path, false);
  bool ok = dt.has_value();
  if (dt) n.dtype = *dt;
  if (type != NodeType::ScalarTensor) {
    const YamlValue* s = required(v, "shape", path);
    auto sizes = s ? shape(*s, path + ".shape") : std::nullopt;
    if (sizes)
      n.shape = *sizes;
    else
      ok = false;
  }
  if (ok && !sampling(n, v, path, false)) ok = false;
  if (const YamlValue* value = v.find("value"); value && ok) {
    n.has_value = true;
    n.value = *value;
    check_value(n, *value, path + ".value");  // a scalar tensor: shape []
  }
  if (!ok) return std::nullopt;
  return n;
}

std::optional<Node> NodeParser::scalar(const YamlValue& v, const std::string& path) {
  check_keys(v, {"type", "kind", "dtype", "value", "low", "high", "p"}, path);
  Node n;
  n.type = NodeType::Scalar;
  n.pos = v.pos;
  const YamlValue* value = v.find("value");
  // A float written by its bits (a Python float is a float64: 16 hex digits).
  auto bits = value ? parse_bits(*value) : std::nullopt;
  if (bits && bits->bytes != 8) {
    error(*value, path + ".value", "scalar bits must have 16 hex digits (a Python float is a float64)");
    return std::nullopt;
  }
  if (value && !value->is_number() && !value->is_bool() && !bits) {
    error(*value, path + ".value", "scalar value must be a number, a bool or float64 bits (\"bits:0x...\")");
    return std::nullopt;
  }
  if (!v.find("kind") && !v.find("dtype") && value) {  // a literal tells its own kind
    n.dtype = literal_dtype(*value);
  } else if (auto dt = dtype(v, path, true)) {
    n.dtype = *dt;
  } else {
    return std::nullopt;
  }
  if (!sampling(n, v, path, true)) return std::nullopt;
  if (value) {
    bool is_bool = n.dtype == c10::ScalarType::Bool;
    bool fits = is_bool                               ? value->is_bool()
                : c10::isIntegralType(n.dtype, false) ? value->is_int()
                                                      : value->is_number() || bits;
    if (!fits) {  // the literal is passed as written, as the original framework passes it
      warning(*value, path + ".value",
              "value " + python_repr(*value) + " does not fit kind " +
                  std::string(is_bool                               ? "bool"
                              : c10::isIntegralType(n.dtype, false) ? "int"
                                                                    : "float") +
                  ": it is passed as written");
      n.dtype = literal_dtype(*value);
    }
    n.has_value = true;
    n.value = *value;
  }
  return n;
}

std::optional<Node> NodeParser::int_list(const YamlValue& v, const std::string& path) {
  check_keys(v, {"type", "elems"}, path);
  const YamlValue* elems = required(v, "elems", path);
  if (!elems) return std::nullopt;
  if (!elems->is_list() || elems->items.empty()) {
    error(*elems, path + ".elems", "elems must be a non-empty list of integers");
    return std::nullopt;
  }
  Node n;
  n.type = NodeType::IntList;
  n.pos = v.pos;
  bool ok = true;
  for (size_t k = 0; k < elems->items.size(); ++k) {
    auto i = integer(elems->items[k], path + ".elems[" + std::to_string(k) + "]");
    if (i)
      n.ints.push_back(*i);
    else
      ok = false;
  }
  if (!ok) return std::nullopt;
  return n;
}

std::optional<Node> NodeParser::list(const YamlValue& v, const std::string& path) {
  check_keys(v, {"type", "len", "elem"}, path);
  const YamlValue* len = required(v, "len", path);
  const YamlValue* elem = required(v, "elem", path);
  if (!len || !elem) return std::nullopt;
  // A fractional len is truncated, as the original framework does, with a warning.
  auto x = number(*len, path + ".len");
  if (x && *x != std::trunc(*x))
    warning(*len, path + ".len", "len " + python_float(*x) + " is truncated to " + python_float(std::trunc(*x)));
  if (x && *x < 0) error(*len, path + ".len", "len must be non-negative");
  auto e = node(*elem, path + ".elem");
  if (!x || *x < 0 || !e) return std::nullopt;
  Node n;
  n.type = NodeType::List;
  n.pos = v.pos;
  n.len = static_cast<int64_t>(*x);
  n.elems.push_back(std::move(*e));
  return n;
}

std::optional<Node> NodeParser::tuple(const YamlValue& v, const std::string& path) {
  check_keys(v, {"type", "elems"}, path);
  const YamlValue* elems = required(v, "elems", path);
  if (!elems) return std::nullopt;
  if (!elems->is_list()) {
    error(*elems, path + ".elems", "elems must be a list of nodes");
    return std::nullopt;
  }
  Node n;
  n.type = NodeType::Tuple;
  n.pos = v.pos;
  bool ok = true;
  for (size_t k = 0; k < elems->items.size(); ++k) {
    auto e = node(elems->items[k], path + ".elems[" + std::to_string(k) + "]");
    if (e)
      n.elems.push_back(std::move(*e));
    else
      ok = false;
  }
  if (!ok) return std::nullopt;
  return n;
}

std::optional<Node> NodeParser::optional(const YamlValue& v, const std::string& path) {
  check_keys(v, {"type", "p_none", "elem"}, path);
  Node n;
  n.type = NodeType::Optional;
  n.pos = v.pos;
  bool ok = true;
  if (const YamlValue* p = v.find("p_none")) {
    auto x = number(*p, path + ".p_none");
    if (x && (*x < 0 || *x > 1))
      error(*p, path + ".p_none", "p_none must lie in [0, 1], got " + python_float(*x));
    if (!x || *x < 0 || *x > 1)
      ok = false;
    else
      n.p_none = *x;
  }
  const YamlValue* elem = required(v, "elem", path);
  auto e = elem ? node(*elem, path + ".elem") : std::nullopt;
  if (!e || !ok) return std::nullopt;
  n.elems.push_back(std::move(*e));
  return n;
}

std::optional<Node> NodeParser::constant(const YamlValue& v, const std::string& path) {
  Node n;
  n.type = NodeType::Const;
  n.pos = v.pos;
  n.has_value = true;
  if (!v.find("type")) {  // a literal mapping among constructor arguments
    n.value = v;
    return n;
  }
  check_keys(v, {"type", "value"}, path);
  const YamlValue* value = required(v, "value", path);
  if (!value) return std::nullopt;
  n.value = *value;
  return n;
}

std::optional<Node> NodeParser::callable(NodeType type, const YamlValue& v,
                                         const std::string& path) {
  check_keys(v, {"type", "path", "args", "kwargs"}, path);
  Node n;
  n.type = type;
  n.pos = v.pos;
  const YamlValue* p = required(v, "path", path);
  bool ok = p != nullptr;
  if (p && (!p->is_string() || p->s.empty())) {
    error(*p, path + ".path", "path must be a non-empty string");
    ok = false;
  } else if (p) {
    n.path = p->s;
  }
  const YamlValue* args = v.find("args");  // args and kwargs default to empty
  if (args && args->is_null()) args = nullptr;
  if (args && !args->is_list()) {
    error(*args, path + ".args", "args must be a list");
    ok = false;
  } else if (args) {
    for (size_t k = 0; k < args->items.size(); ++k) {
      auto a = node(args->items[k], path + ".args[" + std::to_string(k) + "]", true);
      if (a)
        n.args.push_back(std::move(*a));
      else
        ok = false;
    }
  }
  if (const YamlValue* kwargs = v.find("kwargs"); kwargs && !kwargs->is_null()) {
    if (!kwargs->is_map()) {
      error(*kwargs, path + ".kwargs", "kwargs must be a mapping");
      ok = false;
    } else {
      for (const auto& [key, value] : kwargs->entries) {
        std::string k = python_str(key);
        auto a = node(value, path + ".kwargs." + k, true);
        if (a)
          n.kwargs.emplace_back(k, std::move(*a));
        else
          ok = false;
      }
    }
  }
  if (!ok) return std::nullopt;
  return n;
}

std::optional<Node> NodeParser::module(const YamlValue& v, const std::string& path) {
  return callable(NodeType::Module, v, path);
}

}  // namespace opsfuzz::suite
