#include "argtypes/argtypes.h"
#include "argtypes/meta_arg.h"

#include <array>

namespace opsfuzz {

using c10::ScalarType;
using A = Attribute;

std::string_view name(ArgType t) {
  static constexpr std::string_view names[] = {
      "Tensor",        "TensorOpt", "TensorList",   "TensorOptList",   "Scalar",        "ScalarOpt", "ScalarType",
      "ScalarTypeOpt", "Dim",       "DimOpt",       "DimList",         "DimListOpt",    "Shape",     "Index",
      "IndexOpt",      "Length",    "LengthOpt",    "LengthList",      "LengthListOpt", "Bool",      "BoolOpt",
      "BoolList",      "Int",       "IntOpt",       "Float",           "FloatOpt",      "FloatList", "FloatListOpt",
      "String",        "StringOpt", "MemoryFormat", "MemoryFormatOpt", "Layout",        "LayoutOpt", "Device",
      "DeviceOpt"};
  return names[static_cast<int>(t)];
}

std::string_view name(Attribute a) {
  static constexpr std::string_view names[] = {"Optional", "Dtype", "Length", "Rank", "Size", "Value"};
  return names[static_cast<int>(a)];
}

std::string_view name(ScalarDtype d) {
  static constexpr std::string_view names[] = {"bool", "int", "float"};
  return names[static_cast<int>(d)];
}

std::span<const Attribute> hierarchy(ArgType t) {
  static constexpr std::array tensor{A::Dtype, A::Rank, A::Size, A::Value};
  static constexpr std::array tensor_opt{A::Optional, A::Dtype, A::Rank, A::Size, A::Value};
  static constexpr std::array tensor_list{A::Length, A::Dtype, A::Rank, A::Size, A::Value};
  static constexpr std::array tensor_opt_list{A::Length, A::Optional, A::Dtype, A::Rank, A::Size, A::Value};
  static constexpr std::array scalar{A::Dtype, A::Value};
  static constexpr std::array scalar_opt{A::Optional, A::Dtype, A::Value};
  static constexpr std::array value_list{A::Length, A::Value};
  static constexpr std::array value_list_opt{A::Optional, A::Length, A::Value};
  static constexpr std::array value{A::Value};
  static constexpr std::array value_opt{A::Optional, A::Value};
  switch (t) {
    case ArgType::Tensor: return tensor;
    case ArgType::TensorOpt: return tensor_opt;
    case ArgType::TensorList: return tensor_list;
    case ArgType::TensorOptList: return tensor_opt_list;
    case ArgType::Scalar: return scalar;
    case ArgType::ScalarOpt: return scalar_opt;
    default:
      if (is_value_list(t)) return is_optional(t) ? std::span<const Attribute>(value_list_opt) : value_list;
      return is_optional(t) ? std::span<const Attribute>(value_opt) : value;
  }
}

bool is_per_element(ArgType t, Attribute a) {
  if (is_tensor_list(t)) return a != A::Length;
  if (is_tensor(t)) return a == A::Size;
  if (is_value_list(t)) return a == A::Value;
  return false;
}

std::span<const ScalarType> real_and_complex_dtypes() {
  static constexpr ScalarType v[] = {ScalarType::Bool,   ScalarType::Byte,         ScalarType::Char,
                                     ScalarType::Short,  ScalarType::Int,          ScalarType::Long,
                                     ScalarType::Half,   ScalarType::BFloat16,     ScalarType::Float,
                                     ScalarType::Double, ScalarType::ComplexFloat, ScalarType::ComplexDouble};
  return v;
}
std::span<const ScalarType> all_dtypes() { return real_and_complex_dtypes().first(10); }
std::span<const ScalarType> numeric_dtypes() { return all_dtypes().subspan(1); }
std::span<const ScalarType> integral_and_bool_dtypes() { return all_dtypes().subspan(0, 6); }
std::span<const ScalarType> integral_dtypes() { return all_dtypes().subspan(1, 5); }
std::span<const ScalarType> floating_dtypes() { return all_dtypes().subspan(6, 4); }
std::span<const ScalarType> complex_dtypes() { return real_and_complex_dtypes().subspan(10); }

bool is_integral(ScalarType t, bool include_bool) { return c10::isIntegralType(t, include_bool); }
bool is_floating(ScalarType t) { return c10::isFloatingType(t); }
bool is_half(ScalarType t) { return t == ScalarType::Half || t == ScalarType::BFloat16; }

std::string_view name(ScalarType t) {
  switch (t) {
    case ScalarType::Bool: return "bool";
    case ScalarType::Byte: return "uint8";
    case ScalarType::Char: return "int8";
    case ScalarType::Short: return "int16";
    case ScalarType::Int: return "int32";
    case ScalarType::Long: return "int64";
    case ScalarType::Half: return "float16";
    case ScalarType::BFloat16: return "bfloat16";
    case ScalarType::Float: return "float32";
    case ScalarType::Double: return "float64";
    case ScalarType::ComplexFloat: return "complex64";
    case ScalarType::ComplexDouble: return "complex128";
    default: return "dtype?";
  }
}

ScalarDtype scalar_dtype_of(ScalarType t) {
  if (t == ScalarType::Bool) return ScalarDtype::Bool;
  return is_integral(t) ? ScalarDtype::Int : ScalarDtype::Float;
}

std::string_view name(ValueProfile p) {
  static constexpr std::string_view names[] = {"uniform", "boundary", "special",  "zeros",   "smallint",
                                               "sparse",  "extremes", "rounding", "integral"};
  return names[static_cast<int>(p)];
}

std::string MetaArg::to_string() const {
  if (none) return "None";
  if (!has_tensors(argtype)) return opsfuzz::to_string(value);
  std::string s = is_tensor_list(argtype) ? "[" : "";
  for (size_t i = 0; i < tensors.size(); ++i) {
    const auto& t = tensors[i];
    if (i) s += ", ";
    s += t.none ? "None" : std::string(name(t.dtype)) + opsfuzz::to_string(t.shape);
  }
  return is_tensor_list(argtype) ? s + "]" : s;
}

}  // namespace opsfuzz
