#include "tests/runner/calls.h"
#include "runner/oracle.h"
#include "runner/results.h"

#include <ATen/ATen.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <limits>
#include <set>

namespace opsfuzz::runner {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

at::Tensor doubles(std::vector<double> values) { return at::tensor(values, at::kDouble); }
at::Tensor floats(std::vector<float> values) { return at::tensor(values, at::kFloat); }
at::Tensor longs(std::vector<int64_t> values) { return at::tensor(values, at::kLong); }

// A tensor of `dtype` (Half, BFloat16) holding exactly these bit patterns.
at::Tensor from_bits(std::vector<int16_t> bits, c10::ScalarType dtype) {
  return at::tensor(bits, at::kShort).view(dtype);
}

c10::IValue tuple(std::vector<c10::IValue> items) { return c10::ivalue::Tuple::create(std::move(items)); }

std::set<std::string> keys(const nlohmann::json& j) {
  std::set<std::string> out;
  for (const auto& [key, value] : j.items()) out.insert(key);
  return out;
}

// ---------------------------------------------------------------------------------- statuses

TEST(Status, NamesAreOpdiffsAndParseBack) {
  const std::vector<std::pair<Status, std::string>> all = {{Status::Ok, "OK"},
                                                           {Status::Skipped, "SKIPPED"},
                                                           {Status::ExportFail, "EXPORT_FAIL"},
                                                           {Status::InferFail, "INFER_FAIL"},
                                                           {Status::TimingFail, "TIMING_FAIL"},
                                                           {Status::TimedError, "TIMED_ERROR"},
                                                           {Status::Error, "ERROR"}};
  for (const auto& [status, text] : all) {
    EXPECT_EQ(name(status), text);
    EXPECT_EQ(parse_status(text), status);
  }
  EXPECT_LT(Status::Ok, Status::Error);  // ranked best to worst
  EXPECT_EQ(parse_status("ok"), std::nullopt);
  EXPECT_EQ(parse_status("CRASH"), std::nullopt);
}

// ---------------------------------------------------------------------------------- tolerances

TEST(Tolerances, DefaultsFollowTorchTesting) {
  auto expect = [](c10::ScalarType dtype, double atol, double rtol) {
    Tolerance t = default_tolerance(dtype);
    EXPECT_EQ(t.atol, atol) << c10::toString(dtype);
    EXPECT_EQ(t.rtol, rtol) << c10::toString(dtype);
  };
  expect(at::kFloat, 1e-5, 1.3e-6);
  expect(at::kDouble, 1e-7, 1e-7);
  expect(at::kHalf, 1e-5, 1e-3);
  expect(at::kBFloat16, 1e-5, 1.6e-2);
  expect(at::kComplexFloat, 1e-5, 1.3e-6);
  expect(at::kComplexDouble, 1e-7, 1e-7);
  expect(at::kLong, 0, 0);
  expect(at::kByte, 0, 0);
  expect(at::kBool, 0, 0);
}

TEST(Tolerances, ToleranceForPicksTheLooser) {
  Tolerance float_double = tolerance_for(at::kFloat, at::kDouble, std::nullopt);
  EXPECT_EQ(float_double.atol, 1e-5);
  EXPECT_EQ(float_double.rtol, 1.3e-6);
  Tolerance with_half = tolerance_for(at::kFloat, at::kFloat, at::kHalf);
  EXPECT_EQ(with_half.atol, 1e-5);
  EXPECT_EQ(with_half.rtol, 1e-3);
  Tolerance bf16_half = tolerance_for(at::kHalf, at::kBFloat16, at::kFloat);
  EXPECT_EQ(bf16_half.rtol, 1.6e-2);
  Tolerance ints = tolerance_for(at::kLong, at::kInt, std::nullopt);
  EXPECT_EQ(ints.atol, 0);
  EXPECT_EQ(ints.rtol, 0);
}

// ---------------------------------------------------------------------------------- exact dtypes

TEST(Compare, IntegralIsExact) {
  EXPECT_TRUE(compare(longs({1, 2, 3}), longs({1, 2, 3})).match);
  Diff off = compare(longs({1, 2, 3}), longs({1, 2, 4}));
  EXPECT_FALSE(off.match);
  EXPECT_EQ(off.why, "output at [2]: 3 vs reference 4 (exact)");
  EXPECT_EQ(off.ulp, 1);
  EXPECT_EQ(off.chebyshev, 1);
  // Off by one at a magnitude where float64 could not tell them apart.
  const int64_t big = (int64_t{1} << 60) + 1;
  EXPECT_FALSE(compare(longs({big}), longs({big + 1})).match);
}

TEST(Compare, IntegralStaysExactUnderAPrecisionOrTolerance) {
  EXPECT_FALSE(compare(longs({10}), longs({11}), at::kHalf).match);
  EXPECT_FALSE(compare(longs({10}), longs({11}), std::nullopt, Tolerance{5, 5}).match);
}

TEST(Compare, BoolIsExact) {
  at::Tensor a = longs({1, 0}).to(at::kBool), b = longs({1, 1}).to(at::kBool);
  EXPECT_TRUE(compare(a, a).match);
  Diff d = compare(a, b);
  EXPECT_FALSE(d.match);
  EXPECT_EQ(d.why, "output at [1]: False vs reference True (exact)");
}

// ---------------------------------------------------------------------------------- tolerance edges

TEST(Compare, FloatWithinToleranceMatchesAndJustOutsideDoesNot) {
  // Allowed at 100: 1e-5 + 1.3e-6 * 100 = 1.4e-4; float's step there is 7.6e-6.
  EXPECT_TRUE(compare(floats({100.00012f}), floats({100.0f})).match);
  Diff outside = compare(floats({100.00016f}), floats({100.0f}));
  EXPECT_FALSE(outside.match);
  EXPECT_EQ(outside.why, "output at [0]: 100.00016 vs reference 100 (atol 1e-05, rtol 1.3e-06)");
}

TEST(Compare, DoubleToleranceEdges) {
  // Allowed at 1: 1e-7 + 1e-7 = 2e-7.
  EXPECT_TRUE(compare(doubles({0, 1.0 + 1.9e-7}), doubles({0, 1.0})).match);
  Diff outside = compare(doubles({0, 1.0 + 2.1e-7}), doubles({0, 1.0}));
  EXPECT_FALSE(outside.match);
  EXPECT_EQ(outside.why, "output at [1]: 1.00000021 vs reference 1 (atol 1e-07, rtol 1e-07)");
  // Near zero only atol counts.
  EXPECT_TRUE(compare(doubles({0.9e-7}), doubles({0})).match);
  EXPECT_FALSE(compare(doubles({1.1e-7}), doubles({0})).match);
}

TEST(Compare, RelativeToleranceIsRelativeToTheReference) {
  // |a - b| = 0.01: within rtol 1e-3 of the reference 20, not of the reference 5.
  Tolerance t{0, 1e-3};
  EXPECT_TRUE(compare(doubles({20.01}), doubles({20}), std::nullopt, t).match);
  EXPECT_FALSE(compare(doubles({5.01}), doubles({5}), std::nullopt, t).match);
}

// Every pattern and its neighbour one ulp up, compared both ways, match at one ulp.
void expect_one_ulp_matches(const std::vector<int16_t>& patterns, c10::ScalarType dtype) {
  for (int16_t p : patterns) {
    at::Tensor x = from_bits({p}, dtype), y = from_bits({static_cast<int16_t>(p + 1)}, dtype);
    for (auto [out, ref] : {std::pair{x, y}, std::pair{y, x}}) {
      Diff d = compare(out, ref);
      EXPECT_TRUE(d.match) << c10::toString(dtype) << " bits " << p << ": " << d.why;
      EXPECT_EQ(d.ulp, 1) << c10::toString(dtype) << " bits " << p;
    }
  }
}

TEST(Compare, OneUlpHalfDifferencesMatch) {
  expect_one_ulp_matches({0x3C00,                         // 1.0 and the next half up (the largest relative gap)
                          0x3BFF,                         // just below 1.0, and 1.0
                          0x3FFF, 0x4000,                 // around 2.0
                          0x7BFE,                         // 65472 and 65504, the largest finite
                          0x0000, 0x0001, 0x03FF,         // subnormals, and into the normals
                          static_cast<int16_t>(0xBC00)},  // -1.0 and the next toward -inf
                         at::kHalf);
}

TEST(Compare, OneUlpBFloat16DifferencesMatch) {
  expect_one_ulp_matches({0x3F80,                  // 1.0 and the next up
                          0x3F7F,                  // just below 1.0
                          0x4000,                  // 2.0
                          0x7F7E,                  // the two largest finite values
                          0x0000, 0x0001, 0x007F,  // subnormals, and into the normals
                          static_cast<int16_t>(0xBF80)},
                         at::kBFloat16);
}

TEST(Compare, ClearlyWrongHalfAndBFloat16Results) {
  EXPECT_FALSE(compare(at::tensor({1.01}).to(at::kHalf), at::tensor({1.0}).to(at::kHalf)).match);
  EXPECT_FALSE(compare(at::tensor({1.05}).to(at::kBFloat16), at::tensor({1.0}).to(at::kBFloat16)).match);
}

// ---------------------------------------------------------------------------------- non-finite

TEST(Compare, InfinityAgainstFiniteIsAMismatch) {
  Diff d = compare(floats({1, INFINITY}), floats({1, 3.4e38f}));
  EXPECT_FALSE(d.match);
  EXPECT_EQ(d.why, "output at [1]: inf vs reference 3.4e+38 (atol 1e-05, rtol 1.3e-06)");
  EXPECT_EQ(d.chebyshev, kInf);
  EXPECT_EQ(d.ulp, kInf);
  EXPECT_FALSE(compare(floats({2}), floats({-INFINITY})).match);
  EXPECT_FALSE(compare(floats({INFINITY}), floats({-INFINITY})).match);
}

TEST(Compare, EqualInfinitiesMatch) {
  Diff d = compare(floats({INFINITY, -INFINITY}), floats({INFINITY, -INFINITY}));
  EXPECT_TRUE(d.match);
  EXPECT_EQ(d.chebyshev, 0);
  EXPECT_EQ(d.ulp, 0);
  EXPECT_TRUE(d.comparable);  // opdiff compares infinities; its inf - inf is NaN
  EXPECT_TRUE(std::isnan(d.mse));
}

TEST(Compare, NaNEqualsNaNButOpdiffFlagsIt) {
  Diff both = compare(doubles({kNaN, 1}), doubles({kNaN, 1}));
  EXPECT_TRUE(both.match);
  EXPECT_EQ(both.chebyshev, 0);
  EXPECT_FALSE(both.comparable);
  EXPECT_EQ(both.code, "NAN_IN_BASELINE");
  EXPECT_EQ(both.msg, "baseline contains NaN");

  Diff in_output = compare(doubles({kNaN}), doubles({1}));
  EXPECT_FALSE(in_output.match);
  EXPECT_EQ(in_output.code, "NAN_IN_OUTPUT");
  EXPECT_EQ(in_output.msg, "output contains NaN");
  EXPECT_EQ(in_output.why, "output at [0]: nan vs reference 1 (atol 1e-07, rtol 1e-07)");
  EXPECT_EQ(compare(doubles({1}), doubles({kNaN})).code, "NAN_IN_BASELINE");
}

// ---------------------------------------------------------------------------------- structure

TEST(Compare, ShapeMismatchNamesTheLeafAndBothShapes) {
  Diff d = compare(tuple({floats({1}), at::zeros({2, 3})}), tuple({floats({1}), at::zeros({3, 2})}));
  EXPECT_FALSE(d.match);
  EXPECT_EQ(d.why, "output 1: shape [2, 3] vs reference [3, 2]");
  EXPECT_FALSE(d.comparable);
  EXPECT_EQ(d.code, "NOT_COMPARABLE_SHAPE");
  EXPECT_EQ(d.msg, "shape mismatch");
}

TEST(Compare, ZeroDimAgainstOneElementIsOurMismatchButOpdiffCompares) {
  Diff d = compare(at::scalar_tensor(2.0, at::kDouble), doubles({2.0}));
  EXPECT_FALSE(d.match);
  EXPECT_EQ(d.why, "output: shape [] vs reference [1]");
  EXPECT_TRUE(d.comparable);  // opdiff reads a 0-d leaf as shape [1]
}

TEST(Compare, DtypeMismatchIsNamed) {
  Diff d = compare(tuple({floats({1, 2})}), tuple({doubles({1, 2})}));
  EXPECT_FALSE(d.match);
  EXPECT_EQ(d.why, "output 0: dtype float32 vs reference float64");
  EXPECT_TRUE(d.comparable);  // opdiff compares values in float64 whatever the dtypes
  EXPECT_EQ(d.max_abs, 0);
}

TEST(Compare, LeafCountMismatch) {
  Diff d = compare(tuple({floats({1}), floats({2}), floats({3})}), tuple({floats({1}), floats({2})}));
  EXPECT_FALSE(d.match);
  EXPECT_EQ(d.why, "output: 3 leaves vs reference 2");
  EXPECT_EQ(d.code, "NOT_COMPARABLE_SHAPE");
  EXPECT_EQ(d.msg, "len mismatch");
}

TEST(Compare, NoneAgainstTensorAndNumberAgainstTensor) {
  Diff none = compare(tuple({floats({1}), c10::IValue()}), tuple({floats({1}), floats({2})}));
  EXPECT_FALSE(none.match);
  EXPECT_EQ(none.why, "output 1: None vs reference tensor");
  EXPECT_EQ(none.code, "NOT_COMPARABLE_SHAPE");
  EXPECT_EQ(none.msg, "type mismatch");

  Diff number = compare(c10::IValue(2.0), at::scalar_tensor(2.0, at::kDouble));
  EXPECT_FALSE(number.match);
  EXPECT_EQ(number.why, "output: number vs reference tensor");

  EXPECT_TRUE(compare(tuple({c10::IValue(), floats({1})}), tuple({c10::IValue(), floats({1})})).match);
}

TEST(Compare, NestingDifferenceIsAMismatch) {
  Diff d = compare(tuple({floats({1})}), floats({1}));
  EXPECT_FALSE(d.match);
  EXPECT_EQ(d.why, "output 0 vs reference: nested differently");
  EXPECT_TRUE(d.comparable);  // opdiff flattens both sides
}

TEST(Compare, TuplesAndListsNameThePathOfTheDifference) {
  c10::List<at::Tensor> list_out({floats({1}), floats({2, 3, 4})});
  c10::List<at::Tensor> list_ref({floats({1}), floats({2, 3, 5})});
  Diff d = compare(tuple({floats({0}), list_out}), tuple({floats({0}), list_ref}));
  EXPECT_FALSE(d.match);
  EXPECT_EQ(d.why, "output 1.1 at [2]: 4 vs reference 5 (atol 1e-05, rtol 1.3e-06)");
  EXPECT_TRUE(compare(tuple({floats({0}), list_out}), tuple({floats({0}), list_out})).match);
}

TEST(Compare, TheFirstDifferenceOfAMultiDimensionalLeafIsIndexed) {
  at::Tensor ref = at::zeros({2, 5}, at::kFloat), out = ref.clone();
  out.index_put_({1, 4}, 1.5);
  out.index_put_({1, 3}, 0.5);
  Diff d = compare(tuple({ref, out}), tuple({ref, ref}));
  EXPECT_EQ(d.why, "output 1 at [1, 3]: 0.5 vs reference 0 (atol 1e-05, rtol 1.3e-06)");
  EXPECT_EQ(d.chebyshev, 1.5);
}

TEST(Compare, EmptyTensorsMatchWhenShapesAndDtypesDo) {
  Diff d = compare(at::zeros({0, 3}), at::zeros({0, 3}));
  EXPECT_TRUE(d.match);
  EXPECT_FALSE(d.comparable);
  EXPECT_EQ(d.code, "NOT_COMPARABLE_EMPTY");
  EXPECT_EQ(d.msg, "");
  Diff transposed = compare(at::zeros({0, 3}), at::zeros({3, 0}));
  EXPECT_FALSE(transposed.match);
  EXPECT_EQ(transposed.why, "output: shape [0, 3] vs reference [3, 0]");
  EXPECT_FALSE(compare(at::zeros({0}, at::kLong), at::zeros({0}, at::kFloat)).match);
}

// ---------------------------------------------------------------------------------- numbers

TEST(Compare, NumberOutputs) {
  EXPECT_TRUE(compare(c10::IValue(int64_t{3}), c10::IValue(int64_t{3})).match);
  EXPECT_EQ(compare(c10::IValue(int64_t{3}), c10::IValue(int64_t{4})).why, "output: 3 vs reference 4 (exact)");
  EXPECT_TRUE(compare(c10::IValue(0.1 + 0.2), c10::IValue(0.3)).match);
  EXPECT_EQ(compare(c10::IValue(true), c10::IValue(false)).why, "output: True vs reference False (exact)");
  EXPECT_EQ(compare(c10::IValue(2.0), c10::IValue(int64_t{2})).why, "output: dtype float64 vs reference int64");
  EXPECT_TRUE(
      compare(tuple({c10::IValue(int64_t{3}), c10::IValue(1.5)}), tuple({c10::IValue(int64_t{3}), c10::IValue(1.5)}))
          .match);
}

// ---------------------------------------------------------------------------------- complex

TEST(Compare, ComplexComparesTheModulusOfTheDifference) {
  const c10::complex<double> ref(3, 4);  // |ref| = 5: allowed 1e-7 + 5e-7 = 6e-7
  auto one = [](c10::complex<double> v) { return at::tensor(std::vector<c10::complex<double>>{v}); };
  Diff inside = compare(one(ref + c10::complex<double>(4e-7, 4e-7)), one(ref));  // |d| = 5.66e-7
  EXPECT_TRUE(inside.match) << inside.why;
  EXPECT_NEAR(inside.chebyshev, std::hypot(4e-7, 4e-7), 1e-12);
  // Each part within 6e-7, the modulus 6.36e-7 not.
  EXPECT_FALSE(compare(one(ref + c10::complex<double>(4.5e-7, 4.5e-7)), one(ref)).match);
  Diff wrong = compare(one({1, 2}), one({1, 3}));
  EXPECT_EQ(wrong.why, "output at [0]: (1+2j) vs reference (1+3j) (atol 1e-07, rtol 1e-07)");
  EXPECT_EQ(compare(one({1, -2}), one({1, 3})).why.substr(0, 24), "output at [0]: (1-2j) vs");
}

TEST(Compare, ComplexFloatUsesFloatTolerancesAndNaNRules) {
  auto one = [](c10::complex<float> v) { return at::tensor(std::vector<c10::complex<float>>{v}); };
  EXPECT_TRUE(compare(one({100.0f, 1.0f}), one({100.00012f, 1.0f})).match);
  EXPECT_TRUE(compare(one({NAN, 0}), one({0, NAN})).match);  // both NaN as complex values
  EXPECT_FALSE(compare(one({INFINITY, 0}), one({1, 0})).match);
  // An infinite part: the finite parts are still compared within the tolerance.
  EXPECT_TRUE(compare(one({INFINITY, -5.286594f}), one({INFINITY, -5.2865934f})).match);
  EXPECT_FALSE(compare(one({INFINITY, -5.0f}), one({INFINITY, -6.0f})).match);
}

// ---------------------------------------------------------------------------------- ULP

TEST(Ulp, KnownDistances) {
  EXPECT_EQ(compare(floats({std::nextafter(1.0f, 2.0f)}), floats({1.0f})).ulp, 1);
  EXPECT_EQ(compare(floats({2.0f}), floats({1.0f})).ulp, 1 << 23);
  EXPECT_EQ(compare(doubles({std::nextafter(1.0, 0.0)}), doubles({1.0})).ulp, 1);
  const float tiny = std::numeric_limits<float>::denorm_min();
  EXPECT_EQ(compare(floats({tiny}), floats({-tiny})).ulp, 2);  // across zero
  Diff zeros = compare(floats({-0.0f}), floats({0.0f}));
  EXPECT_EQ(zeros.ulp, 0);
  EXPECT_TRUE(zeros.match);
  EXPECT_EQ(compare(from_bits({0x3C00}, at::kHalf), from_bits({0x3C03}, at::kHalf)).ulp, 3);
  EXPECT_EQ(compare(doubles({kNaN}), doubles({kNaN})).ulp, 0);
  EXPECT_EQ(compare(doubles({kInf}), doubles({1e300})).ulp, kInf);
}

// ---------------------------------------------------------------------------------- Output

TEST(CompareOutput, UsesTheBackendsOwnReferencePrecisionAndTolerance) {
  Output out;
  out.value = floats({1.0005f});
  const c10::IValue baseline = floats({1.0f});
  EXPECT_FALSE(compare(out, baseline).match);
  out.precision = at::kHalf;  // computed in Half: Half's rtol 1e-3
  EXPECT_TRUE(compare(out, baseline).match);
  out.precision.reset();
  out.tolerance = Tolerance{1e-3, 0};
  EXPECT_TRUE(compare(out, baseline).match);
  out.tolerance.reset();
  out.reference = floats({1.0005f});
  EXPECT_TRUE(compare(out, baseline).match);
  EXPECT_EQ(compare(out, baseline).max_abs, 0);
}

// ---------------------------------------------------------------------------------- JSON

TEST(Json, ComparableEntryHasOpdiffsKeysAndOurs) {
  Diff d = compare(doubles({1, 2, 3}), doubles({1, 2, 5}));
  EXPECT_DOUBLE_EQ(d.mse, 4.0 / 3);
  EXPECT_DOUBLE_EQ(d.max_abs, 2);
  EXPECT_DOUBLE_EQ(d.mean_abs, 2.0 / 3);
  nlohmann::json j = to_json(d);
  EXPECT_EQ(keys(j),
            (std::set<std::string>{"ok", "mse", "max_abs", "mean_abs", "verdict", "ulp", "chebyshev", "why", "dtype"}));
  EXPECT_EQ(j["dtype"], "float64");  // the differing output's
  EXPECT_EQ(j["ok"], true);
  EXPECT_DOUBLE_EQ(j["mse"].get<double>(), 4.0 / 3);
  EXPECT_EQ(j["max_abs"], 2.0);
  EXPECT_EQ(j["verdict"], "mismatch");
  EXPECT_EQ(j["why"], "output at [2]: 3 vs reference 5 (atol 1e-07, rtol 1e-07)");

  nlohmann::json same = to_json(compare(doubles({1}), doubles({1})));
  EXPECT_EQ(keys(same), (std::set<std::string>{"ok", "mse", "max_abs", "mean_abs", "verdict", "ulp", "chebyshev"}));
  EXPECT_EQ(same["verdict"], "match");
}

TEST(Json, NotComparableEntryHasCodeAndMsg) {
  nlohmann::json nan = to_json(compare(doubles({kNaN}), doubles({kNaN})));
  EXPECT_EQ(keys(nan), (std::set<std::string>{"ok", "code", "msg", "verdict", "ulp", "chebyshev"}));
  EXPECT_EQ(nan["ok"], false);
  EXPECT_EQ(nan["code"], "NAN_IN_BASELINE");
  EXPECT_EQ(nan["msg"], "baseline contains NaN");
  EXPECT_EQ(nan["verdict"], "match");

  nlohmann::json empty = to_json(compare(at::zeros({0}), at::zeros({0})));
  EXPECT_EQ(empty["code"], "NOT_COMPARABLE_EMPTY");
  EXPECT_TRUE(empty["msg"].is_null());  // opdiff's None
}

TEST(Json, NonFiniteNumbersAreStringsAndTheLineIsValidJson) {
  Diff d = compare(doubles({kInf, kInf}), doubles({1, kInf}));
  nlohmann::json j = to_json(d);
  EXPECT_EQ(j["chebyshev"], "inf");
  EXPECT_EQ(j["ulp"], "inf");
  EXPECT_EQ(j["max_abs"], "nan");  // inf - inf in opdiff's float64 arithmetic
  const std::string line = j.dump();
  EXPECT_EQ(nlohmann::json::parse(line), j);
  EXPECT_EQ(line.find("Infinity"), std::string::npos);
  EXPECT_EQ(line.find("NaN"), std::string::npos);
}

// ---------------------------------------------------------------------------------- value-comparable

}  // namespace
}  // namespace opsfuzz::runner
