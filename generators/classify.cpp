#include "generators/classify.h"

#include "engine/engine.h"
#include "opcall/opcall.h"

#include <ATen/ATen.h>

#include <algorithm>

namespace opsfuzz {
namespace {

using A = Attribute;

[[noreturn]] void mismatch(const ArgSpec& arg, const char* expected, const c10::IValue& v) {
  throw ObserveError("argument '" + arg.name + "' (" + std::string(name(arg.type)) + ") takes " + expected + ", not " +
                     opcall::describe(v));
}

TensorMeta observe_tensor(const ArgSpec& arg, const c10::IValue& v) {
  if (!v.isTensor() || !v.toTensor().defined()) mismatch(arg, "a tensor", v);
  const at::Tensor& t = v.toTensor();
  TensorMeta m;
  m.dtype = t.scalar_type();
  m.shape = t.sizes().vec();
  m.values = tensor_value_space(m.dtype);
  m.contiguous = t.is_contiguous();
  return m;
}

// A tensor list's entries; an absent entry of a Tensor?[] is None.
std::vector<TensorMeta> observe_tensors(const ArgSpec& arg, const c10::IValue& v) {
  if (!v.isList()) mismatch(arg, "a list of tensors", v);
  std::vector<TensorMeta> out;
  for (const c10::IValue& e : v.toListRef()) {
    if (e.isNone() && arg.type == ArgType::TensorOptList) out.emplace_back().none = true;
    else out.push_back(observe_tensor(arg, e));
  }
  return out;
}

void observe_scalar(const ArgSpec& arg, const c10::IValue& v, MetaArg& m) {
  if (v.isBool()) m.scalar_dtype = ScalarDtype::Bool, m.value = v.toBool();
  else if (v.isInt()) m.scalar_dtype = ScalarDtype::Int, m.value = v.toInt();
  else if (v.isDouble()) m.scalar_dtype = ScalarDtype::Float, m.value = v.toDouble();
  else mismatch(arg, "a bool, int or float number", v);
}

IntList observe_ints(const ArgSpec& arg, const c10::IValue& v) {
  if (v.isInt()) return {v.toInt()};  // int[1] given as one int
  if (!v.isList()) mismatch(arg, "a list of ints", v);
  IntList out;
  for (const c10::IValue& e : v.toListRef()) {
    if (!e.isInt()) mismatch(arg, "a list of ints", v);
    out.push_back(e.toInt());
  }
  return out;
}

// A float list's entries (ints taken as floats, as the binding does), or a bool list's.
Value observe_entries(const ArgSpec& arg, const c10::IValue& v) {
  const bool floats = is_float_list(arg.type);
  if (!v.isList()) mismatch(arg, floats ? "a list of floats" : "a list of bools", v);
  Floats f;
  Bools b;
  for (const c10::IValue& e : v.toListRef()) {
    if (floats && (e.isDouble() || e.isInt()))
      f.push_back(e.isDouble() ? e.toDouble() : static_cast<double>(e.toInt()));
    else if (!floats && e.isBool()) b.push_back(e.toBool());
    else mismatch(arg, floats ? "a list of floats" : "a list of bools", v);
  }
  return floats ? Value(std::move(f)) : Value(std::move(b));
}

// The value of an argument that is neither a tensor, a scalar nor an int list, as the engine
// holds it (its universe's representation).
Value observe_value(const ArgSpec& arg, const c10::IValue& v) {
  ArgType t = arg.type;
  if (is_scalar_type(t) && v.isInt()) return static_cast<c10::ScalarType>(v.toInt());
  if (is_memory_format(t) && v.isInt()) return static_cast<c10::MemoryFormat>(v.toInt());
  if (is_layout(t) && v.isInt()) return static_cast<c10::Layout>(v.toInt());
  if (is_device(t) && v.isDevice()) return v.toDevice().type();
  if (is_bool(t) && v.isBool()) return v.toBool();
  if (is_float(t) && (v.isDouble() || v.isInt())) return v.isDouble() ? v.toDouble() : static_cast<double>(v.toInt());
  if (is_string(t) && v.isString()) return v.toStringRef();
  if (is_int(t) && v.isInt()) return v.toInt();
  mismatch(arg, "a value of that type", v);
}

// Limits wide enough that every dim and entry of the inputs has a slot in the joint problem.
Config widened(Config cfg, const std::vector<MetaArg>& metas) {
  for (const MetaArg& m : metas) {
    if (m.none) continue;
    if (is_tensor(m.argtype)) cfg.limits.max_rank = std::max<int64_t>(cfg.limits.max_rank, m.tensor().shape.size());
    if (is_value_list(m.argtype))
      cfg.limits.max_int_list = std::max<int64_t>(cfg.limits.max_int_list, list_length(m.value));
  }
  return cfg;
}

// The observed attributes the joint constraints read, by slot (as the engine fixes them).
Assignment assignment(const JointProblem& p, const std::vector<MetaArg>& metas) {
  Assignment a;
  a.reset(static_cast<size_t>(p.slot_count()));
  for (size_t i = 0; i < metas.size(); ++i) {
    const MetaArg& m = metas[i];
    auto set = [&](JointAttr attr, int64_t index, int64_t v) {
      if (int s = p.raw_slot(attr, static_cast<int>(i), index); s >= 0) a.set(s, v);
    };
    if (is_optional(m.argtype)) set(JointAttr::None, -1, m.none);
    if (m.none) continue;
    if (is_tensor(m.argtype)) {
      const IntList& shape = m.tensor().shape;
      set(JointAttr::Rank, -1, static_cast<int64_t>(shape.size()));
      for (size_t d = 0; d < shape.size(); ++d) set(JointAttr::Size, static_cast<int64_t>(d), shape[d]);
    } else if (is_tensor_list(m.argtype)) {
      set(JointAttr::Length, -1, static_cast<int64_t>(m.tensors.size()));
    } else if (is_value_list(m.argtype)) {
      set(JointAttr::Length, -1, static_cast<int64_t>(list_length(m.value)));
      // Joint terms read int and bool entries (a bool as 0 or 1).
      if (const IntList* list = std::get_if<IntList>(&m.value))
        for (size_t k = 0; k < list->size(); ++k) set(JointAttr::Elem, static_cast<int64_t>(k), (*list)[k]);
      if (const Bools* list = std::get_if<Bools>(&m.value))
        for (size_t k = 0; k < list->size(); ++k) set(JointAttr::Elem, static_cast<int64_t>(k), (*list)[k] ? 1 : 0);
    } else if (!is_scalar(m.argtype) && is_numeric(m.value)) {
      set(JointAttr::Value, -1, as_int(m.value));
    }
  }
  return a;
}

void add_once(std::vector<std::string>& list, std::string s) {
  if (std::find(list.begin(), list.end(), s) == list.end()) list.push_back(std::move(s));
}

// Walks the spec's arguments in solve order, the way MetaArgEngine solves them: each attribute
// in hierarchy order, sizes and list entries one at a time with the ones before them solved, so
// that a constraint function sees the same context as when it was generated.
class Walk {
 public:
  Walk(const Spec& spec, const Config& cfg, const std::vector<c10::IValue>& values, Classification& out)
      : spec_(spec), cfg_(cfg), attrs_(cfg_), values_(values), out_(out) {
    for (size_t i = 0; i < values.size(); ++i) observed_.push_back(observe_arg(static_cast<int>(i)));
    metas_.resize(observed_.size());
  }

