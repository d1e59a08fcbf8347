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
  Tensor, TensorOpt, TensorList, TensorOptList,
  Scalar, ScalarOpt,
  ScalarType, ScalarTypeOpt,
  Dim, DimOpt, DimList, DimListOpt,
  Shape,
  Index, IndexOpt,
  Length, LengthOpt, LengthList, LengthListOpt,
  Bool, BoolOpt, BoolList,
  Int, IntOpt,
  Float, FloatOpt, FloatList, FloatListOpt,
  String, StringOpt,
  MemoryFormat, MemoryFormatOpt,
  Layout, LayoutOpt,
  Device, DeviceOpt,
};

// The six qualities every argument is described by.
enum class Attribute : uint8_t { Optional, Dtype, Length, Rank, Size, Value };

// Scalars carry one of three Python-level dtypes.
enum class ScalarDtype : uint8_t { Bool, Int, Float };

std::string_view name(ArgType t);
std::string_view name(Attribute a);
std::string_view name(ScalarDtype d);

bool is_optional(ArgType t);
bool is_tensor(ArgType t);       // Tensor, TensorOpt
bool is_tensor_list(ArgType t);  // TensorList, TensorOptList
bool is_int_list(ArgType t);     // DimList(Opt), Shape, LengthList(Opt)
bool is_float_list(ArgType t);   // FloatList, FloatListOpt
bool is_bool_list(ArgType t);    // BoolList
// Lists of plain values (int, float or bool lists): a Length, then one Value per entry.
bool is_value_list(ArgType t);
bool is_list(ArgType t);         // tensor lists and value lists
bool is_scalar(ArgType t);       // Scalar, ScalarOpt
bool is_scalar_type(ArgType t);  // ScalarType, ScalarTypeOpt
bool is_memory_format(ArgType t);
bool is_layout(ArgType t);
bool is_device(ArgType t);
bool is_bool(ArgType t);
bool is_float(ArgType t);
bool is_string(ArgType t);
bool is_int(ArgType t);          // single integers: Dim, Index, Length, Int and their Opt forms
bool has_tensors(ArgType t);     // tensor or tensor list

// The non-optional form of an ArgType (TensorOpt -> Tensor).
ArgType base(ArgType t);

// The attributes of an ArgType in the order they are solved.
std::span<const Attribute> hierarchy(ArgType t);

// Per-element attributes have one variable per dim (Size) or per list element (Value of a list,
// and Optional/Dtype/Rank of a tensor list's entries).
bool is_per_element(ArgType t, Attribute a);

// Tensor dtypes. Complex dtypes are representable (complex_dtypes()) but in no default set.
std::span<const c10::ScalarType> all_dtypes();      // bool, ints, float16..float64
std::span<const c10::ScalarType> integral_dtypes(); // uint8..int64 (no bool)
std::span<const c10::ScalarType> floating_dtypes(); // float16, bfloat16, float32, float64
std::span<const c10::ScalarType> complex_dtypes();  // complex64, complex128
bool is_integral(c10::ScalarType t, bool include_bool = false);
bool is_floating(c10::ScalarType t);
bool is_half(c10::ScalarType t);  // float16 or bfloat16
std::string_view name(c10::ScalarType t);  // "float32", "int64", ...

// The ScalarDtype a tensor dtype's element belongs to.
ScalarDtype scalar_dtype_of(c10::ScalarType t);

}  // namespace opsfuzz
