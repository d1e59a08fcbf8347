// VariableGenerator: draws values from a variable space, favouring its boundaries and the
// special values it admits (0, ±1, and for floats ±inf, NaN, -0.0 and subnormals).
#pragma once

#include "argtypes/meta_arg.h"
#include "argtypes/rng.h"

#include <vector>

namespace opsfuzz {

class VariableGenerator {
 public:
  // `tiny` is the smallest positive subnormal of the element type being generated (0: none);
  // `window` bounds uniform draws from unbounded spaces.
  VariableGenerator(const VariableSpace& space, ValueProfile profile, double tiny = 0, double window = 20);
  double next(Rng& rng);
  const std::vector<double>& specials() const { return specials_; }

 private:
  double uniform(Rng& rng);
  double nearest(double v) const;  // the member of the space closest to v

  const VariableSpace& space_;
  ValueProfile profile_;
  bool is_int_;
  std::vector<Interval> windows_;     // the space clipped to [-window, window]
  std::vector<double> boundaries_;    // finite interval ends and their neighbours
  std::vector<double> specials_;      // admitted special values
  double total_ = 0;
};

}  // namespace opsfuzz
