#include "suite/nodes.h"

#include <cmath>
#include <span>

#include "argtypes/argtypes.h"
#include "argtypes/names.h"
#include "argtypes/text.h"

namespace opsfuzz::suite {

namespace {

using Keys = std::vector<std::string>;

const Keys kNodeTypes = {"ref",      "tensor", "scalar",       "scalar_tensor", "int_list", "list",     "tuple",
                         "optional", "const",  "const_tensor", "var",           "module",   "construct"};

std::string join_ints(const std::vector<int64_t>& ints) {
  std::string out;
  for (int64_t i : ints) out += (out.empty() ? "" : ", ") + std::to_string(i);
  return out;
}

std::vector<std::string> names_of(const std::map<std::string, Definition>& m) {
  std::vector<std::string> out;
  for (const auto& [k, v] : m) out.push_back(k);
  return out;
}

// The dtype a literal scalar value carries.
c10::ScalarType literal_dtype(const YamlValue& v) {
  return v.is_bool() ? c10::ScalarType::Bool : v.is_int() ? c10::ScalarType::Long : c10::ScalarType::Double;
}

}  // namespace

std::string quoted_dim_message(const std::string& name, int64_t value) {
  return "\"" + name + "\" is quoted, but dim symbols are written bare: read as dim " + name + " = " +
         std::to_string(value) + " (write " + name + " unquoted)";
}

bool is_var_node(const YamlValue& v) {
  if (!v.is_map()) return false;
  const YamlValue* type = v.find("type");
  return type ? type->is_string() && type->s == "var" : v.find("var") != nullptr;
}

const YamlValue* non_string_key(const YamlValue& v) {
  for (const auto& [key, value] : v.entries) {
    if (!key.is_string()) return &key;
    if (const YamlValue* inner = non_string_key(value)) return inner;
  }
  for (const auto& item : v.items)
    if (const YamlValue* inner = non_string_key(item)) return inner;
  return nullptr;
}

NodeParser::NodeParser(const Document& doc, Diagnostics& diagnostics) : doc_(doc), diagnostics_(diagnostics) {}

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

void NodeParser::opdiff_refuses(const YamlValue& at, const std::string& path, const std::string& what,
                                const std::string& reading) {
  note_opdiff(at, path, what, "opdiff refuses it when it loads the suite; ops-fuzz " + reading);
}

void NodeParser::opdiff_ignores(const YamlValue& at, const std::string& path, const std::string& what,
                                const std::string& reading) {
  note_opdiff(at, path, what, "opdiff ignores it; ops-fuzz " + reading);
}

void NodeParser::note_opdiff(const YamlValue& at, const std::string& path, const std::string& what,
                             const std::string& says) {
  auto [it, first] = refusals_.try_emplace(what);
  if (first) {
    refusal_order_.push_back(what);
    it->second.first = Diagnostic{Diagnostic::Severity::Warning, at.pos, test_, path, what + ": " + says};
  }
  it->second.places.insert(at.pos.str() + " " + path);
}

void NodeParser::report_opdiff_refusals() {
  for (const auto& what : refusal_order_) {
    Refusal& r = refusals_.at(what);
    std::string message = r.first.message;
    if (size_t more = r.places.size() - 1; more > 0)
      message += " (and " + std::to_string(more) + " more in this suite)";
    diagnostics_.warning(r.first.pos, r.first.test, r.first.path, std::move(message));
  }
  refusals_.clear();
  refusal_order_.clear();
}

bool NodeParser::optional_string(const YamlValue& map, const char* key, const std::string& path) {
  const YamlValue* v = map.find(key);
  if (!v || v->is_null() || v->is_string()) return true;
  error(*v, path + "." + key,
        std::string(key) + " must be a string, got " + v->kind_name() + " " + python_repr(*v) +
            " (opdiff refuses it; quote it)");
  return false;
}

void NodeParser::check_keys(const YamlValue& map, const Keys& allowed, const std::string& path) {
  for (const auto& [key, value] : map.entries) {
    std::string k = python_str(key);
    if (std::find(allowed.begin(), allowed.end(), k) == allowed.end())
      error(key, path, "unknown key '" + k + "'" + did_you_mean(k, allowed));
  }
}

const YamlValue* NodeParser::required(const YamlValue& map, const char* key, const std::string& path) {
  const YamlValue* v = map.find(key);
  if (!v) error(map, path, std::string("missing required key '") + key + "'");
  return v;
}

std::optional<Node> NodeParser::node(const YamlValue& v, const std::string& path, bool literal_maps) {
  if (!v.is_map()) {  // a literal value, passed as written
    if (!literal_maps)
      opdiff_refuses(v, path, "a literal where a node is expected",
                     "passes it as written; write {type: const, value: " + python_str(v) + "}");
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
  if (!type->is_string() || std::find(kNodeTypes.begin(), kNodeTypes.end(), type->s) == kNodeTypes.end()) {
    std::string t = python_str(*type);
    error(*type, path + ".type",
          "unknown node type '" + t + "'" + did_you_mean(t, kNodeTypes) + "; expected one of: " + join(kNodeTypes));
    return std::nullopt;
  }
  if (!literal_maps && (type->s == "module" || type->s == "construct"))
    opdiff_refuses(*type, path + ".type", "a " + type->s + " node among a test's values or a preset",
                   "builds the object and passes it (opdiff takes these only as an op or a module's arguments)");
  return typed(type->s, v, path);
}

std::optional<Node> NodeParser::typed(const std::string& type, const YamlValue& v, const std::string& path) {
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
  if (!name || !name->is_string() || name->s.empty()) error(v, path, "a var node needs a non-empty string 'name'");
  else error(v, path, "template variable '" + name->s + "' used outside a template");
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

std::optional<Node> NodeParser::preset(const std::string& name, const YamlValue& at, const std::string& path) {
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
  std::string where = "a " + std::string(opsfuzz::name(dtype)) + " element";
  if (width == 0) return "value element " + python_repr(e) + " gives bits, which only floating elements take";
  if (bits->bytes != width)
    return "value element " + python_repr(e) + " has " + std::to_string(2 * bits->bytes) + " hex digits, " + where +
           (c10::isComplexType(dtype) ? "'s part" : "") + " has " + std::to_string(2 * width);
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
  std::string dtype = std::string(opsfuzz::name(n.dtype));
  if (!nests_as(value, n.shape)) {
    std::string shape = "[" + join_ints(n.shape) + "]";
    if (static_cast<int64_t>(elements.size()) != numel)
      return defer(n, value, path,
                   "value has " + std::to_string(elements.size()) + " elements, shape " + shape + " holds " +
                       std::to_string(numel));
    warning(value, path, "value is not nested as shape " + shape + ": its elements are reshaped to it");
  }
  if (c10::isIntegralType(n.dtype, true))
    for (const YamlValue* e : elements)
      if (e->is_float() && e->f != std::trunc(e->f)) {
        warning(*e, path, "value element " + python_repr(*e) + " is truncated to dtype " + dtype);
        break;
      }
}

std::optional<Node> NodeParser::tensor_like(NodeType type, const YamlValue& v, const std::string& path) {
  Keys keys = {"type", "kind", "dtype", "init", "low", "high", "mean", "std", "p", "requires_grad"};
  if (type != NodeType::Tensor) keys.push_back("value");
  if (type != NodeType::ScalarTensor) keys.push_back("shape");
  if (type == NodeType::ConstTensor) keys.insert(keys.end(), {"strides", "offset"});
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
    if (sizes) n.shape = *sizes;
    else ok = false;
  }
  if (ok && !sampling(n, v, path, false)) ok = false;
  if (ok && type == NodeType::ConstTensor && !layout(n, v, path)) ok = false;
  const YamlValue* value = v.find("value");
  if (value && ok && type == NodeType::ScalarTensor && !value->is_null()) ok = scalar_tensor_value(n, *value, path);
  if (const YamlValue* key = value ? non_string_key(*value) : nullptr) {
    error(*key, path + ".value",
          "a value's mapping keys must be strings, got " + python_repr(*key) + " (opdiff refuses it)");
    ok = false;
  }
  if (value && ok) {
    n.has_value = true;
    n.value = *value;
    check_value(n, *value, path + ".value");  // a scalar tensor: shape []
  }
  if (!ok) return std::nullopt;
  return n;
}

// A scalar tensor's value is one number or bool, as opdiff reads it; bits and a complex
// [real, imaginary] pair are read by ops-fuzz only.
bool NodeParser::scalar_tensor_value(const Node& n, const YamlValue& value, const std::string& path) {
  if (value.is_number() || value.is_bool() || (value.is_string() && !parse_bits(value))) return true;
  if (parse_bits(value)) {
    opdiff_refuses(value, path + ".value", "an element written by its bits", "reads the bits");
  } else if (complex_pairs(n, value)) {
    opdiff_refuses(value, path + ".value", "a complex element written as a [real, imaginary] pair", "reads the pair");
  } else {
    error(value, path + ".value",
          "a scalar_tensor's value must be a number or a bool, got " + value.kind_name() + " (opdiff refuses it)");
    return false;
  }
  return true;
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
  if (bits) opdiff_refuses(*value, path + ".value", "an element written by its bits", "reads the bits");
  if (auto dt = dtype(v, path, true)) {  // kind or dtype is required, as opdiff requires it
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
    auto i = integer(elems->items[k], path + ".elems[" + std::to_string(k) + "]", false);
    if (i) n.ints.push_back(*i);
    else ok = false;
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
    if (e) n.elems.push_back(std::move(*e));
    else ok = false;
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
    auto x = number(*p, path + ".p_none", false);
    if (x && (*x < 0 || *x > 1)) error(*p, path + ".p_none", "p_none must lie in [0, 1], got " + python_float(*x));
    if (!x || *x < 0 || *x > 1) ok = false;
    else n.p_none = *x;
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
  if (const YamlValue* key = non_string_key(*value)) {  // opdiff reads the value as JSON
    error(*key, path + ".value",
          "a value's mapping keys must be strings, got " + python_repr(*key) + " (opdiff refuses it)");
    return std::nullopt;
  }
  n.value = *value;
  return n;
}

std::optional<Node> NodeParser::callable(NodeType type, const YamlValue& v, const std::string& path) {
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
  // args and kwargs default to empty when left out; opdiff refuses them null.
  const YamlValue* args = v.find("args");
  if (args && !args->is_list()) {
    error(*args, path + ".args",
          std::string("args must be a list") + (args->is_null() ? " (leave it out for none)" : ""));
    ok = false;
  } else if (args) {
    for (size_t k = 0; k < args->items.size(); ++k) {
      auto a = node(args->items[k], path + ".args[" + std::to_string(k) + "]", true);
      if (a) n.args.push_back(std::move(*a));
      else ok = false;
    }
  }
  if (const YamlValue* kwargs = v.find("kwargs")) {
    if (!kwargs->is_map()) {
      error(*kwargs, path + ".kwargs",
            std::string("kwargs must be a mapping") + (kwargs->is_null() ? " (leave it out for none)" : ""));
      ok = false;
    } else {
      for (const auto& [key, value] : kwargs->entries) {
        std::string k = python_str(key);
        if (!key.is_string()) {
          error(key, path + ".kwargs",
                "kwargs names must be strings, got " + python_repr(key) + " (opdiff refuses it)");
          ok = false;
          continue;
        }
        auto a = node(value, path + ".kwargs." + k, true);
        if (a) n.kwargs.emplace_back(k, std::move(*a));
        else ok = false;
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
