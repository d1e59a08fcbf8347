// The Z3 oracle of joint constraints: the one place where terms become solver terms.
#include "engine/joint.h"

#ifdef OPSFUZZ_HAVE_Z3
#include <z3++.h>
#endif

#include <cmath>
#include <stdexcept>

namespace opsfuzz {

#ifndef OPSFUZZ_HAVE_Z3

bool have_z3() { return false; }
std::unique_ptr<JointOracle> make_z3_oracle(const JointProblem&, unsigned) { return nullptr; }

#else

bool have_z3() { return true; }

namespace {

bool is_condition(TermOp op) {
  switch (op) {
    case TermOp::Not: case TermOp::Lt: case TermOp::Le: case TermOp::Gt: case TermOp::Ge: case TermOp::Eq:
    case TermOp::Ne: case TermOp::And: case TermOp::Or: case TermOp::All: case TermOp::Any: return true;
    default: return false;
  }
}

class Z3Oracle final : public JointOracle {
 public:
  Z3Oracle(const JointProblem& p, unsigned timeout_ms) : p_(p), timeout_ms_(timeout_ms), bounds_(ctx_) {
    vars_.reserve(static_cast<size_t>(p.slot_count()));
    for (int s = 0; s < p.slot_count(); ++s) vars_.push_back(ctx_.int_const(("s" + std::to_string(s)).c_str()));
    for (int s : p.used_slots()) bounds_.push_back(var(s) >= ctx_.int_val(p.lo(s)) && var(s) <= ctx_.int_val(p.hi(s)));
    for (size_t k = 0; k < p.spec().joints().size(); ++k) holds_.push_back(cond(p.term(static_cast<int>(k))));
  }

  void begin(int negated, const std::vector<VariableSpace>& domains, uint64_t seed) override {
    z3::params tactic(ctx_);
    tactic.set("random_seed", static_cast<unsigned>(seed));
    tactic.set("arith.random_initial_value", true);
    solver_.emplace(z3::with(z3::tactic(ctx_, "smt"), tactic).mk_solver());
    z3::params limits(ctx_);
    limits.set("timeout", timeout_ms_);
    solver_->set(limits);
    solver_->add(bounds_);
    for (int s : p_.used_slots()) solver_->add(member(var(s), domains[static_cast<size_t>(s)]));
    for (size_t k = 0; k < holds_.size(); ++k) solver_->add(static_cast<int>(k) == negated ? !holds_[k] : holds_[k]);
  }

  void fix(int slot, int64_t v) override { solver_->add(var(slot) == ctx_.int_val(v)); }

  bool solve(int slot, const std::vector<int64_t>& allowed, std::vector<int64_t>& model) override {
    ++calls_;
    solver_->push();
    if (slot >= 0) {
      z3::expr_vector any(ctx_);
      for (int64_t v : allowed) any.push_back(var(slot) == ctx_.int_val(v));
      solver_->add(z3::mk_or(any));
    }
    z3::check_result r = solver_->check();
    if (r == z3::sat) {
      z3::model m = solver_->get_model();
      model.assign(static_cast<size_t>(p_.slot_count()), 0);
      for (int s : p_.used_slots()) model[static_cast<size_t>(s)] = m.eval(var(s), true).get_numeral_int64();
    }
    std::string why = r == z3::unknown ? solver_->reason_unknown() : "";
    solver_->pop();
    if (r == z3::unknown)
      throw std::runtime_error(p_.spec().op() + ": the joint-constraint solver gave up (" + why + ") after at most " +
                               std::to_string(timeout_ms_) + " ms");
    return r == z3::sat;
  }

  uint64_t calls() const override { return calls_; }

 private:
  const z3::expr& var(int slot) const { return vars_[static_cast<size_t>(slot)]; }

  // An Attr with a computed (or negative) index: the slot it names, chosen by the index.
  z3::expr indexed(const TermNode& n) {
    JointAttr count = n.attr == JointAttr::Size ? JointAttr::Rank : JointAttr::Length;
    z3::expr i = num(n.kids[0]);
    if (n.attr == JointAttr::Size) i = z3::ite(i < 0, i + var(p_.slot(JointAttr::Rank, n.arg, -1)), i);
    z3::expr out = ctx_.int_val(0);
    for (int64_t k = p_.bound(count) - 1; k >= 0; --k) {
      int s = p_.slot(n.attr, n.arg, k);
      if (s >= 0) out = z3::ite(i == ctx_.int_val(k), var(s), out);
    }
    return out;
  }

