// Joint constraints, the solver's forward checking and witnesses: per task, the instances in
// force and the values they leave out; per tuple, the instances that may rule out a drawn value,
// and the witness (a model consistent with the fixed values) that the oracle gives.
#include "engine/joint.h"

#include "engine/engine.h"
#include "engine/joint_internal.h"

#include <algorithm>

namespace opsfuzz {
namespace {

constexpr size_t kNarrowUpTo = 512;     // larger spaces are not enumerated for forward checking
constexpr int64_t kMovableValues = 64;  // the local search moves no slot with wider bounds

}  // namespace

// ---- JointSolver -------------------------------------------------------------------------

JointSolver::JointSolver(const Spec& spec, const Config& cfg, const AttributeEngine& attrs)
    : problem_(spec, cfg, attrs) {
  if (!active()) return;
  if (cfg.joint == JointStrategy::Z3) oracle_ = make_z3_oracle(problem_, cfg.limits.solver_timeout_ms);
}

void JointSolver::begin(const Task& task, Rng& rng) {
  negated_ = task.joint;
  int skip_arg = task.joint < 0 && !task.valid() ? task.arg : -1;  // its violated constraint
  auto [it, fresh] = per_task_.try_emplace({task.joint, skip_arg < 0 ? -1 : skip_arg * 1024 + task.constraint});
  PerTask& pt = it->second;
  task_ = &pt;
  size_t n = static_cast<size_t>(problem_.slot_count());
  if (fresh) {
    pt.domains.resize(n);
    pt.movable.resize(n);
    for (int s : problem_.used_slots()) {
      const VariableSpace& d = pt.domains[static_cast<size_t>(s)] =
          problem_.domain(s, problem_.arg_of(s) == skip_arg ? task.constraint : -1);
      if (problem_.hi(s) - problem_.lo(s) < kMovableValues)
        for (int64_t v = problem_.lo(s); v <= problem_.hi(s); ++v)
          if (d.contains(coerce(d.type(), Value(v)))) pt.movable[static_cast<size_t>(s)].push_back(v);
    }
    for (size_t k = 0; k < problem_.spec().joints().size(); ++k) {
      if (static_cast<int>(k) == negated_) pt.active.push_back(&problem_.negation(static_cast<int>(k)));
      else if (problem_.in_force(static_cast<int>(k)))
        for (const auto& in : problem_.instances(static_cast<int>(k))) pt.active.push_back(&in);
    }
    pt.drawn.resize(n);
    for (const auto* in : pt.active)
      if (in->constraint != negated_) leave_out_broken_values(pt, *in);
    pt.enforced.assign(pt.active.size(), {});
    for (size_t k = 0; k < pt.active.size(); ++k)
      if (pt.active[k]->constraint != negated_) pt.enforced[k] = enforced(pt, *pt.active[k]);
    pt.by_slot.resize(n);
    Assignment none;
    none.reset(n);
    for (size_t k = 0; k < pt.active.size(); ++k) {
      for (int s : pt.active[k]->slots) pt.by_slot[static_cast<size_t>(s)].push_back(static_cast<int>(k));
      pt.unknown.add(pt.active[k]->program, pt.active[k]->program.congruent);
      pt.unknown.run(k, problem_, pt.active[k]->program, none);
    }
  }
  fixed_.reset(n);
  first_choice_ = true;
  forward_ = pt.unknown;
  settled_.resize(pt.active.size());
  for (size_t k = 0; k < pt.active.size(); ++k) settled_[k] = forward_.result(k) == 1;
  have_witness_ = false;
  if (!oracle_) return;
  oracle_->begin(negated_, pt.domains, rng.next());
  // A first model, the same for every tuple of this task: later ones follow the choices.
  if (fresh && !oracle_->solve(-1, {}, pt.first_model)) pt.first_model.clear();
  if (pt.first_model.empty()) return;  // no model at all: the first choice dead-ends
  if (fresh) unread_entries_to_one(pt);
  set_witness(pt.first_model, pt.on_first_model.empty() ? nullptr : &pt.on_first_model);
  if (pt.on_first_model.empty()) pt.on_first_model = on_witness_;
}

void JointSolver::unread_entries_to_one(PerTask& pt) {
  std::vector<int64_t> model = pt.first_model;
  std::vector<int> counts;  // of the lists whose entries are read
  for (int s : problem_.used_slots()) {
    int count = problem_.count_of(s);
    if (!problem_.is_entry(s) || !problem_.is_used(count)) continue;
    if (std::find(counts.begin(), counts.end(), count) == counts.end()) counts.push_back(count);
    if (problem_.index_of(s) < model[static_cast<size_t>(count)]) continue;
    const VariableSpace& d = pt.domains[static_cast<size_t>(s)];
    if (d.contains(coerce(d.type(), Value(int64_t{1})))) model[static_cast<size_t>(s)] = 1;
  }
  if (model == pt.first_model) return;
  Assignment a;
  a.reset(static_cast<size_t>(problem_.slot_count()));
  for (int s : problem_.used_slots()) a.set(s, model[static_cast<size_t>(s)]);
  for (const auto* in : pt.active)
    if (problem_.eval(in->program, a) != 1) return;  // an entry past its length is read after all
  // Kept when the local search completes more of the lengths from it than from Z3's model.
  auto lengths_completed = [&](const std::vector<int64_t>& m) {
    Rng rng(0);  // apart from the tuples' stream
    int n = 0;
    for (int c : counts)
      for (int64_t v : pt.movable[static_cast<size_t>(c)]) {
        set_witness(m);
        n += try_value(c, v, rng, false);
      }
    return n;
  };
  if (lengths_completed(model) > lengths_completed(pt.first_model)) pt.first_model = std::move(model);
}

JointSolver::Reads JointSolver::reads_of(const JointProblem::Instance& in) const {
  Reads out;
  for (int s : in.slots) {
    bool count = std::any_of(in.slots.begin(), in.slots.end(), [&](int e) { return problem_.count_of(e) == s; });
    (count ? out.counts : out.read).push_back(s);
  }
  return out;
}

void JointSolver::leave_out_broken_values(PerTask& pt, const JointProblem::Instance& in) {
  const Reads reads = reads_of(in);  // no structured binding: clang 14's lambdas cannot capture one
  const std::vector<int>& read = reads.read;
  const std::vector<int>& counts = reads.counts;
  auto is_count = [&](int c) { return std::find(counts.begin(), counts.end(), c) != counts.end(); };
  if (read.size() > 2) return;
  for (int s : read)
    if (pt.movable[static_cast<size_t>(s)].empty()) return;  // too many to try
  Assignment a;
  a.reset(static_cast<size_t>(problem_.slot_count()));
  for (int s : in.slots)
    if (is_count(s)) a.set(s, problem_.hi(s));  // the entries are read
  for (size_t i = 0; i < read.size(); ++i) {
    const int s = read[i], other = read.size() == 2 ? read[1 - i] : -1;
    // When `s` is drawn, its count says it is read; the other's count may not yet.
    if (other >= 0 && std::count(in.slots.begin(), in.slots.end(), problem_.count_of(other))) continue;
    auto holds_with = [&](int64_t v) {
      a.set(s, v);
      if (other < 0) return problem_.eval(in.program, a) != 0;
      const auto& others = pt.movable[static_cast<size_t>(other)];
      return std::any_of(others.begin(), others.end(), [&](int64_t u) {
        a.set(other, u);
        return problem_.eval(in.program, a) != 0;
      });
    };
    std::optional<VariableSpace>& drawn = pt.drawn[static_cast<size_t>(s)];
    for (int64_t v : pt.movable[static_cast<size_t>(s)]) {
      if (holds_with(v)) continue;
      if (!drawn) drawn = pt.domains[static_cast<size_t>(s)];
      drawn->ne(coerce(drawn->type(), Value(v)));
    }
    a.known[static_cast<size_t>(s)] = 0;
  }
}

JointSolver::Enforced JointSolver::enforced(const PerTask& pt, const JointProblem::Instance& in) const {
  const auto [read, counts] = reads_of(in);
  if (read.size() != 1 || counts.size() > 1) return {};
  Enforced e{read[0], counts.empty() ? -1 : counts[0], 0};
  const auto& values = pt.movable[static_cast<size_t>(e.slot)];
  std::vector<int64_t> count_values{0};  // none read: one pass
  if (e.count >= 0) count_values = pt.movable[static_cast<size_t>(e.count)];
  if (values.empty() || count_values.empty()) return {};
  Assignment a;
  a.reset(static_cast<size_t>(problem_.slot_count()));
  for (int64_t c : count_values) {
    if (e.count >= 0) a.set(e.count, c);
    bool every = true;  // every value of the slot, drawn or not
    for (int64_t v : values) {
      a.set(e.slot, v);
      const bool holds = problem_.eval(in.program, a) == 1;
      if (!holds && is_drawn(pt, e.slot, v)) return {};
      every = every && holds;
    }
    if (every && e.count >= 0) e.unread |= uint64_t{1} << (c - problem_.lo(e.count));
  }
  return e;
}

bool JointSolver::enforces(int k, int slot, int64_t v) const {
  const Enforced& e = task_->enforced[static_cast<size_t>(k)];
  if (slot == e.count) return (e.unread >> (v - problem_.lo(slot))) & 1;
  return slot == e.slot && is_drawn(*task_, slot, v);
}

void JointSolver::narrow(int slot, VariableSpace& space) const {
  if (const auto& drawn = task_->drawn[static_cast<size_t>(slot)]) space.intersect(*drawn);
}

int JointSolver::slot(int arg, ArgType type, Attribute a, int64_t element) const {
  if (!active() || arg < 0) return -1;
  switch (a) {
    case Attribute::Optional: return problem_.slot(JointAttr::None, arg, -1);
    case Attribute::Rank: return problem_.slot(JointAttr::Rank, arg, -1);
    case Attribute::Length: return problem_.slot(JointAttr::Length, arg, -1);
    case Attribute::Size: return problem_.slot(JointAttr::Size, arg, element);
    case Attribute::Value:
      if (has_tensors(type) || is_scalar(type)) return -1;
      return element >= 0 ? problem_.slot(JointAttr::Elem, arg, element) : problem_.slot(JointAttr::Value, arg, -1);
    case Attribute::Dtype: return -1;
  }
  return -1;
}

void JointSolver::open(int slot, const VariableSpace& space) {
  open_.clear(), checked_ = {-1, 0};
  int64_t n = space.size();  // a larger space could take as many draws
  if (n < 0 || static_cast<size_t>(n) > kNarrowUpTo) return;
  for (int k : task_->by_slot[static_cast<size_t>(slot)])
    if (task_->enforced[static_cast<size_t>(k)].slot < 0 && !forward_.result(static_cast<size_t>(k)))
      open_.push_back(k);
}

// The evaluations of instance k on the fixed values and `slot` = v, which fix(slot, ...) replaces:
// until then, k's evaluation does not stand for the fixed values.
std::optional<int64_t> JointSolver::with(int k, int slot, int64_t v) {
  fixed_.set(slot, v);
  rerun(forward_, k, fixed_, slot);
  fixed_.known[static_cast<size_t>(slot)] = 0;
  return forward_.result(static_cast<size_t>(k));
}

const std::string& JointSolver::label(int k) const {
  return problem_.spec().joints()[static_cast<size_t>(task_->active[static_cast<size_t>(k)]->constraint)].label;
}

const std::string* JointSolver::rules_out(int slot, int64_t v) {
  checked_ = {-1, 0};
  for (int k : open_)
    if (with(k, slot, v) == 0) return &label(k);
  checked_ = {slot, v};
  return nullptr;
}

bool JointSolver::take_model(int slot, const std::vector<int64_t>& allowed) {
  std::vector<int64_t> model;
  if (!oracle_->solve(slot, allowed, model)) return false;
  set_witness(model);
  return true;
}

void JointSolver::set_witness(const std::vector<int64_t>& model, const Evaluations* evaluations) {
  witness_.reset(static_cast<size_t>(problem_.slot_count()));
  for (int s : problem_.used_slots()) witness_.set(s, model[static_cast<size_t>(s)]);
  have_witness_ = true;
  if (evaluations) {
    on_witness_ = *evaluations;
    return;
  }
  on_witness_.clear();
  for (size_t k = 0; k < task_->active.size(); ++k) {
    on_witness_.add(task_->active[k]->program);
    on_witness_.run(k, problem_, task_->active[k]->program, witness_);
  }
}

void JointSolver::rerun(Evaluations& evaluations, int k, const Assignment& a, int slot) const {
  const JointProblem::Instance& in = *task_->active[static_cast<size_t>(k)];
  evaluations.rerun(static_cast<size_t>(k), problem_, in.program, a, in.readers_of(slot));
}

void JointSolver::witness_changed(int slot) {
  for (int k : task_->by_slot[static_cast<size_t>(slot)])
    if (!settled_[static_cast<size_t>(k)]) rerun(on_witness_, k, witness_, slot);
}

bool JointSolver::completes(int slot, int64_t v, Rng& rng) {
  if (!oracle_) return true;
  if (!have_witness_) return false;
  if (first_choice_ && !task_->movable[static_cast<size_t>(slot)].empty()) return start_from(slot, v, rng);
  return try_value(slot, v, rng, false);
}

bool JointSolver::start_from(int slot, int64_t v, Rng& rng) {
  auto [it, fresh] = task_->starts.try_emplace({slot, v});
  Start& start = it->second;
  if (fresh && (try_value(slot, v, rng, true) || take_model(slot, {v}))) start = {witness_.values, on_witness_};
  if (start.model.empty()) return false;
  witness_.values = start.model;
  on_witness_ = start.evaluations;
  return true;
}

std::optional<int64_t> JointSolver::any(int slot, const VariableSpace& space, Rng& rng) {
  if (!oracle_ || space.empty()) return std::nullopt;
  if (have_witness_) {  // the last solution's value needs no query
    int64_t w = witness_.values[static_cast<size_t>(slot)];
    if (space.contains(coerce(space.type(), Value(w)))) return w;
  }
  // A Z3 query costs as much as thousands of local searches.
  constexpr int kThoroughTries = 4;
  auto values = space.enumerate(kNarrowUpTo);
  for (int k = 0; k < kThoroughTries && have_witness_; ++k) {
    int64_t v = as_int(values[rng.index(values.size())]);
    if (try_value(slot, v, rng, true)) return v;
  }
  std::vector<int64_t> below, above;  // the values on either side of a random pivot
  int64_t pivot = as_int(values[rng.index(values.size())]);
  for (const auto& v : values) (as_int(v) < pivot ? below : above).push_back(as_int(v));
  // One side first, chosen at random, so that successive tuples differ.
  if (rng.chance(0.5)) std::swap(below, above);
  for (const auto* part : {&below, &above})
    if (!part->empty() && take_model(slot, *part)) return witness_.values[static_cast<size_t>(slot)];
  return std::nullopt;
}

void JointSolver::fix(int slot, int64_t v) {
  fixed_.set(slot, v);
  first_choice_ = false;
  // The open instances (a subsequence of by_slot) stand for v already when it was the last checked.
  const bool open_checked = checked(slot, v);
  size_t next_open = 0;
  for (int k : task_->by_slot[static_cast<size_t>(slot)]) {
    const bool open = open_checked && next_open < open_.size() && open_[next_open] == k;
    next_open += open;
    auto& settled = settled_[static_cast<size_t>(k)];  // open: settled by try_value at most
    if (settled) continue;
    if (task_->enforced[static_cast<size_t>(k)].slot >= 0) {  // its evaluation on the fixed values is not kept
      settled = enforces(k, slot, v);
      continue;
    }
    if (!open) rerun(forward_, k, fixed_, slot);
    settled = forward_.result(static_cast<size_t>(k)) == 1;
  }
  if (oracle_) oracle_->fix(slot, v);
}

bool JointSolver::holds(const JointConstraint& c) const {
  int k = static_cast<int>(&c - problem_.spec().joints().data());
  return problem_.eval(problem_.program(k), fixed_) != 0;
}

std::optional<std::string> JointSolver::broken() const {
  for (size_t k = 0; k < task_->active.size(); ++k) {
    const auto* in = task_->active[k];
    auto v = forward_.result(k);
    bool negation = in->constraint == negated_;
    if (negation ? v != 1 : v == 0) return label(static_cast<int>(k));
  }
  return std::nullopt;
}

}  // namespace opsfuzz
