#include "argtypes/space.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace opsfuzz {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

TEST(VariableSpace, IntegerOpenEndsRoundInward) {
  auto s = VariableSpace::range(VarType::Int, -10, 10);
  s.gt(-2.5).lt(3);
  EXPECT_EQ(s.min(), -2);
  EXPECT_EQ(s.max(), 2);
  EXPECT_EQ(s.size(), 5);
  EXPECT_FALSE(s.contains(int64_t{3}));
  EXPECT_FALSE(s.contains(1.5));
}

TEST(VariableSpace, RealOpenEndsStepToNextDouble) {
  auto s = VariableSpace::range(VarType::Float, -kInf, kInf);
  s.gt(0).lt(1);
  EXPECT_EQ(*s.min(), std::nextafter(0.0, 1.0));
  EXPECT_EQ(*s.max(), std::nextafter(1.0, 0.0));
  EXPECT_FALSE(s.contains(0.0));
  EXPECT_TRUE(s.contains(0.5));
}

TEST(VariableSpace, UniverseOfFloatAdmitsInfinitiesAndNan) {
  VariableSpace s(VarType::Float);
  EXPECT_TRUE(s.contains(kInf));
  EXPECT_TRUE(s.contains(std::nan("")));
  s.le(5);
  EXPECT_FALSE(s.contains(std::nan("")));
  EXPECT_TRUE(s.contains(-kInf));
  EXPECT_FALSE(s.contains(kInf));
}

// What converts into float16 without overflow: finite values up to 65504, infinities and NaN.
TEST(VariableSpace, FiniteWithinKeepsInfinitiesAndNan) {
  VariableSpace s(VarType::Float);
  s.finite_within(-65504, 65504);
  for (double v : {-kInf, -65504.0, 0.0, 65504.0, kInf, std::nan("")}) EXPECT_TRUE(s.contains_number(v)) << v;
  for (double v : {-65505.0, 65505.0, 1e300}) EXPECT_FALSE(s.contains_number(v)) << v;
  VariableSpace broken(VarType::Float);
  broken.finite_outside(-65504, 65504);
  for (double v : {-65505.0, 65505.0, 1e300}) EXPECT_TRUE(broken.contains_number(v)) << v;
  for (double v : {-kInf, 0.0, kInf, std::nan("")}) EXPECT_FALSE(broken.contains_number(v)) << v;
  VariableSpace ints(VarType::Int);
  EXPECT_EQ(ints.finite_within(-3, 3), VariableSpace::range(VarType::Int, -3, 3));
}

TEST(VariableSpace, NeSplitsAnInterval) {
  auto s = VariableSpace::range(VarType::Int, 0, 4);
  s.ne(int64_t{2});
  ASSERT_EQ(s.intervals().size(), 2u);
  EXPECT_EQ(s.intervals()[0], (Interval{0, 1}));
  EXPECT_EQ(s.intervals()[1], (Interval{3, 4}));
  EXPECT_EQ(s.size(), 4);
}

TEST(VariableSpace, InAndNotInOnIntervals) {
  auto s = VariableSpace::range(VarType::Int, 0, 8);
  std::vector<Value> vs{int64_t{-1}, int64_t{2}, int64_t{4}, int64_t{9}};
  s.in(vs);
  EXPECT_FALSE(s.is_interval());
  EXPECT_EQ(s.size(), 2);  // -1 and 9 are outside
  std::vector<Value> drop{int64_t{2}};
  s.not_in(drop);
  EXPECT_EQ(s.enumerate(10), std::vector<Value>{int64_t{4}});
}

TEST(VariableSpace, OutsideKeepsBothTails) {
  auto s = VariableSpace::range(VarType::Int, -5, 5);
  s.outside(-1, 2);
  EXPECT_EQ(s.size(), 7);  // -5..-2 and 3..5
  EXPECT_FALSE(s.contains(int64_t{0}));
  EXPECT_TRUE(s.contains(int64_t{-2}));
  EXPECT_TRUE(s.contains(int64_t{3}));
}

TEST(VariableSpace, EmptinessAndIntersection) {
  auto a = VariableSpace::range(VarType::Int, 0, 3);
  auto b = VariableSpace::range(VarType::Int, 2, 9);
  a.intersect(b);
  EXPECT_EQ(a.size(), 2);
  a.gt(5);
  EXPECT_TRUE(a.empty());
}

TEST(VariableSpace, DiscreteDtypesAndCofiniteStrings) {
  VariableSpace d(VarType::TensorDtype);
  EXPECT_EQ(d.size(), 12);  // ten real dtypes and two complex ones
  std::vector<Value> floats{c10::ScalarType::Float, c10::ScalarType::Double};
  d.in(floats).ne(c10::ScalarType::Double);
  EXPECT_EQ(d.enumerate(5), std::vector<Value>{c10::ScalarType::Float});

  VariableSpace s(VarType::String);
  EXPECT_TRUE(s.is_cofinite());
  s.ne(std::string("mean"));
  EXPECT_FALSE(s.contains(std::string("mean")));
  EXPECT_TRUE(s.contains(std::string("sum")));
  EXPECT_EQ(s.size(), -1);
}

TEST(VariableSpace, LayoutsAndDevices) {
  VariableSpace l(VarType::Layout);
  EXPECT_EQ(l.size(), 2);  // strided and sparse_coo
  l.eq(c10::Layout::Strided);
  EXPECT_EQ(l.enumerate(5), std::vector<Value>{c10::Layout::Strided});
  VariableSpace d(VarType::Device);
  d.ne(c10::DeviceType::CPU);
  EXPECT_EQ(d.enumerate(5), std::vector<Value>{c10::DeviceType::CUDA});
  EXPECT_EQ(to_string(Value(c10::DeviceType::CPU)), "cpu");
  EXPECT_EQ(to_string(Value(c10::Layout::Strided)), "strided");
}

TEST(VariableSpace, OrderingADiscreteNonNumericSpaceIsAnError) {
  VariableSpace s(VarType::String);
  EXPECT_THROW(s.le(3), std::logic_error);
}

}  // namespace
}  // namespace opsfuzz