  z3::expr fold(const TermNode& n) {
    z3::expr c = var(p_.slot(n.over.count, n.over.arg, -1));
    z3::expr_vector parts(ctx_);
    for (size_t i = 0; i < n.kids.size(); ++i) {  // unrolled: kids[i] is the body at from + i
      z3::expr in = ctx_.int_val(n.over.from + static_cast<int64_t>(i)) < c;
      const Term& b = n.kids[i];
      switch (n.op) {
        case TermOp::Sum: parts.push_back(z3::ite(in, num(b), ctx_.int_val(0))); break;
        case TermOp::Prod: parts.push_back(z3::ite(in, num(b), ctx_.int_val(1))); break;
        case TermOp::All: parts.push_back(z3::implies(in, cond(b))); break;
        default: parts.push_back(in && cond(b)); break;
      }
    }
    if (parts.empty()) return n.op == TermOp::Sum ? ctx_.int_val(0) : n.op == TermOp::Prod ? ctx_.int_val(1) : ctx_.bool_val(n.op == TermOp::All);
    switch (n.op) {
      case TermOp::Sum: return z3::sum(parts);
      case TermOp::Prod: {
        z3::expr out = parts[0];
        for (unsigned k = 1; k < parts.size(); ++k) out = out * parts[k];
        return out;
      }
      case TermOp::All: return z3::mk_and(parts);
      default: return z3::mk_or(parts);
    }
  }

  z3::expr member(const z3::expr& x, const VariableSpace& d) {
    z3::expr_vector any(ctx_);
    if (d.is_interval()) {
      for (const auto& iv : d.intervals()) {
        z3::expr in = ctx_.bool_val(true);
        if (std::isfinite(iv.lo)) in = in && x >= ctx_.int_val(static_cast<int64_t>(std::ceil(iv.lo)));
        if (std::isfinite(iv.hi)) in = in && x <= ctx_.int_val(static_cast<int64_t>(std::floor(iv.hi)));
        any.push_back(in);
      }
      return z3::mk_or(any);
    }
    for (const auto& v : d.values()) any.push_back(x == ctx_.int_val(as_int(v)));
    return d.is_cofinite() ? !z3::mk_or(any) : z3::mk_or(any);
  }

  z3::expr floor_div(const z3::expr& a, const z3::expr& b) {  // Z3's div rounds down for b > 0 only
    return z3::ite(b > 0, a / b, (-a) / (-b));
  }

  z3::expr num(const Term& t) {
    const TermNode& n = t.node();
    if (is_condition(n.op)) return z3::ite(cond(t), ctx_.int_val(1), ctx_.int_val(0));
    auto k = [&](size_t i) { return num(n.kids[i]); };
    switch (n.op) {
      case TermOp::Const: return ctx_.int_val(n.value);
      case TermOp::Attr: {
        bool indexed_attr = n.attr == JointAttr::Size || n.attr == JointAttr::Elem;
        const TermNode* i = indexed_attr ? &n.kids[0].node() : nullptr;
        if (i && !(i->op == TermOp::Const && i->value >= 0)) return indexed(n);
        return var(p_.slot(n.attr, n.arg, i ? i->value : -1));
      }
      case TermOp::Neg: return -k(0);
      case TermOp::Add: return k(0) + k(1);
      case TermOp::Sub: return k(0) - k(1);
      case TermOp::Mul: return k(0) * k(1);
      case TermOp::Div: return floor_div(k(0), k(1));
      case TermOp::Mod: { z3::expr a = k(0), b = k(1); return a - b * floor_div(a, b); }
      case TermOp::Ite: return z3::ite(cond(n.kids[0]), k(1), k(2));
      case TermOp::Sum: case TermOp::Prod: return fold(n);
      default: throw std::logic_error("unknown term");
    }
  }

  z3::expr cond(const Term& t) {
    const TermNode& n = t.node();
    if (!is_condition(n.op)) {
      if (n.op == TermOp::Ite) return z3::ite(cond(n.kids[0]), cond(n.kids[1]), cond(n.kids[2]));
      return num(t) != 0;
    }
    auto k = [&](size_t i) { return num(n.kids[i]); };
    switch (n.op) {
      case TermOp::Not: return !cond(n.kids[0]);
      case TermOp::And: return cond(n.kids[0]) && cond(n.kids[1]);
      case TermOp::Or: return cond(n.kids[0]) || cond(n.kids[1]);
      case TermOp::Lt: return k(0) < k(1);
      case TermOp::Le: return k(0) <= k(1);
      case TermOp::Gt: return k(0) > k(1);
      case TermOp::Ge: return k(0) >= k(1);
      case TermOp::Eq: return k(0) == k(1);
      case TermOp::Ne: return k(0) != k(1);
      default: return fold(n);
    }
  }

  const JointProblem& p_;
  unsigned timeout_ms_;
  z3::context ctx_;
  std::vector<z3::expr> vars_;
  z3::expr_vector bounds_;
  std::vector<z3::expr> holds_;  // each joint constraint
  std::optional<z3::solver> solver_;
  uint64_t calls_ = 0;
};

}  // namespace

std::unique_ptr<JointOracle> make_z3_oracle(const JointProblem& p, unsigned timeout_ms) {
  return std::make_unique<Z3Oracle>(p, timeout_ms);
}

#endif

}  // namespace opsfuzz
