// Joint constraints in the engine. The spec's terms are compiled, with folds expanded over the
// limits, into instances over integer variables ("slots": one per attribute of an argument,
// one per dim or entry). The engine still chooses one variable at a time, in dependency order;
// JointSolver
//   - takes no value that an instance already rules out (forward checking, by partial
//     evaluation, of the values drawn), and
//   - with an oracle (Z3), accepts a value only if the whole system still has a solution, so no
//     later variable is left without a value (look-ahead). It keeps the last solution (the
//     witness) and repairs it by local search; Z3 is asked only when that fails. Without an
//     oracle, a tuple that breaks a joint constraint is found at the end and retried.
// Each instance's evaluation is kept, on the fixed values and on the witness: a changed slot
// re-evaluates only the nodes that depend on it.
#pragma once

#include "argtypes/rng.h"
#include "argtypes/space.h"
#include "engine/config.h"
#include "specs/model/spec.h"

#include <map>
#include <memory>
#include <optional>

namespace opsfuzz {

class AttributeEngine;
struct Task;

// A value for some slots; the others are unknown.
struct Assignment {
  std::vector<int64_t> values;
  std::vector<uint8_t> known;
  void reset(size_t n) { values.assign(n, 0), known.assign(n, 0); }
  void set(int slot, int64_t v) { values[static_cast<size_t>(slot)] = v, known[static_cast<size_t>(slot)] = 1; }
};

// A term compiled for evaluation: its nodes in evaluation order, each shared subterm once, and
// every fold expanded over the limits. The last node is the result.
struct Program {
  // What the congruences of unknown values can tell of a node (Evaluations' `congruent` mode).
  enum CongruenceRole : uint8_t { kNothing, kCarries /* its value, while unknown */, kDecides /* an equation */ };
  struct Node {
    TermOp op = TermOp::Const;
    CongruenceRole congruence = kNothing;
    int64_t value = 0;  // Const; folds: the first index
    int slot = -1;      // Attr with a fixed index; folds: the slot that counts the indices
    JointAttr attr = JointAttr::Value;
    int arg = -1;                // Attr with a computed (or negative) index
    int a = -1, b = -1, c = -1;  // operands; Attr with a computed index: the index
    int first = 0, count = 0;    // folds: their bodies, kids[first, first + count)
  };
  std::vector<Node> nodes;  // the constants first, then the reads of a fixed slot ("leaves")
  std::vector<int> kids;
  int constants = 0, leaves = 0;
  bool congruent = false;  // some equation's sides may keep congruences that decide it
};

class JointProblem;

// Programs' node values on an assignment, kept: after one slot changes, only the nodes that
// depend on it are evaluated again (most of a program does not read a given slot). The values
// of all the programs lie in one block, so that a set of them is copied at once.
class Evaluations {
 public:
  // Makes room for program p's values; its index is the number of programs added before.
  // `congruent`: an unknown node also keeps the congruence its value is known to keep, so that
  // an equation no completion can satisfy (a size that does not divide what is left) is known
  // to fail before any slot it reads is fixed; it costs more per node.
  void add(const Program& p, bool congruent = false);
  void clear() { value_.clear(), known_.clear(), spans_.clear(); }
  bool empty() const { return spans_.empty(); }
  void run(size_t k, const JointProblem& jp, const Program& p, const Assignment& a);
  // After one slot changed (its value or whether it is known); `readers`: the nodes that depend
  // on it, in evaluation order (Instance::readers).
  void rerun(size_t k, const JointProblem& jp, const Program& p, const Assignment& a, const std::vector<int>& readers);
  // Whether program k's result would be unknown with `slot` unknown (the others as in `a`, where
  // it is known; `readers` as for rerun). Evaluated on a copy: k's evaluation stays as it is.
  bool unknown_without(size_t k, const JointProblem& jp, const Program& p, Assignment& a, int slot,
                       const std::vector<int>& readers);
  // Program k's value; nullopt when it depends on unknown slots (or divides by 0).
  std::optional<int64_t> result(size_t k) const {
    const Span& s = spans_[k];
    if (!known_[s.known + s.nodes - 1]) return std::nullopt;
    return value_[s.value + s.nodes - 1];
  }
  // Program k's node values, and whether each is known.
  std::pair<const int64_t*, const uint8_t*> nodes(size_t k) const {
    return {value_.data() + spans_[k].value, known_.data() + spans_[k].known};
  }

