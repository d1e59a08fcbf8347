// The spec model: one Spec per operator overload, its arguments (named, as in the op's schema),
// their dependencies and the constraints on their attributes. A constraint reads "attribute
// suffix value" and carries a label that reads as a sentence: `input.rank in [3, 5]`.
#pragma once

#include "argtypes/meta_arg.h"
#include "specs/model/joint.h"

#include <algorithm>
#include <bit>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace c10 {
struct IValue;
}

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
  // A deviation of kind crash — a known crash of the linked libtorch — lists the signals a sample
  // in it may die of, as strsignal() names them ("Aborted", "Segmentation fault"): such a crash is
  // a finding the sweep, run and GoogleTest know, not a failure of theirs.
  std::vector<std::string> signals;
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

// What constraint functions read of their context, each read with the value it gave (Ctx::record),
// so that a space solved from them can be reused wherever the same reads give the same values.
// A read of a whole argument, list, shape or tensor is not kept: it makes the record `whole`, of
// no use.
struct CtxReads {
  enum Kind : uint8_t {
    IsNone,
    Dtype,
    Rank,
    Size,
    Numel,
    Length,
    AsInt,
    AsDouble,
    ScalarDtype,
    ScalarType,
    OwnDtype,
    OwnScalarDtype,
    Entry,
    Dim,
    OwnRank,
    Position,
    OwnLength,
    Solved
  };
  struct Read {
    Kind kind;
    int arg;     // the dependency's index among the spec's arguments (-1: the argument being solved)
    int64_t at;  // Size: the dim asked for; Solved: the element
    int64_t value;
  };
  std::vector<Read> reads;
  bool whole = false;
  void clear() { reads.clear(), whole = false; }
};

// What a constraint function sees: the dependencies of the argument being solved, by name, and
// which element of the argument is being solved.
class Ctx {
 public:
  // `spec` may be null for constraints that read no dependency.
  Ctx(const Spec* spec, const ArgSpec& arg, const std::vector<MetaArg>& metas, const MetaArg& self)
      : spec_(spec), arg_(arg), metas_(metas), self_(self) {}

  // A dependency by name. Throws std::invalid_argument naming the spec when `arg` is not one.
  const MetaArg& meta(std::string_view arg) const { return whole(dep(arg)); }
  bool is_none(std::string_view arg) const { return read(CtxReads::IsNone, arg); }
  c10::ScalarType dtype(std::string_view arg) const { return static_cast<c10::ScalarType>(read(CtxReads::Dtype, arg)); }
  const IntList& shape(std::string_view arg) const { return whole(dep(arg)).tensor().shape; }
  int64_t rank(std::string_view arg) const { return read(CtxReads::Rank, arg); }
  int64_t size(std::string_view arg, int64_t dim) const {
    return read(CtxReads::Size, arg, dim);
  }  // dim may be negative
  int64_t numel(std::string_view arg) const { return read(CtxReads::Numel, arg); }
  int64_t length(std::string_view arg) const { return read(CtxReads::Length, arg); }  // entries of a list argument
  int64_t as_int(std::string_view arg) const { return read(CtxReads::AsInt, arg); }
  double as_double(std::string_view arg) const { return std::bit_cast<double>(read(CtxReads::AsDouble, arg)); }
  const IntList& ints(std::string_view arg) const { return std::get<IntList>(whole(dep(arg)).value); }
  ScalarDtype scalar_dtype(std::string_view arg) const {
    return static_cast<ScalarDtype>(read(CtxReads::ScalarDtype, arg));
  }
  // A ScalarType? argument's value (nullopt: None).
  std::optional<c10::ScalarType> scalar_type(std::string_view arg) const {
    int64_t t = read(CtxReads::ScalarType, arg);
    return t < 0 ? std::nullopt : std::optional(static_cast<c10::ScalarType>(t));
  }

