// Joint constraints, evaluation of programs: partial evaluation on the values known, kept and
// redone only where a slot changed, and the congruences that unknown values keep.
#include "engine/joint.h"

#include "engine/joint_internal.h"

#include <numeric>
#include <span>

namespace opsfuzz {
namespace {

// What is known of a value x: x = residue (mod modulus). A modulus of 0 is an exact value, 1 no
// knowledge.
struct Congruence {
  int64_t residue = 0, modulus = 1;
};

// An evaluation's nodes, each read as a congruence: a known value exactly, else what is kept of it.
struct NodeCongruences {
  const int64_t* value;
  const uint8_t* known;
  const int64_t *residue, *modulus;
  Congruence operator[](size_t i) const {
    return known[i] ? Congruence{value[i], 0} : Congruence{residue[i], modulus[i]};
  }
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
    case TermOp::Sum:
    case TermOp::Prod: {
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
[[gnu::always_inline]] inline void evaluate(const JointProblem& jp, const Program& p, const Assignment& asg,
                                            int64_t* value, uint8_t* known, int64_t* residue, int64_t* modulus,
                                            const int* order, size_t from, size_t to) {
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
      case TermOp::Mod: k = known[a] && known[b] && value[b] != 0, v = k ? floor_mod(value[a], value[b]) : 0; break;
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
          if (!known[size_t(body)]) {
            k = false;
            continue;
          }
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
        if (is_fold(n.op) && n.slot >= 0 && slot_known[size_t(n.slot)])
          count = Congruence{slot_value[size_t(n.slot)], 0};
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

}  // namespace opsfuzz
