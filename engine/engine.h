// The engines: from a Spec to tuples of MetaArgs.
//   AttributeEngine     one attribute variable -> its space -> candidate values
//   StructuralEngine    per-element variables in sequence (a tensor's sizes, a list's values)
//   MetaArgEngine       one argument, attribute by attribute in hierarchy order -> MetaArg
//   MetaArgTupleEngine  all arguments in dependency order -> one tuple per task and variant
#pragma once

#include "argtypes/rng.h"
#include "engine/config.h"
#include "engine/joint.h"
#include "specs/model/spec.h"

#include <array>
#include <deque>
#include <optional>
#include <stdexcept>

namespace opsfuzz {

// A spec whose constraints leave some variable no value at all.
struct UnsatisfiableSpec : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Where a solve found an empty space.
struct DeadEnd {
  int arg = -1;
  Attribute attribute = Attribute::Value;
  int64_t element = -1;
  std::vector<std::string> constraints;  // labels of the constraints applied
  bool violating = false;                // an invalid tuple's: no value breaks `constraints` (the one to violate)
  // An invalid tuple's inputs fell where the kernel does not check the rule broken
  // (`constraints`: the inputs, as Spec::unchecked_on names them).
  bool unchecked = false;
  // "argument 'dim', attribute Value: no value satisfies ..." (violating: "... no value violates ...")
  std::string cause(const Spec& spec) const;
  std::string describe(const Spec& spec) const;  // the op, then its cause
  auto operator<=>(const DeadEnd&) const = default;
};

// Narrows `s` by one constraint's condition `suffix op` (negated: by its complement). What the
// engine does for every constraint it applies; also how a given value is tested against one
// constraint (generators/classify.h).
void apply(VariableSpace& s, Suffix suffix, const Operand& op, bool negate);
// The values a tensor of dtype t can hold (Int spaces for bool and integral dtypes).
VariableSpace tensor_value_space(c10::ScalarType t);

class AttributeEngine {
 public:
  explicit AttributeEngine(const Config& cfg);
  // Every value the variable may take before constraints (the limits of the config). `entry`:
  // the entry of a tensor list being solved, whose dtype its values' universe is (-1: the
  // argument's own tensor).
  VariableSpace universe(ArgType type, Attribute a, const MetaArg& self, int64_t entry = -1) const;
  // The universe narrowed by the argument's constraints on `a`. Constraint `negate` (an index
  // into arg.constraints) is applied negated; `negated` tells whether it applied here. The
  // space is solved into `buffer` (or copied there, when solved before from the same reads of
  // the context), or, when no constraint on `a` reads the context, solved once and kept: the
  // result refers to one or the other.
  const VariableSpace& solve(const ArgSpec& arg, Attribute a, const Ctx& ctx, int negate, bool& negated,
                             VariableSpace& buffer, std::vector<std::string>* applied = nullptr,
                             bool lenient = false) const;
  // The universe narrowed by the constraints on `a` that read no context (all but `skip`).
  VariableSpace constant_domain(const ArgSpec& arg, Attribute a, int skip) const;
  // What `universe` reads of self, as a number (0: nothing): the dtype of a tensor's values, the
  // kind of a scalar.
  static int universe_kind(ArgType type, Attribute a, const MetaArg& self, int64_t entry = -1);
  // Up to n distinct values: the boundaries and 0/±1 first, then random members. A finite
  // space with at most `all_up_to` members gives all of them.
  std::vector<Value> candidates(const VariableSpace& s, size_t n, Rng& rng, size_t all_up_to = 0) const;
  // Whether those candidates are the whole space, in order (no random member among them).
  static bool enumerates(const VariableSpace& s, size_t n, size_t all_up_to);
  // Candidate `index` of a space that candidates() does not enumerate, drawing only what it
  // needs: a boundary or 0/±1, else a random member (one of those only after 8 draws).
  Value candidate(const VariableSpace& s, size_t index, Rng& rng) const;
  // One value, boundaries and special values favoured.
  Value pick(const VariableSpace& s, Rng& rng) const;

