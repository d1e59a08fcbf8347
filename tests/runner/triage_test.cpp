// Triage on real libtorch 1.13 kernels: for each rule, a false alarm it sets aside and a real bug
// it keeps, with the side to blame. Outputs come from the real backends, as a run has them.
#include "runner/triage.h"

#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <limits>

#include "calls.h"
#include "engine/config.h"
#include "argtypes/rng.h"
#include "generators/generators.h"
#include "runner/op_facts.h"
#include "specs/db/db.h"

namespace opsfuzz::runner {
namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();

at::Tensor floats(std::vector<float> v) { return at::tensor(v, at::kFloat); }

// The backend's and eager's outputs on the call, which must mismatch, triaged.
Triage triaged(const std::string& backend, const Call& call) {
  Output out = find_backend(backend)->prepare(call)->run(call);
  out.value = contract_outputs(call, out.value);
  const c10::IValue baseline = contract_outputs(call, find_backend("eager_cpu")->prepare(call)->run(call).value);
  EXPECT_FALSE(compare(out, baseline).match) << backend << " and eager_cpu must differ on " << call.what();
  std::optional<Triage> t = triage(call, out, baseline);
  EXPECT_TRUE(t.has_value());
  return t.value_or(Triage{});
}

// A SpecDB sample as a call: (op, seed, index) in a configuration regenerates it.
Call sample_call(const std::string& op, const std::string& config, uint64_t index) {
  std::vector<Sample> samples = generate_samples(*find_spec(op), Config::parse(config), 0, Validity::Valid, index + 1);
  const Sample& s = samples.at(index);
  return op_call(s.op, s.args, s.kwargs, derive_seed(s.seed, s.index));
}

// ------------------------------------------------------------------------------ conditioning

TEST(TriageConditioning, SetsAsideACancellingSumInAnotherOrder) {
  // float32 sums 1e8 + 1 to 1e8 and loses the ones; float64 keeps them. Both orders are right
  // for float32: the terms are 1e8 while the result is 2.
  Triage t = triaged("eager_cpu_fp64", op_call("sum", {floats({1e8f, 1, -1e8f, 1})}));
  EXPECT_EQ(t.verdict, "conditioning") << t.why;
  EXPECT_EQ(t.blame, "none");
  EXPECT_TRUE(t.set_aside());
}

TEST(TriageConditioning, KeepsTheFusersRemainderOfATinyDividendByAHugeDivisor) {
  // 5.84 % -1e30 is -1e30 (the divisor's sign, as Python's %): the TensorExpr fuser's
  // fmod(fmod(a, b) + b, b) gives -0, far beyond any rounding of the operands: moving them by
  // their rounding (the probe this mismatch gets) moves the float64 value by an ulp of 1e30.
  const Call call = op_call("remainder.Tensor", {floats({5.8377223f}), floats({-11.19f, -1e30f})});
  Triage t = triaged("torchscript_cpu_fused", call);
  EXPECT_EQ(t.verdict, "wrong_value") << t.why;
  EXPECT_EQ(t.blame, "backend");
  EXPECT_FALSE(t.set_aside());
}

TEST(TriageConditioning, SetsAsideGridSamplingAtCoordinatesFloat32CannotPlaceWithinAPixel) {
  // A grid coordinate of -8388607.5 unnormalizes to -12582910.25 pixels, which float32 holds as
  // -12582910.5: a quarter pixel off, between rows of 0.96 and 8388607.5. Moving the inputs by one
  // float32 rounding moves the float64 value as far: the problem, not the kernel, is ill-conditioned.
  const at::Tensor input = floats({0.9603707f, 8388607.5f, 3.5f}).view({1, 1, 3, 1});
  const at::Tensor grid = floats({2.5f, -8388607.5f}).view({1, 1, 1, 2});
  // bicubic, reflection padding, align_corners false
  Triage t = triaged("eager_cpu_fp64", op_call("grid_sampler_2d", {input, grid, 2, 2, false}));
  EXPECT_EQ(t.verdict, "conditioning") << t.why;
  EXPECT_TRUE(t.set_aside());
}

TEST(TriageConditioning, SetsAsideGridSamplingAcrossAReflectionFold) {
  // Grid x = 8388607.5 unnormalizes to 12582912.75 pixels, reflected over [0, 3] to 0.75 in
  // float64; float32 holds 12582912 and lands on pixel 0 (10.59). One rounding down moves the
  // float64 coordinate there; one up moves it across the fold.
  const at::Tensor input = floats({10.592802f, 8388607.5f, 2.0f, 3.5f}).view({1, 1, 1, 4});
  const at::Tensor grid = floats({8388607.5f, 17.575638f}).view({1, 1, 1, 2});
  // bilinear, reflection padding, align_corners true
  Triage t = triaged("eager_cpu_fp64", op_call("grid_sampler_2d", {input, grid, 0, 2, true}));
  EXPECT_EQ(t.verdict, "conditioning") << t.why;
  EXPECT_TRUE(t.set_aside());
}

TEST(TriageConditioning, SetsAsideAnInfiniteNeighbourThatRoundingLetsIntoAnInterpolation) {
  // Upsampling 3 pixels to 7, float32 places an output exactly on the pixel 11.96 and leaves its
  // neighbour -inf out; float64 places it 1e-16 pixel off, and -inf times that weight gives -inf,
  // or NaN beside another infinity. The infinity enters with a weight below float32's rounding.
  const at::Tensor x = floats({-kInf, 11.9632225f, -19.588284f}).view({1, 1, 1, 3});
  const Call call = op_call("upsample_bilinear2d.vec", {x, std::vector<int64_t>{8, 7}, false, c10::IValue()});
  Triage t = triaged("eager_cpu_fp64", call);
  EXPECT_EQ(t.verdict, "conditioning") << t.why;
  EXPECT_TRUE(t.set_aside());
}

TEST(TriageConditioning, SetsAsideANaNNeighbourThatRoundingLetsIntoAnInterpolation) {
  // As above with NaN for -inf: float64 lets the NaN neighbour in with a weight of rounding's size.
  const at::Tensor x = floats({std::nanf(""), 11.9632225f, -19.588284f}).view({1, 1, 1, 3});
  const Call call = op_call("upsample_bilinear2d.vec", {x, std::vector<int64_t>{8, 7}, false, c10::IValue()});
  Triage t = triaged("eager_cpu_fp64", call);
  EXPECT_EQ(t.verdict, "conditioning") << t.why;
  EXPECT_TRUE(t.set_aside());
}

TEST(TriageConditioning, SetsAsideAnInterpolationOnAnInfinityBesideANeighbourOfWeightZero) {
  // upsample_bilinear2d.vec (seed 0, index 2, config extremes): an output lies exactly on a -inf
  // pixel (weight 1) and takes its next row, inf or NaN, with weight 0. float32 gives -inf, float64
  // computes 0·inf = NaN. Taken one at a time, the -inf enters and the neighbour enters with
  // weight 0: the value tends to -inf, and NaN is 0·inf.
  Triage t = triaged("eager_cpu_fp64", sample_call("upsample_bilinear2d.vec", "extremes", 2));
  EXPECT_EQ(t.verdict, "conditioning") << t.why;
  EXPECT_TRUE(t.set_aside());
}

TEST(TriageConditioning, KeepsNaNFromFmodBesideAnInfiniteInput) {
  // The vectorized fmod(-9, 1e-45) = NaN (the value is -0) beside fmod(inf, 1e-45) = NaN: the
  // infinity enters the first elements with weight 0, but the float64 value there is finite, not
  // made non-finite by it: the kernel's NaN stands.
  at::Tensor self = at::full({16}, -9.0f), other = at::full({16}, 1e-45f);
  self[15] = kInf;
  Triage t = triaged("eager_cpu_noncontig", op_call("fmod.Tensor", {self, other}));
  EXPECT_EQ(t.verdict, "non_finite") << t.why;
  EXPECT_EQ(t.blame, "baseline");
}

// ------------------------------------------------------------------------------ range

TEST(TriageRange, SetsAsideTheOverflowOfAMeansPartialSum) {
  // The mean of two values near the float32 maximum is representable, but their sum is not:
  // float32 gives inf, the float64 run (cast back) the mean.
  Triage t = triaged("eager_cpu_fp64", op_call("mean.dim", {floats({3e38f, 3e38f}), std::vector<int64_t>{0}}));
  EXPECT_EQ(t.verdict, "range") << t.why;
  EXPECT_EQ(t.blame, "none");
}

TEST(TriageRange, SetsAsideANormWhosePowersLeaveTheRange) {
  // The 16-norm of one element 1.84e19 is that element, but float32 computes |x|^16 = 1e307 on the
  // way and gives inf. Scaled to the same place in float64's range, the float64 kernel overflows
  // alike: the algorithm's intermediate, not the kernel, leaves the range.
  const Call call =
      op_call("norm.ScalarOpt_dim", {floats({1.8428296e19f}).view({1, 1}), 16, std::vector<int64_t>{}, true});
  Triage t = triaged("eager_cpu_fp64", call);
  EXPECT_EQ(t.verdict, "range") << t.why;
  EXPECT_EQ(t.blame, "none");
  EXPECT_TRUE(t.set_aside());
}

TEST(TriageRange, SetsAsideANegativeNormWhosePowersOverflowToAFiniteZero) {
  // norm(-0.00129, p=-14): |x|^-14 = 2.8e40 overflows float32, and inf^(-1/14) = 0, a finite value
  // far from 0.00129. The float64 kernel gives 0 as well where float64's range ends alike.
  const Call call = op_call("norm.ScalarOpt_dim", {floats({-0.0012917537f}), -14, std::vector<int64_t>{0}, false});
  Triage t = triaged("eager_cpu_fp64", call);
  EXPECT_EQ(t.verdict, "range") << t.why;
}

TEST(TriageRange, SetsAsideAGroupNormWhoseSquaresOverflowBesideAGroupWhereEpsilonCounts) {
  // float32's E[x²] of values near its maximum overflows and group_norm gives NaN; the float64
  // kernel on inputs scaled to the same place in float64's range does too. The second group's
  // variance is small beside eps, which bends its homogeneity: judged element by element.
  const at::Tensor x = floats({3e38f, -3e38f, 3e38f, 1e-3f, 2e-3f, 4e-3f}).view({1, 2, 3});
  Triage t = triaged("eager_cpu_fp64", op_call("group_norm", {x, 2, c10::IValue(), c10::IValue(), 1e-5, true}));
  EXPECT_EQ(t.verdict, "range") << t.why;
  EXPECT_TRUE(t.set_aside());
  // One element: its output is 0 at every scale, where float32's E[x²] - mean² is inf - inf.
  const at::Tensor one = floats({-3.4028235e38f}).view({1, 1, 1, 1});
  Triage zero = triaged("eager_cpu_fp64",
                        op_call("group_norm", {one, 1, c10::IValue(), c10::IValue(), 1.0034844825226905, true}));
  EXPECT_EQ(zero.verdict, "range") << zero.why;
}

TEST(TriageRange, SetsAsideAnInterpolationWhosePartialSumsOverflowBesideAnInfinity) {
  // upsample_bicubic2d.vec (seed 0, index 17, config extremes): +inf enters an output, whose value
  // is +inf; float32's sum of the finite terms near its maximum overflows to -inf first, and
  // -inf + inf is NaN. The float64 kernel on the inputs scaled to the same place in its range
  // gives NaN alike.
  Triage t = triaged("eager_cpu_fp64", sample_call("upsample_bicubic2d.vec", "extremes", 17));
  EXPECT_EQ(t.verdict, "range") << t.why;
  EXPECT_TRUE(t.set_aside());
}

TEST(TriageRange, SetsAsideALayerNormBackwardWhoseRowSumsOverflowBetweenOverflowingElements) {
  // native_layer_norm_backward at a mean and rstd far from the input's statistics (the rounding
  // configuration's 2^23): the float64 gradient is -1.16e41 at two elements, beyond float32, and
  // the kernel's per-row terms (b·x + c, each near 1e41) overflow float32, so the element between,
  // at the mean, is inf - inf = NaN; float64 gives 0 there, what its own b·x + c leaves. Moving the
  // input alone by one rounding moves that element off the mean and its value by 1e34, far more
  // than a rounding of float32's largest: its terms are beyond the range.
  constexpr float B = 8388608.0f;
  const at::Tensor grad = floats({0, -1, -1}).view({1, 3}), input = floats({0.5f, -B, 1}).view({1, 3});
  const at::Tensor mean = floats({-B}).view({1, 1}), rstd = floats({B}).view({1, 1});
  const at::Tensor weight = floats({-B, 3, -B});
  const Call call = op_call("native_layer_norm_backward", {grad, input, std::vector<int64_t>{3}, mean, rstd, weight,
                                                           c10::IValue(), std::vector<bool>{true, false, false}});
  Triage t = triaged("eager_cpu_fp64", call);
  EXPECT_EQ(t.verdict, "range") << t.why;
  EXPECT_TRUE(t.set_aside());
}

TEST(TriageRange, KeepsNaNFromFmodOfFiniteOperands) {
  // fmod(-9, 1e-45) is exactly -0 (C's fmod is exact); the vectorized float32 kernel divides,
  // overflows the quotient and gives NaN. The strided (scalar) path gives -0. fmod is homogeneous,
  // and the float64 kernel at float32's place in its range stays exact: no intermediate leaves it;
  // one rounding of the operands moves the value by no more than 1e-45, the size of its terms.
  at::Tensor self = at::full({16}, -9.0f), other = at::full({16}, 1e-45f);
  Triage t = triaged("eager_cpu_noncontig", op_call("fmod.Tensor", {self, other}));
  EXPECT_EQ(t.verdict, "non_finite") << t.why;
  EXPECT_EQ(t.blame, "baseline");
}

// ------------------------------------------------------------------------------ low precision

TEST(TriageLowPrecision, SetsAsideAHalfSumRoundedAtItsTermsSize) {
  // add.Tensor on float16 inputs (seed 0, index 14, config half): the float16 kernel's result
  // is off by a fraction of a float16 ulp at the size of its terms (27), not of its result (0.34).
  Triage t = triaged("eager_cpu_fp64", sample_call("add.Tensor", "half", 14));
  EXPECT_EQ(t.verdict, "low_precision") << t.why;
  EXPECT_EQ(t.blame, "none");
}

TEST(TriageLowPrecision, KeepsABfloat16NormThatStopsGrowingOnAStridedInput) {
  // The 2-norm of 3,000 ones is 54.77. The contiguous bfloat16 kernel gives 54.75 (one ulp); on a
  // strided input the kernel sums the squares in bfloat16, which stops growing at 256 (256 + 1
  // rounds to 256), and gives 16: hundreds of bfloat16 ulps, not the rounding of any term.
  const at::Tensor ones = at::ones({3000}, at::kBFloat16);
  Triage t = triaged("eager_cpu_noncontig", op_call("norm.ScalarOpt_dim", {ones, 2, std::vector<int64_t>{0}, false}));
  EXPECT_EQ(t.verdict, "wrong_value") << t.why;
  EXPECT_EQ(t.blame, "backend");
  EXPECT_FALSE(t.set_aside());
}

// ------------------------------------------------------------------------------ arbitration

TEST(TriageArbitration, SetsAsideBfloat16ResultsBothWithinTheirToleranceOfFloat64) {
  // _adaptive_avg_pool2d_backward on bfloat16 inputs (seed 0, index 4, config half): the
  // float64 run cast back and eager differ by more than the oracle's tolerance between them
  // (-1.7890625 vs -1.78125), but each lies within bfloat16's tolerance of the float64 value
  // (-1.78646): both are right, neither is blamed.
  Triage t = triaged("eager_cpu_fp64", sample_call("_adaptive_avg_pool2d_backward.default", "half", 4));
  EXPECT_EQ(t.verdict, "arbitration") << t.why;
  EXPECT_EQ(t.blame, "none");
  EXPECT_TRUE(t.set_aside());
}

TEST(TriageArbitration, BlamesTheSideThatDepartsFromFloat64) {
  Triage fuser =
      triaged("torchscript_cpu_fused_dynamic", op_call("remainder.Tensor", {floats({5.8377223f}), floats({-1e30f})}));
  EXPECT_EQ(fuser.blame, "backend") << fuser.why;
  Triage eager = triaged("eager_cpu_fp64", op_call("fmod.Tensor", {at::full({16}, -9.0f), at::full({16}, 1e-45f)}));
  EXPECT_EQ(eager.blame, "baseline") << eager.why;  // the reference library's own kernel departs
}

TEST(TriageArbitration, BlamesNoSideWhereTheInputsAreFloat64Already) {
  // The float64 evaluation of float64 inputs is eager's own call: it cannot arbitrate.
  at::Tensor self = at::tensor({5.8377223}, at::kDouble), other = at::tensor({-1.3421215737872535e+154}, at::kDouble);
  Triage t = triaged("torchscript_cpu_fused", op_call("remainder.Tensor", {self, other}));
  EXPECT_EQ(t.verdict, "wrong_value") << t.why;
  EXPECT_EQ(t.blame, "");
}

TEST(Triage, LeavesDifferencesOfShapeOrDtypeUntriaged) {
  const Call call = op_call("add.Tensor", {floats({1, 2}), floats({3, 4})});
  Output out;
  out.value = at::zeros({3});
  EXPECT_FALSE(triage(call, out, at::zeros({2})).has_value());
}

}  // namespace
}  // namespace opsfuzz::runner
