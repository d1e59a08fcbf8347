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

// bool, int or float (complex counts as float): what kind and dtype must agree on.
int scalar_kind_of(c10::ScalarType t) {
  if (t == c10::ScalarType::Bool) return 0;
  return c10::isIntegralType(t, false) ? 1 : 2;
}

}  // namespace

NodeParser::NodeParser(const Document& doc, Diagnostics& diagnostics)
    : doc_(doc), diagnostics_(diagnostics) {}

void NodeParser::error(const YamlValue& at, const std::string& path, std::string message) {
  diagnostics_.error(at.pos, test_, path, std::move(message));
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
    if (v.is_symbol()) {
      auto dim = doc_.dims.find(v.s);
      if (dim != doc_.dims.end()) return static_cast<double>(dim->second);
    }
    if (auto n = parse_numeric_string(v.s)) return n->number();
    if (v.quoted && doc_.dims.count(v.s))
      error(v, path,
            "\"" + v.s + "\" is quoted, so it is a string, not a dim symbol: write " + v.s +
                " unquoted");
    else
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

std::optional<int64_t> NodeParser::integer(const YamlValue& v, const std::string& path) {
  if (v.is_float() ||
      (v.is_string() && parse_numeric_string(v.s) && parse_numeric_string(v.s)->is_float())) {
    error(v, path, "expected an integer, got " + python_repr(v));
    return std::nullopt;
  }
  auto n = number(v, path);
  if (!n) return std::nullopt;
  return v.is_int() ? v.i : static_cast<int64_t>(*n);
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
      scalar_kind_of(*from_kind) != scalar_kind_of(*from_dtype)) {
    error(v, path, "kind and dtype disagree");
    return std::nullopt;
  }
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

// low/high (inclusive, given together), mean, std and p, with their bounds.
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
    error(low ? *low : *high, path + (low ? ".low" : ".high"),
          "low and high must be given together");
    ok = false;
  }
  n.has_range = low && high;
  field("low", n.low);
  field("high", n.high);
  field("mean", n.mean);
  field("std", n.std);
  field("p", n.p);
  if (ok && n.has_range && (is_scalar ? n.low >= n.high : n.low > n.high)) {
    error(*low, path + ".low",
          std::string("low must be ") + (is_scalar ? "less than" : "at most") + " high (low " +
              python_float(n.low) + ", high " + python_float(n.high) + ")");
    ok = false;
  }
  if (const YamlValue* p = v.find("p"); p && (n.p < 0 || n.p > 1)) {
    error(*p, path + ".p", "p must lie in [0, 1], got " + python_float(n.p));
    ok = false;
  }
  if (const YamlValue* s = v.find("std"); s && n.std < 0) {
    error(*s, path + ".std", "std must be non-negative, got " + python_float(n.std));
    ok = false;
  }
  return ok;
}

// The init method: given, or the dtype's default (bool: bernoulli, integer: randint, floating
// and complex: normal).
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
  if (!init_applies(it->second, n.dtype)) {
    error(*init, path + ".init",
          "init '" + name + "' cannot produce dtype " + std::string(c10::toString(n.dtype)));
    return false;
  }
  n.init = it->second;
  return true;
}

// init, low/high, mean/std, p, requires_grad: shared by tensors, scalar tensors and scalars.
bool NodeParser::sampling(Node& n, const YamlValue& v, const std::string& path, bool is_scalar) {
  bool ok = parameters(n, v, path, is_scalar);
  ok = init_method(n, v, path) && ok;
  if (const YamlValue* rg = v.find("requires_grad")) {
    if (!rg->is_bool()) {
      error(*rg, path + ".requires_grad", "requires_grad must be a bool");
      return false;
    }
    n.requires_grad = rg->b;
  }
  return ok;
}

// A literal tensor value: nested lists whose lengths follow the shape, numbers at the leaves.
bool NodeParser::value_matches_shape(const YamlValue& value, const Node& n, size_t depth,
                                     const std::string& path) {
  if (depth == n.shape.size()) {
    bool fits = value.is_bool() || value.is_int() ||
                (value.is_float() && !c10::isIntegralType(n.dtype, true));
    if (!fits)
      error(value, path,
            "value element " + python_repr(value) + " does not fit dtype " +
                std::string(c10::toString(n.dtype)));
    return fits;
  }
  if (!value.is_list() || static_cast<int64_t>(value.items.size()) != n.shape[depth]) {
    error(value, path,
          "value does not match the shape: expected a list of " + std::to_string(n.shape[depth]) +
              " at depth " + std::to_string(depth));
    return false;
  }
  for (size_t k = 0; k < value.items.size(); ++k)
    if (!value_matches_shape(value.items[k], n, depth + 1, path + "[" + std::to_string(k) + "]"))
      return false;
  return true;
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
    ok = value_matches_shape(*value, n, 0, path + ".value");  // a scalar tensor: shape []
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
  if (value && !value->is_number() && !value->is_bool()) {
    error(*value, path + ".value", "scalar value must be a number or a bool");
    return std::nullopt;
  }
  if (!v.find("kind") && !v.find("dtype") && value) {  // a literal tells its own kind
    n.dtype = value->is_bool()  ? c10::ScalarType::Bool
              : value->is_int() ? c10::ScalarType::Long
                                : c10::ScalarType::Double;
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
                                                      : value->is_number();
    if (!fits) {
      error(*value, path + ".value",
            "value " + python_repr(*value) + " does not fit kind " +
                std::string(is_bool                               ? "bool"
                            : c10::isIntegralType(n.dtype, false) ? "int"
                                                                  : "float"));
      return std::nullopt;
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
  auto n_len = integer(*len, path + ".len");
  if (n_len && *n_len < 0) error(*len, path + ".len", "len must be non-negative");
  auto e = node(*elem, path + ".elem");
  if (!n_len || *n_len < 0 || !e) return std::nullopt;
  Node n;
  n.type = NodeType::List;
  n.pos = v.pos;
  n.len = *n_len;
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
  const YamlValue* args = type == NodeType::Construct ? required(v, "args", path) : v.find("args");
  if (type == NodeType::Construct && !args) ok = false;
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
