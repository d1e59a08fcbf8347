#include "generators/variable_generator.h"

#include <c10/util/BFloat16.h>
#include <c10/util/Half.h>

#include <algorithm>
#include <cmath>
#include <limits>

namespace opsfuzz {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// Both signs of each value.
void signed_pairs(std::vector<double>& out, std::initializer_list<double> magnitudes) {
  for (double m : magnitudes) out.push_back(m), out.push_back(-m);
}

template <class F> std::vector<double> float_values(ValueProfile p) {
  using L = std::numeric_limits<F>;
  const double max = static_cast<double>(L::max()), tiny = static_cast<double>(L::denorm_min());
  std::vector<double> out;
  switch (p) {
    case ValueProfile::Special:
      out = {0.0, 1.0, -1.0, kInf, -kInf, std::nan(""), -0.0};
      signed_pairs(out, {tiny});
      break;
    case ValueProfile::Extremes: {
      // exp overflows past log(max), cosh and sinh past log(2 max), x*x past sqrt(max).
      const double exp_edge = std::log(max), cosh_edge = exp_edge + std::log(2.0), square_edge = std::sqrt(max);
      out = {0.0, -0.0, kInf, -kInf, std::nan("")};
      signed_pairs(out, {max, static_cast<double>(L::min()), tiny, exp_edge - 0.01, exp_edge + 0.01, cosh_edge - 0.01,
                         cosh_edge + 0.01, square_edge * (1 - 1e-3), square_edge * (1 + 1e-3)});
      break;
    }
    case ValueProfile::Rounding: {
      // Past 2^(digits-1) every float is an integer; below it, the largest float with a fraction.
      const double integral_from = std::ldexp(1.0, L::digits - 1), below_half = 0.5 - std::ldexp(1.0, -L::digits - 1);
      out = {0.0, -0.0};
      signed_pairs(out, {0.5, 1.5, 2.5, 3.5, below_half, 1.0, 2.0, 3.0, integral_from, integral_from - 0.5});
      break;
    }
    default: break;
  }
  return out;
}

template <class I> std::vector<double> integer_values(ValueProfile p) {
  const double lo = static_cast<double>(std::numeric_limits<I>::lowest()),
               hi = static_cast<double>(std::numeric_limits<I>::max());
  switch (p) {
    case ValueProfile::Special: return {0.0, 1.0, -1.0};
    case ValueProfile::Extremes: return {lo, lo + 1, hi - 1, hi};
    case ValueProfile::Integral: return {lo, -1.0, 0.0, 1.0, hi};
    default: return {};
  }
}

}  // namespace

std::vector<double> favoured_values(ValueProfile p, c10::ScalarType t) {
  using S = c10::ScalarType;
  switch (t) {
    case S::Bool: return p == ValueProfile::Special ? std::vector<double>{0.0, 1.0} : std::vector<double>{};
    case S::Byte: return integer_values<uint8_t>(p);
    case S::Char: return integer_values<int8_t>(p);
    case S::Short: return integer_values<int16_t>(p);
    case S::Int: return integer_values<int32_t>(p);
    case S::Long: return integer_values<int64_t>(p);
    case S::Half: return float_values<c10::Half>(p);
    case S::BFloat16: return float_values<c10::BFloat16>(p);
    case S::Float:
    case S::ComplexFloat: return float_values<float>(p);
    default: return float_values<double>(p);
  }
}

VariableGenerator::VariableGenerator(const VariableSpace& space, ValueProfile profile, std::span<const double> favoured,
                                     double window)
    : space_(space), profile_(profile), is_int_(space.type() != VarType::Float) {
  auto admit = [&](std::vector<double>& out, double v) {
    if ((space.contains(v) || (std::isnan(v) && space.admits_nan())) &&
        std::none_of(out.begin(), out.end(), [&](double x) { return x == v && std::signbit(x) == std::signbit(v); }))
      out.push_back(v);
  };
  if (space.is_interval())
    for (const auto& i : space.intervals()) {
      Interval w{std::max(i.lo, -window), std::min(i.hi, window)};
      if (w.lo <= w.hi) windows_.push_back(w);
    }
  for (const auto& w : windows_) total_ += widths_.emplace_back(w.hi - w.lo + (is_int_ ? 1 : 0));
  single_window_ = space.is_interval() && windows_.size() == 1;
  windows_from_bits_ = space.is_interval() && windows_.size() > 1 && (!is_int_ || total_ <= 0x1.0p16);
  plain_ = profile == ValueProfile::Uniform && single_window_;
  if (single_window_) {
    lo_ = windows_[0].lo, width_ = windows_[0].hi - windows_[0].lo;
    span_ = static_cast<uint64_t>(width_) + 1;
  }
  for (double v : favoured) admit(favoured_, v);
  if (plain_) return;  // its draws read the window alone (most tensors): no boundaries, no mixture
  if (space.is_interval()) {
    for (const auto& i : space.intervals())
      for (double end : {i.lo, i.hi})
        if (std::isfinite(end))
          for (double d : {0.0, 1.0, -1.0}) admit(boundaries_, end + d);
  } else {
    for (const auto& v : space.values())
      if (is_numeric(v)) boundaries_.push_back(as_double(v));
  }
  set_mixture();
}

