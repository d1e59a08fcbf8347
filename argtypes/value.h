// One value of a variable: what a variable space holds and a generator samples.
#pragma once

#include "argtypes/argtypes.h"

#include <c10/core/DeviceType.h>
#include <c10/core/Layout.h>
#include <c10/core/MemoryFormat.h>

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

namespace opsfuzz {

// The variable types of the engine. Dim/Index/Length/Rank/Size are Int variables.
enum class VarType : uint8_t {
  Bool,
  Int,
  Float,
  String,
  ScalarDtype,
  TensorDtype,
  MemoryFormat,
  Layout,
  Device,
  Tuple
};
inline constexpr int kVarTypes = static_cast<int>(VarType::Tuple) + 1;
std::string_view name(VarType t);

using IntList = std::vector<int64_t>;
using Floats = std::vector<double>;
using Bools = std::vector<bool>;
using Value = std::variant<bool, int64_t, double, std::string, ScalarDtype, c10::ScalarType, c10::MemoryFormat,
                           c10::Layout, c10::DeviceType, IntList, Floats, Bools>;

bool is_numeric(const Value& v);   // bool, int64 or double
double as_double(const Value& v);  // numeric values only
int64_t as_int(const Value& v);    // numeric values only (doubles truncated)
// The entries of a list value (IntList, Floats or Bools); throws for anything else.
size_t list_length(const Value& v);
// The representation a value takes in a space of type t (ints in Float spaces become doubles).
Value coerce(VarType t, const Value& v);
// Python-like text: True, 3, 2.5, float32, [1, 2], [0.5, 2.0], [True, False], contiguous_format.
std::string to_string(const Value& v);

}  // namespace opsfuzz
