#include "specs/model/joint.h"

namespace opsfuzz {
namespace {

Term make(TermNode n) { return Term(std::make_shared<const TermNode>(std::move(n))); }
Term op(TermOp o, std::vector<Term> kids) {
  TermNode n;
  n.op = o;
  n.kids = std::move(kids);
  return make(std::move(n));
}
Term attr(JointAttr a, std::string arg, std::vector<Term> index = {}) {
  TermNode n;
  n.op = TermOp::Attr, n.attr = a, n.arg = std::move(arg), n.kids = std::move(index);
  return make(std::move(n));
}
Term fold(TermOp o, Over over, std::function<Term(int64_t)> body) {
  if (!body) {
    JointAttr entry = over.count == JointAttr::Rank ? JointAttr::Size : JointAttr::Elem;
    body = [entry, arg = over.arg](int64_t i) { return attr(entry, arg, {Term(i)}); };
  }
  TermNode n;
  n.op = o, n.over = over, n.body = std::move(body);
  return make(std::move(n));
}

}  // namespace

Term::Term(int64_t v) {
  TermNode n;
  n.value = v;
  node_ = std::make_shared<const TermNode>(std::move(n));
}

Term operator-(Term a) { return op(TermOp::Neg, {a}); }
Term operator!(Term a) { return op(TermOp::Not, {a}); }
Term operator+(Term a, Term b) { return op(TermOp::Add, {a, b}); }
Term operator-(Term a, Term b) { return op(TermOp::Sub, {a, b}); }
Term operator*(Term a, Term b) { return op(TermOp::Mul, {a, b}); }
Term operator/(Term a, Term b) { return op(TermOp::Div, {a, b}); }
Term operator%(Term a, Term b) { return op(TermOp::Mod, {a, b}); }
Term operator<(Term a, Term b) { return op(TermOp::Lt, {a, b}); }
Term operator<=(Term a, Term b) { return op(TermOp::Le, {a, b}); }
Term operator>(Term a, Term b) { return op(TermOp::Gt, {a, b}); }
Term operator>=(Term a, Term b) { return op(TermOp::Ge, {a, b}); }
Term operator==(Term a, Term b) { return op(TermOp::Eq, {a, b}); }
Term operator!=(Term a, Term b) { return op(TermOp::Ne, {a, b}); }
Term operator&&(Term a, Term b) { return op(TermOp::And, {a, b}); }
Term operator||(Term a, Term b) { return op(TermOp::Or, {a, b}); }

namespace dsl {
Term is_none(std::string arg) { return attr(JointAttr::None, std::move(arg)); }
Term rank(std::string arg) { return attr(JointAttr::Rank, std::move(arg)); }
Term length(std::string arg) { return attr(JointAttr::Length, std::move(arg)); }
Term value(std::string arg) { return attr(JointAttr::Value, std::move(arg)); }
Term size(std::string arg, Term dim) { return attr(JointAttr::Size, std::move(arg), {dim}); }
Term elem(std::string arg, Term i) { return attr(JointAttr::Elem, std::move(arg), {i}); }
Term ite(Term cond, Term then, Term otherwise) { return op(TermOp::Ite, {cond, then, otherwise}); }
Term implies(Term a, Term b) { return !a || b; }
Term max(Term a, Term b) { return ite(a >= b, a, b); }
Term min(Term a, Term b) { return ite(a <= b, a, b); }
Term sum(Over o, std::function<Term(int64_t)> body) { return fold(TermOp::Sum, o, std::move(body)); }
Term prod(Over o, std::function<Term(int64_t)> body) { return fold(TermOp::Prod, o, std::move(body)); }
Term all(Over o, std::function<Term(int64_t)> body) { return fold(TermOp::All, o, std::move(body)); }
Term any(Over o, std::function<Term(int64_t)> body) { return fold(TermOp::Any, o, std::move(body)); }
Term all_entries(std::string list, std::function<Term(Term)> rule) {
  return all(elems(list), [list, rule = std::move(rule)](int64_t i) { return rule(elem(list, i)); });
}
Term param(const std::string& list, int64_t i) { return ite(length(list) == 1, elem(list, 0), elem(list, i)); }
}  // namespace dsl

}  // namespace opsfuzz
