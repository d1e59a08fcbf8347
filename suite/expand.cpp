// Template expansion and test parsing: from the merged document to a Suite of concrete tests.
#include <charconv>
#include <map>

#include "suite/ids.h"
#include "suite/nodes.h"
#include "suite/suite.h"

namespace opsfuzz::suite {

namespace {

using Keys = std::vector<std::string>;
using Assignment = std::vector<std::pair<std::string, YamlValue>>;  // var name -> value as written

const Keys kTestKeys = {"id", "impl", "op", "in", "kwargs", "out", "device", "cast_input0_to_complex", "backend_seed"};

// A template's declared vars and the assignments it expands to.
struct Template {
  std::vector<std::pair<std::string, std::vector<YamlValue>>> vars;  // sorted by name
  std::vector<Assignment> assignments;
};

std::string label(const RawTest& raw) {
  std::string out = "tests[" + std::to_string(raw.index) + "]";
  const YamlValue* id = raw.node->is_map() ? raw.node->find("id") : nullptr;
  if (id && !python_str(*id).empty()) out += " (" + python_str(*id) + ")";
  return out;
}

class Expander {
 public:
  Expander(const Document& doc, Diagnostics& diagnostics)
      : doc_(doc), diagnostics_(diagnostics), parser_(doc, diagnostics) {}

  Suite run();

 private:
  void expand(const RawTest& raw, size_t position);
  void expand_module_template(const RawTest& raw, const YamlValue& op);
  void expand_compare_pair(const RawTest& raw, const YamlValue& op);
  void expand_explicit_pair(const RawTest& raw, size_t position);
  std::optional<Template> parse_template(const YamlValue& op, const std::string& path);
  void check_var_value(const YamlValue& v, const std::string& path);
  std::vector<Assignment> assignments(const Template& t, const YamlValue* cases, const std::string& path);
  std::optional<std::vector<const YamlValue*>> case_list(const Template& t, const YamlValue* cases,
                                                         const std::string& path);
  void expand_case(const Template& t, const YamlValue* c, const std::string& path, std::vector<Assignment>& out);
  // Replaces var nodes in v by their values (a dim symbol by its integer). In a test's values
  // (in, kwargs) opdiff takes a var node only as a ref's target.
  YamlValue substitute(const YamlValue& v, const Assignment& env, const std::string& path, bool values = false);
  bool var_name(const YamlValue& key, const std::string& path);
  void check_path(const YamlValue& op, const std::string& path);
  // The raw test with its op replaced and vars substituted in in/kwargs.
  YamlValue concrete_test(const YamlValue& raw, YamlValue op, const Assignment& env);
  // Parses a concrete test and adds it to the suite; its index, or nullopt if invalid.
  std::optional<size_t> add_test(const RawTest& raw, const YamlValue& test, std::string id, std::string pair);
  bool parse_op(const YamlValue& v, Test& t);
  bool parse_inputs(const YamlValue& v, Test& t);  // in and kwargs
  bool parse_device(const YamlValue& v, Test& t);
  bool parse_cast(const YamlValue& v, Test& t, bool inputs_ok);
  bool parse_backend_seed(const YamlValue& v, Test& t);
  void note_duplicate_id(const Test& t);

