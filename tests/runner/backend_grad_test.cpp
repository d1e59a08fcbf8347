#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <cmath>

#include "tests/runner/calls.h"
#include "runner/backend.h"
#include "runner/builtin.h"
#include "suite/modules.h"
#include "argtypes/rng.h"
#include "engine/config.h"
#include "generators/generators.h"
#include "specs/db/db.h"

namespace opsfuzz::runner {
namespace {

Output run_grad(const Call& call) {
  auto model = make_eager_cpu_grad()->prepare(call);
  return model->run(deep_copy(call));
}

std::string skip_reason(const Call& call) {
  try {
    run_grad(call);
  } catch (const Skip& skip) { return skip.what(); }
  return "(not skipped)";
}

// The message run fails with (the test fails when it is skipped or succeeds).
std::string run_failure(const Call& call) {
  auto model = make_eager_cpu_grad()->prepare(call);
  try {
    model->run(deep_copy(call));
  } catch (const Skip& skip) { return std::string("(skipped: ") + skip.what() + ")"; } catch (const std::exception& e) {
    return e.what();
  }
  return "(succeeded)";
}

void expect_contains(const std::string& text, const std::string& part) {
  EXPECT_NE(text.find(part), std::string::npos) << "'" << text << "' lacks '" << part << "'";
}

std::vector<at::Tensor> tensors(const c10::IValue& tuple) {
  std::vector<at::Tensor> out;
  for (const auto& v : tuple.toTupleRef().elements()) out.push_back(v.toTensor());
  return out;
}

std::string note(const Output& out, const std::string& key) {
  for (const auto& [k, v] : out.notes)
    if (k == key) return v;
  return "";
}

// Autograd's gradients agree with finite differences within the backend's own tolerance; one
// gradient per differentiable input, each shaped like it, in float64.
void expect_gradients_match(const Output& out, const std::vector<at::Tensor>& inputs) {
  ASSERT_TRUE(out.reference.has_value());
  ASSERT_TRUE(out.tolerance.has_value());
  auto autograd = tensors(out.value), fd = tensors(*out.reference);
  ASSERT_EQ(autograd.size(), inputs.size());
  ASSERT_EQ(fd.size(), inputs.size());
  for (size_t k = 0; k < inputs.size(); ++k) {
    EXPECT_EQ(autograd[k].sizes(), inputs[k].sizes()) << "input " << k;
    EXPECT_EQ(fd[k].sizes(), inputs[k].sizes()) << "input " << k;
    EXPECT_EQ(autograd[k].scalar_type(), inputs[k].is_complex() ? at::kComplexDouble : at::kDouble);
    EXPECT_TRUE(at::allclose(autograd[k], fd[k], out.tolerance->rtol, out.tolerance->atol))
        << "input " << k << "\nautograd " << autograd[k] << "\nfinite differences " << fd[k];
  }
}

// Elements finite differences cannot judge take autograd's value, NaN included: the comparison
// passes over them.
void expect_unstable_elements_take_autograds_value(const Output& out) {
  ASSERT_TRUE(out.reference.has_value());
  auto autograd = tensors(out.value), fd = tensors(*out.reference);
  for (size_t k = 0; k < autograd.size(); ++k)
    EXPECT_TRUE(at::allclose(autograd[k], fd[k], out.tolerance->rtol, out.tolerance->atol, /*equal_nan=*/true))
        << "input " << k << "\nautograd " << autograd[k] << "\nfinite differences " << fd[k];
}

at::Tensor randn(at::IntArrayRef sizes, uint64_t seed, at::ScalarType dtype = at::kFloat) {
  return at::randn(sizes, at::make_generator<at::CPUGeneratorImpl>(seed), at::kDouble).to(dtype);
}

TEST(GradBackend, IsCalledEagerCpuGradAndUsesGradchecksTolerance) {
  EXPECT_EQ(find_backend("eager_cpu_grad")->name(), "eager_cpu_grad");
  Output out = run_grad(op_call("sin.default", {randn({3}, 1)}));
  EXPECT_EQ(out.tolerance->atol, 1e-5);
  EXPECT_EQ(out.tolerance->rtol, 1e-3);
  EXPECT_EQ(note(out, "eps"), "1e-06");
  EXPECT_EQ(note(out, "kinks"), "0");
}

TEST(GradBackend, AddWithAlphaGivesTheUpstreamGradientScaledForOther) {
  at::Tensor x = randn({2, 3}, 1), y = randn({2, 3}, 2);
  Output out = run_grad(op_call("add.Tensor", {x, y}, {{"alpha", 2.5}}));
  expect_gradients_match(out, {x, y});
  auto g = tensors(out.value);
  EXPECT_TRUE(at::allclose(g[1], g[0] * 2.5));  // dL/dy = alpha * dL/dx
}

TEST(GradBackend, MulMmSinAndSumMatch) {
  at::Tensor a = randn({3, 4}, 1), b = randn({3, 4}, 2), c = randn({4, 2}, 3);
  expect_gradients_match(run_grad(op_call("mul.Tensor", {a, b})), {a, b});
  expect_gradients_match(run_grad(op_call("mm.default", {a, c})), {a, c});
  expect_gradients_match(run_grad(op_call("sin.default", {a})), {a});
  expect_gradients_match(run_grad(op_call("sum.dim_IntList", {a, std::vector<int64_t>{1}, true})), {a});
}

TEST(GradBackend, TensorListInputsAreDifferentiableOneByOne) {
  at::Tensor a = randn({2, 3}, 1), b = randn({4, 3}, 2, at::kDouble);
  Output out = run_grad(op_call("cat.default", {c10::List<at::Tensor>({a, b}), 0}));
  expect_gradients_match(out, {a, b});
}

TEST(GradBackend, IntegralOutputsAreLeftOutOfTheLoss) {
  at::Tensor x = randn({3, 4}, 1);
  Output out = run_grad(op_call("max.dim", {x, 1}));  // values differentiable, indices integral
  expect_gradients_match(out, {x});
  EXPECT_EQ(note(out, "outputs_without_grad"), "");
}

TEST(GradBackend, IntegralInputsAreNotDifferentiated) {
  at::Tensor x = randn({4, 3}, 1), index = at::tensor({2, 0, 2}, at::kLong);
  Output out = run_grad(op_call("index_select.default", {x, 0, index}));
  expect_gradients_match(out, {x});
  EXPECT_EQ(tensors(out.value)[0][1].abs().sum().item<double>(), 0);  // row 1 is not selected
}

TEST(GradBackend, ComplexInputsFollowPytorchsConvention) {
  at::Tensor z = randn({3}, 1, at::kComplexFloat), w = randn({3}, 2, at::kComplexFloat);
  expect_gradients_match(run_grad(op_call("mul.Tensor", {z, w})), {z, w});
  expect_gradients_match(run_grad(op_call("sin.default", {z})), {z});
}

TEST(GradBackend, KinksAtZeroAreCountedAndExcluded) {
  at::Tensor x = at::tensor({-1.5, 0.0, 2.0, 0.0});
  for (const char* op : {"abs.default", "relu.default"}) {
    Output out = run_grad(op_call(op, {x}));
    EXPECT_EQ(note(out, "kinks"), "2") << op;
    expect_gradients_match(out, {x});
  }
}

TEST(GradBackend, TiesAndIntegersAreKinks) {
  Output ties = run_grad(op_call("max.dim", {at::tensor({1.0, 3.0, 3.0}).view({1, 3}), 1}));
  EXPECT_EQ(note(ties, "kinks"), "2");
  Output steps = run_grad(op_call("floor.default", {at::tensor({1.0, 2.5, -3.0})}));
  EXPECT_EQ(note(steps, "kinks"), "2");
  expect_gradients_match(steps, {at::zeros({3})});
}

TEST(GradBackend, AJumpAtTheInputIsAKinkThoughBothSidesLookAlike) {
  Output out = run_grad(op_call("sign.default", {at::tensor({0.0, 1.5})}));  // -1 | 0 | 1 at 0
  EXPECT_EQ(note(out, "kinks"), "1");
  expect_gradients_match(out, {at::zeros({2})});
}

TEST(GradBackend, JumpsThroughoutTheStepAreAKinkThoughTheirAverageSlopeLooksSmooth) {
  // fmod(2147483646, b) near b = 6.13 jumps by b every 1.8e-8 of b: central differences at 1e-6
  // and 5e-7 agree on the jumps' average slope (-714714), which is not the derivative autograd
  // gives (-3.5e8, the quotient); one-sided differences at 5e-7 disagree.
  at::Tensor self = at::tensor({2147483646}, at::kInt), other = at::tensor(6.131742550060153, at::kDouble);
  Output out = run_grad(op_call("fmod.Tensor", {self, other}));
  EXPECT_EQ(note(out, "kinks"), "1");
  expect_gradients_match(out, {other});
}

TEST(GradBackend, AForwardBeyondFloat64sRangeIsUnstableNotAMismatch) {
  // The -10.5-norm of (±1.18e-38) is 1.1e-38, but |x|^-10.5 overflows float64 and the forward gives
  // 0: finite differences of that 0 are 0, autograd's 0/0 NaN; neither is the derivative.
  at::Tensor x = at::tensor({1.1754944e-38f, -1.1754944e-38f}).view({2, 1, 1});
  Output out = run_grad(op_call("linalg_vector_norm.default", {x, -10.506203868516977, c10::IValue(), true},
                                {{"dtype", int64_t(at::kDouble)}}));
  EXPECT_EQ(note(out, "unstable_steps"), "2");
  expect_unstable_elements_take_autograds_value(out);
}

TEST(GradBackend, AnInfiniteInputsProductsAreUnstableNotAMismatch) {
  // conv_transpose2d's padding crops the only product of the input with the infinite weight: the
  // output is the bias, its derivative in the input 0, autograd's grad * inf * 0 NaN.
  at::Tensor input = at::tensor({3.4657328f}).view({1, 1, 1}), weight = at::full({1, 1, 1, 1}, INFINITY);
  Output out = run_grad(op_call("conv_transpose2d.input",
                                {input, weight, at::tensor({9.521032f}), std::vector<int64_t>{3},
                                 std::vector<int64_t>{1}, std::vector<int64_t>{2}, 1, std::vector<int64_t>{1}}));
  EXPECT_NE(note(out, "unstable_steps"), "");
  expect_unstable_elements_take_autograds_value(out);
}

TEST(GradBackend, AStepBelowTheRoundingOfTheOutputsTermsIsUnstableNotAMismatch) {
  // einsum(",WC,his,i->hC") on operands holding 2^52 (seed 0, index 4, config rounding): outputs
  // are sums of products near 2^104 that cancel; a step of 1e-6 in a small operand moves none of
  // them (finite differences 0, autograd -3e16), a step 2^20 times longer does.
  std::vector<Sample> samples =
      generate_samples(*find_spec("einsum.default"), Config::parse("rounding"), 0, Validity::Valid, 5);
  const Sample& s = samples.at(4);
  Output out = run_grad(op_call(s.op, s.args, s.kwargs, derive_seed(s.seed, s.index)));
  EXPECT_NE(note(out, "unstable_steps"), "");
  expect_unstable_elements_take_autograds_value(out);
}

TEST(GradBackend, RandomOpsReplayTheirDraws) {
  at::Tensor x = randn({4, 4}, 1);
  Output a = run_grad(op_call("dropout.default", {x, 0.5, true}));
  expect_gradients_match(a, {x});
  Output b = run_grad(op_call("dropout.default", {x, 0.5, true}));
  EXPECT_TRUE(at::equal(tensors(a.value)[0], tensors(b.value)[0]));
}

TEST(GradBackend, LeavesTheDefaultGeneratorAsItFoundIt) {
  at::manual_seed(5);
  at::Tensor expected = at::rand({4});
  at::manual_seed(5);
  run_grad(op_call("dropout.default", {randn({4, 4}, 1), 0.5, true}));
  EXPECT_TRUE(at::equal(at::rand({4}), expected));
}

TEST(GradBackend, ArgumentsAutogradRefusesBecomePlainInputs) {
  at::Tensor x = randn({4, 3}, 1), w = randn({3}, 2), b = randn({3}, 3), mean = randn({3}, 4);
  at::Tensor var = randn({3}, 5).abs() + 0.5;
  Output out = run_grad(op_call("native_batch_norm.default", {x, w, b, mean, var, true, 0.1, 1e-5}));
  expect_gradients_match(out, {x, w, b});
  EXPECT_EQ(note(out, "not_differentiable_args"), "running_mean,running_var");
}

// x * x with the derivative x instead of 2x: the bug eager_cpu_grad exists to find.
struct SquareWithWrongDerivative : torch::autograd::Function<SquareWithWrongDerivative> {
  static at::Tensor forward(torch::autograd::AutogradContext* ctx, const at::Tensor& x) {
    ctx->save_for_backward({x});
    return x * x;
  }
  static torch::autograd::variable_list backward(torch::autograd::AutogradContext* ctx,
                                                 const torch::autograd::variable_list& grad) {
    return {grad[0] * ctx->get_saved_variables()[0]};
  }
};

struct WrongSquareModule : suite::Module {
  c10::IValue forward(const std::vector<c10::IValue>& args, const suite::Kwargs&) override {
    return SquareWithWrongDerivative::apply(args[0].toTensor());
  }
  std::shared_ptr<Module> clone() const override { return std::make_shared<WrongSquareModule>(); }
  void to(c10::ScalarType) override {}
};

TEST(GradBackend, AWrongDerivativeDisagreesWithFiniteDifferences) {
  at::Tensor x = at::tensor({1.0, -2.0, 3.0});
  Call call;
  call.module = std::make_shared<WrongSquareModule>();
  call.module_path = "WrongSquare";
  call.args = {x};
  Output out = run_grad(call);
  at::Tensor autograd = tensors(out.value)[0], fd = tensors(*out.reference)[0];
  EXPECT_TRUE(at::allclose(fd, autograd * 2, 1e-6, 1e-6)) << autograd << fd;
  EXPECT_FALSE(at::allclose(autograd, fd, out.tolerance->rtol, out.tolerance->atol));
}

TEST(GradBackend, ModuleInputsAreDifferentiatedWithTheParametersFixed) {
  at::Tensor x = randn({2, 3}, 1);
  Call call;
  call.module = suite::make_module("torch.nn.Linear", {3, 2}, {});
  call.module_path = "torch.nn.Linear";
  call.args = {x};
  expect_gradients_match(run_grad(call), {x});
}

TEST(GradBackend, OpsWithoutDerivativeAreSkippedNamingThem) {
  std::string reason = skip_reason(op_call("floor_divide.default", {randn({3}, 1), randn({3}, 2)}));
  expect_contains(reason, "floor_divide");
  expect_contains(reason, "not implemented");
  reason = skip_reason(op_call("histc.default", {randn({5}, 1)}));
  expect_contains(reason, "no output of aten::histc requires grad");
}

TEST(GradBackend, CallsItCannotCheckAreSkippedWithTheReason) {
  at::Tensor i = at::tensor({1, 2}, at::kLong);
  EXPECT_EQ(skip_reason(op_call("add.Tensor", {i, i})), "no floating inputs");
  expect_contains(skip_reason(op_call("sin.default", {randn({600}, 1)})),
                  "600 differentiable input elements exceed the cap of 512");
  expect_contains(skip_reason(op_call("add_.Tensor", {randn({2}, 1), randn({2}, 2)})), "in-place");
  EXPECT_EQ(skip_reason(op_call("log.default", {at::tensor({0.0, 1.0})})), "the output is not finite at this input");
  expect_contains(skip_reason(op_call("sum.default", {randn({2}, 1)}, {{"dtype", at::kFloat}})),
                  "finite differences need float64 outputs");
  EXPECT_EQ(skip_reason(op_call("argmax.default", {randn({3}, 1)})), "no floating outputs");
}

TEST(GradBackend, GradientsThatAreNotTheDerivativeByDesignAreSkipped) {
  at::Tensor weight = randn({4, 3}, 1), indices = at::tensor({0, 2, 2}, at::kLong);
  std::string reason = skip_reason(op_call("embedding.default", {weight, indices, -1, true}));
  expect_contains(reason, "scale_grad_by_freq=True");
  reason = skip_reason(op_call("embedding.default", {weight, indices, 2}));
  expect_contains(reason, "padding_idx");
  expect_gradients_match(run_grad(op_call("embedding.default", {weight, indices})), {weight});
}

TEST(GradBackend, AFloat64RefusalIsASkipAndAGradOnlyFailureIsTheRuns) {
  std::string reason = skip_reason(op_call("linalg_vector_norm.default", {randn({3}, 1)}, {{"dtype", at::kFloat}}));
  expect_contains(reason, "refuses float64 inputs");
  // libtorch 1.13: masked_fill of an int tensor with a floating value that requires grad trips an
  // internal assert, which it does not without grad.
  at::Tensor ints = at::tensor({1, 2}, at::kInt), mask = at::tensor({1, 0}).to(at::kBool);
  expect_contains(run_failure(op_call("masked_fill.Tensor", {ints, mask, at::scalar_tensor(2.5)})),
                  "the forward of aten::masked_fill.Tensor fails only when its inputs require grad");
}

// libtorch 1.13's scatter backward returns a gradient shaped like index for a larger src.
TEST(GradBackend, ABackwardThatFailsIsTheRunsFailureNamingTheBackward) {
  at::Tensor index = at::tensor({1}, at::kLong);
  expect_contains(run_failure(op_call("scatter.src", {at::zeros({4}), 0, index, randn({4}, 1)})),
                  "the backward of aten::scatter.src failed");
}

// libtorch 1.13's atan2 backward squares an integral `other` in its own dtype: uint8 wraps.
TEST(GradBackend, FindsAtan2sWrongGradientForAUint8Other) {
  at::Tensor x = at::tensor(6.0), other = at::tensor({16, 20, 3}, at::kByte);
  Output out = run_grad(op_call("atan2.default", {x, other}));
  EXPECT_FALSE(
      at::allclose(tensors(out.value)[0], tensors(*out.reference)[0], out.tolerance->rtol, out.tolerance->atol));
}

TEST(GradBackend, KernelErrorsAreTheRunsFailureNotASkip) {
  expect_contains(run_failure(op_call("mm.default", {randn({2, 3}, 1), randn({2, 3}, 2)})),
                  "mat1 and mat2 shapes cannot be multiplied");
}

TEST(GradBackend, SameSeedSameGradientsOtherSeedOtherUpstream) {
  at::Tensor x = randn({3, 2}, 1);
  auto grads = [&](uint64_t seed) { return run_grad(op_call("exp.default", {x}, {}, seed)); };
  Output a = grads(7), b = grads(7), c = grads(8);
  EXPECT_TRUE(at::equal(tensors(a.value)[0], tensors(b.value)[0]));
  EXPECT_TRUE(at::equal(tensors(a.reference.value())[0], tensors(b.reference.value())[0]));
  EXPECT_FALSE(at::allclose(tensors(a.value)[0], tensors(c.value)[0]));
}

}  // namespace
}  // namespace opsfuzz::runner
