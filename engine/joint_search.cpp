// Joint constraints, the solver's local search: a value tried on the witness, and the
// min-conflicts repair that moves other unfixed slots until every instance holds again.
#include "engine/joint.h"

#include "engine/joint_internal.h"

#include <algorithm>
#include <limits>

namespace opsfuzz {

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
      if (!settled_[static_cast<size_t>(k)] && enforces(k, slot, v))
        settled_[static_cast<size_t>(k)] = 1, decided_.push_back(k);
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
        if (!settled_[static_cast<size_t>(k)] && on_witness_.result(static_cast<size_t>(k)) != 1) {
          broken = k;
          break;
        }
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
  Needed undo_neg() const {
    return of(hi == kMax ? __int128{kMin} : -__int128{hi}, lo == kMin ? __int128{kMax} : -__int128{lo});
  }
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

bool JointSolver::Mending::in_class(int64_t v) const { return modulus == 0 || floor_mod(v, modulus) == residue; }

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
  const int64_t* value;  // not a structured binding: clang 14's lambdas cannot capture one
  const uint8_t* known;
  std::tie(value, known) = on_witness_.nodes(static_cast<size_t>(broken));
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
      case TermOp::Eq:
      case TermOp::Ne:
      case TermOp::Lt:
      case TermOp::Le:
      case TermOp::Gt:
      case TermOp::Ge: {
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
      case TermOp::Add:
      case TermOp::Sub:
        if (!one_side(n, side)) return any;
        if (n.op == TermOp::Add) need = need.undo_add(other);
        else if (side == n.a) need = need.undo_add(-__int128{other});  // x - other
        else need = need.undo_add(other).undo_neg();                   // other - x
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
      case TermOp::Sum:
      case TermOp::Prod: {
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

}  // namespace opsfuzz
