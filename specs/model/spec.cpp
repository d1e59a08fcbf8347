#include "specs/model/spec.h"

#include "argtypes/text.h"

#include <algorithm>
#include <set>
#include <stdexcept>

namespace opsfuzz {

std::string_view name(Suffix s) {
  static constexpr std::string_view names[] = {"Eq", "Ne", "In", "NotIn", "Le", "Lt", "Ge", "Gt", "Be", "Gen"};
  return names[static_cast<int>(s)];
}

// ---- Ctx ----------------------------------------------------------------------------------

const MetaArg& Ctx::dep(std::string_view arg) const {
  if (spec_)
    for (int d : arg_.dependencies)
      if (d >= 0 && spec_->args()[static_cast<size_t>(d)].name == arg) return metas_[static_cast<size_t>(d)];
  throw std::invalid_argument((spec_ ? spec_->op() + ": " : "") + "a constraint of argument '" + arg_.name +
                              "' reads '" + std::string(arg) + "', which is not among its dependencies");
}

ArgType Ctx::type() const { return arg_.type; }

int64_t Ctx::value(CtxReads::Kind kind, const MetaArg* m, int64_t at) const {
  using K = CtxReads;
  switch (kind) {
    case K::IsNone: return m->none;
    case K::Dtype: return static_cast<int64_t>(m->tensor().dtype);
    case K::Rank: return static_cast<int64_t>(m->tensor().shape.size());
    case K::Size: {
      const auto& s = m->tensor().shape;
      return s.at(static_cast<size_t>(at < 0 ? at + static_cast<int64_t>(s.size()) : at));
    }
    case K::Numel: {
      int64_t n = 1;
      for (auto d : m->tensor().shape) n *= d;
      return n;
    }
    case K::Length: return static_cast<int64_t>(is_tensor_list(m->argtype) ? m->tensors.size() : list_length(m->value));
    case K::AsInt: return opsfuzz::as_int(m->value);
    case K::AsDouble: return std::bit_cast<int64_t>(opsfuzz::as_double(m->value));
    case K::ScalarDtype: return static_cast<int64_t>(m->scalar_dtype);
    case K::ScalarType: return m->none ? -1 : static_cast<int64_t>(std::get<c10::ScalarType>(m->value));
    case K::OwnDtype: return static_cast<int64_t>(own_tensor().dtype);
    case K::OwnScalarDtype: return static_cast<int64_t>(self_.scalar_dtype);
    case K::Entry: return entry_;
    case K::Dim: return element(Attribute::Size);
    case K::OwnRank: return count(Attribute::Size);
    case K::Position: return element(Attribute::Value);
    case K::OwnLength: return count(Attribute::Value);
    case K::Solved: return solved_list().at(static_cast<size_t>(at));
  }
  return 0;
}

int64_t Ctx::read(CtxReads::Kind kind, std::string_view arg, int64_t at) const {
  const MetaArg* m = arg.empty() ? nullptr : &dep(arg);
  const int64_t v = value(kind, m, at);
  if (record_) record_->reads.push_back({kind, m ? static_cast<int>(m - metas_.data()) : -1, at, v});
  return v;
}

bool Ctx::gives(const CtxReads& recorded) const {
  try {  // a read that now throws (a dim past the rank) gives another value
    for (const auto& r : recorded.reads)
      if (value(r.kind, r.arg < 0 ? nullptr : &metas_[static_cast<size_t>(r.arg)], r.at) != r.value) return false;
    return true;
  } catch (const std::exception&) { return false; }
}

int64_t Ctx::element(Attribute a) const {
  if (attribute_ != a || element_ < 0)
    throw std::logic_error("a constraint of argument '" + arg_.name + "' asks for the " +
                           (a == Attribute::Size ? "dim" : "entry") + " being solved while solving " +
                           std::string(opsfuzz::name(attribute_)));
  return element_;
}

int64_t Ctx::count(Attribute a) const {
  element(a);
  return count_;
}

const IntList& Ctx::solved_list() const {
  if (!solved_)
    throw std::logic_error("a constraint of argument '" + arg_.name + "' asks for the elements solved so far");
  return *solved_;
}

// ---- ArgSpec ------------------------------------------------------------------------------

std::string ArgSpec::subject(Attribute a) const {
  std::string t = is_tensor_list(type) ? name + "[i]" : name;
  switch (a) {
    case Attribute::Optional: return t + " is None";
    case Attribute::Dtype: return t + ".dtype";
    case Attribute::Length: return "len(" + name + ")";
    case Attribute::Rank: return t + ".rank";
    case Attribute::Size: return t + ".size(d)";
    case Attribute::Value:
      if (has_tensors(type)) return t + " values";
      return is_value_list(type) ? name + "[i]" : name;
  }
  return t;
}

namespace {
std::string_view relation(Suffix s) {
  static constexpr std::string_view words[] = {"==", "!=", "in", "not in", "<=", "<", ">=", ">", "in", ""};
  return words[static_cast<int>(s)];
}
}  // namespace

ArgSpec& ArgSpec::add(Attribute a, Cond c) {
  auto attrs = hierarchy(type);
  if (std::find(attrs.begin(), attrs.end(), a) == attrs.end())
    throw std::invalid_argument("argument '" + name + "' (" + std::string(opsfuzz::name(type)) + ") has no " +
                                std::string(opsfuzz::name(a)) + " attribute");
  std::string label;
  if (c.sentence) label = std::move(c.text);
  else if (a == Attribute::Optional && c.constant && (c.text == "True" || c.text == "False") && c.suffix == Suffix::Eq)
    label = name + (c.text == "True" ? " is None" : " is not None");
  else {
    label = subject(a);
    if (auto r = relation(c.suffix); !r.empty()) label.append(" ").append(r);
    label.append(" ").append(c.text);
  }
  constraints.push_back({a, c.suffix, std::move(c.fn), std::move(label), c.role, c.constant, std::move(c.deviation)});
  return *this;
}

// ---- Spec ---------------------------------------------------------------------------------

Spec& Spec::add(ArgSpec a, bool keyword, std::vector<ArgSpec>& into) {
  a.keyword = keyword;
  into.push_back(std::move(a));
  link();
  return *this;
}

Spec& Spec::in(ArgSpec a) { return add(std::move(a), false, args_); }
Spec& Spec::kw(ArgSpec a) { return add(std::move(a), true, args_); }
Spec& Spec::out(ArgSpec a) { return add(std::move(a), true, outs_); }

Spec& Spec::add_joint(std::string label, Term t, Role role, DeviationRef d) {
  joints_.push_back({std::move(label), std::move(t), role, std::move(d)});
  return *this;
}

void Spec::link() {
  auto resolve = [&](ArgSpec& a) {
    a.dependencies.clear();
    for (const auto& n : a.dependency_names) a.dependencies.push_back(index_of(n));
  };
  for (auto& a : args_) resolve(a);
  for (auto& a : outs_) resolve(a);
}

int Spec::index_of(std::string_view arg) const {
  for (size_t i = 0; i < args_.size(); ++i)
    if (args_[i].name == arg) return static_cast<int>(i);
  return -1;
}

std::vector<DeviationSite> Spec::deviations() const {
  std::vector<DeviationSite> out;
  auto add = [&](const DeviationRef& d, Role role, std::string where) {
    if (d) out.push_back({d, role, std::move(where)});
  };
  for (const auto& a : args_) {
    add(a.layout_deviation, Role::Avoid, a.name + ": non-contiguous layouts");
    for (const auto& c : a.constraints) add(c.deviation, c.role, c.label);
  }
  for (const auto& j : joints_) add(j.deviation, j.role, j.label);
  for (const auto& u : unchecked_inputs_)
    add(u.deviation, Role::Unchecked, (u.rules.empty() ? "every rule" : join(u.rules, "; ")) + ", when " + u.inputs);
  return out;
}

bool Spec::has_rule(const std::string& label) const {
  for (const auto& a : args_)
    for (const auto& c : a.constraints)
      if (c.label == label) return true;
  return std::any_of(joints_.begin(), joints_.end(), [&](const auto& j) { return j.label == label; });
}

const UncheckedInputs* Spec::unchecked_inputs_for(const std::string& rule,
                                                  const std::vector<c10::IValue>& values) const {
  for (const auto& u : unchecked_inputs_)
    if (u.covers(rule) && u.holds(Inputs(*this, values))) return &u;
  return nullptr;
}

namespace {

// The argument names a term reads (fold bodies sampled at their first index).
void names_in(const Term& t, std::set<std::string>& out) {
  const TermNode& n = t.node();
  if (n.op == TermOp::Attr) out.insert(n.arg);
  if (n.op >= TermOp::Sum) {
    out.insert(n.over.arg);
    names_in(n.body(n.over.from), out);
  }
  for (const auto& k : n.kids) names_in(k, out);
}

}  // namespace

void Spec::check() const {
  std::set<std::string> seen;
  for (const auto* list : {&args_, &outs_})
    for (const auto& a : *list)
      if (!seen.insert(a.name).second) throw std::invalid_argument(op_ + ": two arguments are named '" + a.name + "'");
  solve_order(*this);
  for (const auto& a : outs_)
    for (size_t k = 0; k < a.dependencies.size(); ++k)
      if (a.dependencies[k] < 0)
        throw std::invalid_argument(op_ + ": argument '" + a.name + "' depends on unknown argument '" +
                                    a.dependency_names[k] + "'");
  for (const auto& j : joints_) {
    std::set<std::string> names;
    names_in(j.term, names);
    for (const auto& n : names)
      if (index_of(n) < 0)
        throw std::invalid_argument(op_ + ": joint constraint '" + j.label + "' names unknown argument '" + n + "'");
  }
  for (const auto& u : unchecked_inputs_)
    for (const auto& rule : u.rules)
      if (!has_rule(rule))
        throw std::invalid_argument(op_ + ": the inputs '" + u.inputs + "' name rule '" + rule +
                                    "', which no constraint has");
  for (const auto& d : deviations())
    if (d.deviation->id.empty() || d.deviation->reason.empty() || d.deviation->command.empty())
      throw std::invalid_argument(op_ + ": the deviation at '" + d.where + "' needs an id, a reason and a command");
}

std::vector<int> solve_order(const Spec& spec) {
  const auto& args = spec.args();
  enum Mark { Unseen, Active, Done };
  std::vector<Mark> mark(args.size(), Unseen);
  std::vector<int> order;
  auto visit = [&](auto& self, int i) -> void {
    if (mark[i] == Done) return;
    if (mark[i] == Active)
      throw std::invalid_argument(spec.op() + ": dependency cycle through argument '" + args[i].name + "'");
    mark[i] = Active;
    const auto& a = args[i];
    for (size_t k = 0; k < a.dependencies.size(); ++k) {
      if (a.dependencies[k] < 0)
        throw std::invalid_argument(spec.op() + ": argument '" + a.name + "' depends on unknown argument '" +
                                    a.dependency_names[k] + "'");
      self(self, a.dependencies[k]);
    }
    mark[i] = Done;
    order.push_back(i);
  };
  for (size_t i = 0; i < args.size(); ++i) visit(visit, static_cast<int>(i));
  return order;
}

}  // namespace opsfuzz
