// Joint constraints: one relation over integer attributes of several arguments (sizes, ranks,
// list lengths and entries, int and bool values), solved together instead of one variable at
// a time. A spec writes them as terms:
//   sum(elems("split_sizes")) == size("self", value("dim"))
//   all(dims("input", 2), [](int64_t d) { return size("input", d) + 2 * param("padding", d - 2) >= 1; })
// Arguments are named; the names are resolved when the engine compiles the terms (and checked
// when the spec is registered).
// Booleans are the integers 0 and 1; `/` and `%` are floor division and modulo (Python's).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace opsfuzz {

// The integer attributes a term can name. None is 1 when an optional argument is None.
enum class JointAttr : uint8_t { None, Rank, Length, Value, Size, Elem };

enum class TermOp : uint8_t {
  Const,
  Attr,
  Neg,
  Not,
  Add,
  Sub,
  Mul,
  Div,
  Mod,
  Lt,
  Le,
  Gt,
  Ge,
  Eq,
  Ne,
  And,
  Or,
  Ite,
  Sum,
  Prod,
  All,
  Any,  // folds of `body` over the dims or entries of an argument
};

struct TermNode;

class Term {
 public:
  Term(int64_t v);
  Term(int v) : Term(static_cast<int64_t>(v)) {}
  explicit Term(std::shared_ptr<const TermNode> n) : node_(std::move(n)) {}
  const TermNode& node() const { return *node_; }

 private:
  std::shared_ptr<const TermNode> node_;
};

// The index range of a fold: the dims of a tensor argument (from `from` on) or the entries of
// a list argument.
struct Over {
  std::string arg;
  JointAttr count;  // Rank or Length
  int64_t from = 0;
};

struct TermNode {
  TermOp op = TermOp::Const;
  int64_t value = 0;                  // Const
  JointAttr attr = JointAttr::Value;  // Attr
  std::string arg;                    // Attr
  std::vector<Term> kids;             // operands; Attr Size/Elem: the index
  Over over{};                        // folds
  std::function<Term(int64_t)> body;  // folds: the term at one index
};

Term operator-(Term a);
Term operator!(Term a);
Term operator+(Term a, Term b);
Term operator-(Term a, Term b);
Term operator*(Term a, Term b);
Term operator/(Term a, Term b);  // floor division
Term operator%(Term a, Term b);  // modulo with the sign of the divisor
Term operator<(Term a, Term b);
Term operator<=(Term a, Term b);
Term operator>(Term a, Term b);
Term operator>=(Term a, Term b);
Term operator==(Term a, Term b);
Term operator!=(Term a, Term b);
Term operator&&(Term a, Term b);
Term operator||(Term a, Term b);

namespace dsl {
Term is_none(std::string arg);
Term rank(std::string arg);
Term length(std::string arg);          // entries of an int list
Term value(std::string arg);           // an int, dim or bool argument
Term size(std::string arg, Term dim);  // a negative dim counts from the end
Term elem(std::string arg, Term i);    // an entry of an int list
Term ite(Term cond, Term then, Term otherwise);
Term implies(Term a, Term b);
Term max(Term a, Term b);
Term min(Term a, Term b);
inline Over dims(std::string arg, int64_t from = 0) { return {std::move(arg), JointAttr::Rank, from}; }
inline Over elems(std::string arg) { return {std::move(arg), JointAttr::Length, 0}; }
Term sum(Over o, std::function<Term(int64_t)> body = {});  // the entries (or sizes) themselves by default
Term prod(Over o, std::function<Term(int64_t)> body = {});
Term all(Over o, std::function<Term(int64_t)> body);
Term all_entries(std::string list, std::function<Term(Term)> rule);  // rule(entry) for every entry of a list
Term any(Over o, std::function<Term(int64_t)> body);
inline Term numel(std::string arg) { return prod(dims(std::move(arg))); }
// A per-spatial-dim parameter list: one entry for every dim, or one per dim.
Term param(const std::string& list, int64_t i);
}  // namespace dsl

}  // namespace opsfuzz