 private:
  int64_t pick_int(const VariableSpace& s, Rng& rng) const;  // pick() of an Int space with intervals left
  // What a space is solved for. A space whose constraints all read no context depends only on
  // this key (the universe on the dtype of a value): it is solved once per engine.
  struct SolveKey {
    const ArgSpec* arg;
    Attribute a;
    int negate;
    int universe;  // the dtype or scalar kind a value's universe depends on
    bool lenient;
    friend bool operator==(const SolveKey&, const SolveKey&) = default;
  };
  // A space solved from constraints that read the context, with what they read.
  struct Remembered {
    CtxReads reads;
    VariableSpace space;
    bool negated = false;
  };
  struct Solved {
    SolveKey key{};
    VariableSpace space;  // constant constraints
    bool negated = false;
    // Constraints that read the context: the last spaces solved, each given again wherever its
    // reads give the same values (an Int's range on a dtype, a list's length on a rank).
    std::vector<Remembered> remembered;
    size_t next = 0;                    // the one replaced next
    uint32_t solves = 0, recalled = 0;  // a key whose reads rarely repeat stops remembering
    bool remembers() const;
    const Remembered* recall(const Ctx& ctx);
  };
  Solved* find(const SolveKey& key) const;  // nullptr when there is none yet
  Solved& add(Solved solved) const;
  size_t home(const SolveKey& key) const;                       // where probing for the key starts in table_
  std::vector<Value> boundaries(const VariableSpace& s) const;  // those of candidates(), in order
  VariableSpace solve_uncached(const ArgSpec& arg, Attribute a, const Ctx& ctx, int negate, bool& negated,
                               std::vector<std::string>* applied, bool lenient, CtxReads* reads = nullptr) const;

  const Config& cfg_;
  VariableSpace dtypes_;  // the tensor dtypes the config allows
  // Looked up at every solve: open addressing over a power-of-two table of the entries of
  // `solved_` (which never move), where std::unordered_map divided by a prime each time.
  mutable std::deque<Solved> solved_;
  mutable std::vector<Solved*> table_;  // nullptr: free
  mutable CtxReads reads_;              // of the space being solved
};

struct ArgRequest {
  std::optional<Attribute> focus;  // the attribute to vary
  int variant = 0;                 // which of its candidates
  int negate = -1;                 // the constraint to violate
  // An argument solved after the violation: a constraint that cannot be evaluated on the
  // invalid dependencies (a dim out of range, say) is left out instead of failing.
  bool lenient = false;
};

class MetaArgEngine;

class StructuralEngine {
 public:
  explicit StructuralEngine(MetaArgEngine& owner) : owner_(owner) {}
  // Solves `count` per-element variables of attribute `a` in order, each seeing the ones before
  // (a shape's sizes and an int list's entries; a float or bool list's are not offered).
  template <class T> bool solve(Attribute a, int64_t count, std::vector<T>& out);
  // The `count` entries of a value list of T (int64_t, double or bool) into `out`.
  template <class T> bool solve_list(int64_t count, Value& out);

 private:
  MetaArgEngine& owner_;
};

class MetaArgEngine {
 public:
  MetaArgEngine(const Spec& spec, const Config& cfg, const AttributeEngine& attrs, JointSolver& joint)
      : spec_(spec), cfg_(cfg), attrs_(attrs), joint_(joint), kept_(spec.args().size()) {}
  // Solves argument `arg` (spec.args()[arg], or an out argument when `spec_arg` is given) given
  // the solved dependencies. False on a dead end.
  bool solve(int arg, const std::vector<MetaArg>& metas, const ArgRequest& req, Rng& rng, MetaArg& out,
             const ArgSpec* spec_arg = nullptr);
  int variants() const { return variants_; }  // candidates the focused attribute offered
  // Under the contract configuration: the deviations the values chosen since the last clear
  // fall into (Avoid constraints they break).
  const std::vector<const Deviation*>& deviations() const { return hits_; }
  void clear_deviations() { hits_.clear(); }
  bool negated() const { return negated_; }  // the negated constraint was applied
  const DeadEnd& dead_end() const { return dead_end_; }

 private:
  friend class StructuralEngine;
  // Chooses one variable of attribute `a` (element `element` of `count` when per-element).
  bool choose(Attribute a, int64_t element, int64_t count, const IntList* partial, Value& out);
  // The space of that variable, negated when this is where the requested violation goes:
  // `buffer` or a space the attribute engine keeps; nullptr on a dead end.
  const VariableSpace* space_for(Attribute a, int64_t element, int64_t count, const IntList* partial,
                                 VariableSpace& buffer);
  // space_for past the kept spaces: `wants` the negation, `kept` where to keep the space solved.
  const VariableSpace* solve_space(Attribute a, int64_t element, int64_t count, const IntList* partial,
                                   VariableSpace& buffer, bool wants, const VariableSpace** kept);
  bool solve_tensor(TensorMeta& t, int64_t count, bool optional_entry);
  // For a variable that joint constraints read: settles `out` on a value of `space` that keeps
  // them satisfiable (the values they rule out leave `space`), and fixes it.
  bool choose_joint(int slot, Attribute a, int64_t element, VariableSpace& space, Value& out);
  Value draw(Attribute a, const VariableSpace& space);  // the focused candidate or a random pick
  // The focused attribute's candidates when they are its whole space. A space the attribute
  // engine keeps is enumerated once (a focus asks for them at every sample); draw's other space
  // is buffer_ (narrowed by joint constraints), enumerated anew.
  const std::vector<Value>& enumerated(const VariableSpace& space, size_t n, size_t all);
  void note_deviations(Attribute a, int64_t element, int64_t count, const IntList* partial, const Value& v);
  // The spaces the Avoid constraints on attribute `a` keep valid generation to, each with its deviation.
  std::vector<std::pair<VariableSpace, const Deviation*>> avoided(Attribute a, int64_t element, int64_t count,
                                                                  const IntList* partial) const;