void VariableGenerator::set_mixture() {
  auto mix = [&](double uniform_share, std::vector<double> table) {
    if (table.empty()) return;
    table_ = std::move(table);
    uniform_below_ = static_cast<uint64_t>(uniform_share * 0x1.0p32);
  };
  switch (profile_) {
    case ValueProfile::Uniform: break;
    case ValueProfile::Boundary: mix(0.25, boundaries_); break;
    case ValueProfile::Special:
    case ValueProfile::Extremes:
    case ValueProfile::Rounding:
    case ValueProfile::Integral: mix(0.5, favoured_); break;
    case ValueProfile::Zeros: mix(0, {nearest(0)}); break;
    case ValueProfile::SmallInt:
      mix(0, {nearest(-3), nearest(-2), nearest(-1), nearest(0), nearest(1), nearest(2), nearest(3)});
      break;
    case ValueProfile::Sparse: mix(0.2, {nearest(0)}); break;
  }
}

double VariableGenerator::nearest(double v) const {
  double best = std::numeric_limits<double>::quiet_NaN();
  auto consider = [&](double x) {
    if (std::isnan(best) || std::abs(x - v) < std::abs(best - v)) best = x;
  };
  if (space_.is_interval()) {
    for (const auto& i : space_.intervals()) consider(std::clamp(v, i.lo, i.hi));
  } else {
    for (double b : boundaries_) consider(b);
  }
  return best;
}

double VariableGenerator::uniform(uint32_t bits, Rng& rng) {
  if (!space_.is_interval()) return boundaries_.empty() ? std::nan("") : boundaries_[rng.index(boundaries_.size())];
  if (windows_.empty()) {  // nothing near 0: stay on the boundaries
    if (!boundaries_.empty()) return boundaries_[rng.index(boundaries_.size())];
    return space_.admits_nan() ? std::nan("") : space_.intervals().front().lo;
  }
  // An offset into the windows laid end to end: from the 32 bits when they are enough (floats,
  // and at most 2^16 integers in all), else from a fresh draw.
  return in_windows((windows_from_bits_ ? bits * 0x1.0p-32 : rng.uniform01()) * total_);
}

// Built for x86-64-v4 (AVX-512) and v3 (AVX2) beside the baseline, chosen when the program
// loads. Integers convert exactly; the floats' arithmetic is the same in every clone, since this
// file is built without contracting a * b + c into one rounding (CMakeLists.txt).
template <class T>
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)  // clang clones no templates
__attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#endif
void window_values(const uint32_t* bits, size_t n, bool is_int, double lo, double width, uint64_t span, T* out) {
  if (is_int) {
    const int64_t first = static_cast<int64_t>(lo);  // exact: the window's ends are integers below 2^53
    for (size_t j = 0; j < n; ++j)
      out[j] = static_cast<T>(first + static_cast<int64_t>((uint64_t{bits[j]} * span) >> 32));
    return;
  }
  for (size_t j = 0; j < n; ++j) {  // bits as a double through a signed conversion, exactly
    const double unit = (static_cast<double>(static_cast<int32_t>(bits[j] ^ 0x80000000u)) + 0x1.0p31) * 0x1.0p-32;
    out[j] = static_cast<T>(lo + width * unit);
  }
}

#define OPSFUZZ_WINDOW_VALUES(T) \
  template void window_values<T>(const uint32_t*, size_t, bool, double, double, uint64_t, T*);
OPSFUZZ_WINDOW_VALUES(bool)
OPSFUZZ_WINDOW_VALUES(uint8_t)
OPSFUZZ_WINDOW_VALUES(int8_t)
OPSFUZZ_WINDOW_VALUES(int16_t)
OPSFUZZ_WINDOW_VALUES(int32_t)
OPSFUZZ_WINDOW_VALUES(int64_t)
OPSFUZZ_WINDOW_VALUES(c10::Half)
OPSFUZZ_WINDOW_VALUES(c10::BFloat16)
OPSFUZZ_WINDOW_VALUES(float)
OPSFUZZ_WINDOW_VALUES(double)
#undef OPSFUZZ_WINDOW_VALUES

}  // namespace opsfuzz
