#include "argtypes/space.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <sstream>
#include <stdexcept>

namespace opsfuzz {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

std::vector<Value> universe_values(VarType type) {
  std::vector<Value> out;
  switch (type) {
    case VarType::Bool: return {false, true};
    case VarType::ScalarDtype: return {ScalarDtype::Bool, ScalarDtype::Int, ScalarDtype::Float};
    case VarType::TensorDtype:
      for (auto t : real_and_complex_dtypes()) out.emplace_back(t);
      return out;
    case VarType::MemoryFormat:
      return {c10::MemoryFormat::Contiguous, c10::MemoryFormat::Preserve, c10::MemoryFormat::ChannelsLast,
              c10::MemoryFormat::ChannelsLast3d};
    case VarType::Layout: return {c10::Layout::Strided, c10::Layout::Sparse};
    case VarType::Device: return {c10::DeviceType::CPU, c10::DeviceType::CUDA};
    default: return out;
  }
}

double next_up(double v) { return std::nextafter(v, kInf); }
double next_down(double v) { return std::nextafter(v, -kInf); }

}  // namespace

VariableSpace::VariableSpace(VarType type) : type_(type) {
  if (type == VarType::Int || type == VarType::Float) {
    interval_ = true;
    nan_ = type == VarType::Float;
    intervals_.push_back({-kInf, kInf});
  } else if (type == VarType::String || type == VarType::Tuple) {
    cofinite_ = true;
  } else {
    static const auto universes = [] {  // built once: the solver makes these spaces constantly
      std::array<Values, kVarTypes> u;
      for (int t = 0; t < kVarTypes; ++t) {
        auto vs = universe_values(static_cast<VarType>(t));
        u[static_cast<size_t>(t)].insert(vs.begin(), vs.end());
      }
      return u;
    }();
    values_ = universes[static_cast<size_t>(type)];
  }
}

VariableSpace VariableSpace::of(VarType type, std::span<const Value> values) {
  VariableSpace s(type);
  s.interval_ = s.cofinite_ = s.nan_ = false;
  s.intervals_.clear();
  s.values_.clear();
  for (const auto& v : values) s.values_.insert(coerce(type, v));
  return s;
}

VariableSpace VariableSpace::range(VarType type, double lo, double hi) {
  if (type != VarType::Int && type != VarType::Float)
    throw std::invalid_argument("VariableSpace::range needs an Int or Float variable");
  VariableSpace s(type);
  s.nan_ = false;
  s.clip(lo, hi);
  return s;
}

bool VariableSpace::contains(const Value& raw) const {
  if (!interval_) return cofinite_ != values_.contains(coerce(type_, raw));
  return is_numeric(raw) && contains_number(as_double(raw));
}

bool VariableSpace::contains_number(double v) const {
  if (std::isnan(v)) return nan_;
  if (is_int() && (std::isinf(v) || v != std::floor(v))) return false;
  return std::any_of(intervals_.begin(), intervals_.end(), [&](const Interval& i) { return i.lo <= v && v <= i.hi; });
}

int64_t VariableSpace::size() const {
  if (!interval_) return cofinite_ ? -1 : static_cast<int64_t>(values_.size());
  if (!is_int()) {
    bool points = std::all_of(intervals_.begin(), intervals_.end(), [](const Interval& i) { return i.lo == i.hi; });
    return points ? static_cast<int64_t>(intervals_.size()) + nan_ : -1;
  }
  int64_t n = 0;
  for (const auto& i : intervals_) {
    if (std::isinf(i.lo) || std::isinf(i.hi)) return -1;
    n += static_cast<int64_t>(i.hi - i.lo) + 1;
  }
  return n;
}

std::vector<Value> VariableSpace::enumerate(size_t limit) const {
  std::vector<Value> out;
  if (!interval_) {
    if (cofinite_) return out;
    for (const auto& v : values_) {
      if (out.size() == limit) break;
      out.push_back(v);
    }
    return out;
  }
  for (const auto& i : intervals_) {
    if (std::isinf(i.lo) || std::isinf(i.hi)) {
      if (i.lo == i.hi) out.emplace_back(i.lo);
      continue;
    }
    if (!is_int()) {
      if (i.lo == i.hi) out.emplace_back(i.lo);
      continue;
    }
    for (double v = i.lo; v <= i.hi && out.size() < limit; ++v) out.emplace_back(static_cast<int64_t>(v));
  }
  return out;
}

std::optional<double> VariableSpace::min() const {
  if (interval_) return intervals_.empty() ? std::nullopt : std::optional(intervals_.front().lo);
  if (cofinite_ || values_.empty() || !is_numeric(*values_.begin())) return std::nullopt;
  return as_double(*values_.begin());
}

std::optional<double> VariableSpace::max() const {
  if (interval_) return intervals_.empty() ? std::nullopt : std::optional(intervals_.back().hi);
  if (cofinite_ || values_.empty() || !is_numeric(*values_.rbegin())) return std::nullopt;
  return as_double(*values_.rbegin());
}

void VariableSpace::clip(double lo, double hi) {
  if (is_int()) {
    lo = std::ceil(lo);
    hi = std::floor(hi);
  }
  Intervals kept;
  for (const auto& i : intervals_) {
    Interval c{std::max(i.lo, lo), std::min(i.hi, hi)};
    if (c.lo <= c.hi) kept.push_back(c);
  }
  intervals_ = std::move(kept);
}

void VariableSpace::cut(double v) {
  Intervals kept;
  for (const auto& i : intervals_) {
    if (v < i.lo || v > i.hi) {
      kept.push_back(i);
      continue;
    }
    double below = is_int() ? v - 1 : next_down(v);
    double above = is_int() ? v + 1 : next_up(v);
    if (i.lo <= below) kept.push_back({i.lo, below});
    if (above <= i.hi) kept.push_back({above, i.hi});
  }
  intervals_ = std::move(kept);
}