  const Spec& spec_;
  const Config& cfg_;
  const AttributeEngine& attrs_;
  JointSolver& joint_;
  // State of the current solve.
  int arg_ = -1;
  const ArgSpec* argspec_ = nullptr;
  const std::vector<MetaArg>* metas_ = nullptr;
  ArgRequest req_;
  Rng* rng_ = nullptr;
  MetaArg* meta_ = nullptr;
  int64_t entry_ = -1;
  int64_t negate_at_ = 0;  // the element that a per-element negation prefers
  int variants_ = 1;
  bool negated_ = false;
  DeadEnd dead_end_;
  std::vector<const Deviation*> hits_;
  VariableSpace buffer_;  // choose's space when the attribute engine keeps none: a member, so no choice builds one
  // The spaces the attribute engine keeps (no constraint reads the context), by argument,
  // attribute and universe kind, once seen non-empty: space_for returns them without a context
  // or a lookup, as it is asked for every variable.
  static constexpr int kKinds = 32;
  using Kept = std::array<const VariableSpace*, kKinds>;
  std::vector<std::array<Kept, static_cast<size_t>(Attribute::Value) + 1>> kept_;
  std::vector<std::pair<const VariableSpace*, std::vector<Value>>> enumerated_;  // by kept space
  std::vector<Value> candidates_;                                                // the last enumeration of buffer_
};

// One unit of the coverage plan: vary `attribute` of argument `arg` (valid), or violate
// constraint `constraint` of argument `arg` (invalid).
struct Task {
  int arg = 0;
  Attribute attribute = Attribute::Value;
  int constraint = -1;
  int joint = -1;  // or violate joint constraint `joint` of the spec
  bool valid() const { return constraint < 0 && joint < 0; }
};

struct MetaTuple {
  std::vector<MetaArg> metas;  // by argument index
  int variants = 1;            // candidates of the focused attribute
  std::string violated;        // label of the violated constraint (invalid tuples)
  // The deviations the tuple falls into (contract configuration): Avoid constraints it breaks,
  // or the Unchecked rule it violates.
  std::vector<const Deviation*> deviations;
  std::vector<MetaArg> outs;  // out= arguments, when asked for
};

class MetaArgTupleEngine {
 public:
  MetaArgTupleEngine(const Spec& spec, const Config& cfg);
  const Spec& spec() const { return spec_; }
  const std::vector<int>& order() const { return order_; }
  std::vector<Task> valid_tasks() const;  // every argument x every attribute of its hierarchy
  // Every argument x every negatable constraint, but constant dtype rules that no dtype of this
  // configuration breaks (complex dtypes refused, without `complex`): tasks that could only dead-end.
  std::vector<Task> invalid_tasks() const;
  // Whether some dtype of this configuration breaks constraint k of argument `arg`; true for the
  // constraints that are not constant dtype rules (whether they can be broken shows in solving).
  bool breakable(int arg, size_t k) const;
  // Called after each argument is solved, so that dependants see its materialized value.
  using Materialize = std::function<void(int arg, const MetaArg& meta)>;
  // One attempt at a tuple for `task`. False on a dead end (or, invalid, when the constraint
  // could not be violated); dead_end() says where.
  bool solve(const Task& task, int variant, Rng& rng, const Materialize& materialize, MetaTuple& out);
  const DeadEnd& dead_end() const { return dead_end_; }
  const JointSolver& joint() const { return joint_; }
  std::string describe(const Task& task) const;
  // Solves the out= arguments of the spec for a solved tuple (into out.outs).
  bool solve_outs(Rng& rng, MetaTuple& out);

 private:
  const Spec& spec_;
  Config cfg_;
  AttributeEngine attrs_;
  JointSolver joint_;
  MetaArgEngine args_;
  std::vector<int> order_;
  DeadEnd dead_end_;
};

}  // namespace opsfuzz
