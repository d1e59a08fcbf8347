// Baselines outside the SpecDB, for the benchmarks to time its specs against.
#pragma once

#include "specs/model/spec.h"

namespace opsfuzz {

// convolution.default as its spec stated it before joint constraints (14b7ea2): per-variable
// rules in dependency order (weight's sizes from input, groups and the parameter lists; groups
// among the divisors of input's channels), float and double inputs, never transposed. Joint
// specs are held to its rate.
Spec hand_written_convolution();
// The same contract, its ties (groups, weight's sizes) stated as joint constraints: the cost of
// the joint machinery is the difference in rate between the two, on the same rules.
Spec hand_written_convolution_as_joint();

}  // namespace opsfuzz
