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

std::string slot_name(int slot) {  // appended, not concatenated: GCC 12 warns on "s" + string
  std::string n = "s";
  n += std::to_string(slot);
  return n;
}

class Z3Oracle final : public JointOracle {
 public:
  Z3Oracle(const JointProblem& p, unsigned timeout_ms) : p_(p), timeout_ms_(timeout_ms), bounds_(ctx_) {
    vars_.reserve(static_cast<size_t>(p.slot_count()));
    for (int s = 0; s < p.slot_count(); ++s) vars_.push_back(ctx_.int_const(slot_name(s).c_str()));
    for (int s : p.used_slots()) bounds_.push_back(var(s) >= ctx_.int_val(p.lo(s)) && var(s) <= ctx_.int_val(p.hi(s)));
    for (size_t k = 0; k < p.spec().joints().size(); ++k) holds_.push_back(lower(p.program(static_cast<int>(k))));
  }

  // Most tuples never ask: the solver of a tuple is built on its first query.
  void begin(int negated, const std::vector<VariableSpace>& domains, uint64_t seed) override {
    negated_ = negated, domains_ = &domains, seed_ = seed;
    fixed_.clear();
    solver_.reset();
  }

  // Kept as numbers: building Z3 terms costs more than most tuples spend elsewhere.
  void fix(int slot, int64_t v) override {
    fixed_.emplace_back(slot, v);
    if (solver_) add_fixed(fixed_.back());
  }

  void add_fixed(std::pair<int, int64_t> f) { solver_->add(var(f.first) == ctx_.int_val(f.second)); }

  z3::solver& solver() {
    if (solver_) return *solver_;
    z3::params tactic(ctx_);
    tactic.set("random_seed", static_cast<unsigned>(seed_));
    tactic.set("arith.random_initial_value", true);
    solver_.emplace(z3::with(z3::tactic(ctx_, "smt"), tactic).mk_solver());
    z3::params limits(ctx_);
    limits.set("timeout", timeout_ms_);
    solver_->set(limits);
    solver_->add(bounds_);
    for (int s : p_.used_slots()) solver_->add(member(var(s), (*domains_)[static_cast<size_t>(s)]));
    for (size_t k = 0; k < holds_.size(); ++k) {
      int c = static_cast<int>(k);
      if (c == negated_) solver_->add(!holds_[k]);
      else if (p_.in_force(c)) solver_->add(holds_[k]);
    }
    for (const auto& f : fixed_) add_fixed(f);
    return *solver_;
  }

  bool solve(int slot, const std::vector<int64_t>& allowed, std::vector<int64_t>& model) override {
    ++calls_;
    z3::solver& solver = this->solver();
    solver.push();
    if (slot >= 0) {
      z3::expr_vector any(ctx_);
      for (int64_t v : allowed) any.push_back(var(slot) == ctx_.int_val(v));
      solver.add(z3::mk_or(any));
    }
    z3::check_result r = solver.check();
    if (r == z3::sat) {
      z3::model m = solver.get_model();
      model.assign(static_cast<size_t>(p_.slot_count()), 0);
      for (int s : p_.used_slots()) model[static_cast<size_t>(s)] = m.eval(var(s), true).get_numeral_int64();
    }
    std::string why = r == z3::unknown ? solver.reason_unknown() : "";
    solver.pop();
    if (r == z3::unknown)
      throw std::runtime_error(p_.spec().op() + ": the joint-constraint solver gave up (" + why + ") after at most " +
                               std::to_string(timeout_ms_) + " ms");
    return r == z3::sat;
  }

  uint64_t calls() const override { return calls_; }

 private:
  const z3::expr& var(int slot) const { return vars_[static_cast<size_t>(slot)]; }

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