  // The argument being solved, attributes solved so far, and its type.
  const MetaArg& self() const { return whole(self_); }
  ArgType type() const;
  // The tensor being solved: the argument's own, or the current entry of a tensor list.
  const TensorMeta& tensor() const { return whole(own_tensor()); }
  // That tensor's dtype, and the argument's scalar dtype (Scalar arguments).
  c10::ScalarType own_dtype() const { return static_cast<c10::ScalarType>(read(CtxReads::OwnDtype)); }
  ScalarDtype own_scalar_dtype() const { return static_cast<ScalarDtype>(read(CtxReads::OwnScalarDtype)); }
  // The entry of a tensor list being solved (-1: not a tensor list).
  int64_t entry() const { return read(CtxReads::Entry); }
  // Solving a Size: the dim being solved, of rank() dims.
  int64_t dim() const { return read(CtxReads::Dim); }
  int64_t rank() const { return read(CtxReads::OwnRank); }
  // Solving the entries of a value list: the entry being solved, of length() entries.
  int64_t position() const { return read(CtxReads::Position); }
  int64_t length() const { return read(CtxReads::OwnLength); }
  // The sizes or int list entries solved before this one, and one of them.
  const IntList& solved() const { return whole(solved_list()); }
  int64_t solved(size_t i) const { return read(CtxReads::Solved, {}, static_cast<int64_t>(i)); }

  // Set by the engine: which element of attribute `a` is being solved.
  void solving(Attribute a, int64_t element, int64_t count, const IntList* solved, int64_t entry) {
    attribute_ = a, element_ = element, count_ = count, solved_ = solved, entry_ = entry;
  }
  // Set by the engine: where the reads are recorded from now on (nullptr: nowhere).
  void record(CtxReads* reads) const { record_ = reads; }
  // Whether every read of `recorded` gives the value it gave then.
  bool gives(const CtxReads& recorded) const;

 private:
  const MetaArg& dep(std::string_view arg) const;
  const IntList& solved_list() const;
  const TensorMeta& own_tensor() const { return self_.tensors.at(entry_ < 0 ? 0 : static_cast<size_t>(entry_)); }
  int64_t element(Attribute a) const;
  int64_t count(Attribute a) const;
  // What read `kind` of dependency `arg` (or of the argument being solved) gives now.
  int64_t value(CtxReads::Kind kind, const MetaArg* arg, int64_t at) const;
  int64_t read(CtxReads::Kind kind, std::string_view arg = {}, int64_t at = 0) const;
  template <class T> const T& whole(const T& all) const {
    if (record_) record_->whole = true;
    return all;
  }

  const Spec* spec_;
  const ArgSpec& arg_;
  const std::vector<MetaArg>& metas_;
  const MetaArg& self_;
  Attribute attribute_ = Attribute::Value;
  int64_t element_ = -1, count_ = -1, entry_ = -1;
  const IntList* solved_ = nullptr;
  mutable CtxReads* record_ = nullptr;
};

// A Gen constraint's rule: whether a value keeps it (any value, however far from what is
// generated; tensor elements come as doubles).
using GenRule = std::function<bool(const Value&)>;

// The right-hand side of a constraint: one value (Eq..Gt), a set (In, NotIn), [lo, hi] (Be),
// or a rule with its valid and invalid candidates (Gen).
struct Operand {
  std::vector<Value> values;
  std::vector<Value> invalid;  // Gen only
  GenRule allows;              // Gen only
};

// What a Gen function returns: the rule, which `check` judges inputs by, and the candidates
// generation draws from: values that keep it and values that break it alone, a window of the
// values that matter (a value of neither set is not generated, whatever the rule says of it).
// Inside the window the rule and the valid candidates agree.
struct GenSets {
  explicit GenSets(GenRule rule) : allows(std::move(rule)) {}
  GenRule allows;
  std::vector<Value> valid, invalid;
};

using ConstraintFn = std::function<std::optional<Operand>(const Ctx&)>;

