#include "engine/joint.h"

#include "engine/engine.h"

#include <algorithm>
#include <limits>
#include <map>
#include <numeric>
#include <span>
#include <unordered_map>

namespace opsfuzz {
namespace {

constexpr JointAttr kHeader[] = {JointAttr::None, JointAttr::Rank, JointAttr::Length, JointAttr::Value};
constexpr int64_t kHeaderSlots = 4;
constexpr size_t kNarrowUpTo = 512;  // larger spaces are not enumerated for forward checking
constexpr int64_t kMovableValues = 64;  // the local search moves no slot with wider bounds

int64_t floor_div(int64_t a, int64_t b) {
  int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

// a mod b with the sign of b (the solver's), b nonzero.
int64_t floor_mod(int64_t a, int64_t b) { return a - b * floor_div(a, b); }

bool is_fold(TermOp op) { return op >= TermOp::Sum; }

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
  Attribute a = k < kHeaderSlots ? header[k] : k - kHeaderSlots < cfg_.limits.max_rank ? Attribute::Size : Attribute::Value;
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
                 ? static_cast<int>(base + kHeaderSlots + cfg_.limits.max_rank + index) : -1;
    default: return static_cast<int>(base + (std::find(std::begin(kHeader), std::end(kHeader), a) - std::begin(kHeader)));
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
      case TermOp::Mul: case TermOp::Prod: n.congruence = Program::kCarries; break;
      case TermOp::Neg: case TermOp::Add: case TermOp::Sub: case TermOp::Mod: case TermOp::Ite: case TermOp::Sum:
        if (operand) n.congruence = Program::kCarries;
        break;
      case TermOp::Eq: case TermOp::Ne:
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
  auto rank = [&](const Program::Node& node) { return node.op == TermOp::Const ? 0 : node.op == TermOp::Attr && node.slot >= 0 ? 1 : 2; };
  std::vector<int> order(n);
  for (size_t i = 0; i < n; ++i) order[i] = static_cast<int>(i);
  if (n > 1) std::stable_sort(order.begin(), order.end() - 1, [&](int x, int y) { return rank(p.nodes[size_t(x)]) < rank(p.nodes[size_t(y)]); });
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
  for (size_t i = 0; i + 1 < n && rank(p.nodes[i]) < 2; ++i) (rank(p.nodes[i]) == 0 ? p.constants : p.leaves) = static_cast<int>(i) + 1;
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

namespace {

// What is known of a value x: x = residue (mod modulus). A modulus of 0 is an exact value, 1 no
// knowledge.
struct Congruence {
  int64_t residue = 0, modulus = 1;
};

// The bodies fold n reads when its count slot holds `count`: those of indices n.value to
// count - 1, at most n.count of them.
std::span<const int> bodies_read(const Program::Node& n, int64_t count, const int* kids) {
  return {kids + n.first, static_cast<size_t>(std::clamp<int64_t>(count - n.value, 0, n.count))};
}

// An evaluation's nodes, each read as a congruence: a known value exactly, else what is kept of it.
struct NodeCongruences {
  const int64_t* value;
  const uint8_t* known;
  const int64_t *residue, *modulus;
  Congruence operator[](size_t i) const { return known[i] ? Congruence{value[i], 0} : Congruence{residue[i], modulus[i]}; }
};

// The congruence of an unknown node's value, from its operands' (Granger's domain): products and
// sums of multiples stay multiples, so a product of sizes already fixed divides every completion
// of it. Arithmetic that could overflow gives no knowledge.
Congruence congruence(const Program::Node& n, const Congruence* c, const NodeCongruences& nodes, const int* kids) {
  auto at = [&](int i) { return nodes[size_t(i)]; };
  auto add = [](Congruence x, Congruence y, bool subtract) -> std::optional<Congruence> {
    int64_t r;
    if (subtract ? __builtin_sub_overflow(x.residue, y.residue, &r) : __builtin_add_overflow(x.residue, y.residue, &r))
      return std::nullopt;
    return Congruence{r, std::gcd(x.modulus, y.modulus)};
  };
  auto mul = [](Congruence x, Congruence y) -> std::optional<Congruence> {
    int64_t r, gg, rg, gr;
    if (__builtin_mul_overflow(x.residue, y.residue, &r) || __builtin_mul_overflow(x.modulus, y.modulus, &gg) ||
        __builtin_mul_overflow(x.residue, y.modulus, &rg) || __builtin_mul_overflow(y.residue, x.modulus, &gr))
      return std::nullopt;
    return Congruence{r, std::gcd(gg, std::gcd(rg, gr))};
  };
  std::optional<Congruence> out;
  switch (n.op) {
    case TermOp::Neg: out = add(Congruence{0, 0}, at(n.a), true); break;
    case TermOp::Add: out = add(at(n.a), at(n.b), false); break;
    case TermOp::Sub: out = add(at(n.a), at(n.b), true); break;
    case TermOp::Mul: out = mul(at(n.a), at(n.b)); break;
    // a - b * q for whatever q (the solver's a mod 0 is a).
    case TermOp::Mod: {
      Congruence x = at(n.a), y = at(n.b);
      out = Congruence{x.residue, std::gcd(x.modulus, std::gcd(y.residue, y.modulus))};
      break;
    }
    case TermOp::Ite: {
      if (nodes.known[size_t(n.a)]) return at(nodes.value[size_t(n.a)] != 0 ? n.b : n.c);
      Congruence x = at(n.b), y = at(n.c);
      int64_t d;
      if (!__builtin_sub_overflow(x.residue, y.residue, &d))
        out = Congruence{x.residue, std::gcd(std::gcd(x.modulus, y.modulus), d)};
      break;
    }
    case TermOp::Sum: case TermOp::Prod: {
      if (!c) break;  // the count is unknown
      out = Congruence{n.op == TermOp::Sum ? 0 : 1, 0};
      for (int body : bodies_read(n, c->residue, kids)) {
        if (!out) break;
        out = n.op == TermOp::Sum ? add(*out, at(body), false) : mul(*out, at(body));
      }
      break;
    }
    default: break;
  }
  if (!out) return {};
  if (out->modulus != 0) out->residue = (out->residue % out->modulus + out->modulus) % out->modulus;
  return *out;
}

// Whether two congruences share no value.
bool disjoint(Congruence x, Congruence y) {
  int64_t d = std::gcd(x.modulus, y.modulus), diff;
  if (__builtin_sub_overflow(x.residue, y.residue, &diff)) return false;
  return d == 0 ? diff != 0 : diff % d != 0;
}

// Evaluates nodes order[from..to) of `p` (order nullptr: nodes [from, to)) into value/known,
// reading the other nodes' values from there. With residue/modulus (kCongruent), an unknown
// node also gets the congruence its value keeps, and an equation whose two sides' congruences
// share no value is known to fail. Inlined into its one caller: most reruns evaluate a few nodes,
// and the call cost as much.
template <bool kCongruent>
[[gnu::always_inline]] inline void evaluate(const JointProblem& jp, const Program& p, const Assignment& asg, int64_t* value, uint8_t* known,
              int64_t* residue, int64_t* modulus, const int* order, size_t from, size_t to) {
  // Raw pointers in locals: stores through uint8_t* may alias anything, so pointers read
  // through the vectors would be reloaded after every node.
  const uint8_t* slot_known = asg.known.data();
  const int64_t* slot_value = asg.values.data();
  const Program::Node* nodes = p.nodes.data();
  const int* kids = p.kids.data();
  auto read = [&](int slot) {
    bool k = slot >= 0 && slot_known[size_t(slot)];
    return std::pair<bool, int64_t>(k, k ? slot_value[size_t(slot)] : 0);
  };
  // An unknown node's value is 0, so operands are read without testing whether they are known
  // (an unknown factor makes a product 0, and an unknown disjunct adds nothing to an `or`).
  for (size_t j = from; j < to; ++j) {
    const size_t i = order ? size_t(order[j]) : j;
    const auto& n = nodes[i];
    const size_t a = size_t(n.a), b = size_t(n.b);
    bool k = false;
    int64_t v = 0;
    switch (n.op) {
      case TermOp::Const: k = true, v = n.value; break;
      case TermOp::Attr: {
        int slot = n.slot;
        if (slot < 0 && known[a]) {  // a computed index: negative dims count from the end
          auto [kr, rank] = read(jp.raw_slot(JointAttr::Rank, n.arg, -1));
          int64_t at = value[a] < 0 && n.attr == JointAttr::Size && kr ? value[a] + rank : value[a];
          slot = jp.raw_slot(n.attr, n.arg, at);
        }
        std::tie(k, v) = read(slot);
        break;
      }
      case TermOp::Neg: k = known[a], v = -value[a]; break;
      case TermOp::Not: k = known[a], v = value[a] == 0; break;
      case TermOp::Add: k = known[a] && known[b], v = value[a] + value[b]; break;
      case TermOp::Sub: k = known[a] && known[b], v = value[a] - value[b]; break;
      case TermOp::Mul:  // a known 0 decides it
        k = (known[a] && (known[b] || value[a] == 0)) || (known[b] && value[b] == 0), v = value[a] * value[b];
        break;
      case TermOp::Div: k = known[a] && known[b] && value[b] != 0, v = k ? floor_div(value[a], value[b]) : 0; break;
      case TermOp::Mod:
        k = known[a] && known[b] && value[b] != 0, v = k ? floor_mod(value[a], value[b]) : 0;
        break;
      case TermOp::Lt: k = known[a] && known[b], v = value[a] < value[b]; break;
      case TermOp::Le: k = known[a] && known[b], v = value[a] <= value[b]; break;
      case TermOp::Gt: k = known[a] && known[b], v = value[a] > value[b]; break;
      case TermOp::Ge: k = known[a] && known[b], v = value[a] >= value[b]; break;
      case TermOp::Eq: k = known[a] && known[b], v = value[a] == value[b]; break;
      case TermOp::Ne: k = known[a] && known[b], v = value[a] != value[b]; break;
      case TermOp::And:  // a known false decides it
        v = !((known[a] && value[a] == 0) || (known[b] && value[b] == 0));
        k = !v || (known[a] && known[b]);
        break;
      case TermOp::Or: v = value[a] != 0 || value[b] != 0, k = v || (known[a] && known[b]); break;
      case TermOp::Ite: {
        if (known[a]) {
          size_t pick = size_t(value[a] != 0 ? n.b : n.c);
          k = known[pick], v = value[pick];
        } else {  // both branches agree
          size_t c = size_t(n.c);
          k = known[b] && known[c] && value[b] == value[c], v = value[b];
        }
        break;
      }
      default: {  // folds; All and Any decide as soon as one body does
        auto [kc, count] = read(n.slot);
        k = kc, v = n.op == TermOp::Sum ? 0 : n.op == TermOp::Any ? 0 : 1;
        for (int body : kc ? bodies_read(n, count, kids) : std::span<const int>{}) {
          if (!known[size_t(body)]) { k = false; continue; }
          int64_t bv = value[size_t(body)];
          if (n.op == TermOp::Sum) v += bv;
          else if (n.op == TermOp::Prod) v *= bv;
          else if ((n.op == TermOp::All && bv == 0) || (n.op == TermOp::Any && bv != 0)) {
            k = true, v = n.op == TermOp::Any;
            break;
          }
        }
      }
    }
    if constexpr (kCongruent) {
      Congruence c = k ? Congruence{v, 0} : Congruence{};
      if (!k && n.congruence != Program::kNothing) {
        std::optional<Congruence> count;  // a fold's, when known
        if (is_fold(n.op) && n.slot >= 0 && slot_known[size_t(n.slot)]) count = Congruence{slot_value[size_t(n.slot)], 0};
        const NodeCongruences nodes{value, known, residue, modulus};
        c = congruence(n, count ? &*count : nullptr, nodes, kids);
        if (n.congruence == Program::kDecides && disjoint(nodes[a], nodes[b]))
          k = true, v = n.op == TermOp::Ne, c = {v, 0};
      }
      residue[i] = c.residue, modulus[i] = c.modulus;
    }
    known[i] = k, value[i] = k ? v : 0;
  }
}

}  // namespace

void Evaluations::add(const Program& p, bool congruent) {
  const size_t n = p.nodes.size();
  spans_.push_back({known_.size(), value_.size(), n, congruent});
  known_.resize(known_.size() + n);
  value_.resize(value_.size() + (congruent ? 3 * n : n));
}

void Evaluations::run(size_t k, const JointProblem& jp, const Program& p, const Assignment& a) {
  const Span& s = spans_[k];
  uint8_t* known = known_.data() + s.known;
  int64_t* value = value_.data() + s.value;
  const size_t n = s.nodes, constants = size_t(p.constants), leaves = size_t(p.leaves);
  for (size_t i = 0; i < constants; ++i) value[i] = p.nodes[i].value, known[i] = 1;
  for (size_t i = constants; i < leaves; ++i) {
    size_t slot = size_t(p.nodes[i].slot);
    known[i] = a.known[slot], value[i] = a.known[slot] ? a.values[slot] : 0;
  }
  if (s.congruent)
    for (size_t i = 0; i < leaves; ++i) value[n + i] = value[i], value[2 * n + i] = known[i] ? 0 : 1;
  evaluate_nodes(s, value, known, jp, p, a, nullptr, leaves, n);
}

void Evaluations::rerun(size_t k, const JointProblem& jp, const Program& p, const Assignment& a,
                        const std::vector<int>& readers) {
  const Span& s = spans_[k];
  evaluate_nodes(s, value_.data() + s.value, known_.data() + s.known, jp, p, a, readers.data(), 0, readers.size());
}

bool Evaluations::unknown_without(size_t k, const JointProblem& jp, const Program& p, Assignment& a, int slot,
                                  const std::vector<int>& readers) {
  const Span& s = spans_[k];
  const auto value = value_.begin() + static_cast<std::ptrdiff_t>(s.value);
  const auto known = known_.begin() + static_cast<std::ptrdiff_t>(s.known);
  copy_value_.assign(value, value + static_cast<std::ptrdiff_t>((s.congruent ? 3 : 1) * s.nodes));
  copy_known_.assign(known, known + static_cast<std::ptrdiff_t>(s.nodes));
  a.known[static_cast<size_t>(slot)] = 0;
  evaluate_nodes(s, copy_value_.data(), copy_known_.data(), jp, p, a, readers.data(), 0, readers.size());
  a.known[static_cast<size_t>(slot)] = 1;
  return !copy_known_.back();
}

void Evaluations::evaluate_nodes(const Span& s, int64_t* v, uint8_t* known, const JointProblem& jp, const Program& p,
                                 const Assignment& a, const int* order, size_t from, size_t to) {
  if (s.congruent) evaluate<true>(jp, p, a, v, known, v + s.nodes, v + 2 * s.nodes, order, from, to);
  else evaluate<false>(jp, p, a, v, known, nullptr, nullptr, order, from, to);
}

std::optional<int64_t> JointProblem::eval(const Program& p, const Assignment& a) const {
  thread_local Evaluations e;
  e.clear();
  e.add(p);
  e.run(0, *this, p, a);
  return e.result(0);
}

// ---- JointSolver -------------------------------------------------------------------------

JointSolver::JointSolver(const Spec& spec, const Config& cfg, const AttributeEngine& attrs)
    : problem_(spec, cfg, attrs) {
  if (!active()) return;
  if (cfg.joint == JointStrategy::Z3) oracle_ = make_z3_oracle(problem_, cfg.limits.solver_timeout_ms);
}

void JointSolver::begin(const Task& task, Rng& rng) {
  negated_ = task.joint;
  int skip_arg = task.joint < 0 && !task.valid() ? task.arg : -1;  // its violated constraint
  auto [it, fresh] = per_task_.try_emplace({task.joint, skip_arg < 0 ? -1 : skip_arg * 1024 + task.constraint});
  PerTask& pt = it->second;
  task_ = &pt;
  size_t n = static_cast<size_t>(problem_.slot_count());
  if (fresh) {
    pt.domains.resize(n);
    pt.movable.resize(n);
    for (int s : problem_.used_slots()) {
      const VariableSpace& d = pt.domains[static_cast<size_t>(s)] =
          problem_.domain(s, problem_.arg_of(s) == skip_arg ? task.constraint : -1);
      if (problem_.hi(s) - problem_.lo(s) < kMovableValues)
        for (int64_t v = problem_.lo(s); v <= problem_.hi(s); ++v)
          if (d.contains(coerce(d.type(), Value(v)))) pt.movable[static_cast<size_t>(s)].push_back(v);
    }
    for (size_t k = 0; k < problem_.spec().joints().size(); ++k) {
      if (static_cast<int>(k) == negated_) pt.active.push_back(&problem_.negation(static_cast<int>(k)));
      else if (problem_.in_force(static_cast<int>(k)))
        for (const auto& in : problem_.instances(static_cast<int>(k))) pt.active.push_back(&in);
    }
    pt.drawn.resize(n);
    for (const auto* in : pt.active)
      if (in->constraint != negated_) leave_out_broken_values(pt, *in);
    pt.enforced.assign(pt.active.size(), {});
    for (size_t k = 0; k < pt.active.size(); ++k)
      if (pt.active[k]->constraint != negated_) pt.enforced[k] = enforced(pt, *pt.active[k]);
    pt.by_slot.resize(n);
    Assignment none;
    none.reset(n);
    for (size_t k = 0; k < pt.active.size(); ++k) {
      for (int s : pt.active[k]->slots) pt.by_slot[static_cast<size_t>(s)].push_back(static_cast<int>(k));
      pt.unknown.add(pt.active[k]->program, pt.active[k]->program.congruent);
      pt.unknown.run(k, problem_, pt.active[k]->program, none);
    }
  }
  fixed_.reset(n);
  first_choice_ = true;
  forward_ = pt.unknown;
  settled_.resize(pt.active.size());
  for (size_t k = 0; k < pt.active.size(); ++k) settled_[k] = forward_.result(k) == 1;
  have_witness_ = false;
  if (!oracle_) return;
  oracle_->begin(negated_, pt.domains, rng.next());
  // A first model, the same for every tuple of this task: later ones follow the choices.
  if (fresh && !oracle_->solve(-1, {}, pt.first_model)) pt.first_model.clear();
  if (pt.first_model.empty()) return;  // no model at all: the first choice dead-ends
  if (fresh) unread_entries_to_one(pt);
  set_witness(pt.first_model, pt.on_first_model.empty() ? nullptr : &pt.on_first_model);
  if (pt.on_first_model.empty()) pt.on_first_model = on_witness_;
}

void JointSolver::unread_entries_to_one(PerTask& pt) {
  std::vector<int64_t> model = pt.first_model;
  std::vector<int> counts;  // of the lists whose entries are read
  for (int s : problem_.used_slots()) {
    int count = problem_.count_of(s);
    if (!problem_.is_entry(s) || !problem_.is_used(count)) continue;
    if (std::find(counts.begin(), counts.end(), count) == counts.end()) counts.push_back(count);
    if (problem_.index_of(s) < model[static_cast<size_t>(count)]) continue;
    const VariableSpace& d = pt.domains[static_cast<size_t>(s)];
    if (d.contains(coerce(d.type(), Value(int64_t{1})))) model[static_cast<size_t>(s)] = 1;
  }
  if (model == pt.first_model) return;
  Assignment a;
  a.reset(static_cast<size_t>(problem_.slot_count()));
  for (int s : problem_.used_slots()) a.set(s, model[static_cast<size_t>(s)]);
  for (const auto* in : pt.active)
    if (problem_.eval(in->program, a) != 1) return;  // an entry past its length is read after all
  // Kept when the local search completes more of the lengths from it than from Z3's model.
  auto lengths_completed = [&](const std::vector<int64_t>& m) {
    Rng rng(0);  // apart from the tuples' stream
    int n = 0;
    for (int c : counts)
      for (int64_t v : pt.movable[static_cast<size_t>(c)]) {
        set_witness(m);
        n += try_value(c, v, rng, false);
      }
    return n;
  };
  if (lengths_completed(model) > lengths_completed(pt.first_model)) pt.first_model = std::move(model);
}

JointSolver::Reads JointSolver::reads_of(const JointProblem::Instance& in) const {
  Reads out;
  for (int s : in.slots) {
    bool count = std::any_of(in.slots.begin(), in.slots.end(), [&](int e) { return problem_.count_of(e) == s; });
    (count ? out.counts : out.read).push_back(s);
  }
  return out;
}

void JointSolver::leave_out_broken_values(PerTask& pt, const JointProblem::Instance& in) {
  const auto [read, counts] = reads_of(in);
  auto is_count = [&](int c) { return std::find(counts.begin(), counts.end(), c) != counts.end(); };
  if (read.size() > 2) return;
  for (int s : read)
    if (pt.movable[static_cast<size_t>(s)].empty()) return;  // too many to try
  Assignment a;
  a.reset(static_cast<size_t>(problem_.slot_count()));
  for (int s : in.slots)
    if (is_count(s)) a.set(s, problem_.hi(s));  // the entries are read
  for (size_t i = 0; i < read.size(); ++i) {
    const int s = read[i], other = read.size() == 2 ? read[1 - i] : -1;
    // When `s` is drawn, its count says it is read; the other's count may not yet.
    if (other >= 0 && std::count(in.slots.begin(), in.slots.end(), problem_.count_of(other))) continue;
    auto holds_with = [&](int64_t v) {
      a.set(s, v);
      if (other < 0) return problem_.eval(in.program, a) != 0;
      const auto& others = pt.movable[static_cast<size_t>(other)];
      return std::any_of(others.begin(), others.end(), [&](int64_t u) {
        a.set(other, u);
        return problem_.eval(in.program, a) != 0;
      });
    };
    std::optional<VariableSpace>& drawn = pt.drawn[static_cast<size_t>(s)];
    for (int64_t v : pt.movable[static_cast<size_t>(s)]) {
      if (holds_with(v)) continue;
      if (!drawn) drawn = pt.domains[static_cast<size_t>(s)];
      drawn->ne(coerce(drawn->type(), Value(v)));
    }
    a.known[static_cast<size_t>(s)] = 0;
  }
}

JointSolver::Enforced JointSolver::enforced(const PerTask& pt, const JointProblem::Instance& in) const {
  const auto [read, counts] = reads_of(in);
  if (read.size() != 1 || counts.size() > 1) return {};
  Enforced e{read[0], counts.empty() ? -1 : counts[0], 0};
  const auto& values = pt.movable[static_cast<size_t>(e.slot)];
  std::vector<int64_t> count_values{0};  // none read: one pass
  if (e.count >= 0) count_values = pt.movable[static_cast<size_t>(e.count)];
  if (values.empty() || count_values.empty()) return {};
  Assignment a;
  a.reset(static_cast<size_t>(problem_.slot_count()));
  for (int64_t c : count_values) {
    if (e.count >= 0) a.set(e.count, c);
    bool every = true;  // every value of the slot, drawn or not
    for (int64_t v : values) {
      a.set(e.slot, v);
      const bool holds = problem_.eval(in.program, a) == 1;
      if (!holds && is_drawn(pt, e.slot, v)) return {};
      every = every && holds;
    }
    if (every && e.count >= 0) e.unread |= uint64_t{1} << (c - problem_.lo(e.count));
  }
  return e;
}

bool JointSolver::enforces(int k, int slot, int64_t v) const {
  const Enforced& e = task_->enforced[static_cast<size_t>(k)];
  if (slot == e.count) return (e.unread >> (v - problem_.lo(slot))) & 1;
  return slot == e.slot && is_drawn(*task_, slot, v);
}

void JointSolver::narrow(int slot, VariableSpace& space) const {
  if (const auto& drawn = task_->drawn[static_cast<size_t>(slot)]) space.intersect(*drawn);
}

int JointSolver::slot(int arg, ArgType type, Attribute a, int64_t element) const {
  if (!active() || arg < 0) return -1;
  switch (a) {
    case Attribute::Optional: return problem_.slot(JointAttr::None, arg, -1);
    case Attribute::Rank: return problem_.slot(JointAttr::Rank, arg, -1);
    case Attribute::Length: return problem_.slot(JointAttr::Length, arg, -1);
    case Attribute::Size: return problem_.slot(JointAttr::Size, arg, element);
    case Attribute::Value:
      if (has_tensors(type) || is_scalar(type)) return -1;
      return element >= 0 ? problem_.slot(JointAttr::Elem, arg, element) : problem_.slot(JointAttr::Value, arg, -1);
    case Attribute::Dtype: return -1;
  }
  return -1;
}

void JointSolver::open(int slot, const VariableSpace& space) {
  open_.clear(), checked_ = {-1, 0};
  int64_t n = space.size();  // a larger space could take as many draws
  if (n < 0 || static_cast<size_t>(n) > kNarrowUpTo) return;
  for (int k : task_->by_slot[static_cast<size_t>(slot)])
    if (task_->enforced[static_cast<size_t>(k)].slot < 0 && !forward_.result(static_cast<size_t>(k))) open_.push_back(k);
}

// The evaluations of instance k on the fixed values and `slot` = v, which fix(slot, ...) replaces:
// until then, k's evaluation does not stand for the fixed values.
std::optional<int64_t> JointSolver::with(int k, int slot, int64_t v) {
  fixed_.set(slot, v);
  rerun(forward_, k, fixed_, slot);
  fixed_.known[static_cast<size_t>(slot)] = 0;
  return forward_.result(static_cast<size_t>(k));
}

const std::string& JointSolver::label(int k) const {
  return problem_.spec().joints()[static_cast<size_t>(task_->active[static_cast<size_t>(k)]->constraint)].label;
}

const std::string* JointSolver::rules_out(int slot, int64_t v) {
  checked_ = {-1, 0};
  for (int k : open_)
    if (with(k, slot, v) == 0) return &label(k);
  checked_ = {slot, v};
  return nullptr;
}

bool JointSolver::take_model(int slot, const std::vector<int64_t>& allowed) {
  std::vector<int64_t> model;
  if (!oracle_->solve(slot, allowed, model)) return false;
  set_witness(model);
  return true;
}

void JointSolver::set_witness(const std::vector<int64_t>& model, const Evaluations* evaluations) {
  witness_.reset(static_cast<size_t>(problem_.slot_count()));
  for (int s : problem_.used_slots()) witness_.set(s, model[static_cast<size_t>(s)]);
  have_witness_ = true;
  if (evaluations) {
    on_witness_ = *evaluations;
    return;
  }
  on_witness_.clear();
  for (size_t k = 0; k < task_->active.size(); ++k) {
    on_witness_.add(task_->active[k]->program);
    on_witness_.run(k, problem_, task_->active[k]->program, witness_);
  }
}

void JointSolver::rerun(Evaluations& evaluations, int k, const Assignment& a, int slot) const {
  const JointProblem::Instance& in = *task_->active[static_cast<size_t>(k)];
  evaluations.rerun(static_cast<size_t>(k), problem_, in.program, a, in.readers_of(slot));
}

void JointSolver::witness_changed(int slot) {
  for (int k : task_->by_slot[static_cast<size_t>(slot)])
    if (!settled_[static_cast<size_t>(k)]) rerun(on_witness_, k, witness_, slot);
}

bool JointSolver::completes(int slot, int64_t v, Rng& rng) {
  if (!oracle_) return true;
  if (!have_witness_) return false;
  if (first_choice_ && !task_->movable[static_cast<size_t>(slot)].empty()) return start_from(slot, v, rng);
  return try_value(slot, v, rng, false);
}

bool JointSolver::start_from(int slot, int64_t v, Rng& rng) {
  auto [it, fresh] = task_->starts.try_emplace({slot, v});
  Start& start = it->second;
  if (fresh && (try_value(slot, v, rng, true) || take_model(slot, {v}))) start = {witness_.values, on_witness_};
  if (start.model.empty()) return false;
  witness_.values = start.model;
  on_witness_ = start.evaluations;
  return true;
}

bool JointSolver::try_value(int slot, int64_t v, Rng& rng, bool thorough) {
  auto& value = witness_.values[static_cast<size_t>(slot)];
  if (value == v) return true;  // the witness completes it
  // The open instances that the fixed values and v decide hold in every completion, and the
  // enforced ones v settles: settled for the search (as fix settles them), their witness
  // evaluations left as they are. Not at a first choice, whose witness evaluations later tuples
  // take over (start_from).
  decided_.clear();
  if (!first_choice_ && checked(slot, v))
    for (int k : open_)
      if (forward_.result(static_cast<size_t>(k)) == 1) settled_[static_cast<size_t>(k)] = 1, decided_.push_back(k);
  if (!first_choice_)
    for (int k : task_->by_slot[static_cast<size_t>(slot)])
      if (!settled_[static_cast<size_t>(k)] && enforces(k, slot, v)) settled_[static_cast<size_t>(k)] = 1, decided_.push_back(k);
  changed_.assign(1, slot), before_.assign(1, value);
  value = v;
  witness_changed(slot);
  if (repair(slot, rng, thorough)) return true;
  for (size_t i = 0; i < changed_.size(); ++i) witness_.values[static_cast<size_t>(changed_[i])] = before_[i];
  for (int s : changed_) witness_changed(s);
  for (int k : decided_) settled_[static_cast<size_t>(k)] = 0;
  return false;
}

// Min-conflicts local search on the witness: moves unfixed slots of a broken instance to the
// value that breaks the fewest instances. It only ever finds a completion; proving that none
// exists is left to the oracle. Most repairs that succeed take one or two moves, and most of
// the search time went to repairs that never succeed: 8 moves halve the cost of 16 while every
// composition of JointConstraints.SamplingRetriesWhereZ3LooksAhead is still reached.
bool JointSolver::repair(int slot, Rng& rng, bool thorough) {
  constexpr int kMoves = 8;
  // The witness held before `slot` changed: only instances reading a changed slot can break.
  for (int move = 0;; ++move) {
    int broken = -1;
    for (size_t c = 0; c < changed_.size() && broken < 0; ++c)
      for (int k : task_->by_slot[static_cast<size_t>(changed_[c])])
        if (!settled_[static_cast<size_t>(k)] && on_witness_.result(static_cast<size_t>(k)) != 1) { broken = k; break; }
    if (broken < 0) return true;
    if (move == kMoves) return false;
    // One free slot at random, moved to the value that mends the instance and breaks the fewest
    // others (values in random order; none broken ends the scan). Values that leave it broken
    // are not counted: most are, for products and divisibility. When that slot cannot mend it
    // alone, the search ends (trying the others cost more than it found), unless it is thorough.
    // Candidates are drawn at random and kept when free: the same choice as among the free slots,
    // without testing them all.
    const JointProblem::Instance& in = *task_->active[static_cast<size_t>(broken)];
    std::vector<int>& candidates = candidates_;
    candidates.clear();
    for (int c : in.slots)
      if (c != slot && !fixed_.known[static_cast<size_t>(c)] && !task_->movable[static_cast<size_t>(c)].empty())
        candidates.push_back(c);
    int s = -1;
    int64_t was = 0;  // s's value before the move
    while (!candidates.empty() && s < 0) {
      size_t k = rng.index(candidates.size());
      int c = candidates[k];
      candidates[k] = candidates.back(), candidates.pop_back();
      if (!is_free(broken, c)) continue;
      was = witness_.values[static_cast<size_t>(c)];
      if (mend(broken, c, rng)) s = c;
      else if (!thorough) break;
    }
    if (s < 0) return false;
    if (std::find(changed_.begin(), changed_.end(), s) == changed_.end()) changed_.push_back(s), before_.push_back(was);
  }
}

// Whether the broken instance reads slot s as the witness stands: unknown, it leaves the
// instance undecided (a size past the rank is not read).
bool JointSolver::is_free(int broken, int s) {
  const JointProblem::Instance& in = *task_->active[static_cast<size_t>(broken)];
  return on_witness_.unknown_without(static_cast<size_t>(broken), problem_, in.program, witness_, s, in.readers_of(s));
}

namespace {

// A range of int64 values that a node of an instance must take, and the ranges that follow for
// one operand when the other is known. A bound past int64 is dropped (the range stays a superset),
// or empties the range.
struct Needed {
  static constexpr int64_t kMin = std::numeric_limits<int64_t>::min(), kMax = std::numeric_limits<int64_t>::max();
  int64_t lo, hi;
  bool empty() const { return lo > hi; }
  bool fits(int64_t v) const { return lo <= v && v <= hi; }
  // [lo, hi] computed exactly: an unbounded end (an int64 extreme) stays unbounded.
  static Needed of(__int128 lo, __int128 hi) {
    if (lo > kMax || hi < kMin) return {kMax, kMin};
    return {lo < kMin ? kMin : static_cast<int64_t>(lo), hi > kMax ? kMax : static_cast<int64_t>(hi)};
  }
  // The x for which x + d, and -x, fall in this range.
  Needed undo_add(__int128 d) const { return of(lo == kMin ? lo : lo - d, hi == kMax ? hi : hi - d); }
  Needed undo_neg() const { return of(hi == kMax ? __int128{kMin} : -__int128{hi}, lo == kMin ? __int128{kMax} : -__int128{lo}); }
  // The x for which x * c falls in this range (c != 0).
  Needed undo_mul(__int128 c) const {
    if (c < 0) return undo_neg().undo_mul(-c);
    auto down = [c](__int128 v) { return v >= 0 ? v / c : -((-v + c - 1) / c); };  // floor(v / c)
    return of(lo == kMin ? lo : -down(-__int128{lo}), hi == kMax ? hi : down(hi));
  }
  // The x for which floor(x / c) falls in this range (c > 0).
  Needed undo_div(int64_t c) const {
    return of(lo == kMin ? lo : __int128{lo} * c, hi == kMax ? hi : __int128{hi} * c + c - 1);
  }
};

// The comparison `x op other` negated (`x opposite(op) other`), and with its sides swapped
// (`other op x` is `x mirrored(op) other`).
TermOp opposite(TermOp op) {
  switch (op) {
    case TermOp::Eq: return TermOp::Ne;
    case TermOp::Ne: return TermOp::Eq;
    case TermOp::Lt: return TermOp::Ge;
    case TermOp::Ge: return TermOp::Lt;
    case TermOp::Le: return TermOp::Gt;
    default: return TermOp::Le;  // Gt
  }
}
TermOp mirrored(TermOp op) {
  switch (op) {
    case TermOp::Lt: return TermOp::Gt;
    case TermOp::Gt: return TermOp::Lt;
    case TermOp::Le: return TermOp::Ge;
    case TermOp::Ge: return TermOp::Le;
    default: return op;  // Eq, Ne
  }
}

}  // namespace

bool JointSolver::Mending::in_class(int64_t v) const {
  return modulus == 0 || floor_mod(v, modulus) == residue;
}

// Follows the instance from its root down to its one read of s, asking of each node the range
// of values that the one above needs of it: a comparison's side that reads s must fall on the
// right side of the other one (equal to it for an equation); +, -, negation, * and floor
// division by a known nonzero number, and sums and products over bodies of which one reads s,
// are undone; `and` needs its operands true, `or` its one operand that reads s, `ite` the branch
// its known condition takes, `not` a false operand; s mod a known divisor must fall in the
// residue class needed (weight.size(0) in whole groups). Where the need is no range (s != other,
// a `not` that needs a true operand), or cannot be followed further, every value may mend it.
JointSolver::Mending JointSolver::mending_values(int broken, int s) {
  const JointProblem::Instance& in = *task_->active[static_cast<size_t>(broken)];
  const Program& p = in.program;
  const auto [value, known] = on_witness_.nodes(static_cast<size_t>(broken));
  reads_.assign(p.nodes.size(), 0);
  for (int i : in.readers_of(s)) reads_[static_cast<size_t>(i)] = 1;
  auto reads = [&](int i) { return i >= 0 && reads_[static_cast<size_t>(i)]; };
  // The operand of n that reads s, when the other one does not and is known (its value: other).
  int64_t other = 0;
  auto one_side = [&](const Program::Node& n, int& side) {
    if (reads(n.a) == reads(n.b)) return false;
    side = reads(n.a) ? n.a : n.b;
    const int o = side == n.a ? n.b : n.a;
    other = value[o];
    return known[o] != 0;
  };
  // Whether condition c holds whatever s is: it does not read s, or an operand that does not
  // decides it (ceil_mode false in `ceil_mode && ...`).
  auto decided = [&](int c) -> std::optional<bool> {
    const Program::Node& n = p.nodes[static_cast<size_t>(c)];
    if (!reads(c)) return known[c] ? std::optional<bool>(value[c] != 0) : std::nullopt;
    if (n.op != TermOp::And && n.op != TermOp::Or) return std::nullopt;
    const bool deciding = n.op == TermOp::Or;  // the operand value that decides it
    for (int o : {n.a, n.b})
      if (!reads(o) && known[o] && (value[o] != 0) == deciding) return deciding;
    return std::nullopt;
  };
  const Mending any{Needed::kMin, Needed::kMax}, none{Needed::kMax, Needed::kMin};
  int i = static_cast<int>(p.nodes.size()) - 1;
  Needed need{1, 1};
  for (;;) {
    if (need.empty()) return none;
    const Program::Node& n = p.nodes[static_cast<size_t>(i)];
    if (!reads(i)) return known[i] && need.fits(value[i]) ? any : none;  // s cannot change it
    const bool point = need.lo == need.hi, true_needed = point && need.lo == 1;
    int side = -1;
    switch (n.op) {
      case TermOp::Attr: return n.slot == s ? Mending{need.lo, need.hi} : any;  // else a computed index
      case TermOp::Eq: case TermOp::Ne: case TermOp::Lt: case TermOp::Le: case TermOp::Gt: case TermOp::Ge: {
        if (need.fits(0) == need.fits(1)) return need.fits(0) ? any : none;
        if (!one_side(n, side)) return any;
        TermOp op = need.fits(1) ? n.op : opposite(n.op);
        if (side == n.b) op = mirrored(op);
        const __int128 o = other;
        switch (op) {  // side op other
          case TermOp::Eq: need = {other, other}; break;
          case TermOp::Lt: need = Needed::of(Needed::kMin, o - 1); break;
          case TermOp::Le: need = {Needed::kMin, other}; break;
          case TermOp::Gt: need = Needed::of(o + 1, Needed::kMax); break;
          case TermOp::Ge: need = {other, Needed::kMax}; break;
          default: return any;  // Ne
        }
        break;
      }
      case TermOp::Not:
        if (!true_needed) return any;
        side = n.a, need = {0, 0};
        break;
      case TermOp::Neg: side = n.a, need = need.undo_neg(); break;
      case TermOp::Add: case TermOp::Sub:
        if (!one_side(n, side)) return any;
        if (n.op == TermOp::Add) need = need.undo_add(other);
        else if (side == n.a) need = need.undo_add(-__int128{other});  // x - other
        else need = need.undo_add(other).undo_neg();  // other - x
        break;
      case TermOp::Mul:
        if (!one_side(n, side) || other == 0) return any;
        need = need.undo_mul(other);
        break;
      case TermOp::Div:
        if (!one_side(n, side) || side != n.a || other <= 0) return any;
        need = need.undo_div(other);
        break;
      case TermOp::Mod: {  // s mod m = need, m known: none when need is no remainder of m
        const Program::Node& a = p.nodes[static_cast<size_t>(n.a)];
        if (!point || a.op != TermOp::Attr || a.slot != s || reads(n.b) || !known[n.b] || value[n.b] == 0) return any;
        const int64_t m = value[n.b];
        return floor_mod(need.lo, m) == need.lo ? Mending{Needed::kMin, Needed::kMax, need.lo, m} : none;
      }
      case TermOp::And:
        if (!true_needed) return any;
        if (!reads(n.a) || !reads(n.b)) {  // the one that does not read s must hold already
          const int fixed = reads(n.a) ? n.b : n.a;
          if (!known[fixed]) return any;
          if (value[fixed] == 0) return none;
        }
        side = reads(n.a) ? n.a : n.b;
        break;
      case TermOp::Or:
        if (!true_needed || !one_side(n, side) || other != 0) return any;
        break;
      case TermOp::Ite: {
        const std::optional<bool> taken = decided(n.a);
        if (!taken) return any;
        side = *taken ? n.b : n.c;
        break;
      }
      case TermOp::Sum: case TermOp::Prod: {
        if (n.slot < 0 || n.slot == s || !witness_.known[static_cast<size_t>(n.slot)]) return any;
        const bool sum = n.op == TermOp::Sum;
        int64_t rest = sum ? 0 : 1;  // of the bodies that do not read s
        for (int body : bodies_read(n, witness_.values[static_cast<size_t>(n.slot)], p.kids.data())) {
          if (reads(body)) {
            if (side >= 0) return any;
            side = body;
          } else if (!known[body] || (sum ? __builtin_add_overflow(rest, value[body], &rest)
                                          : __builtin_mul_overflow(rest, value[body], &rest))) {
            return any;
          }
        }
        if (side < 0 || (!sum && rest == 0)) return any;
        need = sum ? need.undo_add(rest) : need.undo_mul(rest);
        break;
      }
      default: return any;
    }
    i = side;
  }
}

// Each value is evaluated again only where `s` changes the instances reading it. The values
// that mending_values rules out would fail the scan's first test: they are skipped, with the
// same outcome. Where only one value of the domain may mend the instance, the scan would keep
// it if it does: it is tried alone. No move takes a value that `narrow` leaves out: it breaks an
// instance whatever the other slots are, so no completion keeps it (glu's dim: 29 of 41 values).
bool JointSolver::mend(int broken, int s, Rng& rng) {
  auto& value = witness_.values[static_cast<size_t>(s)];
  const std::vector<int64_t>& values = task_->movable[static_cast<size_t>(s)];
  const auto& readers = task_->by_slot[static_cast<size_t>(s)];  // broken among them
  auto holds = [&](int k) {
    if (settled_[static_cast<size_t>(k)]) return true;
    rerun(on_witness_, k, witness_, s);
    return on_witness_.result(static_cast<size_t>(k)) == 1;
  };
  int best = std::numeric_limits<int>::max();
  int64_t chosen = value;
  size_t start = values.empty() ? 0 : rng.index(values.size());  // drawn on every path: the same stream
  const Mending m = mending_values(broken, s);
  // The values in [lo, hi], by index (none when lo > hi), tried in the scan's order.
  const size_t first = static_cast<size_t>(std::lower_bound(values.begin(), values.end(), m.lo) - values.begin());
  const size_t last = static_cast<size_t>(std::upper_bound(values.begin(), values.end(), m.hi) - values.begin());
  if (first >= last) return false;
  if (last - first == 1) {
    value = values[first];
    const bool mends = m.in_class(value) && holds(broken);
    if (!mends) value = chosen;
    witness_changed(s);
    return mends;
  }
  for (size_t k = 0; k < values.size() && best > 0; ++k) {
    const size_t at = (start + k) % values.size();
    if (at < first || at >= last) continue;
    value = values[at];
    if (!m.in_class(value) || !is_drawn(*task_, s, value) || !holds(broken)) continue;
    int n = 0;
    for (int o : readers)
      if (o != broken && (n += !holds(o)) >= best) break;
    if (n < best) best = n, chosen = value;
  }
  value = chosen;
  witness_changed(s);
  return best != std::numeric_limits<int>::max();
}

std::optional<int64_t> JointSolver::any(int slot, const VariableSpace& space, Rng& rng) {
  if (!oracle_ || space.empty()) return std::nullopt;
  if (have_witness_) {  // the last solution's value needs no query
    int64_t w = witness_.values[static_cast<size_t>(slot)];
    if (space.contains(coerce(space.type(), Value(w)))) return w;
  }
  // A Z3 query costs as much as thousands of local searches.
  constexpr int kThoroughTries = 4;
  auto values = space.enumerate(kNarrowUpTo);
  for (int k = 0; k < kThoroughTries && have_witness_; ++k) {
    int64_t v = as_int(values[rng.index(values.size())]);
    if (try_value(slot, v, rng, true)) return v;
  }
  std::vector<int64_t> below, above;  // the values on either side of a random pivot
  int64_t pivot = as_int(values[rng.index(values.size())]);
  for (const auto& v : values) (as_int(v) < pivot ? below : above).push_back(as_int(v));
  // One side first, chosen at random, so that successive tuples differ.
  if (rng.chance(0.5)) std::swap(below, above);
  for (const auto* part : {&below, &above})
    if (!part->empty() && take_model(slot, *part)) return witness_.values[static_cast<size_t>(slot)];
  return std::nullopt;
}

void JointSolver::fix(int slot, int64_t v) {
  fixed_.set(slot, v);
  first_choice_ = false;
  // The open instances (a subsequence of by_slot) stand for v already when it was the last checked.
  const bool open_checked = checked(slot, v);
  size_t next_open = 0;
  for (int k : task_->by_slot[static_cast<size_t>(slot)]) {
    const bool open = open_checked && next_open < open_.size() && open_[next_open] == k;
    next_open += open;
    auto& settled = settled_[static_cast<size_t>(k)];  // open: settled by try_value at most
    if (settled) continue;
    if (task_->enforced[static_cast<size_t>(k)].slot >= 0) {  // its evaluation on the fixed values is not kept
      settled = enforces(k, slot, v);
      continue;
    }
    if (!open) rerun(forward_, k, fixed_, slot);
    settled = forward_.result(static_cast<size_t>(k)) == 1;
  }
  if (oracle_) oracle_->fix(slot, v);
}

bool JointSolver::holds(const JointConstraint& c) const {
  int k = static_cast<int>(&c - problem_.spec().joints().data());
  return problem_.eval(problem_.program(k), fixed_) != 0;
}

std::optional<std::string> JointSolver::broken() const {
  for (size_t k = 0; k < task_->active.size(); ++k) {
    const auto* in = task_->active[k];
    auto v = forward_.result(k);
    bool negation = in->constraint == negated_;
    if (negation ? v != 1 : v == 0) return label(static_cast<int>(k));
  }
  return std::nullopt;
}

}  // namespace opsfuzz
