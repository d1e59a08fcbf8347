#include <ATen/CPUGeneratorImpl.h>
#include <gtest/gtest.h>
#include <torch/csrc/jit/ir/ir.h>
#include <torch/csrc/jit/passes/tensorexpr_fuser.h>
#include <torch/csrc/jit/runtime/graph_executor.h>
#include <torch/csrc/jit/tensorexpr/kernel.h>

#include "tests/runner/calls.h"
#include "runner/builtin.h"
#include "runner/values.h"
#include "suite/modules.h"

#include <filesystem>

namespace torch::jit {  // exported by libtorch_cpu; its header is not installed
TORCH_API bool canFuseOnCPU();
}  // namespace torch::jit

namespace opsfuzz::runner {
// backends_jit.cpp: the graph torchscript_cpu builds for an operator call.
std::shared_ptr<torch::jit::Graph> single_op_graph(const Call& call);
}  // namespace opsfuzz::runner

namespace opsfuzz::runner {
namespace {

at::Tensor seeded(at::IntArrayRef sizes, uint64_t seed) {
  return at::randn(sizes, at::detail::createCPUGenerator(seed));
}

c10::IValue eager(const Call& call) { return opcall::to_python(call.op->call(deep_copy(call).args)); }

Output run_on(const std::shared_ptr<Backend>& backend, const Call& call) {
  return backend->prepare(deep_copy(call))->run(deep_copy(call));
}

std::string note(const Output& out, const std::string& key) {
  for (const auto& [k, v] : out.notes)
    if (k == key) return v;
  return "(none)";
}

// Same structure, dtypes, shapes and values (within float rounding for fused kernels).
void expect_same(const c10::IValue& actual, const c10::IValue& expected) {
  std::vector<Leaf> a = flatten(actual), e = flatten(expected);
  ASSERT_EQ(a.size(), e.size());
  for (size_t i = 0; i < a.size(); ++i) {
    SCOPED_TRACE("leaf " + e[i].path);
    EXPECT_EQ(a[i].scalar, e[i].scalar);
    EXPECT_EQ(a[i].none, e[i].none);
    if (e[i].none) continue;
    EXPECT_EQ(a[i].value.scalar_type(), e[i].value.scalar_type());
    EXPECT_EQ(a[i].value.sizes(), e[i].value.sizes());
    EXPECT_TRUE(at::allclose(a[i].value, e[i].value, 1e-6, 1e-6));
  }
}

void expect_matches_eager(const std::shared_ptr<Backend>& backend, const Call& call) {
  expect_same(run_on(backend, call).value, eager(call));
}

// The graph's nodes other than constants.
std::vector<std::string> op_nodes(const Call& call) {
  std::vector<std::string> kinds;
  std::shared_ptr<torch::jit::Graph> graph = single_op_graph(call);
  for (const torch::jit::Node* node : graph->nodes())
    if (node->kind() != c10::prim::Constant) kinds.push_back(node->kind().toQualString());
  return kinds;
}

TEST(TorchScriptCpu, AddTensorWithAlphaMatchesEager) {
  expect_matches_eager(make_torchscript_cpu(),
                       op_call("add.Tensor", {seeded({3, 4}, 1), seeded({4}, 2)}, {{"alpha", 3}}));
}

TEST(TorchScriptCpu, MmMatchesEager) {
  expect_matches_eager(make_torchscript_cpu(), op_call("mm.default", {seeded({3, 5}, 3), seeded({5, 2}, 4)}));
}

TEST(TorchScriptCpu, CatOfATensorListMatchesEager) {
  c10::List<at::Tensor> parts({seeded({2, 3}, 5), seeded({1, 3}, 6), seeded({4, 3}, 7)});
  expect_matches_eager(make_torchscript_cpu(), op_call("cat.default", {parts}));
}

TEST(TorchScriptCpu, SumOverDimsWithKeepdimMatchesEager) {
  Call call = op_call("sum.dim_IntList", {seeded({2, 3, 4}, 8), c10::List<int64_t>({0, 2}), true});
  ASSERT_TRUE(call.args[3].isNone());  // dtype
  expect_matches_eager(make_torchscript_cpu(), call);
}

TEST(TorchScriptCpu, ClampWithMinNoneMatchesEager) {
  Call call = op_call("clamp.Tensor", {seeded({3, 3}, 9)}, {{"max", at::zeros({3})}});
  ASSERT_TRUE(call.args[1].isNone());  // min
  expect_matches_eager(make_torchscript_cpu(), call);
}

TEST(TorchScriptCpu, TorchScriptOnlyIntAddReturnsAPythonInt) {
  Call call = op_call("aten::add.int", {2, 3});
  ASSERT_FALSE(call.op->in_dispatcher());
  c10::IValue result = run_on(make_torchscript_cpu(), call).value;
  ASSERT_TRUE(result.isInt());
  EXPECT_EQ(result.toInt(), 5);
}

TEST(TorchScriptCpu, InPlaceAddMatchesEager) {
  expect_matches_eager(make_torchscript_cpu(), op_call("add_.Tensor", {seeded({4}, 10), seeded({4}, 11)}));
}

TEST(TorchScriptCpu, OutOverloadMatchesEager) {
  expect_matches_eager(make_torchscript_cpu(),
                       op_call("add.out", {seeded({4}, 12), seeded({4}, 13)}, {{"out", at::empty({4})}}));
}

TEST(TorchScriptCpu, RepeatedRunsOfOneModelGiveTheSameValues) {
  Call call = op_call("mul.Tensor", {seeded({5}, 14), seeded({5}, 15)});
  auto model = make_torchscript_cpu()->prepare(deep_copy(call));
  c10::IValue first = model->run(deep_copy(call)).value;
  expect_same(model->run(deep_copy(call)).value, first);
  expect_same(first, eager(call));
}

TEST(SingleOpGraph, HasExactlyTheOpNodeWithTensorsAsInputs) {
  Call add = op_call("add.Tensor", {seeded({2}, 1), seeded({2}, 2)}, {{"alpha", 2}});
  EXPECT_EQ(op_nodes(add), std::vector<std::string>{"aten::add"});
  EXPECT_EQ(single_op_graph(add)->inputs().size(), 2u);

  Call cat = op_call("cat.default", {c10::List<at::Tensor>({seeded({2}, 1)})});
  EXPECT_EQ(op_nodes(cat), std::vector<std::string>{"aten::cat"});
  ASSERT_EQ(single_op_graph(cat)->inputs().size(), 1u);
  EXPECT_EQ(single_op_graph(cat)->inputs()[0]->type()->str(), "Tensor[]");
}

TEST(SingleOpGraph, NoneOptionalTensorIsAConstantAndIntOpHasNoInputs) {
  Call clamp = op_call("clamp.Tensor", {seeded({3}, 1)}, {{"max", at::zeros({3})}});
  EXPECT_EQ(op_nodes(clamp), std::vector<std::string>{"aten::clamp"});
  EXPECT_EQ(single_op_graph(clamp)->inputs().size(), 2u);  // self, max

  Call add_int = op_call("aten::add.int", {2, 3});
  EXPECT_EQ(op_nodes(add_int), std::vector<std::string>{"aten::add"});
  EXPECT_TRUE(single_op_graph(add_int)->inputs().empty());
}

TEST(TorchScriptCpu, KernelErrorsCarryTheKernelsOwnMessage) {
  Call call = op_call("add.Tensor", {seeded({3}, 16), seeded({4}, 17)});
  std::string expected;
  try {
    eager(call);
  } catch (const c10::Error& e) { expected = e.what_without_backtrace(); }
  ASSERT_FALSE(expected.empty());
  auto model = make_torchscript_cpu()->prepare(deep_copy(call));
  try {
    model->run(deep_copy(call));
    FAIL() << "expected the kernel's error";
  } catch (const std::runtime_error& e) { EXPECT_EQ(std::string(e.what()), expected); }
}

class FusedBackends : public testing::TestWithParam<std::shared_ptr<Backend> (*)()> {};

TEST_P(FusedBackends, PointwiseAddFormsAFusionGroupAndMatchesEager) {
  Call call = op_call("add.Tensor", {seeded({4, 8}, 20), seeded({4, 8}, 21)}, {{"alpha", 2}});
  Output out = run_on(GetParam()(), call);
  EXPECT_EQ(note(out, "fused"), "true");
  expect_same(out.value, eager(call));
}

TEST_P(FusedBackends, MmIsNotFusedAndStillCorrect) {
  Call call = op_call("mm.default", {seeded({3, 4}, 22), seeded({4, 2}, 23)});
  Output out = run_on(GetParam()(), call);
  EXPECT_EQ(note(out, "fused"), "false");
  expect_same(out.value, eager(call));
}

TEST_P(FusedBackends, InputsOverTheSizeCapAreSkippedWithTheReason) {
  Call call = op_call("add.Tensor", {seeded({64, 64}, 24), seeded({64, 64}, 25)});
  try {
    GetParam()()->prepare(call);
    FAIL() << "expected Skip";
  } catch (const Skip& e) {
    EXPECT_NE(std::string(e.what()).find("8192 elements, over the 4096"), std::string::npos) << e.what();
  }
}

TEST_P(FusedBackends, GlobalFuserSwitchesAreRestoredAfterARun) {
  namespace jit = torch::jit;
  auto state = [] {
    return std::make_tuple(jit::canFuseOnCPU(), jit::tensorExprFuserEnabled(), jit::tensorexpr::getTEMustUseLLVMOnCPU(),
                           jit::getFusionGroupInlining(), jit::texprReductionsEnabled(), jit::getFusionStrategy());
  };
  auto before = state();
  ASSERT_FALSE(jit::canFuseOnCPU());  // the default this test relies on
  run_on(GetParam()(), op_call("mul.Tensor", {seeded({3}, 26), seeded({3}, 27)}));
  EXPECT_EQ(state(), before);
}

TEST_P(FusedBackends, RunsWithoutPrintingToStderr) {
  testing::internal::CaptureStderr();
  run_on(GetParam()(), op_call("sum.dim_IntList", {seeded({4, 6}, 28), c10::List<int64_t>({1})}));
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "");
}

INSTANTIATE_TEST_SUITE_P(StaticAndDynamic, FusedBackends,
                         testing::Values(&make_torchscript_cpu_fused, &make_torchscript_cpu_fused_dynamic),
                         [](const auto& info) { return info.param()->name(); });  // a CTest name that reads

TEST(TorchScriptCpu, PlainBackendDoesNotFuse) {
  Output out = run_on(make_torchscript_cpu(), op_call("add.Tensor", {seeded({4}, 29), seeded({4}, 30)}));
  EXPECT_EQ(note(out, "fused"), "(none)");
  EXPECT_FALSE(torch::jit::canFuseOnCPU());
}

struct Identity : suite::Module {
  c10::IValue forward(const std::vector<c10::IValue>& args, const suite::Kwargs&) override { return args.at(0); }
};

TEST(TorchScriptCpu, ModuleCallsAreSkippedWithTheReason) {
  Call call;
  call.module = std::make_shared<Identity>();
  call.module_path = "mylib.Identity";
  call.args = {at::ones({2})};
  try {
    make_torchscript_cpu()->prepare(call);
    FAIL() << "expected Skip";
  } catch (const Skip& e) {
    EXPECT_NE(std::string(e.what()).find("torch::nn modules built in C++ cannot be scripted"), std::string::npos);
  }
}

TEST(TorchScriptCpu, AScriptModuleRunsFrozenAndOptimizedWithoutChangingTheShared) {
  namespace fs = std::filesystem;
  fs::path dir = fs::path(::testing::TempDir()) / "runner_script_modules";
  fs::create_directories(dir);
  torch::jit::Module m("Scaled");
  m.register_parameter("weight", at::full({3}, 2.0), false);
  m.define("def forward(self, x, shift: float = 0.0):\n  return x * self.weight + shift\n");
  m.save((dir / "scaled.pt").string());
  Call call;
  call.module = suite::make_module("file:" + (dir / "scaled.pt").string(), {}, {});
  call.module_path = "file:scaled.pt";
  call.args = {at::ones({3})};
  call.kwargs = {{"shift", c10::IValue(1.0)}};
  Output out = run_on(make_torchscript_cpu(), call);
  EXPECT_TRUE(out.value.toTensor().equal(at::full({3}, 3.0)));
  // Freezing inlined the weight into a copy: the shared module still has it as an attribute.
  ASSERT_NE(call.module->script_module(), nullptr);
  EXPECT_TRUE(call.module->script_module()->hasattr("weight"));
  EXPECT_THROW(make_torchscript_cpu_fused()->prepare(call), Skip);
}

}  // namespace
}  // namespace opsfuzz::runner
