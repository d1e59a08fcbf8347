// DiversityCounter on hand-made samples whose class counts are known, and valid streams that seek
// classes they have not covered.
#include "generators/diversity.h"
#include "generators/generators.h"
#include "specs/db/db.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace opsfuzz {
namespace {

using c10::ScalarType;

MetaArg value_arg(ArgType type, Value v) {
  MetaArg m;
  m.argtype = type;
  m.value = std::move(v);
  return m;
}
MetaArg none_arg(ArgType type) {
  MetaArg m;
  m.argtype = type;
  m.none = true;
  return m;
}
MetaArg scalar(ScalarDtype d, Value v) {
  MetaArg m = value_arg(ArgType::Scalar, std::move(v));
  m.scalar_dtype = d;
  return m;
}
TensorMeta tensor_meta(ScalarType dtype, IntList shape) {
  TensorMeta t;
  t.dtype = dtype;
  t.shape = std::move(shape);
  return t;
}
MetaArg tensor(ScalarType dtype, IntList shape, ArgType type = ArgType::Tensor) {
  MetaArg m;
  m.argtype = type;
  m.tensors = {tensor_meta(dtype, std::move(shape))};
  return m;
}

// Counts for samples of one argument each.
std::pair<size_t, size_t> count_one(const std::vector<MetaArg>& values) {
  DiversityCounter c;
  for (const auto& v : values) c.observe(std::span(&v, 1));
  return {c.single(), c.pairs()};
}

TEST(DiversityClasses, IntegersFallInFiveClasses) {
  std::vector<MetaArg> v;
  for (int64_t x : {-20, -2, -1, 0, 1, 2, 7, 8}) v.push_back(value_arg(ArgType::Dim, x));
  EXPECT_EQ(count_one(v), std::make_pair(size_t{5}, size_t{0}));  // {-20,-2} -1 0 1 {2,7,8}
}

TEST(DiversityClasses, FloatsBySignWithNanApart) {
  const double inf = std::numeric_limits<double>::infinity();
  std::vector<MetaArg> v;
  for (double x : {-3.5, -inf, 0.0, -0.0, 1e-30, inf}) v.push_back(value_arg(ArgType::Float, x));
  EXPECT_EQ(count_one(v).first, 3u);  // infinities join their sign, -0.0 is zero
  v.push_back(value_arg(ArgType::FloatOpt, std::nan("")));
  EXPECT_EQ(count_one(v).first, 4u);
}

TEST(DiversityClasses, NoneIsOneClassOfItsOwn) {
  std::vector<MetaArg> v{none_arg(ArgType::IntOpt), none_arg(ArgType::IntOpt), value_arg(ArgType::IntOpt, int64_t{0})};
  EXPECT_EQ(count_one(v).first, 2u);
  std::vector<MetaArg> t{none_arg(ArgType::TensorOpt), tensor(ScalarType::Float, {2}, ArgType::TensorOpt)};
  EXPECT_EQ(count_one(t).first, 2u);
}

TEST(DiversityClasses, ScalarsByDtypeThenValue) {
  std::vector<MetaArg> v{scalar(ScalarDtype::Int, int64_t{1}), scalar(ScalarDtype::Float, 1.0),       // two dtypes
                         scalar(ScalarDtype::Int, int64_t{2}), scalar(ScalarDtype::Int, int64_t{3}),  // one: > 1
                         scalar(ScalarDtype::Float, 0.5),      scalar(ScalarDtype::Float, -0.5),
                         scalar(ScalarDtype::Bool, true),      scalar(ScalarDtype::Bool, false),
                         scalar(ScalarDtype::Bool, true)};
  EXPECT_EQ(count_one(v).first, 6u);  // int {1, >1}, float {>0, <0}, bool {true, false}
}

TEST(DiversityClasses, FiniteSetsCountEachValue) {
  std::vector<MetaArg> v{value_arg(ArgType::ScalarType, ScalarType::Float),
                         value_arg(ArgType::ScalarType, ScalarType::Double),
                         value_arg(ArgType::ScalarType, ScalarType::Float)};
  EXPECT_EQ(count_one(v).first, 2u);
  std::vector<MetaArg> s{
      value_arg(ArgType::String, std::string("mean")), value_arg(ArgType::String, std::string("sum")),
      value_arg(ArgType::String, std::string("mean")), value_arg(ArgType::String, std::string("none"))};
  EXPECT_EQ(count_one(s).first, 3u);
  std::vector<MetaArg> f{value_arg(ArgType::MemoryFormat, c10::MemoryFormat::Contiguous),
                         value_arg(ArgType::MemoryFormat, c10::MemoryFormat::ChannelsLast),
                         value_arg(ArgType::MemoryFormat, c10::MemoryFormat::Preserve)};
  EXPECT_EQ(count_one(f).first, 3u);
  std::vector<MetaArg> b{value_arg(ArgType::Bool, true), value_arg(ArgType::Bool, false),
                         value_arg(ArgType::Bool, true)};
  EXPECT_EQ(count_one(b).first, 2u);
}

TEST(DiversityClasses, TensorsByDtypeRankAndOrderedSizeClasses) {
  std::vector<MetaArg> v{tensor(ScalarType::Float, {2, 3}),
                         tensor(ScalarType::Float, {8, 5}),  // one class
                         tensor(ScalarType::Float, {1, 3}),
                         tensor(ScalarType::Float, {3, 1}),  // two more: order counts
                         tensor(ScalarType::Float, {0, 3}),
                         tensor(ScalarType::Double, {2, 3}),
                         tensor(ScalarType::Float, {}),
                         tensor(ScalarType::Float, {3}),
                         tensor(ScalarType::Float, {2, 2, 2, 2, 2, 2}),
                         tensor(ScalarType::Float, {4, 4, 4, 4, 4, 4})};
  EXPECT_EQ(count_one(v).first, 8u);
}

TEST(DiversityClasses, IntListsByOrderedEntryClasses) {
  std::vector<MetaArg> v{value_arg(ArgType::DimList, IntList{}),      value_arg(ArgType::DimList, IntList{2, 3}),
                         value_arg(ArgType::DimList, IntList{5, 4}),  value_arg(ArgType::DimList, IntList{-1, 0}),
                         value_arg(ArgType::DimList, IntList{0, -1}), value_arg(ArgType::DimList, IntList{2, 3, 4})};
  EXPECT_EQ(count_one(v).first, 5u);  // [] [>1,>1] [-1,0] [0,-1] [>1,>1,>1]
}

TEST(DiversityClasses, FloatAndBoolListsByOrderedEntries) {
  std::vector<MetaArg> v{
      value_arg(ArgType::FloatList, Floats{}),          value_arg(ArgType::FloatList, Floats{0.5, 2}),
      value_arg(ArgType::FloatList, Floats{3, 0.25}),   value_arg(ArgType::FloatList, Floats{0, -1}),
      value_arg(ArgType::FloatList, Floats{-1, 0}),     value_arg(ArgType::BoolList, Bools{}),
      value_arg(ArgType::BoolList, Bools{true, false}), value_arg(ArgType::BoolList, Bools{false, true})};
  EXPECT_EQ(count_one(v).first, 7u);  // [] [>0,>0] [0,<0] [<0,0]; [] [T,F] [F,T]
}

TEST(DiversityClasses, TensorListsByOrderedEntries) {
  auto list = [](std::vector<TensorMeta> entries) {
    MetaArg m;
    m.argtype = ArgType::TensorOptList;
    m.tensors = std::move(entries);
    return m;
  };
  TensorMeta none;
  none.none = true;
  std::vector<MetaArg> v{
      list({tensor_meta(ScalarType::Long, {2}), none}), list({tensor_meta(ScalarType::Long, {3}), none}),
      list({none, tensor_meta(ScalarType::Long, {2})}), list({tensor_meta(ScalarType::Long, {2})}), list({})};
  EXPECT_EQ(count_one(v).first, 4u);
}

TEST(DiversityCounter, PairsAreClassPairsPerArgumentPair) {
  DiversityCounter c;
  auto observe = [&](bool a, int64_t b) {
    std::vector<MetaArg> s{value_arg(ArgType::Bool, a), value_arg(ArgType::Int, b)};
    c.observe(s);
  };
  observe(true, 0), observe(true, 1), observe(false, 0), observe(true, 0), observe(true, 5), observe(true, 6);
  EXPECT_EQ(c.single(), 5u);  // a: true false; b: 0 1 >1
  EXPECT_EQ(c.pairs(), 4u);   // (T,0) (T,1) (F,0) (T,>1)
}

TEST(DiversityCounter, ThreeArgumentsHaveThreePairs) {
  DiversityCounter c;
  auto observe = [&](bool a, bool b, bool d) {
    std::vector<MetaArg> s{value_arg(ArgType::Bool, a), value_arg(ArgType::Bool, b), value_arg(ArgType::Bool, d)};
    return c.observe(s);
  };
  EXPECT_EQ(observe(true, true, true), 6u);  // what each observation covers first
  EXPECT_EQ(observe(false, false, false), 6u);
  EXPECT_EQ(c.single(), 6u);
  EXPECT_EQ(c.pairs(), 6u);
  EXPECT_EQ(observe(true, false, true), 2u);  // new for (a,b) and (b,c), not for (a,c)
  EXPECT_EQ(c.single(), 6u);
  EXPECT_EQ(c.pairs(), 8u);
  EXPECT_EQ(observe(true, false, true), 0u);
}

TEST(DiversityCounter, ArgumentsAreToldApartByPosition) {
  DiversityCounter c;
  std::vector<MetaArg> s{value_arg(ArgType::Bool, true), value_arg(ArgType::Bool, true)};
  c.observe(s);
  EXPECT_EQ(c.single(), 2u);
  EXPECT_EQ(c.pairs(), 1u);
}

TEST(DiversityCounter, ObservesASampleThroughItsMetas) {
  Sample s;
  s.metas = {tensor(ScalarType::Float, {2, 3}), scalar(ScalarDtype::Int, int64_t{1}), none_arg(ArgType::ScalarTypeOpt)};
  DiversityCounter c;
  c.observe(s);
  s.metas[1] = scalar(ScalarDtype::Int, int64_t{-1});
  c.observe(s);
  EXPECT_EQ(c.single(), 4u);
  EXPECT_EQ(c.pairs(), 5u);  // (self, alpha): 2, (self, dtype): 1, (alpha, dtype): 2
}

// Valid streams seek new classes: until the stream's redraw budget is spent, a sample that
// covers nothing new was kept only after its candidate had been redrawn kRedraws times.
TEST(DiversitySeeking, ValidSamplesCoveringNothingNewWereRedrawnToTheLimit) {
  using G = ArgumentTupleGenerator;
  uint64_t kept_at_limit = 0, budget_spent_in = 0;
  for (const char* op : {"_pdist_forward.default", "permute_copy.default", "add.Tensor", "convolution.default"}) {
    SCOPED_TRACE(op);
    G gen(*find_spec(op), Config{}, 0, Validity::Valid);
    DiversityCounter covered;
    Sample s;
    for (uint64_t i = 0; i < 400; ++i) {
      const uint64_t before = gen.stats().redrawn;
      ASSERT_TRUE(gen.next(s));
      const uint64_t redrawn = gen.stats().redrawn - before;
      ASSERT_LE(redrawn, static_cast<uint64_t>(G::kRedraws));
      ASSERT_LE(gen.stats().redrawn, G::kRedrawBudget);
      if (covered.observe(s) > 0 || gen.stats().redrawn == G::kRedrawBudget) continue;
      EXPECT_EQ(redrawn, static_cast<uint64_t>(G::kRedraws)) << "sample " << i << " covers nothing new";
      ++kept_at_limit;
    }
    budget_spent_in += gen.stats().redrawn == G::kRedrawBudget;
  }
  EXPECT_GT(kept_at_limit, 0u);  // both ways of keeping a sample that covers nothing new were taken
  EXPECT_GT(budget_spent_in, 0u);
}

TEST(DiversitySeeking, InvalidSamplesAreNotRedrawn) {
  ArgumentTupleGenerator gen(*find_spec("permute_copy.default"), Config{}, 0, Validity::Invalid);
  Sample s;
  for (int i = 0; i < 200; ++i) ASSERT_TRUE(gen.next(s));
  EXPECT_EQ(gen.stats().redrawn, 0u);
}

TEST(KeySet, CountsDistinctKeysAcrossGrowth) {
  KeySet s;
  EXPECT_TRUE(s.insert(0));
  EXPECT_FALSE(s.insert(0));
  for (uint64_t k = 1; k <= 10000; ++k) EXPECT_TRUE(s.insert(k * 0x10000));  // keys that share their low bits
  for (uint64_t k = 1; k <= 10000; k += 7) EXPECT_FALSE(s.insert(k * 0x10000));
  EXPECT_EQ(s.size(), 10001u);
  s.clear();
  EXPECT_EQ(s.size(), 0u);
  EXPECT_TRUE(s.insert(0x10000));
}

}  // namespace
}  // namespace opsfuzz
