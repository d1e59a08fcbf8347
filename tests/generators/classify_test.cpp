// classify, the inverse of generation: over every spec of the SpecDB, generated valid samples
// classify as valid and invalid ones as breaking exactly the constraint they were made to
// violate; and on small specs, what each role of a constraint turns into.
#include "generators/classify.h"
#include "specs/db/db.h"
#include "specs/model/relations.h"
#include "tests/specs/spec_ops.h"

#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <cmath>
#include <set>
#include <sstream>

namespace opsfuzz {
namespace {

using namespace dsl;
using S = c10::ScalarType;

constexpr size_t kSamples = 30;  // per validity and spec

std::vector<Sample> generate(const Spec& spec, const Config& cfg, Validity v, uint64_t seed = 7) {
  ArgumentTupleGenerator gen(spec, cfg, seed, v);
  std::vector<Sample> out;
  Sample s;
  while (out.size() < kSamples && gen.next(s)) out.push_back(s);
  return out;
}

// A list as a set's text: the order in which deviations are met differs between generation
// (when their values are chosen) and classification (in the order of the spec).
std::string as_set(const std::vector<std::string>& list) {
  std::set<std::string> set(list.begin(), list.end());
  return "{" + join(std::vector<std::string>(set.begin(), set.end()), "; ") + "}";
}

std::string describe(const Sample& s) {
  std::ostringstream d;
  d << s.op << " #" << s.index << (s.valid ? " valid" : " violating '") << (s.valid ? "" : s.violated + "'") << ":";
  for (const auto& m : s.metas) d << " " << m.to_string();
  return d.str();
}

// ---- Agreement with generation, over the SpecDB -------------------------------------------

class Classify : public ::testing::TestWithParam<std::string> {
 protected:
  // Classifies kSamples valid and kSamples invalid samples; returns how many.
  size_t agree(const Config& cfg) const {
    const Spec& spec = *find_spec(GetParam());
    size_t classified = 0;
    for (Validity validity : {Validity::Valid, Validity::Invalid})
      for (const Sample& s : generate(spec, cfg, validity)) {
        Classification c = classify(spec, in_spec_order(spec, s), cfg);
        std::vector<std::string> expected;
        if (!s.valid) expected.push_back(s.violated);
        EXPECT_EQ(as_set(c.broken), as_set(expected)) << describe(s);
        EXPECT_EQ(as_set(c.deviations), as_set(s.deviations)) << describe(s);
        EXPECT_EQ(as_set(c.outside_scope), "{}") << describe(s);
        // A valid sample's constraints are all defined on it; an invalid one may leave some
        // undefined (they read the argument it breaks), as generation leaves them out.
        if (s.valid) EXPECT_EQ(as_set(c.unevaluated), "{}") << describe(s);
        ++classified;
      }
    return classified;
  }
};

TEST_P(Classify, AgreesWithGeneration) { EXPECT_GE(agree(Config{}), kSamples); }

// Under the contract, valid samples fall into deviations (non-contiguous layouts among them) and
// invalid ones break rules the kernel does not check: classify names the same deviations.
TEST_P(Classify, NamesTheDeviationsUnderTheContract) {
  EXPECT_GE(agree(Config::parse("contract,half,empty,permuted,strided")), kSamples);
}

INSTANTIATE_TEST_SUITE_P(, Classify, ::testing::ValuesIn(testing::all_ops()), testing::op_param_name);

// ---- Roles, values and joints on small specs ---------------------------------------------

DeviationRef odd_sizes() { return deviation("toy.odd", "refuses odd sizes", "ops-fuzz sweep toy.default"); }

Spec toy() {
  Spec s("toy.default");
  s.in(Tensor("self")
           .dtype(In(std::vector{S::Float, S::Double}))
           .rank(Scope(Le(3)))
           .size(Avoid(odd_sizes(), Named("self.size(d) is even", In(std::vector{2, 4, 6, 8, 10}))))
           .value(Ge(0)))
      .in(Dim("dim").deps("self").value(dim_of("self")))
      .in(IntOpt("n").optional(Eq(false)))
      .joint("n <= self.rank", value("n") <= rank("self"));
  return s;
}

Classification classify_toy(at::Tensor self, int64_t dim, c10::IValue n) {
  static const Spec spec = toy();
  return classify(spec, {self, dim, std::move(n)});
}

TEST(ClassifyRoles, ValidInputs) {
  auto c = classify_toy(at::ones({2, 4}), -2, int64_t{2});
  EXPECT_TRUE(c.valid()) << as_set(c.broken) << as_set(c.unevaluated);
  EXPECT_EQ(as_set(c.deviations), "{}");
  EXPECT_EQ(as_set(c.outside_scope), "{}");
}

TEST(ClassifyRoles, EachBrokenRuleByItsLabel) {
  auto c = classify_toy(at::ones({2, 4}, at::kInt), 2, int64_t{3});
  EXPECT_EQ(as_set(c.broken), "{dim in [-self.rank, self.rank); n <= self.rank; self.dtype in {float32, float64}}");
  EXPECT_FALSE(c.valid());
}

TEST(ClassifyRoles, AvoidIsADeviationAndScopeIsNoRule) {
  auto c = classify_toy(at::ones({2, 3, 2, 2}), 0, int64_t{1});
  EXPECT_EQ(as_set(c.broken), "{}");
  EXPECT_EQ(as_set(c.deviations), "{toy.odd}");
  EXPECT_EQ(as_set(c.outside_scope), "{self.rank <= 3}");
}

TEST(ClassifyRoles, TheConfigurationsLimitsAreScopeOnly) {
  auto c = classify_toy(at::ones({2, 10}, at::kHalf), 0, int64_t{1});
  EXPECT_EQ(as_set(c.broken), "{self.dtype in {float32, float64}}");
  EXPECT_EQ(c.outside_scope.size(), 2u) << as_set(c.outside_scope);  // float16 and a size past 8
}

TEST(ClassifyRoles, EveryElementIsTested) {
  at::Tensor t = at::ones({2, 2});
  EXPECT_TRUE(classify_toy(t, 0, int64_t{1}).valid());
  t[1][1] = -1;
  EXPECT_EQ(as_set(classify_toy(t, 0, int64_t{1}).broken), "{self values >= 0}");
  t[1][1] = std::nan("");
  EXPECT_EQ(as_set(classify_toy(t, 0, int64_t{1}).broken), "{self values >= 0}");  // NaN is not >= 0
  t[1][1] = INFINITY;
  EXPECT_TRUE(classify_toy(t, 0, int64_t{1}).valid());
}

TEST(ClassifyRoles, NoneOfAnOptionalIsTested) {
  EXPECT_EQ(as_set(classify_toy(at::ones({2}), 0, c10::IValue()).broken), "{n is not None}");
}

TEST(ClassifyRoles, AnInputOfTheWrongKindNamesTheArgument) {
  try {
    classify_toy(at::ones({2}), 0, c10::IValue(std::string("x")));
    FAIL() << "no ObserveError";
  } catch (const ObserveError& e) {
    EXPECT_NE(std::string(e.what()).find("toy.default: argument 'n'"), std::string::npos) << e.what();
  }
}

TEST(ClassifyRoles, FloatAndBoolListsEntryByEntry) {
  Spec s("lists.default");
  s.in(FloatListOpt("scales").length(Eq(2)).value(Gt(0))).in(BoolList("mask").length(Eq(3)));
  auto broken = [&](c10::IValue scales, c10::IValue mask) {
    return as_set(classify(s, {std::move(scales), std::move(mask)}).broken);
  };
  c10::List<bool> mask({true, false, true});
  EXPECT_EQ(broken(c10::List<double>({0.5, 2}), mask), "{}");
  EXPECT_EQ(broken(c10::IValue(), mask), "{}");
  EXPECT_EQ(broken(c10::List<double>({0.5, 0}), mask), "{scales[i] > 0}");
  EXPECT_EQ(broken(c10::List<double>({1}), c10::List<bool>({true})), "{len(mask) == 3; len(scales) == 2}");
  EXPECT_THROW(classify(s, {c10::List<bool>({true, true}), mask}), ObserveError);
}

TEST(ClassifyRoles, AConstraintUndefinedOnTheInputsIsNeitherKeptNorBroken) {
  Spec s("pick.default");
  s.in(Tensor("self"))
      .in(Dim("dim").deps("self").value(dim_of("self")))
      .in(Index("index").deps("self", "dim").value(Lt("self.size(dim)", [](const Ctx& c) {
        return c.size("self", c.as_int("dim"));
      })));
  auto c = classify(s, {at::ones({3}), int64_t{5}, int64_t{0}});
  EXPECT_EQ(as_set(c.broken), "{dim in [-self.rank, self.rank)}");
  ASSERT_EQ(c.unevaluated.size(), 1u);
  EXPECT_EQ(c.unevaluated[0].rfind("index < self.size(dim): ", 0), 0u) << c.unevaluated[0];
}

}  // namespace
}  // namespace opsfuzz
