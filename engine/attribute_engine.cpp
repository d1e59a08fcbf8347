// The AttributeEngine: a variable's universe, its constraints applied to it (solved spaces kept
// by what they read), and values drawn from a space.
#include "engine/engine.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>

namespace opsfuzz {
namespace {

using A = Attribute;

VariableSpace dtype_space(const TensorConfig& tc) {
  std::vector<Value> ds;
  for (auto t : real_and_complex_dtypes())
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
    case Suffix::Be: {  // [lo, hi], or [lo, hi, 1]: finite values in [lo, hi], infinities and NaN too
      if (op.values.size() != 2 && op.values.size() != 3)
        throw std::invalid_argument("Be needs [lo, hi] or [lo, hi, 1]");
      double lo = as_double(op.values[0]), hi = as_double(op.values[1]);
      if (op.values.size() == 3 && as_double(op.values[2]) != 0)
        negate ? s.finite_outside(lo, hi) : s.finite_within(lo, hi);
      else negate ? s.outside(lo, hi) : s.ge(lo).le(hi);
      break;
    }
    case Suffix::Gen: s.in(negate ? op.invalid : op.values); break;
  }
}

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

}  // namespace opsfuzz
