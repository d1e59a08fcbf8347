// What the project knows about particular ops (runner/op_facts.h): calls that must not be
// value-compared, and known crashes read from the specs' deviations.
#include "runner/op_facts.h"

#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <set>

#include "specs/db/db.h"
#include "tests/runner/calls.h"

namespace opsfuzz::runner {
namespace {

at::Tensor doubles(std::vector<double> values) { return at::tensor(values, at::kDouble); }
at::Tensor floats(std::vector<float> values) { return at::tensor(values, at::kFloat); }
at::Tensor longs(std::vector<int64_t> values) { return at::tensor(values, at::kLong); }

TEST(NotValueComparable, RandomOps) {
  auto bernoulli = not_value_comparable(op_call("bernoulli", {at::full({4}, 0.5)}));
  ASSERT_TRUE(bernoulli);
  EXPECT_EQ(*bernoulli, "aten::bernoulli draws random numbers");
  EXPECT_TRUE(not_value_comparable(op_call("randperm", {int64_t{5}})));
  EXPECT_TRUE(not_value_comparable(op_call("rand_like", {at::zeros({2})})));
  EXPECT_TRUE(not_value_comparable(op_call("normal.Tensor_float", {at::zeros({2})})));
  EXPECT_TRUE(not_value_comparable(op_call("multinomial", {at::ones({3}), int64_t{2}})));
  EXPECT_TRUE(not_value_comparable(op_call("uniform_", {at::zeros({2})})));
}

TEST(NotValueComparable, DropoutOnlyWhenTraining) {
  auto train = not_value_comparable(op_call("dropout", {at::ones({8}), 0.5, true}));
  ASSERT_TRUE(train);
  EXPECT_EQ(*train, "aten::dropout draws random numbers (train=True)");
  EXPECT_EQ(not_value_comparable(op_call("dropout", {at::ones({8}), 0.5, false})), std::nullopt);
  EXPECT_EQ(not_value_comparable(op_call("dropout", {at::ones({8}), 0.0, true})), std::nullopt);
  EXPECT_TRUE(not_value_comparable(op_call("native_dropout", {at::ones({8}), 0.5, c10::IValue()})));
  EXPECT_EQ(not_value_comparable(op_call("native_dropout", {at::ones({8}), 0.5, false})), std::nullopt);
  EXPECT_EQ(not_value_comparable(op_call("rrelu", {at::ones({8})})), std::nullopt);  // training=False
}

TEST(NotValueComparable, UninitializedMemory) {
  auto empty = not_value_comparable(op_call("empty_like", {at::ones({2})}));
  ASSERT_TRUE(empty);
  EXPECT_EQ(*empty, "aten::empty_like returns uninitialized memory");
}

TEST(NotValueComparable, IntegerDivisionByZero) {
  auto zero = not_value_comparable(op_call("div.Tensor", {longs({4, 6}), longs({2, 0})}));
  ASSERT_TRUE(zero);
  EXPECT_EQ(*zero, "aten::div.Tensor divides integers by zero ('other' has a zero)");
  EXPECT_EQ(not_value_comparable(op_call("div.Tensor", {longs({4, 6}), longs({2, 3})})), std::nullopt);
  EXPECT_EQ(not_value_comparable(op_call("div.Tensor", {doubles({4, 6}), doubles({2, 0})})), std::nullopt);
  EXPECT_TRUE(not_value_comparable(op_call("remainder.Scalar", {longs({4}), int64_t{0}})));
  EXPECT_TRUE(not_value_comparable(op_call("fmod.Tensor", {longs({4}), longs({0})})));
  EXPECT_TRUE(not_value_comparable(op_call("floor_divide", {longs({4}), longs({0})})));
  EXPECT_EQ(not_value_comparable(op_call("floor_divide", {longs({4}), longs({3})})), std::nullopt);
}

TEST(NotValueComparable, OutOfRangeFloatToIntegerCasts) {
  const opcall::Kwargs to_int8 = {{"dtype", c10::IValue(at::kChar)}};
  auto big = not_value_comparable(op_call("_to_copy", {floats({1, 300})}, to_int8));
  ASSERT_TRUE(big);
  EXPECT_EQ(*big,
            "aten::_to_copy casts float32 values that are not finite or out of int8's range "
            "(undefined behaviour)");
  EXPECT_EQ(not_value_comparable(op_call("_to_copy", {floats({1, 3})}, to_int8)), std::nullopt);
  EXPECT_EQ(not_value_comparable(op_call("_to_copy", {floats({-128.9f, 127.9f})}, to_int8)), std::nullopt);
  EXPECT_TRUE(not_value_comparable(op_call("_to_copy", {floats({-129})}, to_int8)));
  EXPECT_TRUE(not_value_comparable(op_call("_to_copy", {floats({NAN})}, to_int8)));
  EXPECT_EQ(not_value_comparable(op_call("_to_copy", {floats({300})}, {{"dtype", c10::IValue(at::kDouble)}})),
            std::nullopt);
  EXPECT_TRUE(not_value_comparable(op_call("to.dtype", {doubles({-1}), c10::IValue(at::kByte)})));
  EXPECT_TRUE(not_value_comparable(op_call("type_as", {floats({1e10f}), longs({0}).to(at::kInt)})));
  EXPECT_TRUE(not_value_comparable(op_call("copy_", {at::zeros({1}, at::kShort), floats({INFINITY})})));
}

TEST(NotValueComparable, OrdinaryOpsAreComparable) {
  EXPECT_EQ(not_value_comparable(op_call("add.Tensor", {floats({1}), floats({2})})), std::nullopt);
  EXPECT_EQ(not_value_comparable(op_call("div.Tensor", {floats({1}), floats({0})})), std::nullopt);
  Call module_call;  // a module (no op) is built in eval mode
  EXPECT_EQ(not_value_comparable(module_call), std::nullopt);
}

TEST(KnownCrash, MatchesTheDeviationHitAndItsSignal) {
  const std::string op = "index_select.default", id = "index_select.zero_dim_self_many_indices";
  const Deviation* d = known_crash(op, {id}, "CRASH: signal 6 (Aborted)");
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->id, id);
  EXPECT_NE(known_crash(op, {id}, "CRASH: signal 11 (Segmentation fault)"), nullptr);
  EXPECT_EQ(known_crash(op, {id}, "CRASH: signal 8 (Floating point exception)"), nullptr);  // not its signal
  EXPECT_EQ(known_crash(op, {}, "CRASH: signal 6 (Aborted)"), nullptr);                     // not in it
  EXPECT_EQ(known_crash("no_such_op.default", {id}, "CRASH: signal 6 (Aborted)"), nullptr);
  EXPECT_NE(
      known_crash("fmod.Tensor", {"fmod.lowest_dividend_by_minus_one"}, "CRASH: signal 8 (Floating point exception)"),
      nullptr);
}

// A deviation of kind crash names signals as strsignal() does, and its command asks for the
// contract (where its samples are generated).
TEST(KnownCrash, CrashDeviationsNameRealSignals) {
  const std::set<std::string> signals = {"Aborted", "Segmentation fault", "Bus error", "Floating point exception"};
  std::set<std::string> crashes;
  for (const Spec& spec : spec_db())
    for (const DeviationSite& site : spec.deviations()) {
      for (const std::string& s : site.deviation->signals)
        EXPECT_TRUE(signals.contains(s)) << site.deviation->id << ": " << s;
      if (site.deviation->signals.empty()) continue;
      crashes.insert(site.deviation->id);
      EXPECT_NE(site.deviation->command.find("contract"), std::string::npos) << site.deviation->command;
    }
  EXPECT_GE(crashes.size(), 20u);
}

}  // namespace
}  // namespace opsfuzz::runner