 private:
  struct Span {  // where a program's node values are: by node, then (congruent) residues and moduli
    size_t known, value, nodes;
    bool congruent;
  };
  // Into value/known: the node values of a program laid out as `s` says.
  static void evaluate_nodes(const Span& s, int64_t* value, uint8_t* known, const JointProblem& jp, const Program& p,
                             const Assignment& a, const int* order, size_t from, size_t to);
  std::vector<int64_t> value_;
  std::vector<uint8_t> known_;
  std::vector<Span> spans_;
  std::vector<int64_t> copy_value_;  // unknown_without's copy of an evaluation
  std::vector<uint8_t> copy_known_;
};

class JointProblem {
 public:
  JointProblem(const Spec& spec, const Config& cfg, const AttributeEngine& attrs);

  struct Instance {
    Program program;
    int constraint;                                       // index into spec.joints()
    std::vector<int> slots;                               // the slots it may read, ascending
    std::vector<std::vector<int>> readers;                // by position in `slots`: the nodes that depend on it
    std::vector<int> position;                            // by slot: its position in `slots`, or -1
    const std::vector<int>& readers_of(int slot) const {  // a slot it reads
      return readers[static_cast<size_t>(position[static_cast<size_t>(slot)])];
    }
  };
  bool empty() const { return spec_.joints().empty(); }
  const Spec& spec() const { return spec_; }
  int slot_count() const { return static_cast<int>(lo_.size()); }
  // The slot of an attribute (index: the dim or entry), or -1 when no constraint reads it.
  int slot(JointAttr a, int arg, int64_t index) const;
  // The slot of an attribute, read or not; -1 when the index is past the limits.
  int raw_slot(JointAttr a, int arg, int64_t index) const;
  int64_t lo(int slot) const { return lo_[static_cast<size_t>(slot)]; }
  int64_t hi(int slot) const { return hi_[static_cast<size_t>(slot)]; }
  const std::vector<int>& used_slots() const { return used_; }
  int64_t bound(JointAttr count) const;  // the most dims (Rank) or entries (Length)
  int count_of(int entry) const;         // the Rank or Length slot of a Size or Elem slot; else -1
  int64_t index_of(int entry) const;     // the dim or entry of a Size or Elem slot
  bool is_entry(int slot) const;         // an Elem slot (an entry of a list)
  bool is_used(int slot) const { return is_used_[static_cast<size_t>(slot)] != 0; }
  // Whether constraint k holds in every tuple (a deviation's Avoid is off under the contract).
  bool in_force(int k) const { return spec_.joints()[static_cast<size_t>(k)].applies(cfg_.contract); }
  // The instances of constraint k: one per index of a top-level `all`, else the term itself.
  const std::vector<Instance>& instances(int k) const { return instances_[static_cast<size_t>(k)]; }
  const Instance& negation(int k) const { return negations_[static_cast<size_t>(k)]; }
  const Program& program(int k) const { return programs_[static_cast<size_t>(k)]; }
  // The values `slot` may take by the constant per-variable constraints of its argument,
  // leaving out constraint `skip` of that argument (the one an invalid task violates).
  VariableSpace domain(int slot, int skip) const;
  int arg_of(int slot) const { return static_cast<int>(slot / block_); }
  Program compile(const Term& t) const;
  // Partial evaluation: nullopt when the value depends on unknown slots (or divides by 0).
  std::optional<int64_t> eval(const Program& p, const Assignment& a) const;
  std::optional<int64_t> eval(const Term& t, const Assignment& a) const { return eval(compile(t), a); }

 private:
  std::vector<Term> instance_terms(const Term& t) const;
  Instance instance(const Term& t, int k);
  static void leaves_first(Program& p);
  static void mark_congruences(Program& p);
  bool reads(const Program::Node& n, int slot) const;          // directly
  std::vector<int> readers(const Program& p, int slot) const;  // the nodes that depend on `slot`
  int arg_index(const std::string& arg) const;                 // throws naming the spec on an unknown name

