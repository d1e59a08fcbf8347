// MetaArg: everything about one argument except its tensor data.
#pragma once

#include "argtypes/space.h"

#include <string>
#include <vector>

namespace opsfuzz {

// How a tensor's elements are drawn from its value space. Uniform is the default; the next five
// are what the engine enumerates when a tensor's Value attribute is in focus; the last three are
// the value configurations (values that find bugs: a dtype's extremes, exact halves and
// integral-valued floats, integers at their bounds).
enum class ValueProfile : uint8_t { Uniform, Boundary, Special, Zeros, SmallInt, Sparse, Extremes, Rounding, Integral };
std::string_view name(ValueProfile p);
inline constexpr ValueProfile kValueProfiles[] = {ValueProfile::Uniform, ValueProfile::Boundary, ValueProfile::Special,
                                                  ValueProfile::Zeros,   ValueProfile::SmallInt, ValueProfile::Sparse};

// One tensor of a Tensor argument, or one entry of a tensor list.
struct TensorMeta {
  bool none = false;  // an absent entry of a TensorOptList
  c10::ScalarType dtype = c10::ScalarType::Float;
  IntList shape;
  VariableSpace values{VarType::Float};  // the elements' admissible values
  ValueProfile profile = ValueProfile::Uniform;
  bool contiguous = false;  // never given a non-contiguous layout
  // Under the contract configuration: elements outside `keeps` fall into deviation `id` (a rule
  // on the values that valid generation keeps to otherwise).
  struct ValueDeviation {
    VariableSpace keeps;
    std::string id;
  };
  std::vector<ValueDeviation> value_deviations;
};

struct MetaArg {
  ArgType argtype = ArgType::Tensor;
  bool none = false;                            // Optional attribute: the argument is None
  std::vector<TensorMeta> tensors;              // Tensor: one; TensorList: one per entry
  ScalarDtype scalar_dtype = ScalarDtype::Int;  // Scalar arguments
  Value value = int64_t{0};                     // non-tensor arguments (an int list is an IntList)

  const TensorMeta& tensor() const { return tensors.at(0); }
  std::string to_string() const;
};

}  // namespace opsfuzz
