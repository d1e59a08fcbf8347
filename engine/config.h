// What the engine may generate: structural limits and the tensor configuration.
#pragma once

#include <span>
#include <string_view>

#include "argtypes/meta_arg.h"

#include <c10/core/ScalarType.h>

#include <cstdint>
#include <string>
#include <vector>

namespace opsfuzz {

struct Limits {
  int64_t max_rank = 6;
  int64_t max_size = 8;                   // per dim
  int64_t max_tensor_list = 6;            // entries of a tensor list
  int64_t max_int_list = 8;               // entries of an int list
  int64_t length_lo = -9, length_hi = 9;  // values of Length arguments
  int64_t int_lo = -20, int_hi = 20;      // other integer values unless constrained
  double float_lo = -20, float_hi = 20;   // float scalars and arguments unless constrained
  int variants = 6;                       // values tried for a focused (non-dtype) attribute
  int tuples_per_focus = 8;               // tuples generated for each focused attribute, at least
  int retries = 8;                        // attempts before a tuple is given up
  unsigned solver_timeout_ms = 5000;      // per joint-constraint query
};

struct TensorConfig {
  bool zero_dim = true;  // rank-0 tensors
  bool empty = false;    // dims of size 0
  bool half = false;     // float16 and bfloat16
  bool complex = false;  // complex64 and complex128
  std::vector<c10::ScalarType> disallowed;
  // Non-contiguous layouts holding the same values.
  bool transposed = false, permuted = false, strided = false, channels_last = false;
  // Values that find bugs, each a ValueProfile: elements favour the dtype's extremes (largest,
  // smallest, near the overflow of exp, cosh and pow, subnormals, ±0, ±inf, NaN), exact halves
  // and integral-valued floats, or integers at their bounds. Tensors not in a Value focus take
  // one of the profiles switched on.
  bool extremes = false, rounding = false, integral = false;
  bool allows(c10::ScalarType t) const;
  // The profiles of the value configurations switched on, in a fixed order; returns how many.
  size_t value_profiles(ValueProfile (&out)[3]) const;
};

// How joint constraints are solved: look-ahead with Z3, or sampling with retry.
enum class JointStrategy { Z3, Sampling };
// Z3 when this build has it (OPSFUZZ_WITH_Z3), else Sampling. A function, not a macro here: only
// the engine's sources depend on whether the build has Z3.
JointStrategy default_joint_strategy();

struct Config {
  Limits limits;
  TensorConfig tensor;
  JointStrategy joint = default_joint_strategy();
  // The op's contract without the spec's deviations: valid samples may fall into a deviation
  // (where the kernel departs from the contract) and invalid ones may break rules the kernel
  // does not check; samples say which deviations they hit.
  bool contract = false;
  // Parses comma-separated config words (config_words(); a leading "no" switches a tensor word
  // or contract off: "nozerodim"). Throws std::invalid_argument on an unknown word.
  static Config parse(const std::string& words);
};

// One word of --config, with what it does: the one list the parser, the command line's help and
// the tests read.
struct ConfigWord {
  enum Kind { Tensor, Contract, Joint } kind;  // a tensor configuration; the contract; a joint strategy
  std::string_view word;
  std::string_view help;
  void (*set)(Config&, bool on);
};
std::span<const ConfigWord> config_words();

}  // namespace opsfuzz