  const Spec& spec_;
  const Config& cfg_;
  const AttributeEngine& attrs_;
  int64_t block_;  // slots per argument
  std::vector<int64_t> lo_, hi_;
  std::vector<uint8_t> is_used_;
  std::vector<int> used_;
  std::vector<std::vector<Instance>> instances_;
  std::vector<Instance> negations_;
  std::vector<Program> programs_;
};

// What answers "do the values fixed so far have a completion?": Z3 when built with it.
class JointOracle {
 public:
  virtual ~JointOracle() = default;
  // A new tuple: every constraint holds except `negated` (-1: none), which fails; each
  // used slot stays in domains[slot].
  virtual void begin(int negated, const std::vector<VariableSpace>& domains, uint64_t seed) = 0;
  virtual void fix(int slot, int64_t v) = 0;
  // A model of the system with the fixed values and `slot` one of `allowed` (slot -1: no such
  // condition), into `model` (by slot). False when there is none. Throws on a timeout.
  virtual bool solve(int slot, const std::vector<int64_t>& allowed, std::vector<int64_t>& model) = 0;
  virtual uint64_t calls() const = 0;
};

bool have_z3();
// nullptr when built without Z3.
std::unique_ptr<JointOracle> make_z3_oracle(const JointProblem& p, unsigned timeout_ms);

class JointSolver {
 public:
  JointSolver(const Spec& spec, const Config& cfg, const AttributeEngine& attrs);
  bool active() const { return !problem_.empty(); }
  bool exact() const { return oracle_ != nullptr; }  // look-ahead; else sampling with retry
  const JointProblem& problem() const { return problem_; }
  // A new tuple for `task`: an invalid one violates a joint or a per-variable constraint.
  void begin(const Task& task, Rng& rng);
  // The slot that engine variable is, or -1 when no joint constraint reads it.
  int slot(int arg, ArgType type, Attribute a, int64_t element) const;
  // Forward checking, one drawn value at a time: open(slot, space) finds the instances that may
  // rule out values of `slot` (those the fixed values leave undecided; none for a space too
  // large to draw from until empty), rules_out(slot, v) names the one that rules out v, or
  // nullptr. Call fix(slot, ...) or begin() after them.
  void open(int slot, const VariableSpace& space);
  // Leaves out of `space` the values that an instance reading `slot` alone breaks.
  void narrow(int slot, VariableSpace& space) const;
  const std::string* rules_out(int slot, int64_t v);
  // Whether `slot` = v is known to keep a completion: a local search found one (always true
  // without an oracle). False proves nothing; `any` asks the oracle.
  bool completes(int slot, int64_t v, Rng& rng);
  // A value of `space` that keeps a completion (oracle only): the last solution's, when the
  // space holds it, else one a thorough local search completes, else the oracle's, on a random
  // side of a random pivot.
  std::optional<int64_t> any(int slot, const VariableSpace& space, Rng& rng);
  void fix(int slot, int64_t v);
  // After every argument is solved: the label of a constraint that fails (or of the negated
  // one, when it holds), else nullopt.
  std::optional<std::string> broken() const;
  // After every argument is solved: whether joint constraint `c` of the spec holds (unknown
  // counts as holding).
  bool holds(const JointConstraint& c) const;
  uint64_t oracle_calls() const { return oracle_ ? oracle_->calls() : 0; }

 private:
  // `thorough`: each move tries every free slot in turn, not one at random.
  // From the witness with `slot` just moved (changed_ = {slot}); the moves are added to changed_.
  bool repair(int slot, Rng& rng, bool thorough);
  bool try_value(int slot, int64_t v, Rng& rng, bool thorough);
  // Moves witness slot `s` to a value that makes `broken` hold and breaks the fewest other
  // instances; false (the witness unchanged) when no value of its domain does.
  bool mend(int broken, int s, Rng& rng);
  // The values of witness slot `s` that may make `broken` hold, as far as following it down to s
  // tells (a superset): those in [lo, hi] (none when lo > hi) and, when modulus is not 0, with
  // x mod modulus = residue.
  struct Mending {
    int64_t lo, hi, residue = 0, modulus = 0;
    bool in_class(int64_t v) const;
  };
  Mending mending_values(int broken, int s);
  // Whether the local search may move slot `s` of `broken` (an active instance) to mend it.
  bool is_free(int broken, int s);
  bool take_model(int slot, const std::vector<int64_t>& allowed);
  // The first choice of a tuple, of a narrow slot: a model with slot = v, found once per task (a
  // thorough local search from the first model, else the oracle), becomes the witness. Without
  // it, every tuple would keep the first model's first choice wherever the local search cannot
  // move it far (convolution_backward: rank 3 in 73 % of the samples).
  bool start_from(int slot, int64_t v, Rng& rng);
  // Active instance k's value on the fixed values and `slot` = v (its kept evaluation then
  // stands for that value until fix(slot, ...) re-evaluates it).
  std::optional<int64_t> with(int k, int slot, int64_t v);
  // `evaluations`: the active instances' on that model, when known.
  void set_witness(const std::vector<int64_t>& model, const Evaluations* evaluations = nullptr);
  void witness_changed(int slot);  // brings on_witness_ up to date
  // Active instance k's evaluation in `evaluations` (on `a`), after `slot` changed there.
  void rerun(Evaluations& evaluations, int k, const Assignment& a, int slot) const;

