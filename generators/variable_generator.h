// VariableGenerator: draws values from a variable space, favouring its boundaries and the
// special values it admits (0, ±1, and for floats ±inf, NaN, -0.0 and subnormals).
#pragma once

#include "argtypes/meta_arg.h"
#include "argtypes/rng.h"

#include <c10/core/ScalarType.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <span>
#include <type_traits>
#include <vector>

namespace opsfuzz {

// The values of a single window [lo, lo + width] that VariableGenerator::from_bits gives for n
// 32-bit random numbers (integers: lo + bits * span / 2^32), cast to T. In vector form, and on
// x86-64 for the widest vectors the processor has: the same values on every processor.
template <class T>
void window_values(const uint32_t* bits, size_t n, bool is_int, double lo, double width, uint64_t span, T* out);

class VariableGenerator {
 public:
  // `favoured` are the values the profile draws half of the time, as far as the space admits
  // them (see favoured_values); `window` bounds uniform draws from unbounded spaces.
  VariableGenerator(const VariableSpace& space, ValueProfile profile, std::span<const double> favoured = {},
                    double window = 20);
  // Every profile is a mixture: a uniform draw with some probability, else one of a table of
  // values (its boundaries, favoured values, the nearest member to 0...). One random number
  // decides which part and, for the table, the entry; the common cases stay inline.
  double next(Rng& rng) {
    if (plain_) return draw_window(rng);
    const uint64_t r = rng.next();
    const uint32_t high = static_cast<uint32_t>(r >> 32);  // independent of the low half that chose the part
    if (static_cast<uint32_t>(r) >= uniform_below_) return table_[(uint64_t{high} * table_.size()) >> 32];
    return single_window_ ? draw_window(high, rng) : uniform(high, rng);
  }
  const std::vector<double>& favoured() const { return favoured_; }

  // Fills n elements, each make(v) of a value v that next() could have drawn, and the same values
  // as n calls of next() would give. Where the draws need no more than one random number each,
  // they are made without branching on which part of the mixture an element takes (a coin toss
  // the processor mispredicts); a plain Uniform profile draws 32 random bits an element, in bulk
  // for large tensors, and its values need no `make` (they lie in the window, inside any dtype).
  template <class T, class Make> void fill(T* out, int64_t n, Rng& rng, Make make) {
    if (plain_) return fill_uniform(out, n, rng);
    const bool one_window = single_window_ && (!is_int_ || span_ <= (uint64_t{1} << 16));
    if (!one_window && !windows_from_bits_) {
      for (int64_t i = 0; i < n; ++i) out[i] = make(next(rng));
      return;
    }
    const size_t entries = table_.size();
    for (int64_t i = 0; i < n; ++i) {
      const uint64_t r = rng.next();
      const uint32_t high = static_cast<uint32_t>(r >> 32);
      const double drawn = one_window ? from_bits(high) : in_windows(high * 0x1.0p-32 * total_);
      const double entry = entries ? table_[(uint64_t{high} * entries) >> 32] : drawn;
      out[i] = make(select(static_cast<uint32_t>(r) >= uniform_below_, entry, drawn));
    }
  }

 private:
  // Uniform draws over the single window, from 32 random bits each: two per random number, or
  // for large tensors from Rng::fill32 in bulk (seeding its lanes costs as much as a hundred
  // elements). The bits become values in bulk (window_values), from_bits' values in vector form.
  template <class T> void fill_uniform(T* out, int64_t n, Rng& rng) const {
    constexpr int64_t kChunk = 1024;
    uint32_t bits[kChunk];
    for (int64_t i = 0; i < n; i += kChunk) {
      const size_t m = static_cast<size_t>(std::min(kChunk, n - i));
      if (n < kChunk / 4) rng.halves(bits, m);
      else rng.fill32(bits, m);
      window_values(bits, m, is_int_, lo_, width_, span_, out + i);
    }
  }
  // a when `first`, else b, without a branch.
  static double select(bool first, double a, double b) {
    const uint64_t mask = -static_cast<uint64_t>(first);
    return std::bit_cast<double>((std::bit_cast<uint64_t>(a) & mask) | (std::bit_cast<uint64_t>(b) & ~mask));
  }
  double draw_window(Rng& rng) const {
    return is_int_ ? lo_ + static_cast<double>(rng.below(span_)) : lo_ + width_ * rng.uniform01();
  }
  // A value of the single window from 32 random bits: evenly spaced for floats (2^32 of them),
  // by multiply-shift for integers (biased by at most span_ / 2^32).
  double from_bits(uint32_t bits) const {
    if (is_int_) return lo_ + static_cast<double>((uint64_t{bits} * span_) >> 32);
    return lo_ + width_ * (bits * 0x1.0p-32);
  }
  // The same, enough for floats and windows of at most 2^16 integers; wider ones draw afresh.
  double draw_window(uint32_t bits, Rng& rng) const {
    return !is_int_ || span_ <= (uint64_t{1} << 16) ? from_bits(bits) : draw_window(rng);
  }
  // A uniform draw over several windows (a single one is draw_window's), or a boundary when the
  // space is not an interval or nothing of it lies near 0.
  double uniform(uint32_t bits, Rng& rng);
  // The value at offset r >= 0 into the windows laid end to end (integers take its floor), as
  // uniform draws it. Two windows (a nonzero divisor's, equally likely) are chosen between
  // without a branch.
  [[gnu::always_inline]] double in_windows(double r) const {
    auto at = [&](const Interval& x, double r) {
      return x.lo + (is_int_ ? static_cast<double>(static_cast<int64_t>(r)) : r);
    };
    if (widths_.size() == 2) {
      const double rest = r - widths_[0];
      return select(r < widths_[0], at(windows_[0], r),
                    select(rest < widths_[1], at(windows_[1], rest), windows_[1].hi));
    }
    for (size_t i = 0; i < windows_.size(); ++i) {
      if (r < widths_[i]) return at(windows_[i], r);
      r -= widths_[i];
    }
    return windows_.back().hi;
  }
  void set_mixture();
  double nearest(double v) const;  // the member of the space closest to v

  const VariableSpace& space_;
  ValueProfile profile_;
  bool is_int_;
  std::vector<Interval> windows_;   // the space clipped to [-window, window]
  std::vector<double> widths_;      // of each window: integers count both ends
  std::vector<double> boundaries_;  // finite interval ends and their neighbours
  std::vector<double> favoured_;    // admitted favoured values
  double total_ = 0;
  std::vector<double> table_;                   // the mixture's values besides the uniform draw
  uint64_t uniform_below_ = uint64_t{1} << 32;  // a draw is uniform when its low 32 bits are below
  bool single_window_ = false;
  bool windows_from_bits_ = false;  // uniform draws several windows from 32 bits: few integers in them
  bool plain_ = false;              // Uniform profile over a single window
  double lo_ = 0, width_ = 0;       // the single window
  uint64_t span_ = 1;
};

// The values profile `p` favours for elements of dtype `t`, before a space admits them: for
// Special 0, ±1 and the floats' ±inf, NaN, -0.0 and smallest subnormals; for Extremes the
// dtype's largest and smallest finite values, smallest normals and subnormals, values around the
// overflow of exp, cosh/sinh and x*x, ±0, ±inf, NaN; for Rounding exact halves, integral-valued
// floats and the largest float with a fraction; for Integral an integer dtype's min, -1, 0, 1,
// max. None for the other profiles, or where a profile has nothing to say about the dtype.
std::vector<double> favoured_values(ValueProfile p, c10::ScalarType t);

}  // namespace opsfuzz