  // The condition a program states: its nodes lowered in order, each once.
  z3::expr lower(const Program& p) {
    std::vector<z3::expr> out;
    out.reserve(p.nodes.size());
    auto num = [&](int i) {
      const z3::expr& e = out[static_cast<size_t>(i)];
      return e.is_bool() ? z3::ite(e, ctx_.int_val(1), ctx_.int_val(0)) : e;
    };
    auto cond = [&](int i) {
      const z3::expr& e = out[static_cast<size_t>(i)];
      return e.is_bool() ? e : e != 0;
    };
    auto floor_div = [](const z3::expr& a, const z3::expr& b) {  // Z3's div rounds down for b > 0 only
      return z3::ite(b > 0, a / b, (-a) / (-b));
    };
    for (const auto& n : p.nodes) {
      switch (n.op) {
        case TermOp::Const: out.push_back(ctx_.int_val(n.value)); break;
        case TermOp::Attr: out.push_back(n.slot >= 0 ? var(n.slot) : indexed(n, num(n.a))); break;
        case TermOp::Neg: out.push_back(-num(n.a)); break;
        case TermOp::Not: out.push_back(!cond(n.a)); break;
        case TermOp::Add: out.push_back(num(n.a) + num(n.b)); break;
        case TermOp::Sub: out.push_back(num(n.a) - num(n.b)); break;
        case TermOp::Mul: out.push_back(num(n.a) * num(n.b)); break;
        case TermOp::Div: out.push_back(floor_div(num(n.a), num(n.b))); break;
        case TermOp::Mod: out.push_back(num(n.a) - num(n.b) * floor_div(num(n.a), num(n.b))); break;
        case TermOp::Lt: out.push_back(num(n.a) < num(n.b)); break;
        case TermOp::Le: out.push_back(num(n.a) <= num(n.b)); break;
        case TermOp::Gt: out.push_back(num(n.a) > num(n.b)); break;
        case TermOp::Ge: out.push_back(num(n.a) >= num(n.b)); break;
        case TermOp::Eq: out.push_back(num(n.a) == num(n.b)); break;
        case TermOp::Ne: out.push_back(num(n.a) != num(n.b)); break;
        case TermOp::And: out.push_back(cond(n.a) && cond(n.b)); break;
        case TermOp::Or: out.push_back(cond(n.a) || cond(n.b)); break;
        case TermOp::Ite:
          if (out[size_t(n.b)].is_bool() && out[size_t(n.c)].is_bool())
            out.push_back(z3::ite(cond(n.a), cond(n.b), cond(n.c)));
          else out.push_back(z3::ite(cond(n.a), num(n.b), num(n.c)));
          break;
        default: {  // folds over the indices below the count
          z3::expr_vector parts(ctx_);
          for (int j = 0; j < n.count; ++j) {
            int body = p.kids[static_cast<size_t>(n.first + j)];
            z3::expr in = ctx_.int_val(n.value + j) < var(n.slot);
            if (n.op == TermOp::Sum) parts.push_back(z3::ite(in, num(body), ctx_.int_val(0)));
            else if (n.op == TermOp::Prod) parts.push_back(z3::ite(in, num(body), ctx_.int_val(1)));
            else if (n.op == TermOp::All) parts.push_back(z3::implies(in, cond(body)));
            else parts.push_back(in && cond(body));
          }
          out.push_back(fold(n.op, parts));
        }
      }
    }
    return cond(static_cast<int>(p.nodes.size()) - 1);
  }

  z3::expr fold(TermOp op, const z3::expr_vector& parts) {
    switch (op) {
      case TermOp::Sum: return parts.empty() ? ctx_.int_val(0) : z3::sum(parts);
      case TermOp::Prod: {
        z3::expr out = ctx_.int_val(1);
        for (unsigned k = 0; k < parts.size(); ++k) out = k ? out * parts[k] : parts[k];
        return out;
      }
      case TermOp::All: return z3::mk_and(parts);
      default: return z3::mk_or(parts);
    }
  }

  // An Attr with a computed (or negative) index: the slot it names, chosen by the index.
  z3::expr indexed(const Program::Node& n, z3::expr i) {
    JointAttr count = n.attr == JointAttr::Size ? JointAttr::Rank : JointAttr::Length;
    if (n.attr == JointAttr::Size) i = z3::ite(i < 0, i + var(p_.raw_slot(JointAttr::Rank, n.arg, -1)), i);
    z3::expr out = ctx_.int_val(0);
    for (int64_t k = p_.bound(count) - 1; k >= 0; --k)
      out = z3::ite(i == ctx_.int_val(k), var(p_.raw_slot(n.attr, n.arg, k)), out);
    return out;
  }

  const JointProblem& p_;
  unsigned timeout_ms_;
  z3::context ctx_;
  std::vector<z3::expr> vars_;
  z3::expr_vector bounds_;
  std::vector<z3::expr> holds_;       // each joint constraint
  std::optional<z3::solver> solver_;  // this tuple's, once asked
  int negated_ = -1;
  const std::vector<VariableSpace>* domains_ = nullptr;
  uint64_t seed_ = 0;
  std::vector<std::pair<int, int64_t> > fixed_;  // slot, value
  uint64_t calls_ = 0;
};

}  // namespace

std::unique_ptr<JointOracle> make_z3_oracle(const JointProblem& p, unsigned timeout_ms) {
  return std::make_unique<Z3Oracle>(p, timeout_ms);
}

#endif

}  // namespace opsfuzz
