// The spec model: one Spec per operator overload, its arguments (named, as in the op's schema),
// their dependencies and the constraints on their attributes. A constraint reads "attribute
// suffix value" and carries a label that reads as a sentence: `input.rank in [3, 5]`.
#pragma once

#include "argtypes/meta_arg.h"
#include "specs/model/joint.h"

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace opsfuzz {

enum class Suffix : uint8_t { Eq, Ne, In, NotIn, Le, Lt, Ge, Gt, Be, Gen };
std::string_view name(Suffix s);

class Spec;
struct ArgSpec;

// Where the linked kernel departs from the op's contract: a finding, never silently narrowed
// away. Valid generation avoids it by default; the `contract` configuration generates it.
struct Deviation {
  std::string id;       // "index_select.zero_dim_self_many_indices"
  std::string reason;   // what the kernel does instead of what the contract says
  std::string command;  // an ops-fuzz command that reproduces it
};
using DeviationRef = std::shared_ptr<const Deviation>;

// What a constraint is to the op.
enum class Role : uint8_t {
  Rule,       // a rule of the contract: valid samples keep it, invalid ones break it
  Scope,      // narrows what is generated without being a rule: never broken
  Avoid,      // keeps valid samples out of a deviation (off under the contract configuration)
  Unchecked,  // a rule the kernel does not check (a deviation): broken only under the contract
};
// Whether valid generation applies a constraint of this role, and whether invalid generation may
// break it, with or without the contract configuration.
inline bool applies(Role r, bool contract) { return r != Role::Avoid || !contract; }
inline bool negatable(Role r, bool contract) { return r == Role::Rule || (contract && r == Role::Unchecked); }

// What a constraint function sees: the dependencies of the argument being solved, by name, and
// which element of the argument is being solved.
class Ctx {
 public:
  // `spec` may be null for constraints that read no dependency.
  Ctx(const Spec* spec, const ArgSpec& arg, const std::vector<MetaArg>& metas, const MetaArg& self)
      : spec_(spec), arg_(arg), metas_(metas), self_(self) {}

  // A dependency by name. Throws std::invalid_argument naming the spec when `arg` is not one.
  const MetaArg& meta(std::string_view arg) const;
  bool is_none(std::string_view arg) const { return meta(arg).none; }
  c10::ScalarType dtype(std::string_view arg) const { return meta(arg).tensor().dtype; }
  const IntList& shape(std::string_view arg) const { return meta(arg).tensor().shape; }
  int64_t rank(std::string_view arg) const { return static_cast<int64_t>(shape(arg).size()); }
  int64_t size(std::string_view arg, int64_t dim) const;  // dim may be negative
  int64_t numel(std::string_view arg) const;
  int64_t length(std::string_view arg) const;             // entries of a list argument
  int64_t as_int(std::string_view arg) const { return opsfuzz::as_int(meta(arg).value); }
  double as_double(std::string_view arg) const { return opsfuzz::as_double(meta(arg).value); }
  const IntList& ints(std::string_view arg) const { return std::get<IntList>(meta(arg).value); }
  ScalarDtype scalar_dtype(std::string_view arg) const { return meta(arg).scalar_dtype; }

  // The argument being solved, attributes solved so far.
  const MetaArg& self() const { return self_; }
  // The tensor being solved: the argument's own, or the current entry of a tensor list.
  const TensorMeta& tensor() const { return self_.tensors.at(entry_ < 0 ? 0 : static_cast<size_t>(entry_)); }
  // The entry of a tensor list being solved (-1: not a tensor list).
  int64_t entry() const { return entry_; }
  // Solving a Size: the dim being solved, of rank() dims.
  int64_t dim() const { return element(Attribute::Size); }
  int64_t rank() const { return count(Attribute::Size); }
  // Solving the entries of a value list: the entry being solved, of length() entries.
  int64_t position() const { return element(Attribute::Value); }
  int64_t length() const { return count(Attribute::Value); }
  // The sizes or int list entries solved before this one.
  const IntList& solved() const;

  // Set by the engine: which element of attribute `a` is being solved.
  void solving(Attribute a, int64_t element, int64_t count, const IntList* solved, int64_t entry) {
    attribute_ = a, element_ = element, count_ = count, solved_ = solved, entry_ = entry;
  }

 private:
  int64_t element(Attribute a) const;
  int64_t count(Attribute a) const;

  const Spec* spec_;
  const ArgSpec& arg_;
  const std::vector<MetaArg>& metas_;
  const MetaArg& self_;
  Attribute attribute_ = Attribute::Value;
  int64_t element_ = -1, count_ = -1, entry_ = -1;
  const IntList* solved_ = nullptr;
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
  std::string label;       // "index values in [0, self.size(dim) - 1]"
  Role role = Role::Rule;
  bool constant = false;   // fn reads nothing of the context
  DeviationRef deviation;  // Avoid and Unchecked

  bool applies(bool contract) const { return opsfuzz::applies(role, contract); }
  bool negatable(bool contract) const { return opsfuzz::negatable(role, contract); }
};

// A condition before it is attached to an attribute: what the DSL's Eq(...), In(...) build.
struct Cond {
  Suffix suffix = Suffix::Eq;
  ConstraintFn fn;
  std::string text;  // the right-hand side ("[3, 5]"), or the whole label when `sentence`
  bool constant = false;
  bool sentence = false;
  Role role = Role::Rule;
  DeviationRef deviation;
};

struct ArgSpec {
  std::string name;
  ArgType type;
  std::vector<std::string> dependency_names;
  std::vector<int> dependencies;  // resolved by the spec: indices of its arguments, -1 unknown
  std::vector<Constraint> constraints;
  bool keyword = false;
  DeviationRef layout_deviation;  // the kernel refuses some layouts of valid tensors
  std::string layout_scope;       // why only contiguous layouts are generated (not a kernel bug)
  std::string order_scope;        // why a tensor's values are generated in ascending order

  ArgSpec(std::string n, ArgType t) : name(std::move(n)), type(t) {}
  // The arguments this one's constraints read, by name.
  template <class... N> ArgSpec& deps(N&&... names) {
    (dependency_names.emplace_back(std::forward<N>(names)), ...);
    return *this;
  }
  ArgSpec& optional(Cond c) { return add(Attribute::Optional, std::move(c)); }
  ArgSpec& dtype(Cond c) { return add(Attribute::Dtype, std::move(c)); }
  ArgSpec& length(Cond c) { return add(Attribute::Length, std::move(c)); }
  ArgSpec& rank(Cond c) { return add(Attribute::Rank, std::move(c)); }
  ArgSpec& size(Cond c) { return add(Attribute::Size, std::move(c)); }
  ArgSpec& value(Cond c) { return add(Attribute::Value, std::move(c)); }
  ArgSpec& add(Attribute a, Cond c);
  // The kernel refuses some non-contiguous layouts of valid tensors (a deviation): generated
  // contiguous unless the configuration asks for the contract.
  ArgSpec& contiguous(DeviationRef d) { layout_deviation = std::move(d); return *this; }
  // Generated contiguous whatever the configuration, for a reason that is not a kernel bug (a
  // rule over strides that no constraint can state): a generation scope, never broken.
  ArgSpec& contiguous_scope(std::string why) { layout_scope = std::move(why); return *this; }
  // Values generated in ascending order (flattened), from the lowest value the tensor's value
  // space admits to the highest (CSR-style offsets): a rule over the order of the elements, which
  // no value constraint can state, so a generation scope, never broken.
  ArgSpec& ascending_scope(std::string why) { order_scope = std::move(why); return *this; }
  // How this argument's attribute `a` is named in labels: "input.rank", "tensors[i].size(d)".
  std::string subject(Attribute a) const;
};

struct JointConstraint {
  std::string label;
  Term term;
  Role role = Role::Rule;
  DeviationRef deviation;
  bool applies(bool contract) const { return opsfuzz::applies(role, contract); }
  bool negatable(bool contract) const { return opsfuzz::negatable(role, contract); }
};

// A deviation and where a spec marks it.
struct DeviationSite {
  DeviationRef deviation;
  Role role;          // Avoid (valid inputs the kernel mishandles) or Unchecked (invalid ones it takes)
  std::string where;  // the label of the constraint, or "input: non-contiguous layouts"
};

class Spec {
 public:
  explicit Spec(std::string op) : op_(std::move(op)) {}
  Spec& in(ArgSpec a);    // positional
  Spec& kw(ArgSpec a);    // keyword-only
  Spec& out(ArgSpec a);   // out= tensors, generated only when asked
  // A relation over attributes of several arguments, solved jointly (see joint.h).
  Spec& joint(std::string label, Term t) { return add_joint(std::move(label), std::move(t), Role::Rule, {}); }
  // The same as a generation scope: never broken by invalid generation.
  Spec& joint_scope(std::string label, Term t) { return add_joint(std::move(label), std::move(t), Role::Scope, {}); }
  // Keeps valid samples out of a deviation (the relation holds unless under the contract).
  Spec& joint_avoid(DeviationRef d, std::string label, Term t) {
    return add_joint(std::move(label), std::move(t), Role::Avoid, std::move(d));
  }
  // A rule of the contract the kernel does not check: broken only under the contract.
  Spec& joint_unchecked(DeviationRef d, std::string label, Term t) {
    return add_joint(std::move(label), std::move(t), Role::Unchecked, std::move(d));
  }

  const std::string& op() const { return op_; }
  const std::vector<ArgSpec>& args() const { return args_; }
  const std::vector<ArgSpec>& outs() const { return outs_; }
  const std::vector<JointConstraint>& joints() const { return joints_; }
  int index_of(std::string_view arg) const;  // -1 when the spec has no such argument
  std::vector<DeviationSite> deviations() const;
  // Every name a spec uses resolves and no dependency cycles: throws std::invalid_argument
  // naming the spec and the culprit otherwise.
  void check() const;

 private:
  Spec& add_joint(std::string label, Term t, Role role, DeviationRef d);
  Spec& add(ArgSpec a, bool keyword, std::vector<ArgSpec>& into);
  void link();  // resolves every dependency name that names an argument

  std::string op_;
  std::vector<ArgSpec> args_;
  std::vector<ArgSpec> outs_;
  std::vector<JointConstraint> joints_;
};

// The order in which arguments are solved: every argument after its dependencies. Throws
// std::invalid_argument naming the spec and argument on a cycle or an unknown name.
std::vector<int> solve_order(const Spec& spec);

}  // namespace opsfuzz
