// Baselines outside the SpecDB, for the benchmarks to time its specs against.
#pragma once

#include "specs/model/spec.h"

namespace opsfuzz {

// convolution.default as its spec stated it before joint constraints (14b7ea2): per-variable
// rules in dependency order (weight's sizes from input, groups and the parameter lists; groups
// among the divisors of input's channels), float and double inputs, never transposed. Joint
// specs are held to its rate.
Spec hand_written_convolution();

}  // namespace opsfuzz
