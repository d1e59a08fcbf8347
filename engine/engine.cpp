#include "engine/engine.h"

#include "argtypes/text.h"

#include <algorithm>

namespace opsfuzz {
namespace {

using A = Attribute;

}  // namespace

// ---- StructuralEngine --------------------------------------------------------------------

template <class T> bool StructuralEngine::solve(Attribute a, int64_t count, std::vector<T>& out) {
  out.clear();
  owner_.negate_at_ = count > 0 ? static_cast<int64_t>(owner_.rng_->index(static_cast<size_t>(count))) : 0;
  for (int64_t i = 0; i < count; ++i) {
    Value v;
    const IntList* solved = nullptr;  // what c.solved() offers: the sizes or int entries before
    if constexpr (std::is_same_v<T, int64_t>) solved = &out;
    if (!owner_.choose(a, i, count, solved, v)) return false;
    if constexpr (std::is_same_v<T, bool>) out.push_back(as_double(v) != 0);
    else if constexpr (std::is_same_v<T, double>) out.push_back(as_double(v));
    else out.push_back(as_int(v));
  }
  return true;
}

template <class T> bool StructuralEngine::solve_list(int64_t count, Value& out) {
  std::vector<T> list;
  bool ok = solve(A::Value, count, list);
  out = std::move(list);
  return ok;
}

// ---- MetaArgEngine -----------------------------------------------------------------------

const VariableSpace* MetaArgEngine::space_for(Attribute a, int64_t element, int64_t count, const IntList* partial,
                                              VariableSpace& buffer) {
  const bool wants = req_.negate >= 0 && !negated_ && argspec_->constraints[req_.negate].attribute == a;
  const int kind = AttributeEngine::universe_kind(argspec_->type, a, *meta_, entry_);
  const VariableSpace** kept = nullptr;
  if (arg_ >= 0 && kind < kKinds)
    kept = &kept_[static_cast<size_t>(arg_)][static_cast<size_t>(a)][static_cast<size_t>(kind)];
  if (kept && *kept && !wants) return *kept;
  return solve_space(a, element, count, partial, buffer, wants, kept);
}

// Out of line: space_for, asked for every variable, mostly returns a kept space.
[[gnu::noinline]] const VariableSpace* MetaArgEngine::solve_space(Attribute a, int64_t element, int64_t count,
                                                                  const IntList* partial, VariableSpace& buffer,
                                                                  bool wants, const VariableSpace** kept) {
  const ArgSpec& arg = *argspec_;
  Ctx ctx(&spec_, arg, *metas_, *meta_);
  ctx.solving(a, element, count, partial, entry_);
  bool applied = false;
  if (wants) {
    const VariableSpace& space = attrs_.solve(arg, a, ctx, req_.negate, applied, buffer, nullptr, req_.lenient);
    bool here = element < 0 || element >= negate_at_ || element == count - 1;
    if (applied && here && !space.empty()) {
      negated_ = true;
      return &space;
    }
  }
  bool lenient = req_.lenient || negated_;
  const VariableSpace& space = attrs_.solve(arg, a, ctx, -1, applied, buffer, nullptr, lenient);
  if (!space.empty()) {
    if (kept && &space != &buffer) *kept = &space;  // kept by the attribute engine
    return &space;
  }
  std::vector<std::string> labels;  // only a dead end needs them: solved again to collect them
  attrs_.solve(arg, a, ctx, -1, applied, buffer, &labels, lenient);
  dead_end_ = DeadEnd{arg_, a, element, std::move(labels)};
  return nullptr;
}

Value MetaArgEngine::draw(Attribute a, const VariableSpace& space) {
  if (req_.focus != a) return attrs_.pick(space, *rng_);
  const size_t n = static_cast<size_t>(cfg_.limits.variants), variant = static_cast<size_t>(req_.variant);
  size_t all = (a == A::Dtype || a == A::Optional || (a == A::Value && !space.is_interval())) ? 64 : 0;
  if (!AttributeEngine::enumerates(space, n, all)) {  // n candidates: the boundaries, then random members
    variants_ = std::max(variants_, static_cast<int>(n));
    return variant < n ? attrs_.candidate(space, variant, *rng_) : attrs_.pick(space, *rng_);
  }
  const auto& c = enumerated(space, n, all);
  variants_ = std::max(variants_, static_cast<int>(c.size()));
  // Past the candidates (tuples_per_focus > variants), the focused attribute is drawn at random.
  return variant < c.size() ? c[variant] : attrs_.pick(space, *rng_);
}

const std::vector<Value>& MetaArgEngine::enumerated(const VariableSpace& space, size_t n, size_t all) {
  if (&space == &buffer_) return candidates_ = attrs_.candidates(space, n, *rng_, all);
  for (const auto& [kept, members] : enumerated_)
    if (kept == &space) return members;
  return enumerated_.emplace_back(&space, attrs_.candidates(space, n, *rng_, all)).second;
}

bool MetaArgEngine::choose(Attribute a, int64_t element, int64_t count, const IntList* partial, Value& out) {
  const VariableSpace* space = space_for(a, element, count, partial, buffer_);
  if (!space) return false;
  int slot = entry_ < 0 && joint_.active() ? joint_.slot(arg_, argspec_->type, a, element) : -1;
  if (slot < 0) {
    out = draw(a, *space);
  } else {
    if (space != &buffer_) buffer_ = *space;  // the joint constraints narrow it
    if (!choose_joint(slot, a, element, buffer_, out)) return false;
  }
  if (cfg_.contract) note_deviations(a, element, count, partial, out);
  return true;
}

std::vector<std::pair<VariableSpace, const Deviation*>> MetaArgEngine::avoided(Attribute a, int64_t element,
                                                                               int64_t count,
                                                                               const IntList* partial) const {
  Ctx ctx(&spec_, *argspec_, *metas_, *meta_);
  ctx.solving(a, element, count, partial, entry_);
  std::vector<std::pair<VariableSpace, const Deviation*>> out;
  for (const auto& c : argspec_->constraints) {
    if (c.attribute != a || c.role != Role::Avoid) continue;
    std::optional<Operand> op;
    try {
      op = c.fn(ctx);
    } catch (const std::exception&) {
      continue;  // not defined on these dependencies (an invalid sample's)
    }
    if (!op) continue;
    VariableSpace keeps = attrs_.universe(argspec_->type, a, *meta_, entry_);
    apply(keeps, c.suffix, *op, false);
    out.emplace_back(std::move(keeps), c.deviation.get());
  }
  return out;
}

void MetaArgEngine::note_deviations(Attribute a, int64_t element, int64_t count, const IntList* partial,
                                    const Value& v) {
  for (const auto& [keeps, deviation] : avoided(a, element, count, partial))
    if (!keeps.contains(coerce(keeps.type(), v)) && std::find(hits_.begin(), hits_.end(), deviation) == hits_.end())
      hits_.push_back(deviation);
}

bool MetaArgEngine::choose_joint(int slot, Attribute a, int64_t element, VariableSpace& space, Value& out) {
  constexpr int kDraws = 4;  // drawn values tried before the oracle is asked for one
  boost::container::small_vector<const std::string*, 4> ruled_out;  // the labels, spelled out only at a dead end
  joint_.narrow(slot, space);
  joint_.open(slot, space);
  // A value that some instance rules out leaves `space` and `from`; false when none is left.
  auto draw_allowed = [&](VariableSpace& from, auto&& pick) {
    while (!from.empty()) {
      out = pick();
      const std::string* label = joint_.rules_out(slot, as_int(out));
      if (!label) return true;
      if (std::find(ruled_out.begin(), ruled_out.end(), label) == ruled_out.end()) ruled_out.push_back(label);
      space.ne(out);
      if (&from != &space) from.ne(out);
    }
    return false;
  };
  bool ok = draw_allowed(space, [&] { return draw(a, space); });
  if (ok) {
    std::optional<VariableSpace> untried;  // made only when the first value drawn has no completion (rare)
    for (int tries = 1; !joint_.completes(slot, as_int(out), *rng_); ++tries) {
      if (!untried) untried = space;
      untried->ne(out);
      if (tries == kDraws || !draw_allowed(*untried, [&] { return attrs_.pick(*untried, *rng_); })) {
        auto v = joint_.any(slot, space, *rng_);  // the oracle decides, over the whole space
        ok = v.has_value();
        if (ok) out = coerce(space.type(), Value(*v));
        break;
      }
    }
  }
  if (!ok) {
    std::vector<std::string> labels;
    for (const std::string* label : ruled_out) labels.push_back(*label);
    if (labels.empty()) labels.push_back("the joint constraints (no completion)");
    dead_end_ = DeadEnd{arg_, a, element, std::move(labels)};
    return false;
  }
  joint_.fix(slot, as_int(out));
  return true;
}

bool MetaArgEngine::solve_tensor(TensorMeta& t, int64_t count, bool optional_entry) {
  Value v;
  if (optional_entry) {
    if (!choose(A::Optional, entry_, count, nullptr, v)) return false;
    if ((t.none = std::get<bool>(v))) return true;
  }
  if (!choose(A::Dtype, entry_, count, nullptr, v)) return false;
  t.dtype = std::get<c10::ScalarType>(v);
  t.contiguous = (argspec_->layout_deviation && !cfg_.contract) || !argspec_->layout_scope.empty();
  if (!choose(A::Rank, entry_, count, nullptr, v)) return false;
  if (!StructuralEngine(*this).solve(A::Size, as_int(v), t.shape)) return false;
  bool negated_before = negated_;
  const VariableSpace* values = space_for(A::Value, entry_, count, nullptr, t.values);
  if (!values) return false;
  if (values != &t.values) t.values = *values;
  if (cfg_.contract)  // which values fall into a deviation is known once the tensor is made
    for (auto& [keeps, deviation] : avoided(A::Value, entry_, count, nullptr))
      t.value_deviations.push_back({std::move(keeps), deviation->id});
  if (negated_ && !negated_before && std::find(t.shape.begin(), t.shape.end(), 0) != t.shape.end()) {
    dead_end_ = DeadEnd{arg_, A::Value, entry_, {"a value rule, on a tensor with no elements"}, true};
    return false;
  }
  ValueProfile configured[3];
  if (req_.focus == A::Value) {
    size_t v = static_cast<size_t>(req_.variant);
    t.profile =
        v < std::size(kValueProfiles) ? kValueProfiles[v] : kValueProfiles[rng_->index(std::size(kValueProfiles))];
    variants_ = static_cast<int>(std::size(kValueProfiles));
  } else if (size_t n = cfg_.tensor.value_profiles(configured)) {
    t.profile = configured[n == 1 ? 0 : rng_->index(n)];
  }
  return true;
}

bool MetaArgEngine::solve(int arg, const std::vector<MetaArg>& metas, const ArgRequest& req, Rng& rng, MetaArg& out,
                          const ArgSpec* spec_arg) {
  argspec_ = spec_arg ? spec_arg : &spec_.args()[arg];
  arg_ = arg, metas_ = &metas, req_ = req, rng_ = &rng, meta_ = &out;
  entry_ = -1, negate_at_ = 0, variants_ = 1, negated_ = false;
  const ArgType type = argspec_->type;
  // MetaArg{} in place: the tensors vector keeps its capacity
  out.argtype = type, out.none = false, out.scalar_dtype = ScalarDtype::Int, out.value = int64_t{0};
  out.tensors.clear();
  Value v;
  bool ok = true;
  if (is_optional(type)) {
    if (!choose(A::Optional, -1, -1, nullptr, v)) return false;
    out.none = std::get<bool>(v);
  }
  if (out.none) {
  } else if (is_tensor(type)) {
    out.tensors.resize(1);
    ok = solve_tensor(out.tensors[0], -1, false);
  } else if (is_tensor_list(type)) {
    if (!choose(A::Length, -1, -1, nullptr, v)) return false;
    int64_t n = as_int(v);
    out.tensors.resize(static_cast<size_t>(n));
    negate_at_ = n > 0 ? static_cast<int64_t>(rng.index(static_cast<size_t>(n))) : 0;
    int64_t entry_negate_at = negate_at_;
    for (entry_ = 0; ok && entry_ < n; ++entry_) {
      negate_at_ = entry_negate_at;
      ok = solve_tensor(out.tensors[static_cast<size_t>(entry_)], n, type == ArgType::TensorOptList);
    }
    entry_ = -1;
  } else if (is_scalar(type)) {
    ok = choose(A::Dtype, -1, -1, nullptr, v);
    if (ok) out.scalar_dtype = std::get<ScalarDtype>(v);
    ok = ok && choose(A::Value, -1, -1, nullptr, out.value);
  } else if (is_value_list(type)) {
    if (!choose(A::Length, -1, -1, nullptr, v)) return false;
    StructuralEngine entries(*this);
    if (is_float_list(type)) ok = entries.solve_list<double>(as_int(v), out.value);
    else if (is_bool_list(type)) ok = entries.solve_list<bool>(as_int(v), out.value);
    else ok = entries.solve_list<int64_t>(as_int(v), out.value);
  } else {
    ok = choose(A::Value, -1, -1, nullptr, out.value);
    if (ok && is_int(type)) out.value = as_int(out.value);
  }
  if (!ok) return false;
  if (req.negate >= 0 && !negated_) {  // the constraint could not be violated on this path
    const auto& c = argspec_->constraints[req.negate];
    dead_end_ = DeadEnd{arg, c.attribute, -1, {c.label}, true};
    return false;
  }
  return true;
}

std::string DeadEnd::describe(const Spec& spec) const { return spec.op() + ": " + cause(spec); }

std::string DeadEnd::cause(const Spec& spec) const {
  if (unchecked) return "inputs on which the kernel does not check the rule broken: " + join(constraints, ", ");
  std::string s = arg >= 0 ? "argument '" + spec.args()[arg].name + "', attribute " + std::string(name(attribute))
                           : "the joint constraints";
  if (element >= 0) s += " [element " + std::to_string(element) + "]";
  s += violating ? ": no value violates" : ": no value satisfies";
  auto labels = constraints;  // in a fixed order: one cause, whichever constraint came first
  std::sort(labels.begin(), labels.end());
  const char* sep = " ";
  for (const auto& c : labels) s += sep + c, sep = ", ";
  if (constraints.empty()) s += " the limits of the configuration";
  return s;
}

// ---- MetaArgTupleEngine ------------------------------------------------------------------

MetaArgTupleEngine::MetaArgTupleEngine(const Spec& spec, const Config& cfg)
    : spec_(spec),
      cfg_(cfg),
      attrs_(cfg_),
      joint_(spec_, cfg_, attrs_),
      args_(spec_, cfg_, attrs_, joint_),
      order_(solve_order(spec)) {}

std::vector<Task> MetaArgTupleEngine::valid_tasks() const {
  std::vector<Task> tasks;
  for (size_t i = 0; i < spec_.args().size(); ++i)
    for (Attribute a : hierarchy(spec_.args()[i].type)) tasks.push_back({static_cast<int>(i), a, -1});
  return tasks;
}

bool MetaArgTupleEngine::breakable(int arg, size_t k) const {
  const ArgSpec& a = spec_.args()[static_cast<size_t>(arg)];
  const Constraint& c = a.constraints[k];
  const bool dtype_rule =
      c.attribute == Attribute::Dtype || (c.attribute == Attribute::Value && is_scalar_type(a.type));
  if (!c.constant || !dtype_rule) return true;
  const std::vector<MetaArg> none;
  const MetaArg self;
  const std::optional<Operand> op = c.fn(Ctx(&spec_, a, none, self));
  if (!op) return true;
  VariableSpace breaking = attrs_.universe(a.type, c.attribute, self);
  apply(breaking, c.suffix, *op, /*negate=*/true);
  return !breaking.empty();
}

std::vector<Task> MetaArgTupleEngine::invalid_tasks() const {
  std::vector<Task> tasks;
  for (size_t i = 0; i < spec_.args().size(); ++i) {
    const auto& cs = spec_.args()[i].constraints;
    for (size_t k = 0; k < cs.size(); ++k)
      if (cs[k].negatable(cfg_.contract) && breakable(static_cast<int>(i), k))
        tasks.push_back({static_cast<int>(i), cs[k].attribute, static_cast<int>(k)});
  }
  for (size_t k = 0; k < spec_.joints().size(); ++k)
    if (spec_.joints()[k].negatable(cfg_.contract)) tasks.push_back({-1, Attribute::Value, -1, static_cast<int>(k)});
  return tasks;
}

bool MetaArgTupleEngine::solve(const Task& task, int variant, Rng& rng, const Materialize& materialize,
                               MetaTuple& out) {
  out.metas.resize(spec_.args().size());
  out.variants = 1;
  out.violated.clear();
  args_.clear_deviations();
  bool violated = false;
  if (joint_.active()) joint_.begin(task, rng);
  for (int arg : order_) {
    ArgRequest req;
    req.lenient = violated;
    if (arg == task.arg) {
      if (task.valid()) req.focus = task.attribute, req.variant = variant;
      else req.negate = task.constraint, violated = true;
    }
    try {
      if (!args_.solve(arg, out.metas, req, rng, out.metas[static_cast<size_t>(arg)])) {
        dead_end_ = args_.dead_end();
        return false;
      }
    } catch (const std::exception& e) {
      throw std::runtime_error(spec_.op() + ": argument '" + spec_.args()[arg].name + "': " + e.what());
    }
    // Every focus yields at least tuples_per_focus tuples: its candidates, then random values.
    if (arg == task.arg) out.variants = std::max(args_.variants(), cfg_.limits.tuples_per_focus);
    if (materialize) materialize(arg, out.metas[static_cast<size_t>(arg)]);
  }
  if (joint_.active())
    if (auto broken = joint_.broken()) {  // sampling without look-ahead missed it
      dead_end_ = DeadEnd{-1, Attribute::Value, -1, {*broken}, task.joint >= 0};
      return false;
    }
  const Deviation* unchecked = nullptr;  // a rule the kernel does not check, broken
  if (task.joint >= 0) {
    out.violated = spec_.joints()[task.joint].label;
    unchecked = spec_.joints()[task.joint].deviation.get();
  } else if (!task.valid()) {
    const auto& c = spec_.args()[task.arg].constraints[task.constraint];
    out.violated = c.label;
    unchecked = c.deviation.get();
  }
  out.deviations = args_.deviations();
  if (unchecked) out.deviations.push_back(unchecked);
  if (cfg_.contract)
    for (const auto& j : spec_.joints())
      if (j.role == Role::Avoid && !joint_.holds(j)) out.deviations.push_back(j.deviation.get());
  return true;
}

bool MetaArgTupleEngine::solve_outs(Rng& rng, MetaTuple& out) {
  out.outs.resize(spec_.outs().size());
  for (size_t k = 0; k < spec_.outs().size(); ++k)
    if (!args_.solve(-1, out.metas, {}, rng, out.outs[k], &spec_.outs()[k])) {
      dead_end_ = args_.dead_end();
      return false;
    }
  return true;
}

std::string MetaArgTupleEngine::describe(const Task& task) const {
  if (task.joint >= 0) return "violate " + spec_.joints()[task.joint].label;
  const auto& arg = spec_.args()[task.arg];
  if (!task.valid()) return "violate " + arg.constraints[task.constraint].label;
  return "vary " + arg.name + "." + std::string(name(task.attribute));
}

}  // namespace opsfuzz
