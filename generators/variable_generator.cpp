#include "generators/variable_generator.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace opsfuzz {

VariableGenerator::VariableGenerator(const VariableSpace& space, ValueProfile profile, double tiny, double window)
    : space_(space), profile_(profile), is_int_(space.type() != VarType::Float) {
  auto admit = [&](std::vector<double>& out, double v) {
    if ((space.contains(v) || (std::isnan(v) && space.admits_nan())) &&
        std::none_of(out.begin(), out.end(), [&](double x) { return x == v && std::signbit(x) == std::signbit(v); }))
      out.push_back(v);
  };
  if (space.is_interval()) {
    for (const auto& i : space.intervals()) {
      Interval w{std::max(i.lo, -window), std::min(i.hi, window)};
      if (w.lo <= w.hi) windows_.push_back(w);
      for (double end : {i.lo, i.hi})
        if (std::isfinite(end))
          for (double d : {0.0, 1.0, -1.0}) admit(boundaries_, end + d);
    }
  } else {
    for (const auto& v : space.values())
      if (is_numeric(v)) boundaries_.push_back(as_double(v));
  }
  for (double v : {0.0, 1.0, -1.0}) admit(specials_, v);
  if (!is_int_) {
    constexpr double inf = std::numeric_limits<double>::infinity();
    for (double v : {inf, -inf, std::nan(""), -0.0}) admit(specials_, v);
    if (tiny > 0) admit(specials_, tiny), admit(specials_, -tiny);
  }
  for (const auto& w : windows_) total_ += w.hi - w.lo + (is_int_ ? 1 : 0);
  plain_ = profile == ValueProfile::Uniform && space.is_interval() && windows_.size() == 1;
  if (plain_) {
    lo_ = windows_[0].lo, width_ = windows_[0].hi - windows_[0].lo;
    span_ = static_cast<uint64_t>(width_) + 1;
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

double VariableGenerator::uniform(Rng& rng) {
  if (!space_.is_interval()) return boundaries_.empty() ? std::nan("") : boundaries_[rng.index(boundaries_.size())];
  if (windows_.empty()) {  // nothing near 0: stay on the boundaries
    if (!boundaries_.empty()) return boundaries_[rng.index(boundaries_.size())];
    return space_.admits_nan() ? std::nan("") : space_.intervals().front().lo;
  }
  const Interval* w = &windows_.front();
  if (windows_.size() > 1) {
    double r = rng.uniform01() * total_;
    for (const auto& x : windows_) {
      w = &x;
      double width = x.hi - x.lo + (is_int_ ? 1 : 0);
      if (r < width) break;
      r -= width;
    }
  }
  if (is_int_) return static_cast<double>(rng.uniform_int(static_cast<int64_t>(w->lo), static_cast<int64_t>(w->hi)));
  return rng.uniform_real(w->lo, w->hi);
}

double VariableGenerator::next_profiled(Rng& rng) {
  switch (profile_) {
    case ValueProfile::Uniform: return uniform(rng);
    case ValueProfile::Boundary:
      return boundaries_.empty() || rng.chance(0.25) ? uniform(rng) : boundaries_[rng.index(boundaries_.size())];
    case ValueProfile::Special:
      return specials_.empty() || rng.chance(0.5) ? uniform(rng) : specials_[rng.index(specials_.size())];
    case ValueProfile::Zeros: return nearest(0);
    case ValueProfile::SmallInt: return nearest(static_cast<double>(rng.uniform_int(-3, 3)));
    case ValueProfile::Sparse: return rng.chance(0.8) ? nearest(0) : uniform(rng);
  }
  return uniform(rng);
}

}  // namespace opsfuzz