struct Constraint {
  Attribute attribute = Attribute::Value;
  Suffix suffix = Suffix::Eq;
  ConstraintFn fn;
  std::string label;  // "index values in [0, self.size(dim) - 1]"
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
  ArgSpec& contiguous(DeviationRef d) {
    layout_deviation = std::move(d);
    return *this;
  }
  // Generated contiguous whatever the configuration, for a reason that is not a kernel bug (a
  // rule over strides that no constraint can state): a generation scope, never broken.
  ArgSpec& contiguous_scope(std::string why) {
    layout_scope = std::move(why);
    return *this;
  }
  // Values generated in ascending order (flattened), from the lowest value the tensor's value
  // space admits to the highest (CSR-style offsets): a rule over the order of the elements, which
  // no value constraint can state, so a generation scope, never broken.
  ArgSpec& ascending_scope(std::string why) {
    order_scope = std::move(why);
    return *this;
  }
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

// A sample's inputs by argument name, as a condition on inputs reads them.
class Inputs {
 public:
  Inputs(const Spec& spec, const std::vector<c10::IValue>& values) : spec_(spec), values_(values) {}
  // Throws std::invalid_argument naming the spec when `arg` is not one of its arguments.
  const c10::IValue& operator[](std::string_view arg) const;

 private:
  const Spec& spec_;
  const std::vector<c10::IValue>& values_;  // in the order of the spec's arguments
};

// Inputs on which the kernel does not check some of its rules (a deviation): a sample that breaks
// one of `rules` (every rule when none is named) on inputs where `holds` is true is accepted.
// Invalid generation keeps out of such inputs, but under the contract configuration, where the
// samples that fall on them say so.
struct UncheckedInputs {
  DeviationRef deviation;
  std::string inputs;  // what they are, as a reader says it: "input is empty"
  std::function<bool(const Inputs&)> holds;
  std::vector<std::string> rules;  // labels

  bool covers(const std::string& rule) const {
    return rules.empty() || std::find(rules.begin(), rules.end(), rule) != rules.end();
  }
};

class Spec {
 public:
  explicit Spec(std::string op) : op_(std::move(op)) {}
  Spec& in(ArgSpec a);   // positional
  Spec& kw(ArgSpec a);   // keyword-only
  Spec& out(ArgSpec a);  // out= tensors, generated only when asked
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

  // Inputs on which the kernel does not check `rules` (every rule when none is named).
  Spec& unchecked_on(DeviationRef d, std::string inputs, std::function<bool(const Inputs&)> holds,
                     std::vector<std::string> rules = {}) {
    unchecked_inputs_.push_back({std::move(d), std::move(inputs), std::move(holds), std::move(rules)});
    return *this;
  }

  const std::string& op() const { return op_; }
  const std::vector<ArgSpec>& args() const { return args_; }
  const std::vector<ArgSpec>& outs() const { return outs_; }
  const std::vector<JointConstraint>& joints() const { return joints_; }
  const std::vector<UncheckedInputs>& unchecked_inputs() const { return unchecked_inputs_; }
  // The unchecked inputs `values` (in the order of args()) fall on when they break `rule`, or
  // nullptr when the kernel checks it on them.
  const UncheckedInputs* unchecked_inputs_for(const std::string& rule, const std::vector<c10::IValue>& values) const;
  int index_of(std::string_view arg) const;  // -1 when the spec has no such argument
  std::vector<DeviationSite> deviations() const;
  // Every name a spec uses resolves and no dependency cycles: throws std::invalid_argument
  // naming the spec and the culprit otherwise.
  void check() const;

 private:
  Spec& add_joint(std::string label, Term t, Role role, DeviationRef d);
  bool has_rule(const std::string& label) const;  // a constraint or joint constraint so labelled
  Spec& add(ArgSpec a, bool keyword, std::vector<ArgSpec>& into);
  void link();  // resolves every dependency name that names an argument

  std::string op_;
  std::vector<ArgSpec> args_;
  std::vector<ArgSpec> outs_;
  std::vector<JointConstraint> joints_;
  std::vector<UncheckedInputs> unchecked_inputs_;
};

// The order in which arguments are solved: every argument after its dependencies. Throws
// std::invalid_argument naming the spec and argument on a cycle or an unknown name.
std::vector<int> solve_order(const Spec& spec);

}  // namespace opsfuzz
