// The semantic types of operator arguments and the attributes they are built from.
#pragma once

#include <c10/core/ScalarType.h>

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

namespace opsfuzz {

// What an argument means, beyond its C++ type: an int may be a dim, an index or a length.
enum class ArgType : uint8_t {
  Tensor,
  TensorOpt,
  TensorList,
  TensorOptList,
  Scalar,
  ScalarOpt,
  ScalarType,
  ScalarTypeOpt,
  Dim,
  DimOpt,
  DimList,
  DimListOpt,
  Shape,
  Index,
  IndexOpt,
  Length,
  LengthOpt,
  LengthList,
  LengthListOpt,
  Bool,
  BoolOpt,
  BoolList,
  Int,
  IntOpt,
  Float,
  FloatOpt,
  FloatList,
  FloatListOpt,
  String,
  StringOpt,
  MemoryFormat,
  MemoryFormatOpt,
  Layout,
  LayoutOpt,
  Device,
  DeviceOpt,
};

// The six qualities every argument is described by.
enum class Attribute : uint8_t { Optional, Dtype, Length, Rank, Size, Value };

// Scalars carry one of three Python-level dtypes.
enum class ScalarDtype : uint8_t { Bool, Int, Float };

std::string_view name(ArgType t);
std::string_view name(Attribute a);
std::string_view name(ScalarDtype d);

// Classifications of ArgTypes, inline: the engine asks them for every attribute it solves.
constexpr bool is_optional(ArgType t) {
  switch (t) {
    case ArgType::TensorOpt:
    case ArgType::ScalarOpt:
    case ArgType::ScalarTypeOpt:
    case ArgType::DimOpt:
    case ArgType::DimListOpt:
    case ArgType::IndexOpt:
    case ArgType::LengthOpt:
    case ArgType::LengthListOpt:
    case ArgType::BoolOpt:
    case ArgType::IntOpt:
    case ArgType::FloatOpt:
    case ArgType::FloatListOpt:
    case ArgType::StringOpt:
    case ArgType::MemoryFormatOpt:
    case ArgType::LayoutOpt:
    case ArgType::DeviceOpt: return true;
    default: return false;
  }
}

// The non-optional form of an ArgType (TensorOpt -> Tensor).
constexpr ArgType base(ArgType t) {
  switch (t) {
    case ArgType::TensorOpt: return ArgType::Tensor;
    case ArgType::ScalarOpt: return ArgType::Scalar;
    case ArgType::ScalarTypeOpt: return ArgType::ScalarType;
    case ArgType::DimOpt: return ArgType::Dim;
    case ArgType::DimListOpt: return ArgType::DimList;
    case ArgType::IndexOpt: return ArgType::Index;
    case ArgType::LengthOpt: return ArgType::Length;
    case ArgType::LengthListOpt: return ArgType::LengthList;
    case ArgType::BoolOpt: return ArgType::Bool;
    case ArgType::IntOpt: return ArgType::Int;
    case ArgType::FloatOpt: return ArgType::Float;
    case ArgType::FloatListOpt: return ArgType::FloatList;
    case ArgType::StringOpt: return ArgType::String;
    case ArgType::MemoryFormatOpt: return ArgType::MemoryFormat;
    case ArgType::LayoutOpt: return ArgType::Layout;
    case ArgType::DeviceOpt: return ArgType::Device;
    default: return t;
  }
}

constexpr bool is_tensor(ArgType t) { return base(t) == ArgType::Tensor; }  // Tensor, TensorOpt
constexpr bool is_tensor_list(ArgType t) { return t == ArgType::TensorList || t == ArgType::TensorOptList; }
constexpr bool has_tensors(ArgType t) { return is_tensor(t) || is_tensor_list(t); }  // tensor or tensor list
constexpr bool is_int_list(ArgType t) {  // DimList(Opt), Shape, LengthList(Opt)
  auto b = base(t);
  return b == ArgType::DimList || b == ArgType::Shape || b == ArgType::LengthList;
}
constexpr bool is_float_list(ArgType t) { return base(t) == ArgType::FloatList; }
constexpr bool is_bool_list(ArgType t) { return t == ArgType::BoolList; }
// Lists of plain values (int, float or bool lists): a Length, then one Value per entry.
constexpr bool is_value_list(ArgType t) { return is_int_list(t) || is_float_list(t) || is_bool_list(t); }
constexpr bool is_list(ArgType t) { return is_tensor_list(t) || is_value_list(t); }  // tensor lists and value lists
constexpr bool is_scalar(ArgType t) { return base(t) == ArgType::Scalar; }
constexpr bool is_scalar_type(ArgType t) { return base(t) == ArgType::ScalarType; }
constexpr bool is_memory_format(ArgType t) { return base(t) == ArgType::MemoryFormat; }
constexpr bool is_layout(ArgType t) { return base(t) == ArgType::Layout; }
constexpr bool is_device(ArgType t) { return base(t) == ArgType::Device; }
constexpr bool is_bool(ArgType t) { return base(t) == ArgType::Bool; }
constexpr bool is_float(ArgType t) { return base(t) == ArgType::Float; }
constexpr bool is_string(ArgType t) { return base(t) == ArgType::String; }
constexpr bool is_int(ArgType t) {  // single integers: Dim, Index, Length, Int and their Opt forms
  auto b = base(t);
  return b == ArgType::Dim || b == ArgType::Index || b == ArgType::Length || b == ArgType::Int;
}

// The attributes of an ArgType in the order they are solved.
std::span<const Attribute> hierarchy(ArgType t);

// Per-element attributes have one variable per dim (Size) or per list element (Value of a list,
// and Optional/Dtype/Rank of a tensor list's entries).
bool is_per_element(ArgType t, Attribute a);

// Tensor dtypes. Complex ones are generated under the `complex` config word, as float16 and
// bfloat16 under `half`.
std::span<const c10::ScalarType> real_and_complex_dtypes();   // all_dtypes(), then complex_dtypes()
std::span<const c10::ScalarType> all_dtypes();                // bool, ints, float16..float64
std::span<const c10::ScalarType> numeric_dtypes();            // all_dtypes() but bool
std::span<const c10::ScalarType> integral_and_bool_dtypes();  // bool, uint8..int64
std::span<const c10::ScalarType> integral_dtypes();           // uint8..int64 (no bool)
std::span<const c10::ScalarType> floating_dtypes();           // float16, bfloat16, float32, float64
std::span<const c10::ScalarType> complex_dtypes();            // complex64, complex128
bool is_integral(c10::ScalarType t, bool include_bool = false);
bool is_floating(c10::ScalarType t);
bool is_half(c10::ScalarType t);           // float16 or bfloat16
std::string_view name(c10::ScalarType t);  // "float32", "int64", ...

// The ScalarDtype a tensor dtype's element belongs to.
ScalarDtype scalar_dtype_of(c10::ScalarType t);

}  // namespace opsfuzz