void VariableSpace::filter(auto&& keep) {
  if (cofinite_) throw std::logic_error("cannot order an unbounded " + std::string(name(type_)) + " space");
  Values kept;
  for (const auto& v : values_)
    if (keep(v)) kept.insert(v);
  values_ = std::move(kept);
}

VariableSpace& VariableSpace::eq(const Value& v) {
  const Value one[] = {v};
  return in(one);
}

VariableSpace& VariableSpace::ne(const Value& v) {
  const Value one[] = {v};
  return not_in(one);
}

VariableSpace& VariableSpace::in(std::span<const Value> vs) {
  Values kept;
  for (const auto& v : vs)
    if (contains(v)) kept.insert(coerce(type_, v));
  interval_ = cofinite_ = nan_ = false;
  intervals_.clear();
  values_ = std::move(kept);
  return *this;
}

VariableSpace& VariableSpace::not_in(std::span<const Value> vs) {
  for (const auto& raw : vs) {
    Value v = coerce(type_, raw);
    if (!interval_) {
      if (cofinite_) values_.insert(v);
      else values_.erase(v);
    } else if (is_numeric(v)) {
      double d = as_double(v);
      if (std::isnan(d)) nan_ = false;
      else if (!is_int() || d == std::floor(d)) cut(d);
    }
  }
  return *this;
}

VariableSpace& VariableSpace::le(double v) {
  if (interval_) clip(-kInf, v), nan_ = false;
  else filter([&](const Value& x) { return as_double(x) <= v; });
  return *this;
}

VariableSpace& VariableSpace::lt(double v) {
  if (!interval_) {
    filter([&](const Value& x) { return as_double(x) < v; });
    return *this;
  }
  nan_ = false;
  clip(-kInf, is_int() ? std::ceil(v) - 1 : next_down(v));
  return *this;
}

VariableSpace& VariableSpace::ge(double v) {
  if (interval_) clip(v, kInf), nan_ = false;
  else filter([&](const Value& x) { return as_double(x) >= v; });
  return *this;
}

VariableSpace& VariableSpace::gt(double v) {
  if (!interval_) {
    filter([&](const Value& x) { return as_double(x) > v; });
    return *this;
  }
  nan_ = false;
  clip(is_int() ? std::floor(v) + 1 : next_up(v), kInf);
  return *this;
}

VariableSpace& VariableSpace::outside(double lo, double hi) {
  if (!interval_) {
    filter([&](const Value& x) { return as_double(x) < lo || as_double(x) > hi; });
    return *this;
  }
  VariableSpace below = *this, above = *this;
  below.lt(lo);
  above.gt(hi);
  intervals_ = below.intervals_;
  intervals_.insert(intervals_.end(), above.intervals_.begin(), above.intervals_.end());
  nan_ = false;
  return *this;
}

VariableSpace& VariableSpace::finite_within(double lo, double hi) {
  if (!interval_ || is_int()) return ge(lo).le(hi);
  const bool nan = nan_;
  constexpr double kMax = std::numeric_limits<double>::max();
  outside(-kMax, next_down(lo)).outside(next_up(hi), kMax);  // -inf and +inf are outside both
  nan_ = nan;
  return *this;
}

VariableSpace& VariableSpace::finite_outside(double lo, double hi) {
  constexpr double kMax = std::numeric_limits<double>::max();
  return ge(-kMax).le(kMax).outside(lo, hi);
}

VariableSpace& VariableSpace::round_inward(double (*held)(double v, bool up)) {
  Intervals kept;
  for (Interval i : intervals_) {
    if (std::isfinite(i.lo)) i.lo = held(i.lo, true);
    if (std::isfinite(i.hi)) i.hi = held(i.hi, false);
    if (i.lo <= i.hi) kept.push_back(i);
  }
  intervals_ = std::move(kept);
  return *this;
}

VariableSpace& VariableSpace::intersect(const VariableSpace& other) {
  if (other.type_ != type_) throw std::invalid_argument("intersecting spaces of different types");
  if (!other.interval_) {
    if (other.cofinite_) return not_in(std::vector<Value>(other.values_.begin(), other.values_.end()));
    return in(std::vector<Value>(other.values_.begin(), other.values_.end()));
  }
  if (!interval_) {
    filter([&](const Value& x) { return other.contains(x); });
    return *this;
  }
  Intervals out;
  for (const auto& a : intervals_)
    for (const auto& b : other.intervals_) {
      Interval c{std::max(a.lo, b.lo), std::min(a.hi, b.hi)};
      if (c.lo <= c.hi) out.push_back(c);
    }
  std::sort(out.begin(), out.end(), [](const Interval& x, const Interval& y) { return x.lo < y.lo; });
  intervals_ = std::move(out);
  nan_ = nan_ && other.nan_;
  return *this;
}

std::string VariableSpace::to_string() const {
  std::ostringstream os;
  if (interval_) {
    const char* sep = "";
    for (const auto& i : intervals_) {
      os << sep << '[' << i.lo << ", " << i.hi << ']';
      sep = " u ";
    }
    if (nan_) os << sep << "{nan}";
    if (intervals_.empty() && !nan_) os << "{}";
    return os.str();
  }
  os << (cofinite_ ? "all but {" : "{");
  const char* sep = "";
  for (const auto& v : values_) {
    os << sep << opsfuzz::to_string(v);
    sep = ", ";
  }
  os << '}';
  return os.str();
}

}  // namespace opsfuzz
