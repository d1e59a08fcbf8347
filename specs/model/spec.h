// The spec model: one Spec per operator overload, its arguments, their dependencies and the
// constraints on their attributes. A constraint reads "attribute suffix value": Rank.Le(4).
#pragma once

#include "argtypes/meta_arg.h"
#include "specs/model/joint.h"

#include <functional>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

namespace c10 { struct IValue; }

namespace opsfuzz {

enum class Suffix : uint8_t { Eq, Ne, In, NotIn, Le, Lt, Ge, Gt, Be, Gen };
std::string_view name(Suffix s);

// What a constraint function sees: the dependencies (solved and materialized) and, for
// per-element attributes, which element is being solved.
class Ctx {
 public:
  Ctx(const std::vector<MetaArg>& metas, const std::vector<c10::IValue>* values, const MetaArg& self)
      : metas_(metas), values_(values), self_(self) {}

  const MetaArg& meta(int arg) const { return metas_.at(arg); }
  const c10::IValue& value(int arg) const;  // the materialized dependency
  const MetaArg& self() const { return self_; }  // this argument, solved up to this attribute

  bool is_none(int arg) const { return meta(arg).none; }
  c10::ScalarType dtype(int arg) const { return meta(arg).tensor().dtype; }
  const IntList& shape(int arg) const { return meta(arg).tensor().shape; }
  int64_t rank(int arg) const { return static_cast<int64_t>(shape(arg).size()); }
  int64_t size(int arg, int64_t dim) const;  // dim may be negative
  int64_t numel(int arg) const;
  int64_t length(int arg) const;             // entries of a list argument
  int64_t as_int(int arg) const { return opsfuzz::as_int(meta(arg).value); }
  double as_double(int arg) const { return opsfuzz::as_double(meta(arg).value); }
  const IntList& ints(int arg) const { return std::get<IntList>(meta(arg).value); }
  ScalarDtype scalar_dtype(int arg) const { return meta(arg).scalar_dtype; }

  // Per-element attributes: the element's position, how many there are (rank or length), and
  // the elements already solved before it.
  int64_t index = -1;
  int64_t count = -1;
  int64_t entry = -1;  // the entry of a tensor list whose attributes are being solved
  const IntList* partial = nullptr;

 private:
  const std::vector<MetaArg>& metas_;
  const std::vector<c10::IValue>* values_;
  const MetaArg& self_;
};

// The right-hand side of a constraint: one value (Eq..Gt), a set (In, NotIn), [lo, hi] (Be),
// or explicit valid and invalid candidates (Gen).
struct Operand {
  std::vector<Value> values;
  std::vector<Value> invalid;  // Gen only
};

struct GenSets {  // what a Gen function returns
  std::vector<Value> valid, invalid;
};

using ConstraintFn = std::function<std::optional<Operand>(const Ctx&)>;

struct Constraint {
  Attribute attribute = Attribute::Value;
  Suffix suffix = Suffix::Eq;
  ConstraintFn fn;
  std::string label;       // "other.Size.Gen(broadcastable_with(self))"
  bool negatable = true;   // false: narrows what is generated, not a validity rule of the op
  bool constant = false;   // fn reads nothing of the context
};

// A condition before it is attached to an attribute: what the DSL's Eq(...), In(...) build.
struct Cond {
  Suffix suffix;
  ConstraintFn fn;
  std::string text;
  bool negatable = true;
  bool constant = false;
};

struct ArgSpec {
  std::string name;
  ArgType type;
  std::vector<int> dependencies;  // indices of other arguments of the spec
  std::vector<Constraint> constraints;
  bool keyword = false;
  bool only_contiguous = false;  // a kernel that refuses some layouts of valid tensors

  ArgSpec(std::string n, ArgType t) : name(std::move(n)), type(t) {}
  template <class... I> ArgSpec& deps(I... args) {
    (dependencies.push_back(static_cast<int>(args)), ...);
    return *this;
  }
  ArgSpec& optional(Cond c) { return add(Attribute::Optional, std::move(c)); }
  ArgSpec& dtype(Cond c) { return add(Attribute::Dtype, std::move(c)); }
  ArgSpec& length(Cond c) { return add(Attribute::Length, std::move(c)); }
  ArgSpec& rank(Cond c) { return add(Attribute::Rank, std::move(c)); }
  ArgSpec& size(Cond c) { return add(Attribute::Size, std::move(c)); }
  ArgSpec& value(Cond c) { return add(Attribute::Value, std::move(c)); }
  ArgSpec& add(Attribute a, Cond c);
  // Generated contiguous whatever layouts the configuration asks for.
  ArgSpec& contiguous() { only_contiguous = true; return *this; }
};

class Spec {
 public:
  explicit Spec(std::string op) : op_(std::move(op)) {}
  Spec& in(ArgSpec a);    // positional
  Spec& kw(ArgSpec a);    // keyword-only
  Spec& out(ArgSpec a);   // out= tensors, generated only when asked
  // A relation over attributes of several arguments, solved jointly (see joint.h).
  Spec& joint(std::string label, Term t) { joints_.push_back({std::move(label), std::move(t), true}); return *this; }
  // The same as a generation scope: never negated by invalid generation.
  Spec& joint_scope(std::string label, Term t) { joints_.push_back({std::move(label), std::move(t), false}); return *this; }

  const std::string& op() const { return op_; }
  const std::vector<ArgSpec>& args() const { return args_; }
  const std::vector<ArgSpec>& outs() const { return outs_; }
  const std::vector<JointConstraint>& joints() const { return joints_; }

 private:
  std::string op_;
  std::vector<ArgSpec> args_;
  std::vector<ArgSpec> outs_;
  std::vector<JointConstraint> joints_;
};

// The order in which arguments are solved: every argument after its dependencies. Throws
// std::invalid_argument naming the spec and argument on a cycle or an unknown index.
std::vector<int> solve_order(const Spec& spec);

}  // namespace opsfuzz
