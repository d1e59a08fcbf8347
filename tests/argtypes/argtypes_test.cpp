#include "argtypes/argtypes.h"
#include "argtypes/names.h"
#include "argtypes/rng.h"
#include "argtypes/value.h"

#include <array>
#include <cmath>
#include <limits>

#include <gtest/gtest.h>

namespace opsfuzz {
namespace {

TEST(ArgType, Predicates) {
  EXPECT_TRUE(is_tensor(ArgType::TensorOpt));
  EXPECT_TRUE(is_optional(ArgType::TensorOpt));
  EXPECT_FALSE(is_optional(ArgType::Tensor));
  EXPECT_TRUE(is_tensor_list(ArgType::TensorOptList));
  EXPECT_TRUE(is_list(ArgType::DimListOpt));
  EXPECT_TRUE(is_int(ArgType::IndexOpt));
  EXPECT_FALSE(is_int(ArgType::DimList));
  EXPECT_EQ(base(ArgType::MemoryFormatOpt), ArgType::MemoryFormat);
  EXPECT_EQ(base(ArgType::LayoutOpt), ArgType::Layout);
  EXPECT_EQ(base(ArgType::DeviceOpt), ArgType::Device);
  EXPECT_TRUE(is_layout(ArgType::LayoutOpt) && is_optional(ArgType::LayoutOpt));
  EXPECT_TRUE(is_device(ArgType::DeviceOpt) && is_optional(ArgType::DeviceOpt));
  EXPECT_FALSE(is_device(ArgType::Layout));
  EXPECT_EQ(name(ArgType::DeviceOpt), "DeviceOpt");
}

TEST(ArgType, FloatBoolAndOptionalLengthLists) {
  using A = Attribute;
  EXPECT_EQ(base(ArgType::FloatListOpt), ArgType::FloatList);
  EXPECT_TRUE(is_optional(ArgType::FloatListOpt) && !is_optional(ArgType::FloatList));
  EXPECT_TRUE(is_float_list(ArgType::FloatListOpt) && !is_float(ArgType::FloatList));
  EXPECT_TRUE(is_bool_list(ArgType::BoolList) && !is_bool(ArgType::BoolList) && !is_optional(ArgType::BoolList));
  EXPECT_EQ(base(ArgType::LengthListOpt), ArgType::LengthList);
  EXPECT_TRUE(is_int_list(ArgType::LengthListOpt) && is_optional(ArgType::LengthListOpt));
  for (ArgType t : {ArgType::FloatList, ArgType::FloatListOpt, ArgType::BoolList, ArgType::LengthListOpt}) {
    EXPECT_TRUE(is_value_list(t) && is_list(t)) << name(t);
    EXPECT_FALSE(is_int_list(t) && (is_float_list(t) || is_bool_list(t))) << name(t);
    EXPECT_TRUE(is_per_element(t, A::Value) && !is_per_element(t, A::Length)) << name(t);
  }
  auto h = hierarchy(ArgType::FloatListOpt);
  EXPECT_EQ(std::vector<A>(h.begin(), h.end()), (std::vector<A>{A::Optional, A::Length, A::Value}));
  auto b = hierarchy(ArgType::BoolList);
  EXPECT_EQ(std::vector<A>(b.begin(), b.end()), (std::vector<A>{A::Length, A::Value}));
  EXPECT_EQ(name(ArgType::FloatListOpt), "FloatListOpt");
  EXPECT_EQ(name(ArgType::BoolList), "BoolList");
  EXPECT_EQ(name(ArgType::LengthListOpt), "LengthListOpt");
  EXPECT_EQ(name(ArgType::String), "String");  // the names after the new ones still line up
}

// An integral double becomes an int for an Int space only within int64's range: 2^63 (int64's
// top as a double, which the extremes config favours) stayed a double, not an undefined cast
// (found by solver_fuzz under UBSan).
TEST(Value, CoercedToIntOnlyWithinInt64) {
  EXPECT_EQ(coerce(VarType::Int, Value(-0x1p63)), Value(std::numeric_limits<int64_t>::min()));
  EXPECT_EQ(coerce(VarType::Int, Value(3.0)), Value(int64_t{3}));
  for (double d : {0x1p63, -0x1p64, 1e300, 2.5, double(INFINITY), double(NAN)})
    EXPECT_TRUE(std::holds_alternative<double>(coerce(VarType::Int, Value(d)))) << d;
}

TEST(Value, ListsPrintAsPythonAndHaveLengths) {
  EXPECT_EQ(to_string(Value(Floats{0.5, 2, -INFINITY})), "[0.5, 2.0, -inf]");
  EXPECT_EQ(to_string(Value(Bools{true, false})), "[True, False]");
  EXPECT_EQ(to_string(Value(IntList{1, -2})), "[1, -2]");
  EXPECT_EQ(list_length(Value(Floats{1, 2, 3})), 3u);
  EXPECT_EQ(list_length(Value(Bools{})), 0u);
  EXPECT_THROW(list_length(Value(2.5)), std::invalid_argument);
}

TEST(ArgType, HierarchiesFollowTheSolvingOrder) {
  using A = Attribute;
  auto h = hierarchy(ArgType::TensorOptList);
  EXPECT_EQ(std::vector<A>(h.begin(), h.end()),
            (std::vector<A>{A::Length, A::Optional, A::Dtype, A::Rank, A::Size, A::Value}));
  auto t = hierarchy(ArgType::Tensor);
  EXPECT_EQ(std::vector<A>(t.begin(), t.end()), (std::vector<A>{A::Dtype, A::Rank, A::Size, A::Value}));
  auto s = hierarchy(ArgType::ScalarOpt);
  EXPECT_EQ(std::vector<A>(s.begin(), s.end()), (std::vector<A>{A::Optional, A::Dtype, A::Value}));
  EXPECT_TRUE(is_per_element(ArgType::Tensor, A::Size));
  EXPECT_FALSE(is_per_element(ArgType::Tensor, A::Rank));
}

TEST(Dtypes, Sets) {
  EXPECT_EQ(all_dtypes().size(), 10u);
  EXPECT_EQ(integral_dtypes().size(), 5u);
  EXPECT_EQ(floating_dtypes().front(), c10::ScalarType::Half);
  EXPECT_EQ(name(c10::ScalarType::ComplexDouble), "complex128");
  EXPECT_EQ(scalar_dtype_of(c10::ScalarType::Bool), ScalarDtype::Bool);
  EXPECT_EQ(scalar_dtype_of(c10::ScalarType::BFloat16), ScalarDtype::Float);
}

TEST(Rng, SameSeedSameSequenceAndBoundsHold) {
  Rng a(42), b(42), c(43);
  bool differs = false;
  for (int i = 0; i < 100; ++i) {
    uint64_t x = a.next();
    EXPECT_EQ(x, b.next());
    differs |= x != c.next();
    int64_t v = a.uniform_int(-3, 3);
    b.uniform_int(-3, 3);
    EXPECT_GE(v, -3);
    EXPECT_LE(v, 3);
  }
  EXPECT_TRUE(differs);
  EXPECT_NE(derive_seed(1, 0), derive_seed(1, 1));
}

// Bulk numbers: reproducible, within n (not rounded up to the lanes), and spread evenly.
TEST(Rng, Fill32IsReproducibleAndEven) {
  std::vector<uint32_t> x(10003, 7), y(10003, 7);
  Rng a(5), b(5);
  a.fill32(x.data(), 10001);
  b.fill32(y.data(), 10001);
  EXPECT_EQ(x, y);
  EXPECT_EQ(x[10001], 7u);
  EXPECT_EQ(x[10002], 7u);
  EXPECT_EQ(a.next(), b.next());  // both generators moved on alike
  std::array<int, 16> buckets{};
  for (size_t i = 0; i < 10001; ++i) ++buckets[x[i] >> 28];
  for (int count : buckets) EXPECT_NEAR(count, 10001 / 16, 120);  // about 5 standard deviations
}

TEST(Names, DtypesByPythonName) {
  EXPECT_EQ(parse_dtype("float32"), c10::ScalarType::Float);
  EXPECT_EQ(parse_dtype("torch.float32"), c10::ScalarType::Float);
  EXPECT_EQ(parse_dtype("float"), c10::ScalarType::Float);
  EXPECT_EQ(parse_dtype("torch.long"), c10::ScalarType::Long);
  EXPECT_EQ(parse_dtype("cdouble"), c10::ScalarType::ComplexDouble);
  EXPECT_EQ(parse_dtype("float128"), std::nullopt);
  EXPECT_EQ(parse_dtype("torch."), std::nullopt);
  ASSERT_EQ(dtype_names().size(), 12u);
  EXPECT_EQ(dtype_names().front(), "float16");
  EXPECT_EQ(dtype_names().back(), "complex128");
  for (const auto& n : dtype_names()) EXPECT_EQ(name(*parse_dtype(n)), n);
}

TEST(Names, MemoryFormatsAndLayouts) {
  EXPECT_EQ(parse_memory_format("torch.channels_last"), c10::MemoryFormat::ChannelsLast);
  EXPECT_EQ(parse_memory_format("contiguous_format"), c10::MemoryFormat::Contiguous);
  EXPECT_EQ(parse_memory_format("strided"), std::nullopt);
  EXPECT_EQ(parse_layout("torch.sparse_coo"), c10::Layout::Sparse);
  EXPECT_EQ(parse_layout("channels_last"), std::nullopt);
  EXPECT_EQ(name(c10::MemoryFormat::ChannelsLast3d), "channels_last_3d");
  EXPECT_EQ(name(c10::Layout::Strided), "strided");
}

TEST(Names, EditDistanceCountsASwapAsOneEdit) {
  EXPECT_EQ(edit_distance("", ""), 0u);
  EXPECT_EQ(edit_distance("abc", ""), 3u);
  EXPECT_EQ(edit_distance("kitten", "sitting"), 3u);
  EXPECT_EQ(edit_distance("dtpye", "dtype"), 1u);
  EXPECT_EQ(edit_distance("ab", "ba"), 1u);
}

TEST(Names, ClosestCandidatesAndSuggestions) {
  std::vector<std::string> keys = {"shape", "dtype", "kind", "kinds", "low"};
  EXPECT_EQ(closest("shpe", keys), std::vector<std::string>{"shape"});
  EXPECT_EQ(closest("completely_else", keys), std::vector<std::string>{});
  EXPECT_EQ(closest("knd", keys, 2), (std::vector<std::string>{"kind", "kinds"}));
  EXPECT_EQ(closest("xyz", keys, 3, 3), (std::vector<std::string>{"low"}));  // 3 edits
  EXPECT_EQ(did_you_mean("knd", keys), " (did you mean 'kind'?)");
  EXPECT_EQ(did_you_mean("knd", keys, 2), " (did you mean 'kind' or 'kinds'?)");
  EXPECT_EQ(did_you_mean("zzzzzz", keys), "");
}

}  // namespace
}  // namespace opsfuzz
