#include "engine/engine.h"

#include "argtypes/text.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>

namespace opsfuzz {
namespace {

using A = Attribute;

VariableSpace dtype_space(const TensorConfig& tc) {
  std::vector<Value> ds;
  for (auto t : all_dtypes())
    if (tc.allows(t)) ds.emplace_back(t);
  return VariableSpace::of(VarType::TensorDtype, ds);
}

// Bounds used to sample from an unbounded side of a space.
constexpr double kWindow = 1 << 20;

// A boundary of the space or 0/±1, at random.
double special_value(const VariableSpace::Intervals& iv, Rng& rng) {
  const double specials[] = {iv.front().lo, iv.back().hi, 0, 1, -1};
  return specials[rng.index(5)];
}

// An interval at random, weighted by its width within [-kWindow, kWindow] (integers: by count).
const Interval& weighted_interval(const VariableSpace::Intervals& iv, bool is_int, Rng& rng) {
  auto width = [&](const Interval& i) {
    double lo = std::max(i.lo, -kWindow), hi = std::min(i.hi, kWindow);
    return std::max(0.0, hi - lo) + (is_int ? 1 : 0);
  };
  double total = 0;
  for (const auto& i : iv) total += width(i);
  double r = rng.uniform01() * total;
  for (const auto& i : iv) {
    if (r < width(i)) return i;
    r -= width(i);
  }
  return iv.back();
}

// The part of an interval within [-kWindow, kWindow], or its end nearest to it when outside.
std::pair<double, double> in_window(const Interval& i) {
  double lo = std::clamp(i.lo, -kWindow, kWindow), hi = std::clamp(i.hi, -kWindow, kWindow);
  if (i.lo > kWindow || i.hi < -kWindow) lo = hi = i.lo > kWindow ? i.lo : i.hi;
  return {lo, hi};
}

}  // namespace

VariableSpace tensor_value_space(c10::ScalarType t) {
  using L = std::numeric_limits<int64_t>;
  switch (t) {
    case c10::ScalarType::Bool: return VariableSpace::range(VarType::Int, 0, 1);
    case c10::ScalarType::Byte: return VariableSpace::range(VarType::Int, 0, 255);
    case c10::ScalarType::Char: return VariableSpace::range(VarType::Int, -128, 127);
    case c10::ScalarType::Short: return VariableSpace::range(VarType::Int, -32768, 32767);
    case c10::ScalarType::Int: return VariableSpace::range(VarType::Int, -2147483648.0, 2147483647.0);
    case c10::ScalarType::Long:  // the largest double below 2^63
      return VariableSpace::range(VarType::Int, static_cast<double>(L::min()), 9223372036854774784.0);
    default: return VariableSpace(VarType::Float);
  }
}

void apply(VariableSpace& s, Suffix suffix, const Operand& op, bool negate) {
  auto first = [&]() -> const Value& {
    if (op.values.empty()) throw std::invalid_argument(std::string(name(suffix)) + " needs a value");
    return op.values.front();
  };
  switch (suffix) {
    case Suffix::Eq: negate ? s.ne(first()) : s.eq(first()); break;
    case Suffix::Ne: negate ? s.eq(first()) : s.ne(first()); break;
    case Suffix::In: negate ? s.not_in(op.values) : s.in(op.values); break;
    case Suffix::NotIn: negate ? s.in(op.values) : s.not_in(op.values); break;
    case Suffix::Le: negate ? s.gt(as_double(first())) : s.le(as_double(first())); break;
    case Suffix::Lt: negate ? s.ge(as_double(first())) : s.lt(as_double(first())); break;
    case Suffix::Ge: negate ? s.lt(as_double(first())) : s.ge(as_double(first())); break;
    case Suffix::Gt: negate ? s.le(as_double(first())) : s.gt(as_double(first())); break;
    case Suffix::Be: {
      if (op.values.size() != 2) throw std::invalid_argument("Be needs [lo, hi]");
      double lo = as_double(op.values[0]), hi = as_double(op.values[1]);
      negate ? s.outside(lo, hi) : s.ge(lo).le(hi);
      break;
    }
    case Suffix::Gen: s.in(negate ? op.invalid : op.values); break;
  }
}

// ---- AttributeEngine ---------------------------------------------------------------------

AttributeEngine::AttributeEngine(const Config& cfg) : cfg_(cfg), dtypes_(dtype_space(cfg.tensor)) {}

namespace {

// The tensor whose values are solved: the argument's own, or entry `entry` of a tensor list (all
// of whose entries are there from the start, the later ones not solved yet); nullptr when none.
const TensorMeta* solving_tensor(const MetaArg& self, int64_t entry) {
  if (self.tensors.empty()) return nullptr;
  return &self.tensors[std::min(static_cast<size_t>(std::max<int64_t>(entry, 0)), self.tensors.size() - 1)];
}

}  // namespace

int AttributeEngine::universe_kind(ArgType type, Attribute a, const MetaArg& self, int64_t entry) {
  if (a != A::Value) return 0;
  if (has_tensors(type)) {
    const TensorMeta* t = solving_tensor(self, entry);
    return t ? 1 + static_cast<int>(t->dtype) : 0;
  }
  return is_scalar(type) ? 1 + static_cast<int>(self.scalar_dtype) : 0;
}

VariableSpace AttributeEngine::universe(ArgType type, Attribute a, const MetaArg& self, int64_t entry) const {
  const auto& lim = cfg_.limits;
  const auto& tc = cfg_.tensor;
  switch (a) {
    case A::Optional: return VariableSpace(VarType::Bool);
    case A::Dtype: return is_scalar(type) ? VariableSpace(VarType::ScalarDtype) : dtypes_;
    case A::Length:
      return VariableSpace::range(VarType::Int, 0, is_tensor_list(type) ? lim.max_tensor_list : lim.max_int_list);
    case A::Rank: return VariableSpace::range(VarType::Int, tc.zero_dim ? 0 : 1, lim.max_rank);
    case A::Size: return VariableSpace::range(VarType::Int, tc.empty ? 0 : 1, lim.max_size);
    case A::Value: break;
  }
  ArgType b = base(type);
  if (has_tensors(type)) {
    const TensorMeta* t = solving_tensor(self, entry);
    return tensor_value_space(t ? t->dtype : c10::ScalarType::Float);
  }
  if (is_scalar(type)) {
    switch (self.scalar_dtype) {
      case ScalarDtype::Bool: return VariableSpace(VarType::Bool);
      case ScalarDtype::Int: return VariableSpace::range(VarType::Int, lim.int_lo, lim.int_hi);
      case ScalarDtype::Float: return VariableSpace::range(VarType::Float, lim.float_lo, lim.float_hi);
    }
  }
  if (is_scalar_type(type)) return dtypes_;
  if (is_memory_format(type)) return VariableSpace(VarType::MemoryFormat);
  if (is_layout(type)) return VariableSpace(VarType::Layout);
  if (is_device(type)) return VariableSpace(VarType::Device);
  if (is_bool(type) || is_bool_list(type)) return VariableSpace(VarType::Bool);
  if (is_float(type) || is_float_list(type)) return VariableSpace::range(VarType::Float, lim.float_lo, lim.float_hi);
  if (is_string(type)) return VariableSpace(VarType::String);
  if (b == ArgType::Shape) return VariableSpace::range(VarType::Int, lim.length_lo, lim.max_size);
  if (b == ArgType::Length || b == ArgType::LengthList)
    return VariableSpace::range(VarType::Int, lim.length_lo, lim.length_hi);
  return VariableSpace::range(VarType::Int, lim.int_lo, lim.int_hi);
}

size_t AttributeEngine::home(const SolveKey& k) const {
  uint64_t x = reinterpret_cast<uintptr_t>(k.arg) ^ (static_cast<uint64_t>(k.a) << 56) ^
               (static_cast<uint64_t>(static_cast<uint32_t>(k.negate)) << 24) ^ static_cast<uint64_t>(k.universe) ^
               (static_cast<uint64_t>(k.lenient) << 63);
  return static_cast<size_t>(splitmix64(x)) & (table_.size() - 1);
}

AttributeEngine::Solved* AttributeEngine::find(const SolveKey& k) const {
  if (table_.empty()) return nullptr;
  for (size_t i = home(k);; i = (i + 1) & (table_.size() - 1))
    if (!table_[i] || table_[i]->key == k) return table_[i];
}

AttributeEngine::Solved& AttributeEngine::add(Solved solved) const {
  solved_.push_back(std::move(solved));
  auto place = [&](Solved& s) {
    size_t i = home(s.key);
    while (table_[i]) i = (i + 1) & (table_.size() - 1);
    table_[i] = &s;
  };
  if (2 * solved_.size() <= table_.size()) {
    place(solved_.back());
  } else {  // kept at most half full, so that probes stay short
    table_.assign(std::bit_ceil(std::max<size_t>(64, 4 * solved_.size())), nullptr);
    for (Solved& s : solved_) place(s);
  }
  return solved_.back();
}

// Past the first 64 solves, a key keeps remembering while at least one in 8 is recalled.
bool AttributeEngine::Solved::remembers() const { return solves < 64 || 8 * recalled >= solves; }

const AttributeEngine::Remembered* AttributeEngine::Solved::recall(const Ctx& ctx) {
  ++solves;
  if (!remembers()) return nullptr;
  for (const Remembered& r : remembered)
    if (ctx.gives(r.reads)) return ++recalled, &r;
  return nullptr;
}

const VariableSpace& AttributeEngine::solve(const ArgSpec& arg, Attribute a, const Ctx& ctx, int negate, bool& negated,
                                            VariableSpace& buffer, std::vector<std::string>* applied,
                                            bool lenient) const {
  if (applied) return buffer = solve_uncached(arg, a, ctx, negate, negated, applied, lenient);
  bool constant = std::all_of(arg.constraints.begin(), arg.constraints.end(), [&](const auto& c) {
    return c.attribute != a || c.constant || !c.applies(cfg_.contract);
  });
  const SolveKey key{&arg, a, negate, universe_kind(arg.type, a, ctx.self(), ctx.entry()), lenient};
  Solved* solved = find(key);
  const bool fresh = !solved;
  if (fresh) {
    Solved s;
    s.key = key;
    solved = &add(std::move(s));
  }
  if (constant) {
    if (fresh) solved->space = solve_uncached(arg, a, ctx, negate, solved->negated, nullptr, lenient);
    negated = solved->negated;
    return solved->space;
  }
  if (const Remembered* r = solved->recall(ctx)) {
    negated = r->negated;
    return buffer = r->space;
  }
  const bool remember = solved->remembers();
  buffer = solve_uncached(arg, a, ctx, negate, negated, nullptr, lenient, remember ? &reads_ : nullptr);
  if (remember && !reads_.whole) {
    constexpr size_t kRemembered = 8;
    Remembered r{reads_, buffer, negated};
    if (solved->remembered.size() < kRemembered) solved->remembered.push_back(std::move(r));
    else solved->remembered[solved->next++ % kRemembered] = std::move(r);
  }
  return buffer;
}

VariableSpace AttributeEngine::solve_uncached(const ArgSpec& arg, Attribute a, const Ctx& ctx, int negate,
                                              bool& negated, std::vector<std::string>* applied, bool lenient,
                                              CtxReads* reads) const {
  VariableSpace s = universe(arg.type, a, ctx.self(), ctx.entry());
  negated = false;
  if (reads) reads->clear();
  struct Recording {  // the context's reads go to `reads` while the constraints run
    const Ctx& ctx;
    ~Recording() { ctx.record(nullptr); }
  } recording{ctx};
  ctx.record(reads);
  for (size_t k = 0; k < arg.constraints.size(); ++k) {
    const auto& c = arg.constraints[k];
    if (c.attribute != a || !c.applies(cfg_.contract)) continue;
    std::optional<Operand> op;
    try {
      op = c.fn(ctx);
    } catch (const std::exception& e) {
      if (reads) reads->whole = true;  // the read that threw is not recorded
      if (lenient) continue;
      throw std::runtime_error("constraint " + c.label + " failed: " + e.what());
    }
    if (!op) continue;
    bool neg = static_cast<int>(k) == negate;
    apply(s, c.suffix, *op, neg);
    negated |= neg;
    if (applied) applied->push_back(neg ? "not " + c.label : c.label);
  }
  return s;
}

VariableSpace AttributeEngine::constant_domain(const ArgSpec& arg, Attribute a, int skip) const {
  static const std::vector<MetaArg> no_args;
  MetaArg self;
  self.argtype = arg.type;
  Ctx ctx(nullptr, arg, no_args, self);
  VariableSpace s = universe(arg.type, a, self);
  for (size_t k = 0; k < arg.constraints.size(); ++k) {
    const auto& c = arg.constraints[k];
    if (c.attribute != a || !c.constant || !c.applies(cfg_.contract) || static_cast<int>(k) == skip) continue;
    if (auto op = c.fn(ctx)) apply(s, c.suffix, *op, false);
  }
  return s;
}

bool AttributeEngine::enumerates(const VariableSpace& s, size_t n, size_t all_up_to) {
  const int64_t size = s.size();
  return size >= 0 && static_cast<size_t>(size) <= std::max(n, all_up_to);
}

std::vector<Value> AttributeEngine::boundaries(const VariableSpace& s) const {
  std::vector<Value> out;
  auto add = [&](const Value& raw) {
    Value v = coerce(s.type(), raw);
    if (s.contains(v) && std::find(out.begin(), out.end(), v) == out.end()) out.push_back(v);
  };
  if (auto lo = s.min(); lo && std::isfinite(*lo)) add(*lo);
  if (auto hi = s.max(); hi && std::isfinite(*hi)) add(*hi);
  if (s.is_interval())
    for (double special : {0.0, 1.0, -1.0}) add(special);
  return out;
}

std::vector<Value> AttributeEngine::candidates(const VariableSpace& s, size_t n, Rng& rng, size_t all_up_to) const {
  if (enumerates(s, n, all_up_to)) {
    auto all = s.enumerate(static_cast<size_t>(s.size()));
    if (all.size() > 2) std::rotate(all.begin() + 1, all.end() - 1, all.end());  // min, max, rest
    return all;
  }
  std::vector<Value> out = boundaries(s);
  for (size_t attempt = 0; out.size() < n && attempt < 8 * n; ++attempt)
    if (Value v = pick(s, rng); std::find(out.begin(), out.end(), v) == out.end()) out.push_back(std::move(v));
  if (out.size() > n) out.resize(n);
  return out;
}

Value AttributeEngine::candidate(const VariableSpace& s, size_t index, Rng& rng) const {
  const std::vector<Value> ends = boundaries(s);
  if (index < ends.size()) return ends[index];
  for (int attempt = 1;; ++attempt)  // a few draws avoid the boundaries, as candidates() does
    if (Value v = pick(s, rng); attempt == 8 || std::find(ends.begin(), ends.end(), v) == ends.end()) return v;
}

Value AttributeEngine::pick(const VariableSpace& s, Rng& rng) const {
  if (s.empty()) throw std::logic_error("pick from an empty space");
  if (!s.is_interval()) {
    if (!s.is_cofinite()) return *(s.values().begin() + rng.index(s.values().size()));
    if (s.type() != VarType::String)
      throw std::invalid_argument("an unbounded " + std::string(name(s.type())) + " space needs an In constraint");
    for (;;) {
      std::string str(1 + rng.index(6), 'a');
      for (auto& ch : str) ch = static_cast<char>('a' + rng.index(26));
      if (s.contains(str)) return str;
    }
  }
  const auto& iv = s.intervals();
  if (iv.empty()) return std::nan("");  // only NaN is left
  if (s.type() == VarType::Int) return pick_int(s, rng);
  if (rng.chance(0.25)) {  // a boundary or 0/±1
    double v = special_value(iv, rng);
    if (std::isfinite(v) && s.contains_number(v)) return v;
  }
  const Interval& chosen = weighted_interval(iv, false, rng);
  auto [lo, hi] = in_window(chosen);
  return lo == hi ? lo : rng.uniform_real(lo, hi);
}

int64_t AttributeEngine::pick_int(const VariableSpace& s, Rng& rng) const {
  const auto& iv = s.intervals();
  if (rng.chance(0.25)) {
    double v = special_value(iv, rng);
    if (std::isfinite(v) && s.contains_number(v)) return static_cast<int64_t>(v);
  }
  auto [lo, hi] = in_window(weighted_interval(iv, true, rng));
  return rng.uniform_int(static_cast<int64_t>(lo), static_cast<int64_t>(hi));
}

// ---- StructuralEngine --------------------------------------------------------------------

template <class T> bool StructuralEngine::solve(Attribute a, int64_t count, std::vector<T>& out) {
  out.clear();
  owner_.negate_at_ = count > 0 ? static_cast<int64_t>(owner_.rng_->index(static_cast<size_t>(count))) : 0;
  for (int64_t i = 0; i < count; ++i) {
    Value v;
    const IntList* solved = nullptr;  // what c.solved() offers: the sizes or int entries before
    if constexpr (std::is_same_v<T, int64_t>) solved = &out;
    if (!owner_.choose(a, i, count, solved, v)) return false;
    if constexpr (std::is_same_v<T, bool>) out.push_back(as_double(v) != 0);
    else if constexpr (std::is_same_v<T, double>) out.push_back(as_double(v));
    else out.push_back(as_int(v));
  }
  return true;
}

template <class T> bool StructuralEngine::solve_list(int64_t count, Value& out) {
  std::vector<T> list;
  bool ok = solve(A::Value, count, list);
  out = std::move(list);
  return ok;
}

// ---- MetaArgEngine -----------------------------------------------------------------------

const VariableSpace* MetaArgEngine::space_for(Attribute a, int64_t element, int64_t count, const IntList* partial,
                                              VariableSpace& buffer) {
  const bool wants = req_.negate >= 0 && !negated_ && argspec_->constraints[req_.negate].attribute == a;
  const int kind = AttributeEngine::universe_kind(argspec_->type, a, *meta_, entry_);
  const VariableSpace** kept = nullptr;
  if (arg_ >= 0 && kind < kKinds)
    kept = &kept_[static_cast<size_t>(arg_)][static_cast<size_t>(a)][static_cast<size_t>(kind)];
  if (kept && *kept && !wants) return *kept;
  return solve_space(a, element, count, partial, buffer, wants, kept);
}

// Out of line: space_for, asked for every variable, mostly returns a kept space.
[[gnu::noinline]] const VariableSpace* MetaArgEngine::solve_space(Attribute a, int64_t element, int64_t count,
                                                                  const IntList* partial, VariableSpace& buffer,
                                                                  bool wants, const VariableSpace** kept) {
  const ArgSpec& arg = *argspec_;
  Ctx ctx(&spec_, arg, *metas_, *meta_);
  ctx.solving(a, element, count, partial, entry_);
  bool applied = false;
  if (wants) {
    const VariableSpace& space = attrs_.solve(arg, a, ctx, req_.negate, applied, buffer, nullptr, req_.lenient);
    bool here = element < 0 || element >= negate_at_ || element == count - 1;
    if (applied && here && !space.empty()) {
      negated_ = true;
      return &space;
    }
  }
  bool lenient = req_.lenient || negated_;
  const VariableSpace& space = attrs_.solve(arg, a, ctx, -1, applied, buffer, nullptr, lenient);
  if (!space.empty()) {
    if (kept && &space != &buffer) *kept = &space;  // kept by the attribute engine
    return &space;
  }
  std::vector<std::string> labels;  // only a dead end needs them: solved again to collect them
  attrs_.solve(arg, a, ctx, -1, applied, buffer, &labels, lenient);
  dead_end_ = DeadEnd{arg_, a, element, std::move(labels)};
  return nullptr;
}

Value MetaArgEngine::draw(Attribute a, const VariableSpace& space) {
  if (req_.focus != a) return attrs_.pick(space, *rng_);
  const size_t n = static_cast<size_t>(cfg_.limits.variants), variant = static_cast<size_t>(req_.variant);
  size_t all = (a == A::Dtype || a == A::Optional || (a == A::Value && !space.is_interval())) ? 64 : 0;
  if (!AttributeEngine::enumerates(space, n, all)) {  // n candidates: the boundaries, then random members
    variants_ = std::max(variants_, static_cast<int>(n));
    return variant < n ? attrs_.candidate(space, variant, *rng_) : attrs_.pick(space, *rng_);
  }
  const auto& c = enumerated(space, n, all);
  variants_ = std::max(variants_, static_cast<int>(c.size()));
  // Past the candidates (tuples_per_focus > variants), the focused attribute is drawn at random.
  return variant < c.size() ? c[variant] : attrs_.pick(space, *rng_);
}

const std::vector<Value>& MetaArgEngine::enumerated(const VariableSpace& space, size_t n, size_t all) {
  if (&space == &buffer_) return candidates_ = attrs_.candidates(space, n, *rng_, all);
  for (const auto& [kept, members] : enumerated_)
    if (kept == &space) return members;
  return enumerated_.emplace_back(&space, attrs_.candidates(space, n, *rng_, all)).second;
}

bool MetaArgEngine::choose(Attribute a, int64_t element, int64_t count, const IntList* partial, Value& out) {
  const VariableSpace* space = space_for(a, element, count, partial, buffer_);
  if (!space) return false;
  int slot = entry_ < 0 && joint_.active() ? joint_.slot(arg_, argspec_->type, a, element) : -1;
  if (slot < 0) {
    out = draw(a, *space);
  } else {
    if (space != &buffer_) buffer_ = *space;  // the joint constraints narrow it
    if (!choose_joint(slot, a, element, buffer_, out)) return false;
  }
  if (cfg_.contract) note_deviations(a, element, count, partial, out);
  return true;
}

std::vector<std::pair<VariableSpace, const Deviation*>> MetaArgEngine::avoided(Attribute a, int64_t element,
                                                                               int64_t count,
                                                                               const IntList* partial) const {
  Ctx ctx(&spec_, *argspec_, *metas_, *meta_);
  ctx.solving(a, element, count, partial, entry_);
  std::vector<std::pair<VariableSpace, const Deviation*>> out;
  for (const auto& c : argspec_->constraints) {
    if (c.attribute != a || c.role != Role::Avoid) continue;
    std::optional<Operand> op;
    try {
      op = c.fn(ctx);
    } catch (const std::exception&) {
      continue;  // not defined on these dependencies (an invalid sample's)
    }
    if (!op) continue;
    VariableSpace keeps = attrs_.universe(argspec_->type, a, *meta_, entry_);
    apply(keeps, c.suffix, *op, false);
    out.emplace_back(std::move(keeps), c.deviation.get());
  }
  return out;
}

void MetaArgEngine::note_deviations(Attribute a, int64_t element, int64_t count, const IntList* partial,
                                    const Value& v) {
  for (const auto& [keeps, deviation] : avoided(a, element, count, partial))
    if (!keeps.contains(coerce(keeps.type(), v)) && std::find(hits_.begin(), hits_.end(), deviation) == hits_.end())
      hits_.push_back(deviation);
}

bool MetaArgEngine::choose_joint(int slot, Attribute a, int64_t element, VariableSpace& space, Value& out) {
  constexpr int kDraws = 4;  // drawn values tried before the oracle is asked for one
  boost::container::small_vector<const std::string*, 4> ruled_out;  // the labels, spelled out only at a dead end
  joint_.narrow(slot, space);
  joint_.open(slot, space);
  // A value that some instance rules out leaves `space` and `from`; false when none is left.
  auto draw_allowed = [&](VariableSpace& from, auto&& pick) {
    while (!from.empty()) {
      out = pick();
      const std::string* label = joint_.rules_out(slot, as_int(out));
      if (!label) return true;
      if (std::find(ruled_out.begin(), ruled_out.end(), label) == ruled_out.end()) ruled_out.push_back(label);
      space.ne(out);
      if (&from != &space) from.ne(out);
    }
    return false;
  };
  bool ok = draw_allowed(space, [&] { return draw(a, space); });
  if (ok) {
    std::optional<VariableSpace> untried;  // made only when the first value drawn has no completion (rare)
    for (int tries = 1; !joint_.completes(slot, as_int(out), *rng_); ++tries) {
      if (!untried) untried = space;
      untried->ne(out);
      if (tries == kDraws || !draw_allowed(*untried, [&] { return attrs_.pick(*untried, *rng_); })) {
        auto v = joint_.any(slot, space, *rng_);  // the oracle decides, over the whole space
        ok = v.has_value();
        if (ok) out = coerce(space.type(), Value(*v));
        break;
      }
    }
  }
  if (!ok) {
    std::vector<std::string> labels;
    for (const std::string* label : ruled_out) labels.push_back(*label);
    if (labels.empty()) labels.push_back("the joint constraints (no completion)");
    dead_end_ = DeadEnd{arg_, a, element, std::move(labels)};
    return false;
  }
  joint_.fix(slot, as_int(out));
  return true;
}

bool MetaArgEngine::solve_tensor(TensorMeta& t, int64_t count, bool optional_entry) {
  Value v;
  if (optional_entry) {
    if (!choose(A::Optional, entry_, count, nullptr, v)) return false;
    if ((t.none = std::get<bool>(v))) return true;
  }
  if (!choose(A::Dtype, entry_, count, nullptr, v)) return false;
  t.dtype = std::get<c10::ScalarType>(v);
  t.contiguous = (argspec_->layout_deviation && !cfg_.contract) || !argspec_->layout_scope.empty();
  if (!choose(A::Rank, entry_, count, nullptr, v)) return false;
  if (!StructuralEngine(*this).solve(A::Size, as_int(v), t.shape)) return false;
  bool negated_before = negated_;
  const VariableSpace* values = space_for(A::Value, entry_, count, nullptr, t.values);
  if (!values) return false;
  if (values != &t.values) t.values = *values;
  if (cfg_.contract)  // which values fall into a deviation is known once the tensor is made
    for (auto& [keeps, deviation] : avoided(A::Value, entry_, count, nullptr))
      t.value_deviations.push_back({std::move(keeps), deviation->id});
  if (negated_ && !negated_before && std::find(t.shape.begin(), t.shape.end(), 0) != t.shape.end()) {
    dead_end_ = DeadEnd{arg_, A::Value, entry_, {"a value rule, on a tensor with no elements"}, true};
    return false;
  }
  ValueProfile configured[3];
  if (req_.focus == A::Value) {
    size_t v = static_cast<size_t>(req_.variant);
    t.profile =
        v < std::size(kValueProfiles) ? kValueProfiles[v] : kValueProfiles[rng_->index(std::size(kValueProfiles))];
    variants_ = static_cast<int>(std::size(kValueProfiles));
  } else if (size_t n = cfg_.tensor.value_profiles(configured)) {
    t.profile = configured[n == 1 ? 0 : rng_->index(n)];
  }
  return true;
}

bool MetaArgEngine::solve(int arg, const std::vector<MetaArg>& metas, const ArgRequest& req, Rng& rng, MetaArg& out,
                          const ArgSpec* spec_arg) {
  argspec_ = spec_arg ? spec_arg : &spec_.args()[arg];
  arg_ = arg, metas_ = &metas, req_ = req, rng_ = &rng, meta_ = &out;
  entry_ = -1, negate_at_ = 0, variants_ = 1, negated_ = false;
  const ArgType type = argspec_->type;
  // MetaArg{} in place: the tensors vector keeps its capacity
  out.argtype = type, out.none = false, out.scalar_dtype = ScalarDtype::Int, out.value = int64_t{0};
  out.tensors.clear();
  Value v;
  bool ok = true;
  if (is_optional(type)) {
    if (!choose(A::Optional, -1, -1, nullptr, v)) return false;
    out.none = std::get<bool>(v);
  }
  if (out.none) {
  } else if (is_tensor(type)) {
    out.tensors.resize(1);
    ok = solve_tensor(out.tensors[0], -1, false);
  } else if (is_tensor_list(type)) {
    if (!choose(A::Length, -1, -1, nullptr, v)) return false;
    int64_t n = as_int(v);
    out.tensors.resize(static_cast<size_t>(n));
    negate_at_ = n > 0 ? static_cast<int64_t>(rng.index(static_cast<size_t>(n))) : 0;
    int64_t entry_negate_at = negate_at_;
    for (entry_ = 0; ok && entry_ < n; ++entry_) {
      negate_at_ = entry_negate_at;
      ok = solve_tensor(out.tensors[static_cast<size_t>(entry_)], n, type == ArgType::TensorOptList);
    }
    entry_ = -1;
  } else if (is_scalar(type)) {
    ok = choose(A::Dtype, -1, -1, nullptr, v);
    if (ok) out.scalar_dtype = std::get<ScalarDtype>(v);
    ok = ok && choose(A::Value, -1, -1, nullptr, out.value);
  } else if (is_value_list(type)) {
    if (!choose(A::Length, -1, -1, nullptr, v)) return false;
    StructuralEngine entries(*this);
    if (is_float_list(type)) ok = entries.solve_list<double>(as_int(v), out.value);
    else if (is_bool_list(type)) ok = entries.solve_list<bool>(as_int(v), out.value);
    else ok = entries.solve_list<int64_t>(as_int(v), out.value);
  } else {
    ok = choose(A::Value, -1, -1, nullptr, out.value);
    if (ok && is_int(type)) out.value = as_int(out.value);
  }
  if (!ok) return false;
  if (req.negate >= 0 && !negated_) {  // the constraint could not be violated on this path
    const auto& c = argspec_->constraints[req.negate];
    dead_end_ = DeadEnd{arg, c.attribute, -1, {c.label}, true};
    return false;
  }
  return true;
}

std::string DeadEnd::describe(const Spec& spec) const { return spec.op() + ": " + cause(spec); }

std::string DeadEnd::cause(const Spec& spec) const {
  if (unchecked) return "inputs on which the kernel does not check the rule broken: " + join(constraints, ", ");
  std::string s = arg >= 0 ? "argument '" + spec.args()[arg].name + "', attribute " + std::string(name(attribute))
                           : "the joint constraints";
  if (element >= 0) s += " [element " + std::to_string(element) + "]";
  s += violating ? ": no value violates" : ": no value satisfies";
  auto labels = constraints;  // in a fixed order: one cause, whichever constraint came first
  std::sort(labels.begin(), labels.end());
  const char* sep = " ";
  for (const auto& c : labels) s += sep + c, sep = ", ";
  if (constraints.empty()) s += " the limits of the configuration";
  return s;
}

// ---- MetaArgTupleEngine ------------------------------------------------------------------

MetaArgTupleEngine::MetaArgTupleEngine(const Spec& spec, const Config& cfg)
    : spec_(spec),
      cfg_(cfg),
      attrs_(cfg_),
      joint_(spec_, cfg_, attrs_),
      args_(spec_, cfg_, attrs_, joint_),
      order_(solve_order(spec)) {}

std::vector<Task> MetaArgTupleEngine::valid_tasks() const {
  std::vector<Task> tasks;
  for (size_t i = 0; i < spec_.args().size(); ++i)
    for (Attribute a : hierarchy(spec_.args()[i].type)) tasks.push_back({static_cast<int>(i), a, -1});
  return tasks;
}

std::vector<Task> MetaArgTupleEngine::invalid_tasks() const {
  std::vector<Task> tasks;
  for (size_t i = 0; i < spec_.args().size(); ++i) {
    const auto& cs = spec_.args()[i].constraints;
    for (size_t k = 0; k < cs.size(); ++k)
      if (cs[k].negatable(cfg_.contract)) tasks.push_back({static_cast<int>(i), cs[k].attribute, static_cast<int>(k)});
  }
  for (size_t k = 0; k < spec_.joints().size(); ++k)
    if (spec_.joints()[k].negatable(cfg_.contract)) tasks.push_back({-1, Attribute::Value, -1, static_cast<int>(k)});
  return tasks;
}

bool MetaArgTupleEngine::solve(const Task& task, int variant, Rng& rng, const Materialize& materialize,
                               MetaTuple& out) {
  out.metas.resize(spec_.args().size());
  out.variants = 1;
  out.violated.clear();
  args_.clear_deviations();
  bool violated = false;
  if (joint_.active()) joint_.begin(task, rng);
  for (int arg : order_) {
    ArgRequest req;
    req.lenient = violated;
    if (arg == task.arg) {
      if (task.valid()) req.focus = task.attribute, req.variant = variant;
      else req.negate = task.constraint, violated = true;
    }
    try {
      if (!args_.solve(arg, out.metas, req, rng, out.metas[static_cast<size_t>(arg)])) {
        dead_end_ = args_.dead_end();
        return false;
      }
    } catch (const std::exception& e) {
      throw std::runtime_error(spec_.op() + ": argument '" + spec_.args()[arg].name + "': " + e.what());
    }
    // Every focus yields at least tuples_per_focus tuples: its candidates, then random values.
    if (arg == task.arg) out.variants = std::max(args_.variants(), cfg_.limits.tuples_per_focus);
    if (materialize) materialize(arg, out.metas[static_cast<size_t>(arg)]);
  }
  if (joint_.active())
    if (auto broken = joint_.broken()) {  // sampling without look-ahead missed it
      dead_end_ = DeadEnd{-1, Attribute::Value, -1, {*broken}, task.joint >= 0};
      return false;
    }
  const Deviation* unchecked = nullptr;  // a rule the kernel does not check, broken
  if (task.joint >= 0) {
    out.violated = spec_.joints()[task.joint].label;
    unchecked = spec_.joints()[task.joint].deviation.get();
  } else if (!task.valid()) {
    const auto& c = spec_.args()[task.arg].constraints[task.constraint];
    out.violated = c.label;
    unchecked = c.deviation.get();
  }
  out.deviations = args_.deviations();
  if (unchecked) out.deviations.push_back(unchecked);
  if (cfg_.contract)
    for (const auto& j : spec_.joints())
      if (j.role == Role::Avoid && !joint_.holds(j)) out.deviations.push_back(j.deviation.get());
  return true;
}

bool MetaArgTupleEngine::solve_outs(Rng& rng, MetaTuple& out) {
  out.outs.resize(spec_.outs().size());
  for (size_t k = 0; k < spec_.outs().size(); ++k)
    if (!args_.solve(-1, out.metas, {}, rng, out.outs[k], &spec_.outs()[k])) {
      dead_end_ = args_.dead_end();
      return false;
    }
  return true;
}

std::string MetaArgTupleEngine::describe(const Task& task) const {
  if (task.joint >= 0) return "violate " + spec_.joints()[task.joint].label;
  const auto& arg = spec_.args()[task.arg];
  if (!task.valid()) return "violate " + arg.constraints[task.constraint].label;
  return "vary " + arg.name + "." + std::string(name(task.attribute));
}

}  // namespace opsfuzz
