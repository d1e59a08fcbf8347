// Joint constraints, terms to programs: the slots of a spec's arguments and their bounds, and
// each joint constraint compiled (folds expanded over the limits) into its instances.
#include "engine/joint.h"

#include "engine/engine.h"
#include "engine/joint_internal.h"

#include <algorithm>
#include <map>
#include <unordered_map>

namespace opsfuzz {
namespace {

constexpr JointAttr kHeader[] = {JointAttr::None, JointAttr::Rank, JointAttr::Length, JointAttr::Value};
constexpr int64_t kHeaderSlots = 4;

}  // namespace

JointProblem::JointProblem(const Spec& spec, const Config& cfg, const AttributeEngine& attrs)
    : spec_(spec), cfg_(cfg), attrs_(attrs), block_(kHeaderSlots + cfg.limits.max_rank + cfg.limits.max_int_list) {
  const auto& lim = cfg.limits;
  size_t n = spec.args().size() * static_cast<size_t>(block_);
  lo_.assign(n, 0), hi_.assign(n, 0), is_used_.assign(n, 0);
  for (size_t arg = 0; arg < spec.args().size(); ++arg) {
    ArgType type = spec.args()[arg].type;
    auto range = [](const VariableSpace& s) { return std::pair<int64_t, int64_t>(*s.min(), *s.max()); };
    std::pair<int64_t, int64_t> value{0, 1};  // bools, and what no term can read
    if (is_int(type) || is_int_list(type)) value = range(attrs.universe(type, Attribute::Value, MetaArg{}));
    std::pair<int64_t, int64_t> size = range(attrs.universe(type, Attribute::Size, MetaArg{}));
    std::pair<int64_t, int64_t> rank = range(attrs.universe(ArgType::Tensor, Attribute::Rank, MetaArg{}));
    int64_t base = static_cast<int64_t>(arg) * block_;
    auto set = [&](int64_t s, std::pair<int64_t, int64_t> b) { lo_[size_t(s)] = b.first, hi_[size_t(s)] = b.second; };
    set(base, {0, 1});
    set(base + 1, rank);
    set(base + 2, {0, lim.max_int_list});
    set(base + 3, value);
    for (int64_t i = 0; i < lim.max_rank; ++i) set(base + kHeaderSlots + i, size);
    for (int64_t i = 0; i < lim.max_int_list; ++i) set(base + kHeaderSlots + lim.max_rank + i, value);
  }
  for (size_t k = 0; k < spec.joints().size(); ++k) {
    const Term& t = spec.joints()[k].term;
    std::vector<Instance> list;
    for (const Term& part : instance_terms(t)) list.push_back(instance(part, static_cast<int>(k)));
    instances_.push_back(std::move(list));
    programs_.push_back(compile(t));
    negations_.push_back(instance(!t, static_cast<int>(k)));
  }
  for (size_t s = 0; s < is_used_.size(); ++s)
    if (is_used_[s]) used_.push_back(static_cast<int>(s));
}

// One instance per index of a top-level `all` (guarded by the index being in range), also under
// an `or` (a || all(i) b(i) is all(i) (a || b(i))), else the term itself: the local search mends
// one index at a time.
std::vector<Term> JointProblem::instance_terms(const Term& t) const {
  const TermNode& n = t.node();
  const Term* fold = nullptr;
  std::optional<Term> other;
  if (n.op == TermOp::All) fold = &t;
  else if (n.op == TermOp::Or)
    for (size_t k = 0; k < 2 && !fold; ++k)
      if (n.kids[k].node().op == TermOp::All) fold = &n.kids[k], other = n.kids[1 - k];
  if (!fold) return {t};
  const TermNode& all = fold->node();
  Term counted = all.over.count == JointAttr::Rank ? dsl::rank(all.over.arg) : dsl::length(all.over.arg);
  std::vector<Term> out;
  for (int64_t i = all.over.from; i < bound(all.over.count); ++i) {
    Term body = dsl::implies(Term(i) < counted, all.body(i));
    out.push_back(other ? *other || body : body);
  }
  return out;
}

VariableSpace JointProblem::domain(int slot, int skip) const {
  int64_t k = slot % block_;
  static constexpr Attribute header[] = {Attribute::Optional, Attribute::Rank, Attribute::Length, Attribute::Value};
  Attribute a = k < kHeaderSlots                          ? header[k]
                : k - kHeaderSlots < cfg_.limits.max_rank ? Attribute::Size
                                                          : Attribute::Value;
  return attrs_.constant_domain(spec_.args()[static_cast<size_t>(arg_of(slot))], a, skip);
}

int64_t JointProblem::bound(JointAttr count) const {
  return count == JointAttr::Rank ? cfg_.limits.max_rank : cfg_.limits.max_int_list;
}

int JointProblem::arg_index(const std::string& arg) const {
  int i = spec_.index_of(arg);
  if (i < 0) throw std::invalid_argument(spec_.op() + ": a joint constraint names unknown argument '" + arg + "'");
  return i;
}

int JointProblem::raw_slot(JointAttr a, int arg, int64_t index) const {
  int64_t base = arg * block_;
  switch (a) {
    case JointAttr::Size:
      return index >= 0 && index < cfg_.limits.max_rank ? static_cast<int>(base + kHeaderSlots + index) : -1;
    case JointAttr::Elem:
      return index >= 0 && index < cfg_.limits.max_int_list
                 ? static_cast<int>(base + kHeaderSlots + cfg_.limits.max_rank + index)
                 : -1;
    default:
      return static_cast<int>(base + (std::find(std::begin(kHeader), std::end(kHeader), a) - std::begin(kHeader)));
  }
}

bool JointProblem::is_entry(int slot) const { return slot % block_ - kHeaderSlots >= cfg_.limits.max_rank; }

int64_t JointProblem::index_of(int entry) const {
  int64_t k = entry % block_ - kHeaderSlots;
  return k < cfg_.limits.max_rank ? k : k - cfg_.limits.max_rank;
}

int JointProblem::count_of(int entry) const {
  int64_t k = entry % block_ - kHeaderSlots;
  if (k < 0) return -1;
  return raw_slot(k < cfg_.limits.max_rank ? JointAttr::Rank : JointAttr::Length, arg_of(entry), -1);
}

int JointProblem::slot(JointAttr a, int arg, int64_t index) const {
  int s = raw_slot(a, arg, index);
  return s >= 0 && is_used_[static_cast<size_t>(s)] ? s : -1;
}

Program JointProblem::compile(const Term& t) const {
  Program p;
  std::unordered_map<const TermNode*, int> done;  // shared subterms compile once
  std::map<std::vector<int64_t>, int> same;       // and so do equal ones (folds build their bodies anew)
  std::vector<Term> bodies_alive;                 // so that no address in `done` is reused
  auto add = [&](auto& self, const Term& term) -> int {
    const TermNode& n = term.node();
    if (auto it = done.find(&n); it != done.end()) return it->second;
    Program::Node out;
    out.op = n.op;
    if (n.op == TermOp::Const) {
      out.value = n.value;
    } else if (n.op == TermOp::Attr) {
      const TermNode* index = n.kids.empty() ? nullptr : &n.kids[0].node();
      if (!index || (index->op == TermOp::Const && index->value >= 0)) {
        out.slot = raw_slot(n.attr, arg_index(n.arg), index ? index->value : -1);
        if (out.slot < 0) throw std::invalid_argument(spec_.op() + ": a joint constraint indexes past the limits");
      } else {
        out.attr = n.attr, out.arg = arg_index(n.arg), out.a = self(self, n.kids[0]);
      }
    } else if (is_fold(n.op)) {
      out.value = n.over.from;
      out.slot = raw_slot(n.over.count, arg_index(n.over.arg), -1);
      std::vector<int> bodies;
      for (int64_t i = n.over.from; i < bound(n.over.count); ++i) {
        bodies_alive.push_back(n.body(i));
        bodies.push_back(self(self, bodies_alive.back()));
      }
      out.first = static_cast<int>(p.kids.size()), out.count = static_cast<int>(bodies.size());
      p.kids.insert(p.kids.end(), bodies.begin(), bodies.end());
    } else {
      int* operands[] = {&out.a, &out.b, &out.c};
      for (size_t k = 0; k < n.kids.size(); ++k) *operands[k] = self(self, n.kids[k]);
    }
    std::vector<int64_t> key{int64_t(out.op), out.value, out.slot, int64_t(out.attr), out.arg, out.a, out.b, out.c};
    key.insert(key.end(), p.kids.begin() + out.first, p.kids.begin() + out.first + out.count);
    if (auto it = same.find(key); it != same.end()) {
      if (is_fold(out.op)) p.kids.resize(static_cast<size_t>(out.first));  // its bodies, just added
      return done[&n] = it->second;
    }
    p.nodes.push_back(out);
    same.emplace(std::move(key), static_cast<int>(p.nodes.size()) - 1);
    return done[&n] = static_cast<int>(p.nodes.size()) - 1;
  };
  add(add, t);
  leaves_first(p);
  mark_congruences(p);
  return p;
}

// A product with an unknown factor is a multiple of the known ones; sums, differences,
// remainders and choices of such values keep a congruence; nothing else does.
void JointProblem::mark_congruences(Program& p) {
  for (auto& n : p.nodes) {
    auto carries = [&](int i) { return i >= 0 && p.nodes[size_t(i)].congruence == Program::kCarries; };
    bool operand = carries(n.a) || carries(n.b) || carries(n.c);
    for (int k = 0; k < n.count && !operand; ++k) operand = carries(p.kids[size_t(n.first + k)]);
    switch (n.op) {
      case TermOp::Mul:
      case TermOp::Prod: n.congruence = Program::kCarries; break;
      case TermOp::Neg:
      case TermOp::Add:
      case TermOp::Sub:
      case TermOp::Mod:
      case TermOp::Ite:
      case TermOp::Sum:
        if (operand) n.congruence = Program::kCarries;
        break;
      case TermOp::Eq:
      case TermOp::Ne:
        if (operand) n.congruence = Program::kDecides, p.congruent = true;
        break;
      default: break;
    }
  }
}

// Moves the nodes that read no other node ahead of the rest, constants first, so that an
// evaluation copies them instead of interpreting them. The result stays last.
void JointProblem::leaves_first(Program& p) {
  const size_t n = p.nodes.size();
  auto rank = [&](const Program::Node& node) {
    return node.op == TermOp::Const ? 0 : node.op == TermOp::Attr && node.slot >= 0 ? 1 : 2;
  };
  std::vector<int> order(n);
  for (size_t i = 0; i < n; ++i) order[i] = static_cast<int>(i);
  if (n > 1)
    std::stable_sort(order.begin(), order.end() - 1,
                     [&](int x, int y) { return rank(p.nodes[size_t(x)]) < rank(p.nodes[size_t(y)]); });
  std::vector<int> moved_to(n);
  for (size_t i = 0; i < n; ++i) moved_to[size_t(order[i])] = static_cast<int>(i);
  std::vector<Program::Node> nodes;
  for (int old : order) {
    Program::Node node = p.nodes[size_t(old)];
    for (int* operand : {&node.a, &node.b, &node.c})
      if (*operand >= 0) *operand = moved_to[size_t(*operand)];
    nodes.push_back(node);
  }
  for (int& kid : p.kids) kid = moved_to[size_t(kid)];
  p.nodes = std::move(nodes);
  for (size_t i = 0; i + 1 < n && rank(p.nodes[i]) < 2; ++i)
    (rank(p.nodes[i]) == 0 ? p.constants : p.leaves) = static_cast<int>(i) + 1;
  p.leaves = std::max(p.leaves, p.constants);
}

bool JointProblem::reads(const Program::Node& n, int slot) const {
  if (n.op == TermOp::Attr && n.slot < 0) {  // a computed index: its count or any dim or entry
    JointAttr count = n.attr == JointAttr::Size ? JointAttr::Rank : JointAttr::Length;
    if (raw_slot(count, n.arg, -1) == slot) return true;
    for (int64_t i = 0; i < bound(count); ++i)
      if (raw_slot(n.attr, n.arg, i) == slot) return true;
    return false;
  }
  return (n.op == TermOp::Attr || is_fold(n.op)) && n.slot == slot;  // a fold's slot counts its bodies
}

std::vector<int> JointProblem::readers(const Program& p, int slot) const {
  std::vector<uint8_t> depends(p.nodes.size(), 0);
  std::vector<int> out;
  for (size_t i = 0; i < p.nodes.size(); ++i) {
    const auto& n = p.nodes[i];
    bool d = reads(n, slot);
    for (int operand : {n.a, n.b, n.c}) d = d || (operand >= 0 && depends[size_t(operand)]);
    for (int k = 0; k < n.count && is_fold(n.op) && !d; ++k) d = depends[size_t(p.kids[size_t(n.first + k)])];
    if (d) depends[i] = 1, out.push_back(static_cast<int>(i));
  }
  return out;
}

JointProblem::Instance JointProblem::instance(const Term& t, int k) {
  Instance in{compile(t), k, {}, {}, {}};
  for (const auto& n : in.program.nodes) {
    if (n.slot >= 0) in.slots.push_back(n.slot);
    if (n.op == TermOp::Attr && n.slot < 0) {  // a computed index may name any dim or entry
      JointAttr count = n.attr == JointAttr::Size ? JointAttr::Rank : JointAttr::Length;
      for (int64_t i = 0; i < bound(count); ++i) in.slots.push_back(raw_slot(n.attr, n.arg, i));
      in.slots.push_back(raw_slot(count, n.arg, -1));
    }
  }
  std::sort(in.slots.begin(), in.slots.end());
  in.slots.erase(std::unique(in.slots.begin(), in.slots.end()), in.slots.end());
  in.position.assign(lo_.size(), -1);
  for (int s : in.slots) {
    is_used_[static_cast<size_t>(s)] = 1;
    in.position[static_cast<size_t>(s)] = static_cast<int>(in.readers.size());
    in.readers.push_back(readers(in.program, s));
  }
  return in;
}

}  // namespace opsfuzz