  const Document& doc_;
  Diagnostics& diagnostics_;
  NodeParser parser_;
  Suite suite_;
  std::map<std::string, Pos> ids_;  // expanded id -> where its test was written
  std::string path_;                // "tests[3]" of the test being expanded
};

Suite Expander::run() {
  parser_.check_presets();
  for (size_t k = 0; k < doc_.tests.size(); ++k) expand(doc_.tests[k], k);
  parser_.set_test("");
  parser_.report_opdiff_refusals();
  for (const auto& d : diagnostics_.warnings()) suite_.warnings.push_back(d.str());
  return std::move(suite_);
}

void Expander::expand(const RawTest& raw, size_t position) {
  path_ = "tests[" + std::to_string(raw.index) + "]";
  parser_.set_test(label(raw));
  const YamlValue& test = *raw.node;
  if (!test.is_map()) {
    parser_.error(test, path_, "a test must be a mapping");
    return;
  }
  parser_.optional_string(test, "id", path_);
  const YamlValue* test_type = test.find("type");
  if (test.find("a") || test.find("b") || (test_type && python_str(*test_type) == "pair"))
    return expand_explicit_pair(raw, position);
  const YamlValue* op = test.find("op");
  const YamlValue* type = op && op->is_map() ? op->find("type") : nullptr;
  std::string kind = type ? python_str(*type) : "";
  if (kind == "template_module") return expand_module_template(raw, *op);
  if (kind == "template_compare_pair") return expand_compare_pair(raw, *op);
  const YamlValue* id = test.find("id");
  std::string name = id ? python_str(*id) : "";
  if (name.empty() && op) {
    const YamlValue* module_path = op->is_map() ? op->find("path") : nullptr;
    name = default_id(op->is_string() ? op->s : module_path ? python_str(*module_path) : "", position);
  }
  add_test(raw, test, name, "");
}

// A pair test written out (`{type: pair, id: p, a: TEST, b: TEST}`): two complete tests compared,
// as the suites' original framework reads them. A side without an id is `<pair id>__a` (`__b`).
void Expander::expand_explicit_pair(const RawTest& raw, size_t position) {
  const YamlValue& test = *raw.node;
  parser_.check_keys(test, {"type", "id", "a", "b"}, path_);
  const YamlValue* type = test.find("type");
  bool ok = true;
  if (type && python_str(*type) != "pair") {
    parser_.error(*type, path_ + ".type", "a test with sides a and b is a pair test (type: pair)");
    ok = false;
  }
  const YamlValue* id = test.find("id");
  std::string pair_id = id && !python_str(*id).empty() ? python_str(*id) : "pair__" + std::to_string(position);
  const YamlValue* sides[2] = {test.find("a"), test.find("b")};
  for (int k = 0; k < 2; ++k) {
    std::string p = path_ + "." + (k == 0 ? "a" : "b");
    const YamlValue* s = sides[k];
    const YamlValue* op = s && s->is_map() ? s->find("op") : nullptr;
    const YamlValue* op_type = op && op->is_map() ? op->find("type") : nullptr;
    if (!s || !s->is_map()) {
      parser_.error(s ? *s : test, p, "a pair test needs sides a and b, each a test");
      ok = false;
    } else if (op_type && python_str(*op_type).starts_with("template")) {
      parser_.error(*op_type, p + ".op.type", "a side of a pair test cannot be a template");
      ok = false;
    }
  }
  if (!ok) return;
  size_t indexes[2] = {0, 0};
  std::string pair_path = path_;
  for (int k = 0; k < 2; ++k) {
    const char* side = k == 0 ? "a" : "b";
    const YamlValue* side_id = sides[k]->find("id");
    std::string name = side_id && !python_str(*side_id).empty() ? python_str(*side_id) : pair_id + "__" + side;
    path_ = pair_path + "." + side;
    auto index = add_test(raw, *sides[k], name, pair_id);
    if (!index) ok = false;
    else indexes[k] = *index;
  }
  path_ = pair_path;
  if (ok) suite_.pairs.push_back(PairTest{pair_id, indexes[0], indexes[1]});
}

bool looks_like_node(const YamlValue& v) { return v.is_map() && (v.find("type") || v.find("var") || v.find("ref")); }

// Var values (in vars and cases) are plain values: a node among them is taken as a literal
// mapping, and a quoted dim name as the dim, as the suites' original framework takes them; both
// with a warning.
void Expander::check_var_value(const YamlValue& v, const std::string& path) {
  if (const YamlValue* key = non_string_key(v))  // opdiff reads var values as JSON
    parser_.error(*key, path,
                  "a value's mapping keys must be strings, got " + python_repr(*key) + " (opdiff refuses it)");
  if (looks_like_node(v))
    parser_.warning(v, path, "a var value is a plain value: this node is passed as a literal mapping");
  if (auto dim = doc_.dims.find(v.s); v.is_string() && v.quoted && dim != doc_.dims.end())
    parser_.warning(v, path, quoted_dim_message(v.s, dim->second));
}

std::optional<Template> Expander::parse_template(const YamlValue& op, const std::string& path) {
  // No vars (absent, null or {}) is a template of one test per case, or of one test.
  static const YamlValue kNoVars = YamlValue::map({});
  const YamlValue* vars = op.find("vars");
  if (!vars) vars = &kNoVars;
  if (!vars->is_map()) {
    parser_.error(*vars, path + ".vars",
                  "vars must be a mapping of var names to lists of values" +
                      std::string(vars->is_null() ? " (leave it out for none)" : ""));
    return std::nullopt;
  }
  Template t;
  bool ok = true;
  for (const auto& [key, values] : vars->entries) {
    std::string name = python_str(key), p = path + ".vars." + name;
    if (!var_name(key, path + ".vars")) {
      ok = false;
      continue;
    }
    if (!values.is_list() || values.items.empty()) {
      parser_.error(values, p, "var '" + name + "' must be a non-empty list of values");
      ok = false;
      continue;
    }
    for (size_t k = 0; k < values.items.size(); ++k)
      check_var_value(values.items[k], p + "[" + std::to_string(k) + "]");
    t.vars.emplace_back(name, values.items);
  }
  std::sort(t.vars.begin(), t.vars.end(), [](auto& a, auto& b) { return a.first < b.first; });
  if (!ok) return std::nullopt;
  t.assignments = assignments(t, op.find("cases"), path);
  if (t.assignments.empty()) return std::nullopt;
  return t;
}

// A var name, in vars or a case: a string with more than spaces, as opdiff requires.
bool Expander::var_name(const YamlValue& key, const std::string& path) {
  if (key.is_string() && key.s.find_first_not_of(" \t\n\r\f\v") != std::string::npos) return true;
  parser_.error(key, path, "var names must be non-empty strings, got " + python_repr(key) + " (opdiff refuses it)");
  return false;
}

// The template's cases (one empty case when there are none); nullopt if they are invalid.
std::optional<std::vector<const YamlValue*>> Expander::case_list(const Template& t, const YamlValue* cases,
                                                                 const std::string& path) {
  // No cases (absent or []) is one empty case: the Cartesian product of the vars.
  if (!cases || (cases->is_list() && cases->items.empty())) return std::vector<const YamlValue*>{nullptr};
  if (!cases->is_list()) {
    parser_.error(*cases, path + ".cases",
                  "cases must be a list of mappings" + std::string(cases->is_null() ? " (leave it out for none)" : ""));
    return std::nullopt;
  }
  Keys declared;
  for (const auto& [name, values] : t.vars) declared.push_back(name);
  std::vector<const YamlValue*> out;
  bool ok = true;
  for (size_t k = 0; k < cases->items.size(); ++k) {
    const YamlValue& c = cases->items[k];
    std::string p = path + ".cases[" + std::to_string(k) + "]";
    if (!c.is_map() || c.entries.empty()) {  // opdiff refuses an empty case too
      parser_.error(c, p, "a case must be a non-empty mapping of var names to values");
      ok = false;
      continue;
    }
    for (const auto& [key, value] : c.entries) {
      std::string name = python_str(key);
      if (!var_name(key, p)) {
        ok = false;
        continue;
      }
      check_var_value(value, p + "." + name);
      if (std::find(declared.begin(), declared.end(), name) != declared.end()) continue;
      parser_.error(key, p, "case uses undeclared var '" + name + "'" + did_you_mean(name, declared));
      ok = false;
    }
    out.push_back(&c);
  }
  if (!ok) return std::nullopt;
  return out;
}

// The assignments of one case: its values, vars named like dims bound to the dim (never
// iterated), and the Cartesian product of the other vars in name order, the first slowest.
void Expander::expand_case(const Template& t, const YamlValue* c, const std::string& path,
                           std::vector<Assignment>& out) {
  Assignment fixed;
  std::vector<const std::pair<std::string, std::vector<YamlValue>>*> free;
  for (const auto& var : t.vars) {
    const YamlValue* given = c ? c->find(var.first) : nullptr;
    auto dim = doc_.dims.find(var.first);
    if (given) {
      fixed.emplace_back(var.first, *given);
    } else if (dim != doc_.dims.end()) {
      diagnostics_.warning(var.second.front().pos, parser_.test(), path + ".vars." + var.first,
                           "var '" + var.first + "' has the name of a dim: it is bound to the dim's value " +
                               std::to_string(dim->second) + " and not iterated");
      fixed.emplace_back(var.first, YamlValue::integer(dim->second, var.second.front().pos));
    } else {
      free.push_back(&var);
    }
  }
  std::vector<size_t> index(free.size(), 0);  // an odometer over the free vars
  while (true) {
    Assignment a = fixed;
    for (size_t k = 0; k < free.size(); ++k) a.emplace_back(free[k]->first, free[k]->second[index[k]]);
    out.push_back(std::move(a));
    size_t k = free.size();
    while (k > 0 && ++index[k - 1] == free[k - 1]->second.size()) index[--k] = 0;
    if (k == 0) break;
  }
}

std::vector<Assignment> Expander::assignments(const Template& t, const YamlValue* cases, const std::string& path) {
  std::vector<Assignment> out;
  if (auto list = case_list(t, cases, path))
    for (const YamlValue* c : *list) expand_case(t, c, path, out);
  return out;
}

YamlValue Expander::substitute(const YamlValue& v, const Assignment& env, const std::string& path, bool values) {
  if (v.is_list()) {
    YamlValue out = v;
    for (size_t k = 0; k < v.items.size(); ++k)
      out.items[k] = substitute(v.items[k], env, path + "[" + std::to_string(k) + "]", values);
    return out;
  }
  if (!v.is_map()) return v;
  const YamlValue* type = v.find("type");
  bool is_var = type ? type->is_string() && type->s == "var" : v.find("var") && v.entries.size() == 1;
  if (!is_var) {
    YamlValue out = v;
    for (auto& [key, value] : out.entries)
      if (python_str(key) != "shape")  // vars are not allowed there: left for the parser to report
        value = substitute(value, env, path + "." + python_str(key), values && python_str(key) != "ref");
    return out;
  }
  if (values)
    parser_.opdiff_refuses(v, path, "a template variable in a test's in or kwargs other than a ref's target",
                           "substitutes it, as the format says");
  const YamlValue* name = v.find(type ? "name" : "var");
  if (type) parser_.check_keys(v, {"type", "name"}, path);
  if (!name || !name->is_string() || name->s.empty()) {
    parser_.error(v, path, "a var node needs a non-empty string name");
    return YamlValue::null(v.pos);
  }
  for (const auto& [var, value] : env) {
    if (var != name->s) continue;
    if (value.is_string() && doc_.dims.count(value.s))  // a dim symbol becomes its integer
      return YamlValue::integer(doc_.dims.at(value.s), v.pos);
    YamlValue out = value;
    out.pos = v.pos;
    if (!looks_like_node(out)) return out;
    YamlValue literal = YamlValue::map(v.pos);
    literal.set("type", YamlValue::string("const", false, v.pos));
    literal.set("value", std::move(out));
    return literal;
  }
  if (auto dim = doc_.dims.find(name->s); dim != doc_.dims.end()) return YamlValue::integer(dim->second, v.pos);
  Keys declared;
  for (const auto& [var, value] : env) declared.push_back(var);
  parser_.error(*name, path, "unknown template variable '" + name->s + "'" + did_you_mean(name->s, declared));
  return YamlValue::null(v.pos);
}

YamlValue Expander::concrete_test(const YamlValue& raw, YamlValue op, const Assignment& env) {
  YamlValue test = YamlValue::map(raw.pos);
  for (const auto& [key, value] : raw.entries) {
    std::string k = python_str(key);
    if (k == "op") test.entries.emplace_back(key, op);
    else if (k == "in" || k == "kwargs") test.entries.emplace_back(key, substitute(value, env, path_ + "." + k, true));
    else if (k != "id") test.entries.emplace_back(key, value);
  }
  return test;
}

// A template's (or compare side's) path with a var node in it: the format substitutes it, opdiff
// refuses anything but a string there.
void Expander::check_path(const YamlValue& op, const std::string& path) {
  const YamlValue* p = op.find("path");
  if (p && is_var_node(*p))
    parser_.opdiff_refuses(*p, path + ".path", "a template variable as a module path",
                           "substitutes it, as the format says");
}

void Expander::expand_module_template(const RawTest& raw, const YamlValue& op) {
  std::string path = path_ + ".op";
  parser_.check_keys(op, {"type", "path", "vars", "cases", "args", "kwargs"}, path);
  auto t = parse_template(op, path);
  if (!op.find("path")) parser_.error(op, path, "missing required key 'path'");
  if (!t || !op.find("path")) return;
  check_path(op, path);
  const YamlValue* id = raw.node->find("id");
  std::string base = id && !python_str(*id).empty() ? python_str(*id) : "template";
  for (const auto& env : t->assignments) {
    YamlValue module = YamlValue::map(op.pos);
    module.set("type", YamlValue::string("module", false, op.pos));
    for (const char* key : {"path", "args", "kwargs"})
      if (const YamlValue* v = op.find(key)) module.set(key, substitute(*v, env, path + "." + key));
    add_test(raw, concrete_test(*raw.node, module, env), template_id(base, env), "");
  }
}

void Expander::expand_compare_pair(const RawTest& raw, const YamlValue& op) {
  std::string path = path_ + ".op";
  parser_.check_keys(op, {"type", "vars", "cases", "common", "a", "b"}, path);
  auto t = parse_template(op, path);
  const YamlValue* common = op.find("common");
  bool sides_ok = true;
  if (common && common->is_map()) {
    parser_.check_keys(*common, {"args", "kwargs"}, path + ".common");
    const YamlValue* kwargs = common->find("kwargs");  // null is none, as opdiff reads it
    if (kwargs && !kwargs->is_null() && !kwargs->is_map()) {
      parser_.error(*kwargs, path + ".common.kwargs", "common.kwargs must be a mapping");
      sides_ok = false;
    }
  } else if (common) {
    parser_.error(*common, path + ".common",
                  "common must be a mapping with args and kwargs" +
                      std::string(common->is_null() ? " (leave it out for none)" : ""));
    sides_ok = false;
  }
  for (const char* side : {"a", "b"}) {
    const YamlValue* s = op.find(side);
    std::string p = path + "." + side;
    if (!s || !s->is_map()) {
      parser_.error(s ? *s : op, p,
                    std::string("compare side '") + side + "' must be a mapping with impl and a module");
      sides_ok = false;
      continue;
    }
    parser_.check_keys(*s, {"impl", "type", "path", "args", "kwargs"}, p);
    const YamlValue* impl = s->find("impl");
    const YamlValue* type = s->find("type");
    if (!impl || !impl->is_string() || impl->s.empty()) {
      parser_.error(impl ? *impl : *s, p + ".impl", "a compare side needs an impl (a string)");
      sides_ok = false;
    }
    if (type && python_str(*type) != "module") {  // a side is a module; type may be left out
      parser_.error(*type, p + ".type", "a compare side must be a module (type: module)");
      sides_ok = false;
    }
    if (!s->find("path")) {
      parser_.error(*s, p, "missing required key 'path'");
      sides_ok = false;
    } else {
      check_path(*s, p);
    }
    const YamlValue* kwargs = s->find("kwargs");  // null is none, as opdiff reads it
    if (kwargs && !kwargs->is_null() && !kwargs->is_map()) {
      parser_.error(*kwargs, p + ".kwargs", "kwargs must be a mapping");
      sides_ok = false;
    }
  }
  if (!t || !sides_ok) return;
  const YamlValue* id = raw.node->find("id");
  std::string base = id && !python_str(*id).empty() ? python_str(*id) : "template_compare_pair";
  for (const auto& env : t->assignments) {
    std::string pair_id = template_id(base, env);
    size_t indexes[2] = {0, 0};
    bool added = true;
    for (int k = 0; k < 2; ++k) {
      const char* side = k == 0 ? "a" : "b";
      const YamlValue& s = *op.find(side);
      std::string p = path + "." + side;
      // A side's args replace common.args; its kwargs are merged over common.kwargs.
      YamlValue module = YamlValue::map(s.pos);
      module.set("type", YamlValue::string("module", false, s.pos));
      module.set("path", substitute(*s.find("path"), env, p + ".path"));
      // A null args is none given: a side's falls back to common.args, common's to no args.
      const YamlValue* common_args = common && common->is_map() ? common->find("args") : nullptr;
      const YamlValue* side_args = s.find("args");
      const YamlValue* args = side_args && !side_args->is_null() ? side_args : common_args;
      if (args && !args->is_null()) module.set("args", substitute(*args, env, p + ".args"));
      YamlValue kwargs = YamlValue::map(s.pos);
      const YamlValue* common_kwargs = common && common->is_map() ? common->find("kwargs") : nullptr;
      for (const YamlValue* source : {common_kwargs, s.find("kwargs")})
        if (source && source->is_map())
          for (const auto& [key, value] : source->entries)
            kwargs.set(python_str(key), substitute(value, env, p + ".kwargs." + python_str(key)));
      module.set("kwargs", kwargs);
      YamlValue test = concrete_test(*raw.node, module, env);
      test.set("impl", *s.find("impl"));
      auto index = add_test(raw, test, pair_id + "__" + side, pair_id);
      if (index) indexes[k] = *index;
      added = added && index.has_value();
    }
    if (added) suite_.pairs.push_back(PairTest{pair_id, indexes[0], indexes[1]});
  }
}

bool Expander::parse_op(const YamlValue& v, Test& t) {
  const YamlValue* op = v.find("op");
  if (!op) {
    parser_.error(v, path_, "missing required key 'op'");
    return false;
  }
  if (op->is_string()) {
    t.op = op->s;
    return true;
  }
  const YamlValue* type = op->is_map() ? op->find("type") : nullptr;
  if (!type || python_str(*type) != "module") {
    parser_.error(*op, path_ + ".op",
                  "op must be an operator name or a module, template_module or "
                  "template_compare_pair node");
    return false;
  }
  t.module = parser_.module(*op, path_ + ".op");
  return t.module.has_value();
}

bool Expander::parse_inputs(const YamlValue& v, Test& t) {
  bool ok = true;
  const YamlValue* in = v.find("in");
  if (!in) {
    parser_.error(v, path_, "missing required key 'in'");
    ok = false;
  } else if (!in->is_list()) {
    parser_.error(*in, path_ + ".in", "in must be a list of nodes");
    ok = false;
  } else {
    for (size_t k = 0; k < in->items.size(); ++k) {
      auto n = parser_.node(in->items[k], path_ + ".in[" + std::to_string(k) + "]");
      if (n) t.in.push_back(std::move(*n));
      else ok = false;
    }
  }
  const YamlValue* kwargs = v.find("kwargs");
  if (!kwargs) return ok;
  if (!kwargs->is_map()) {  // opdiff refuses a null kwargs too
    parser_.error(*kwargs, path_ + ".kwargs",
                  "kwargs must be a mapping of names to nodes" +
                      std::string(kwargs->is_null() ? " (leave it out for none)" : ""));
    return false;
  }
  for (const auto& [key, value] : kwargs->entries) {
    if (!key.is_string()) {
      parser_.error(key, path_ + ".kwargs",
                    "kwargs names must be strings, got " + python_repr(key) + " (opdiff refuses it)");
      ok = false;
      continue;
    }
    auto n = parser_.node(value, path_ + ".kwargs." + python_str(key));
    if (n) t.kwargs.emplace_back(python_str(key), std::move(*n));
    else ok = false;
  }
  return ok;
}

bool Expander::parse_device(const YamlValue& v, Test& t) {
  const YamlValue* device = v.find("device");
  if (!device) return true;
  static const std::map<std::string, Device> devices = {
      {"cpu", Device::Cpu}, {"gpu", Device::Gpu}, {"cuda", Device::Cuda}, {"mps", Device::Mps}};
  std::string d = python_str(*device);
  auto it = devices.find(d);
  if (it == devices.end()) {
    parser_.error(*device, path_ + ".device",
                  "unknown device '" + d + "'" + did_you_mean(d, Keys{"cpu", "gpu", "cuda", "mps"}) +
                      "; expected cpu, gpu, cuda or mps");
    return false;
  }
  t.device = it->second;
  return true;
}

// cast_input0_to_complex: input 0 is a complex tensor (passed on) or a real floating tensor
// packed as [..., 2] (rebuilt). Anything else fails when the test runs; the document stays valid.
bool Expander::parse_cast(const YamlValue& v, Test& t, bool inputs_ok) {
  const YamlValue* cast = v.find("cast_input0_to_complex");
  if (!cast) return true;
  std::string path = path_ + ".cast_input0_to_complex";
  auto flag = parser_.boolean(*cast, path);
  if (!flag) return false;
  t.cast_input0_to_complex = *flag;
  if (!*flag || !inputs_ok) return true;
  const Node* first = t.in.empty() ? nullptr : &t.in[0];
  bool tensor = first && (first->type == NodeType::Tensor || first->type == NodeType::ConstTensor);
  bool packed = tensor && !first->shape.empty() && first->shape.back() == 2 && c10::isFloatingType(first->dtype);
  if (!packed && !(tensor && c10::isComplexType(first->dtype)))
    diagnostics_.warning(cast->pos, parser_.test(), path,
                         "cast_input0_to_complex needs input 0 to be a complex tensor or a real "
                         "floating tensor of shape [..., 2]: the test fails when it runs");
  return true;
}

// backend_seed (ops-fuzz's extension): a non-negative integer, or a string of one in decimal or
// 0x hex (a seed may pass int64's range).
bool Expander::parse_backend_seed(const YamlValue& v, Test& t) {
  const YamlValue* seed = v.find("backend_seed");
  if (!seed) return true;
  std::string path = path_ + ".backend_seed";
  std::string text = seed->is_int() ? std::to_string(seed->i) : seed->is_string() ? seed->s : "";
  const bool hex = text.starts_with("0x") || text.starts_with("0X");
  const char* first = text.data() + (hex ? 2 : 0);
  const char* last = text.data() + text.size();
  uint64_t value = 0;
  auto [end, ec] = std::from_chars(first, last, value, hex ? 16 : 10);
  if (first == last || end != last || ec != std::errc()) {
    parser_.error(*seed, path,
                  "backend_seed must be a non-negative integer (or a string of one, 0x for hex, up to 2^64 - 1), got " +
                      python_repr(*seed));
    return false;
  }
  t.backend_seed = value;
  parser_.opdiff_refuses(*seed, path, "a test's backend_seed", "seeds the backends' own random choices with it");
  return true;
}

void Expander::note_duplicate_id(const Test& t) {
  auto [it, inserted] = ids_.emplace(t.id, t.pos);
  if (!inserted)
    diagnostics_.warning(
        t.pos, parser_.test(), path_,
        "duplicate test id '" + t.id + "' (also produced by the test at " + it->second.str() + "): both run, in order");
}

std::optional<size_t> Expander::add_test(const RawTest& raw, const YamlValue& v, std::string id, std::string pair) {
  parser_.check_keys(v, kTestKeys, path_);
  Test t;
  t.id = std::move(id);
  t.pair = std::move(pair);
  t.pos = v.pos;
  t.directory = raw.directory;
  bool strings = parser_.optional_string(v, "id", path_);
  strings = parser_.optional_string(v, "impl", path_) && strings;
  if (const YamlValue* impl = v.find("impl"); impl && !impl->is_null()) t.impl = python_str(*impl);
  if (const YamlValue* out = v.find("out")) {
    t.out = *out;
    Diagnostics unchecked;  // the format leaves `out` unvalidated: its problems are nobody's error
    NodeParser lenient(doc_, unchecked);
    lenient.set_test(parser_.test());
    auto node = lenient.node(*out, path_ + ".out");
    if (node && !unchecked.has_errors()) t.expected = std::move(node);
    // ... but opdiff reads it as a node, and refuses one it cannot read.
    if (!out->is_null() && (unchecked.has_errors() || lenient.opdiff_refusals() > 0))
      parser_.opdiff_refuses(*out, path_ + ".out", "an out that is not a node opdiff reads",
                             "keeps it as written (the format leaves out unvalidated)");
  }
  bool ok = parse_op(v, t);
  bool inputs_ok = parse_inputs(v, t);
  ok = parse_device(v, t) && ok;
  ok = parse_backend_seed(v, t) && ok;
  ok = parse_cast(v, t, inputs_ok) && inputs_ok && ok;
  if (!ok || !strings) return std::nullopt;
  note_duplicate_id(t);
  suite_.tests.push_back(std::move(t));
  return suite_.tests.size() - 1;
}

LoadResult finish(Document doc, Diagnostics diagnostics) {
  LoadResult result;
  result.suite = Expander(doc, diagnostics).run();
  result.diagnostics = std::move(diagnostics);
  return result;
}

}  // namespace

LoadResult read_suite(const std::string& path) {
  Diagnostics diagnostics;
  Document doc = load_document(path, diagnostics);
  return finish(std::move(doc), std::move(diagnostics));
}

LoadResult read_suite_text(const std::string& yaml, const std::string& name) {
  Diagnostics diagnostics;
  Document doc = load_document_text(yaml, name, diagnostics);
  return finish(std::move(doc), std::move(diagnostics));
}

Suite load_suite(const std::string& path) {
  LoadResult r = read_suite(path);
  if (r.diagnostics.has_errors()) throw SuiteError(std::move(r.diagnostics));
  return std::move(r.suite);
}

const char* name(NodeType t) {
  static const char* names[] = {"tensor",   "scalar", "scalar_tensor", "int_list", "list",     "tuple",
                                "optional", "const",  "const_tensor",  "module",   "construct"};
  return names[static_cast<int>(t)];
}

const char* name(Init init) {
  static const char* names[] = {"normal", "uniform", "randint", "zeros", "ones", "bernoulli"};
  return names[static_cast<int>(init)];
}

const char* name(Device d) {
  static const char* names[] = {"cpu", "gpu", "cuda", "mps"};
  return names[static_cast<int>(d)];
}

const PairTest* Suite::pair_of(const Test& t) const {
  for (const auto& p : pairs)  // by position: two pairs may share an id
    if (&tests[p.a] == &t || &tests[p.b] == &t) return &p;
  return nullptr;
}

}  // namespace opsfuzz::suite