  JointProblem problem_;
  std::unique_ptr<JointOracle> oracle_;
  Assignment fixed_;
  Assignment witness_;  // a model consistent with the fixed values
  bool have_witness_ = false;
  int negated_ = -1;
  struct Start {  // a model with the first choice of a tuple, and the active instances' evaluations on it
    std::vector<int64_t> model;  // empty: none
    Evaluations evaluations;
  };
  // An instance that the values drawn keep holding (stride[i] >= 1 and the like): it reads one
  // slot, and perhaps the count that says whether it is read, and holds for every value drawn for
  // that slot whatever the count. It rules out no value drawn, so it is never opened nor evaluated
  // on the fixed values; it holds once that slot is fixed, or once the count is one of `unread`
  // (by value - lo, where it holds whatever the slot's value).
  struct Enforced {
    int slot = -1, count = -1;  // slot -1: not enforced
    uint64_t unread = 0;
  };
  struct PerTask {                                      // what depends only on the task
    std::vector<VariableSpace> domains;                 // by slot
    std::vector<std::vector<int64_t>> movable;          // by slot: its domain's values, for narrow slots
    std::vector<int64_t> first_model;                   // empty: none
    std::map<std::pair<int, int64_t>, Start> starts;    // by the first choice (slot, value)
    Evaluations on_first_model;                         // by active instance
    std::vector<const JointProblem::Instance*> active;  // the instances in force
    Evaluations unknown;                                // by active instance: on an assignment with no slot known
    std::vector<std::vector<int>> by_slot;              // by slot: the active instances reading it
    // By slot: its domain without the values that instances reading it alone, or with one
    // other slot, break (whatever that slot's value), when they break some (drawn from; the
    // local search may still pass through them).
    std::vector<std::optional<VariableSpace>> drawn;
    std::vector<Enforced> enforced;  // by active instance
  };
  // Node and arc consistency: an instance that reads one or two slots (entries, and the counts
  // that say they are read) takes out of the values drawn for each the values that break it
  // whatever the other's value.
  void leave_out_broken_values(PerTask& pt, const JointProblem::Instance& in);
  struct Reads {  // an instance's slots: the entries and values it reads, and the counts that say they are read
    std::vector<int> read, counts;
  };
  Reads reads_of(const JointProblem::Instance& in) const;
  Enforced enforced(const PerTask& pt, const JointProblem::Instance& in) const;
  static bool is_drawn(const PerTask& pt, int slot, int64_t v) {  // a value `narrow` leaves in
    const auto& drawn = pt.drawn[static_cast<size_t>(slot)];
    return !drawn || drawn->contains_number(static_cast<double>(v));
  }
  // Whether active instance k, enforced, holds in every completion once `slot` (which it reads) is v.
  bool enforces(int k, int slot, int64_t v) const;
  // The first model's list entries past the list's length are unread: Z3 leaves them any value.
  // Set to 1 (where their domain has it), the size that changes no product, a length drawn
  // larger than the model's may read entries that break little; kept where every instance still
  // holds and the local search then completes more lengths.
  void unread_entries_to_one(PerTask& pt);
  const std::string& label(int k) const;  // of active instance k's constraint
  // By active instance: its evaluation on the fixed values, kept as values are fixed.
  Evaluations forward_;
  // By active instance: it holds whatever the unfixed values are. Its evaluations are no longer
  // kept (it cannot break nor rule out a value).
  std::vector<uint8_t> settled_;
  std::vector<int> open_;                   // the active instances that may rule out values of the slot being chosen
  std::pair<int, int64_t> checked_{-1, 0};  // the slot and value the open instances last passed
  // Whether the open instances' evaluations on the fixed values stand for slot = v.
  bool checked(int slot, int64_t v) const { return checked_ == std::pair<int, int64_t>{slot, v}; }
  Evaluations on_witness_;  // by active instance: its evaluation on the witness
  // The slots the value being tried (first) and its repair moved, and their values before.
  std::vector<int> changed_;
  std::vector<int64_t> before_;
  std::vector<int> decided_;                         // try_value: the instances it settled
  std::vector<int> candidates_;                      // the slots a move of the repair may take
  std::vector<uint8_t> reads_;                       // mending_values: the nodes that read its slot
  std::map<std::pair<int, int>, PerTask> per_task_;  // by (joint, arg * 1024 + constraint) negated
  PerTask* task_ = nullptr;
  bool first_choice_ = false;  // no slot is fixed yet in this tuple
};

}  // namespace opsfuzz