  void arguments() {
    for (int i : solve_order(spec_)) argument(i);
  }
  void joints();

 private:
  MetaArg observe_arg(int i) const;
  void argument(int i);
  void tensor(TensorMeta& t, const TensorMeta& seen, const c10::IValue& value, int64_t count, bool optional_entry);
  template <class T> void value_list(const std::vector<T>& seen);
  // Tests the observed value of attribute `a` (element `element` of `count`, after `solved`).
  void check(Attribute a, const Value& seen, int64_t element = -1, int64_t count = -1, const IntList* solved = nullptr);
  void check_elements(const at::Tensor& data, int64_t count);
  void within_configuration(Attribute a, const Value& seen);
  Ctx context(Attribute a, int64_t element, int64_t count, const IntList* solved) const;
  // What constraint `c` asks here: a space of the variable's values (every value of type `type`,
  // narrowed by it) or a Gen's rule; nullopt when `c` says nothing here or cannot be evaluated.
  struct Verdict;
  std::optional<Verdict> judge(const Constraint& c, const Ctx& ctx, VarType type);
  void missed(const std::string& label, Role role, const DeviationRef& deviation);

  const Spec& spec_;
  Config cfg_;
  AttributeEngine attrs_;
  const std::vector<c10::IValue>& values_;
  Classification& out_;
  std::vector<MetaArg> observed_;
  std::vector<MetaArg> metas_;  // the arguments walked so far, as their dependants see them
  const ArgSpec* arg_ = nullptr;
  MetaArg self_;        // the argument being walked, attributes walked so far
  int64_t entry_ = -1;  // the entry of a tensor list being walked
};

MetaArg Walk::observe_arg(int i) const {
  return observe(spec_.args()[static_cast<size_t>(i)], values_[static_cast<size_t>(i)]);
}

void Walk::argument(int i) {
  arg_ = &spec_.args()[static_cast<size_t>(i)];
  const MetaArg& seen = observed_[static_cast<size_t>(i)];
  const c10::IValue& value = values_[static_cast<size_t>(i)];
  const ArgType type = arg_->type;
  self_ = MetaArg{};
  self_.argtype = type;
  entry_ = -1;
  if (is_optional(type)) check(A::Optional, seen.none);
  self_.none = seen.none;
  if (seen.none) {
  } else if (is_tensor(type)) {
    self_.tensors.resize(1);
    tensor(self_.tensors[0], seen.tensor(), value, -1, false);
  } else if (is_tensor_list(type)) {
    int64_t n = static_cast<int64_t>(seen.tensors.size());
    check(A::Length, n);
    self_.tensors.resize(seen.tensors.size());
    const auto& list = value.toListRef();
    for (entry_ = 0; entry_ < n; ++entry_) {
      size_t e = static_cast<size_t>(entry_);
      tensor(self_.tensors[e], seen.tensors[e], list[e], n, type == ArgType::TensorOptList);
    }
    entry_ = -1;
  } else if (is_scalar(type)) {
    check(A::Dtype, seen.scalar_dtype);
    self_.scalar_dtype = seen.scalar_dtype;
    check(A::Value, seen.value);
  } else if (is_int_list(type)) {
    value_list(std::get<IntList>(seen.value));
  } else if (is_float_list(type)) {
    value_list(std::get<Floats>(seen.value));
  } else if (is_bool_list(type)) {
    value_list(std::get<Bools>(seen.value));
  } else {
    check(A::Value, seen.value);
  }
  metas_[static_cast<size_t>(i)] = seen;
}

void Walk::tensor(TensorMeta& t, const TensorMeta& seen, const c10::IValue& value, int64_t count, bool optional_entry) {
  if (optional_entry) {
    check(A::Optional, seen.none, entry_, count);
    if ((t.none = seen.none)) return;
  }
  check(A::Dtype, seen.dtype, entry_, count);
  t.dtype = seen.dtype;
  t.contiguous = seen.contiguous;
  if (arg_->layout_deviation && !seen.contiguous) add_once(out_.deviations, arg_->layout_deviation->id);
  if (!arg_->layout_scope.empty() && !seen.contiguous)
    add_once(out_.outside_scope, arg_->name + " is contiguous (" + arg_->layout_scope + ")");
  if (!arg_->order_scope.empty() && value.isTensor()) {
    const std::vector<double> elements = tensor_elements(value.toTensor());
    if (!std::is_sorted(elements.begin(), elements.end()))
      add_once(out_.outside_scope, arg_->name + " ascends (" + arg_->order_scope + ")");
  }
  int64_t rank = static_cast<int64_t>(seen.shape.size());
  check(A::Rank, rank, entry_, count);
  for (int64_t d = 0; d < rank; ++d) {  // the shape grows as the engine's does: the sizes before d
    check(A::Size, seen.shape[static_cast<size_t>(d)], d, rank, &t.shape);
    t.shape.push_back(seen.shape[static_cast<size_t>(d)]);
  }
  t.values = seen.values;
  check_elements(value.toTensor(), count);
}

template <class T> void Walk::value_list(const std::vector<T>& seen) {
  int64_t n = static_cast<int64_t>(seen.size());
  check(A::Length, n);
  IntList solved;  // the engine solves entries into a list of its own; self's value comes last
  for (int64_t i = 0; i < n; ++i) {
    const T entry = seen[static_cast<size_t>(i)];
    if constexpr (std::is_same_v<T, int64_t>) {
      check(A::Value, entry, i, n, &solved);
      solved.push_back(entry);
    } else {
      check(A::Value, entry, i, n);
    }
  }
  self_.value = seen;
}

Ctx Walk::context(Attribute a, int64_t element, int64_t count, const IntList* solved) const {
  Ctx ctx(&spec_, *arg_, metas_, self_);
  ctx.solving(a, element, count, solved, entry_);
  return ctx;
}

// A Gen's candidates are a window of generation, not the rule: its rule judges the value.
struct Walk::Verdict {
  VariableSpace space;
  GenRule rule;
  bool keeps(const Value& v) const { return rule ? rule(v) : space.contains(v); }
};

void Walk::check(Attribute a, const Value& seen, int64_t element, int64_t count, const IntList* solved) {
  within_configuration(a, seen);
  Ctx ctx = context(a, element, count, solved);
  VarType type = attrs_.universe(arg_->type, a, self_, entry_).type();
  for (const Constraint& c : arg_->constraints) {
    if (c.attribute != a) continue;
    if (auto verdict = judge(c, ctx, type); verdict && !verdict->keeps(seen)) missed(c.label, c.role, c.deviation);
  }
}

void Walk::check_elements(const at::Tensor& data, int64_t count) {
  Ctx ctx = context(A::Value, entry_, count, nullptr);
  VarType type = tensor_value_space(data.scalar_type()).type();
  std::optional<std::vector<double>> values;  // read only when a constraint needs them
  for (const Constraint& c : arg_->constraints) {
    if (c.attribute != A::Value) continue;
    std::optional<Verdict> verdict = judge(c, ctx, type);
    if (!verdict) continue;
    if (!values) values = tensor_elements(data);
    if (!std::all_of(values->begin(), values->end(), [&](double v) { return verdict->keeps(v); }))
      missed(c.label, c.role, c.deviation);
  }
}

// The configuration's limits are not rules: passing them only puts inputs out of what
// generation makes. Values are left out (the configuration bounds unconstrained ints to
// [-20, 20], which says nothing about an input).
void Walk::within_configuration(Attribute a, const Value& seen) {
  if (a == A::Value || a == A::Optional || (a == A::Dtype && is_scalar(arg_->type))) return;
  VariableSpace u = attrs_.universe(arg_->type, a, self_, entry_);
  if (!u.contains(seen))
    add_once(out_.outside_scope, arg_->subject(a) + " in " + u.to_string() + " (the configuration)");
}

std::optional<Walk::Verdict> Walk::judge(const Constraint& c, const Ctx& ctx, VarType type) {
  try {
    std::optional<Operand> op = c.fn(ctx);
    if (!op) return std::nullopt;
    Verdict v{VariableSpace(type), op->allows};
    if (!v.rule) apply(v.space, c.suffix, *op, false);
    return v;
  } catch (const std::exception& e) {
    add_once(out_.unevaluated, c.label + ": " + e.what());
    return std::nullopt;
  }
}

void Walk::missed(const std::string& label, Role role, const DeviationRef& deviation) {
  if (role == Role::Rule || role == Role::Unchecked) add_once(out_.broken, label);
  if (role == Role::Scope) add_once(out_.outside_scope, label);
  // Spec::check makes every Avoid and Unchecked constraint name its deviation; a spec built by
  // hand and not checked may not.
  if ((role == Role::Avoid || role == Role::Unchecked) && deviation) add_once(out_.deviations, deviation->id);
}

void Walk::joints() {
  if (spec_.joints().empty()) return;
  Config wide = widened(cfg_, observed_);
  AttributeEngine attrs(wide);
  JointProblem problem(spec_, wide, attrs);
  Assignment seen = assignment(problem, observed_);
  for (size_t k = 0; k < spec_.joints().size(); ++k) {
    const JointConstraint& j = spec_.joints()[k];
    std::optional<int64_t> holds = problem.eval(problem.program(static_cast<int>(k)), seen);
    if (!holds) add_once(out_.unevaluated, j.label + ": not decided by these inputs");
    else if (*holds == 0) missed(j.label, j.role, j.deviation);
  }
}

}  // namespace

MetaArg observe(const ArgSpec& arg, const c10::IValue& value) {
  MetaArg m;
  m.argtype = arg.type;
  if (value.isNone()) {
    if (!is_optional(arg.type)) mismatch(arg, "a value (it is not optional)", value);
    m.none = true;
  } else if (is_tensor(arg.type)) {
    m.tensors.push_back(observe_tensor(arg, value));
  } else if (is_tensor_list(arg.type)) {
    m.tensors = observe_tensors(arg, value);
  } else if (is_scalar(arg.type)) {
    observe_scalar(arg, value, m);
  } else if (is_int_list(arg.type)) {
    m.value = observe_ints(arg, value);
  } else if (is_value_list(arg.type)) {
    m.value = observe_entries(arg, value);
  } else {
    m.value = observe_value(arg, value);
  }
  return m;
}

Classification classify(const Spec& spec, const std::vector<c10::IValue>& args, const Config& cfg) {
  if (args.size() != spec.args().size())
    throw ObserveError(spec.op() + ": " + std::to_string(args.size()) + " inputs for " +
                       std::to_string(spec.args().size()) + " arguments");
  Classification out;
  try {
    Walk walk(spec, cfg, args, out);
    walk.arguments();
    walk.joints();
  } catch (const ObserveError& e) { throw ObserveError(spec.op() + ": " + e.what()); }
  for (const std::string& rule : out.broken)
    if (const UncheckedInputs* u = spec.unchecked_inputs_for(rule, args)) add_once(out.deviations, u->deviation->id);
  return out;
}

std::vector<c10::IValue> in_spec_order(const Spec& spec, const Sample& sample) {
  std::vector<c10::IValue> out;
  size_t positional = 0;
  for (const ArgSpec& a : spec.args()) {
    if (!a.keyword) {
      out.push_back(sample.args.at(positional++));
      continue;
    }
    auto it =
        std::find_if(sample.kwargs.begin(), sample.kwargs.end(), [&](const auto& kv) { return kv.first == a.name; });
    if (it == sample.kwargs.end())
      throw std::invalid_argument(spec.op() + ": the sample has no keyword '" + a.name + "'");
    out.push_back(it->second);
  }
  return out;
}

}  // namespace opsfuzz
