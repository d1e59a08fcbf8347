// The eager backends on real operators and modules: eager_cpu, its float64, float16 and bfloat16
// variants, and the non-contiguous one.
#include <gtest/gtest.h>
#include <torch/script.h>

#include <filesystem>
#include <set>

#include "tests/runner/calls.h"
#include "runner/backend.h"
#include "suite/modules.h"

namespace opsfuzz::runner {
namespace {

Call module_call(const std::string& path, std::shared_ptr<suite::Module> module, const opcall::Stack& args) {
  Call call;
  call.module = std::move(module);
  call.module_path = path;
  call.args = args;
  return call;
}

std::shared_ptr<suite::Module> module(const std::string& path, const opcall::Stack& args = {}) {
  return suite::make_module(path, args, {});
}

Output run(const std::string& backend, const Call& call) { return find_backend(backend)->prepare(call)->run(call); }

at::Tensor run_tensor(const std::string& backend, const Call& call) { return run(backend, call).value.toTensor(); }

std::string note(const Output& out, const std::string& key) {
  for (const auto& [k, v] : out.notes)
    if (k == key) return v;
  return "";
}

// Deterministic values of a given shape (no random source needed).
at::Tensor values(at::IntArrayRef shape, at::ScalarType dtype = at::kFloat) {
  int64_t n = c10::multiply_integers(shape);
  return at::arange(n, at::kDouble).mul(0.7).sin().mul(3).reshape(shape).to(dtype);
}

at::Tensor ints(at::IntArrayRef shape) {
  return at::arange(c10::multiply_integers(shape), at::kLong).mul(37).remainder(23).reshape(shape);
}

const std::vector<std::string> eager_names = {"eager_cpu", "eager_cpu_fp64", "eager_cpu_fp16", "eager_cpu_bf16",
                                              "eager_cpu_noncontig"};

TEST(EagerBackends, AreRegisteredUnderTheirNames) {
  for (const auto& name : eager_names) {
    auto backend = find_backend(name);
    EXPECT_EQ(backend->name(), name);
    EXPECT_FALSE(backend->unavailable().has_value()) << name;
    EXPECT_GT(backend->description().size(), 20u) << name;
  }
}

TEST(EagerBackends, RefuseACallWithoutOperatorOrModule) {
  for (const auto& name : eager_names) EXPECT_THROW(find_backend(name)->prepare(Call{}), std::invalid_argument) << name;
}

// ------------------------------------------------------------------------------ eager_cpu

TEST(EagerCpu, AddTensorGivesTheDispatcherResult) {
  at::Tensor x = values({3, 4}), y = values({4});
  at::Tensor out = run_tensor("eager_cpu", op_call("add.Tensor", {x, y}, {{"alpha", 2}}));
  EXPECT_TRUE(out.equal(at::add(x, y, 2)));
}

TEST(EagerCpu, MultipleOutputsComeAsATuple) {
  Output out = run("eager_cpu", op_call("max.dim", {values({3, 4}), 1}));
  ASSERT_TRUE(out.value.isTuple());
  auto [expected_values, expected_indices] = at::max(values({3, 4}), 1);
  EXPECT_TRUE(out.value.toTupleRef().elements()[0].toTensor().equal(expected_values));
  EXPECT_TRUE(out.value.toTupleRef().elements()[1].toTensor().equal(expected_indices));
}

TEST(EagerCpu, RunsOnAFreshCopyOfTheInputsEachTime) {
  at::Tensor x = values({4}), y = values({4});
  Call call = op_call("add_.Tensor", {x.clone(), y});
  auto model = find_backend("eager_cpu")->prepare(call);
  at::Tensor first = model->run(call).value.toTensor();
  at::Tensor second = model->run(call).value.toTensor();
  EXPECT_TRUE(first.equal(x + y));
  EXPECT_TRUE(second.equal(x + y));
  EXPECT_TRUE(call.args[0].toTensor().equal(x));  // the caller's input is untouched
}

TEST(EagerCpu, RunsAModulesForward) {
  auto linear = module("torch.nn.Linear", {3, 2});
  at::Tensor x = values({4, 3});
  at::Tensor out = run_tensor("eager_cpu", module_call("torch.nn.Linear", linear, {x}));
  EXPECT_EQ(out.sizes(), (at::IntArrayRef{4, 2}));
  EXPECT_TRUE(out.equal(linear->forward({x}, {}).toTensor()));
}

// ------------------------------------------------------------------------------ eager_cpu_fp64

TEST(EagerCpuFp64, MmGivesEagersDtypeAndValues) {
  Call call = op_call("mm.default", {values({3, 5}), values({5, 2})});
  Output out = run("eager_cpu_fp64", call);
  at::Tensor eager = run_tensor("eager_cpu", call);
  EXPECT_EQ(out.value.toTensor().scalar_type(), at::kFloat);
  EXPECT_TRUE(out.value.toTensor().allclose(eager, 1e-5, 1e-5));
  EXPECT_EQ(note(out, "output_dtypes"), "as the original call's");
  EXPECT_FALSE(out.precision.has_value());
}

TEST(EagerCpuFp64, IllConditionedSumIsCloserToTheFloat64Truth) {
  at::Tensor x = at::tensor({1e8f, 1.f, -1e8f});
  double truth = x.to(at::kDouble).sum().item<double>();  // 1
  Call call = op_call("sum.default", {x});
  double eager = run_tensor("eager_cpu", call).item<double>();
  at::Tensor fp64 = run_tensor("eager_cpu_fp64", call);
  EXPECT_EQ(fp64.scalar_type(), at::kFloat);
  EXPECT_LT(std::abs(fp64.item<double>() - truth), std::abs(eager - truth));
}

TEST(EagerCpuFp64, TensorListInputsAreUpcast) {
  // einsum("i->") sums its one list operand: exact only when that operand was upcast.
  Call call = op_call("einsum.default", {std::string("i->"), c10::List<at::Tensor>({at::tensor({1e8f, 1.f, -1e8f})})});
  at::Tensor out = run_tensor("eager_cpu_fp64", call);
  EXPECT_EQ(out.scalar_type(), at::kFloat);
  EXPECT_EQ(out.item<float>(), 1.f);
  EXPECT_NE(run_tensor("eager_cpu", call).item<float>(), 1.f);
}

TEST(EagerCpuFp64, CatOfFloatTensorsEqualsEager) {
  Call call = op_call("cat.default", {c10::List<at::Tensor>({values({2, 3}), values({1, 3})})});
  at::Tensor out = run_tensor("eager_cpu_fp64", call);
  EXPECT_EQ(out.scalar_type(), at::kFloat);
  EXPECT_TRUE(out.equal(run_tensor("eager_cpu", call)));  // float32 -> float64 -> float32 is exact
}

TEST(EagerCpuFp64, RequestedDtypeArgumentIsKept) {
  for (at::ScalarType requested : {at::kDouble, at::kFloat, at::kHalf}) {
    Call call = op_call("sum.dim_IntList", {values({3, 4}), std::vector<int64_t>{1}},
                        {{"dtype", static_cast<int64_t>(requested)}});
    at::Tensor eager = run_tensor("eager_cpu", call);
    at::Tensor fp64 = run_tensor("eager_cpu_fp64", call);
    EXPECT_EQ(eager.scalar_type(), requested);
    EXPECT_EQ(fp64.scalar_type(), requested);
    EXPECT_TRUE(fp64.allclose(eager, 1e-3, 1e-3)) << c10::toString(requested);
  }
}

TEST(EagerCpuFp64, WithoutMetaKernelDtypesComeFromTheOriginalCall) {
  // nansum has no meta kernel in this build: its dtypes are learnt from a run on a copy of the
  // inputs, and a dtype argument keeps its own.
  Call plain = op_call("nansum.default", {values({3, 4})});
  Output out = run("eager_cpu_fp64", plain);
  EXPECT_EQ(note(out, "output_dtypes"), "as the original call's");
  EXPECT_EQ(out.value.toTensor().scalar_type(), at::kFloat);
  Call requested = op_call("nansum.default", {values({3, 4})}, {{"dtype", int64_t(at::kDouble)}});
  EXPECT_EQ(run_tensor("eager_cpu_fp64", requested).scalar_type(), at::kDouble);
}

TEST(EagerCpuFp64, SkipsACallOfMixedDtypesTheCpuKernelRefusesThoughItsMetaKernelRunsIt) {
  // avg_pool2d_backward's meta kernel runs a float32 grad_output with a float64 self; its CPU
  // kernel refuses it ("expected dtype double for `gradOutput`"). In float64 both are one dtype,
  // and the refusal would vanish: not the same call.
  Call call = op_call("avg_pool2d_backward.default",
                      {values({1, 1, 4}), values({1, 1, 6}, at::kDouble), std::vector<int64_t>{2, 2},
                       std::vector<int64_t>{}, std::vector<int64_t>{1, 1}, false, true, c10::IValue()});
  EXPECT_THROW(run("eager_cpu", call), std::exception);
  try {
    find_backend("eager_cpu_fp64")->prepare(call);
    FAIL() << "expected Skip";
  } catch (const Skip& e) {
    EXPECT_NE(std::string(e.what()).find("the call as given is refused"), std::string::npos) << e.what();
  }
}

TEST(EagerCpuFp64, ANarrowerDtypeArgumentAsksForFloat64AndItsOutputGoesBack) {
  // linalg_vector_norm refuses a dtype narrower than its input's: the float32 call with
  // dtype=float32 runs in float64 with dtype=float64, and its result comes back as float32.
  Call call = op_call("linalg_vector_norm.default", {values({3, 4}), 2, c10::IValue(), false},
                      {{"dtype", int64_t(at::kFloat)}});
  at::Tensor eager = run_tensor("eager_cpu", call), fp64 = run_tensor("eager_cpu_fp64", call);
  EXPECT_EQ(fp64.scalar_type(), at::kFloat);
  EXPECT_TRUE(fp64.allclose(eager, 1e-6, 1e-6)) << fp64 << eager;
  // Without a floating input to convert, the call runs as it is: a sum of integers asking for
  // float16 gives float16.
  Call integers = op_call("sum.default", {ints({3, 4})}, {{"dtype", int64_t(at::kHalf)}});
  EXPECT_EQ(run_tensor("eager_cpu_fp64", integers).scalar_type(), at::kHalf);
}

TEST(EagerCpuFp64, ComplexOutputsGoBackToComplex64) {
  // polar (no meta kernel here) makes complex64 from float32; add keeps complex64.
  Call polar = op_call("polar.default", {values({4}).abs(), values({4})});
  at::Tensor out = run_tensor("eager_cpu_fp64", polar);
  EXPECT_EQ(out.scalar_type(), at::kComplexFloat);
  EXPECT_TRUE(out.allclose(run_tensor("eager_cpu", polar), 1e-5, 1e-5));
  at::Tensor z = at::complex(values({4}), values({4}).neg());
  EXPECT_EQ(run_tensor("eager_cpu_fp64", op_call("add.Tensor", {z, z})).scalar_type(), at::kComplexFloat);
}

TEST(EagerCpuFp64, IntegerOpIsRunAsIs) {
  Call call = op_call("bitwise_and.Tensor", {ints({3, 4}), ints({4}).add(5)});
  Output out = run("eager_cpu_fp64", call);
  EXPECT_EQ(out.value.toTensor().scalar_type(), at::kLong);
  EXPECT_TRUE(out.value.toTensor().equal(run_tensor("eager_cpu", call)));
  EXPECT_TRUE(out.notes.empty());  // nothing converted, nothing cast back
}

// ------------------------------------------------------------------------------ fp16, bf16

TEST(EagerCpuFp16, AddMatchesEagerWithinHalfToleranceAndSaysSo) {
  Call call = op_call("add.Tensor", {values({3, 4}), values({3, 4}).neg().mul(0.3)});
  Output out = run("eager_cpu_fp16", call);
  EXPECT_EQ(out.precision, at::kHalf);
  EXPECT_EQ(out.value.toTensor().scalar_type(), at::kFloat);
  at::Tensor eager = run_tensor("eager_cpu", call);
  EXPECT_TRUE(out.value.toTensor().allclose(eager, 2e-3, 2e-3));
  EXPECT_FALSE(out.value.toTensor().equal(eager));  // it really ran in Half
}

TEST(EagerCpuBf16, CatMatchesEagerWithinBFloat16ToleranceAndSaysSo) {
  Call call = op_call("cat.default", {c10::List<at::Tensor>({values({2, 3}), values({1, 3})})});
  Output out = run("eager_cpu_bf16", call);
  EXPECT_EQ(out.precision, at::kBFloat16);
  EXPECT_EQ(out.value.toTensor().scalar_type(), at::kFloat);
  at::Tensor eager = run_tensor("eager_cpu", call);
  EXPECT_TRUE(out.value.toTensor().allclose(eager, 1e-2, 1e-2));
  EXPECT_FALSE(out.value.toTensor().equal(eager));
}

TEST(EagerCpuFp16, DtypeArgumentOutputsKeepTheirDtype) {
  Call call = op_call("sum.dim_IntList", {values({3, 4}), std::vector<int64_t>{0}}, {{"dtype", int64_t(at::kDouble)}});
  at::Tensor out = run_tensor("eager_cpu_fp16", call);
  EXPECT_EQ(out.scalar_type(), at::kDouble);
  EXPECT_TRUE(out.allclose(run_tensor("eager_cpu", call), 1e-2, 1e-2));
}

TEST(EagerCpuFp16, OpWithoutAHalfKernelThrows) {
  Call call = op_call("mm.default", {values({3, 5}), values({5, 2})});
  EXPECT_THROW(
      {
        try {
          run("eager_cpu_fp16", call);
        } catch (const c10::Error& e) {
          EXPECT_NE(std::string(e.what()).find("not implemented for 'Half'"), std::string::npos);
          throw;
        }
      },
      c10::Error);
}

TEST(EagerCpuFp16, IntegerOpEqualsEagerWithoutPrecision) {
  Call call = op_call("add.Tensor", {ints({3, 4}), ints({3, 4})});
  for (const char* backend : {"eager_cpu_fp16", "eager_cpu_bf16"}) {
    Output out = run(backend, call);
    EXPECT_TRUE(out.value.toTensor().equal(run_tensor("eager_cpu", call))) << backend;
    EXPECT_FALSE(out.precision.has_value()) << backend;
  }
}

// ------------------------------------------------------------------------------ noncontig

// alias returns a view of its input: what the kernel was given.
TEST(EagerCpuNoncontig, InputsAreNonContiguousWithTheSameValues) {
  std::set<std::string> seen;
  for (const std::vector<int64_t>& shape : std::vector<std::vector<int64_t>>{{5}, {3, 4}, {2, 3, 4, 5}}) {
    at::Tensor x = values(shape);
    for (uint64_t seed = 0; seed < 12; ++seed) {
      Output out = run("eager_cpu_noncontig", op_call("alias.default", {x}, {}, seed));
      at::Tensor given = out.value.toTensor();
      EXPECT_FALSE(given.is_contiguous()) << note(out, "layout");
      EXPECT_TRUE(given.equal(x));
      seen.insert(note(out, "layout"));
    }
  }
  EXPECT_EQ(seen, (std::set<std::string>{"self strided", "self transposed", "self channels_last"}));
}

TEST(EagerCpuNoncontig, ChannelsLastIsTheChannelsLastFormat) {
  for (uint64_t seed = 0; seed < 12; ++seed) {
    Output out = run("eager_cpu_noncontig", op_call("alias.default", {values({2, 3, 4, 5})}, {}, seed));
    if (note(out, "layout") == "self channels_last")
      EXPECT_TRUE(out.value.toTensor().is_contiguous(at::MemoryFormat::ChannelsLast));
  }
}

TEST(EagerCpuNoncontig, TheSeedDecidesTheLayouts) {
  auto layouts = [](uint64_t seed) {
    Call call =
        op_call("cat.default", {c10::List<at::Tensor>({values({2, 3}), values({2, 3}), values({2, 3})})}, {}, seed);
    return note(run("eager_cpu_noncontig", call), "layout");
  };
  EXPECT_EQ(layouts(7), layouts(7));
  std::set<std::string> distinct;
  for (uint64_t seed = 0; seed < 8; ++seed) distinct.insert(layouts(seed));
  EXPECT_GT(distinct.size(), 1u);
  EXPECT_NE(layouts(7).find("tensors[2] "), std::string::npos) << layouts(7);
}

TEST(EagerCpuNoncontig, IntegerResultsEqualEager) {
  Call and_call = op_call("bitwise_and.Tensor", {ints({3, 4}), ints({3, 4}).add(3)}, {}, 5);
  Output out = run("eager_cpu_noncontig", and_call);
  EXPECT_TRUE(out.value.toTensor().equal(run_tensor("eager_cpu", and_call)));
  EXPECT_NE(note(out, "layout").find("self "), std::string::npos);
  EXPECT_NE(note(out, "layout").find("other "), std::string::npos);
  Call cat_call = op_call("cat.default", {c10::List<at::Tensor>({ints({2, 3}), ints({4, 3})})}, {}, 5);
  EXPECT_TRUE(run_tensor("eager_cpu_noncontig", cat_call).equal(run_tensor("eager_cpu", cat_call)));
}

TEST(EagerCpuNoncontig, FloatResultsEqualEagerForAnElementwiseOp) {
  Call call = op_call("mul.Tensor", {values({4, 6}), values({4, 6}).add(1)}, {}, 3);
  EXPECT_TRUE(run_tensor("eager_cpu_noncontig", call).equal(run_tensor("eager_cpu", call)));
}

TEST(EagerCpuNoncontig, TensorsThatCannotBeNonContiguousStayAsTheyAre) {
  Call call = op_call("add.Tensor", {values({1, 1}), at::tensor(2.f)});
  Output out = run("eager_cpu_noncontig", call);
  EXPECT_EQ(note(out, "layout"), "self unchanged, other unchanged");
  EXPECT_TRUE(out.value.toTensor().equal(run_tensor("eager_cpu", call)));
}

TEST(EagerCpuNoncontig, SkipsOperatorsWhoseResultsDependOnStrides) {
  Call call = op_call("as_strided.default", {values({3, 4}), std::vector<int64_t>{2, 2}, std::vector<int64_t>{1, 2}});
  try {
    find_backend("eager_cpu_noncontig")->prepare(call);
    FAIL() << "expected Skip";
  } catch (const Skip& e) {
    EXPECT_EQ(std::string(e.what()), "aten::as_strided: its result depends on the input's strides by contract");
  }
}

// The fact behind the skip, on the kernel itself: native_layer_norm_backward reads its mean as
// contiguous memory, so the same values in a strided copy give other grads; autograd only ever
// hands it the forward's contiguous mean. eager_cpu_noncontig leaves such internal ops alone.
TEST(EagerCpuNoncontig, SkipsInternalOpsWhoseKernelsReadContiguousMemory) {
  at::Tensor x = values({4, 6}).to(at::kDouble), weight = values({6}).to(at::kDouble).add(1);
  at::Tensor bias = values({6}).to(at::kDouble), grad = values({4, 6}).to(at::kDouble).neg();
  Call forward = op_call("native_layer_norm.default", {x, std::vector<int64_t>{6}, weight, bias, 1e-5});
  auto stats = run("eager_cpu", forward).value.toTuple()->elements();
  const at::Tensor mean = stats[1].toTensor(), rstd = stats[2].toTensor();
  const at::Tensor strided_mean = at::stack({mean, at::full_like(mean, 1e30)}, -1).select(-1, 0);
  ASSERT_FALSE(strided_mean.is_contiguous());
  ASSERT_TRUE(strided_mean.equal(mean));
  auto backward = [&](const at::Tensor& m) {
    return op_call("native_layer_norm_backward.default",
                   {grad, x, std::vector<int64_t>{6}, m, rstd, weight, bias, std::vector<bool>{true, true, true}});
  };
  // Called directly: a backend's copy of the inputs would make the strided mean contiguous.
  auto grad_input = [&](const at::Tensor& m) {
    Call call = backward(m);
    return call.op->call(call.args).at(0).toTensor();
  };
  const at::Tensor right = grad_input(mean), read_wrong = grad_input(strided_mean);
  EXPECT_FALSE(at::allclose(right, read_wrong));
  try {
    find_backend("eager_cpu_noncontig")->prepare(backward(mean));
    FAIL() << "expected Skip";
  } catch (const Skip& e) {
    EXPECT_EQ(std::string(e.what()),
              "aten::native_layer_norm_backward: its kernel requires contiguous inputs by contract");
  }
}

// ------------------------------------------------------------------------------ modules

TEST(ModuleConversion, Fp64LinearLeavesTheOriginalModuleInFloat32) {
  auto linear = module("torch.nn.Linear", {3, 2});
  Call call = module_call("torch.nn.Linear", linear, {values({4, 3})});
  at::Tensor before = run_tensor("eager_cpu", call);
  Output fp64 = run("eager_cpu_fp64", call);
  // Linear refuses mixed dtypes, so these runs show where the parameters are.
  at::Tensor after = run_tensor("eager_cpu", call);
  EXPECT_EQ(after.scalar_type(), at::kFloat);
  EXPECT_TRUE(after.equal(before));
  EXPECT_EQ(fp64.value.toTensor().scalar_type(), at::kFloat);
  EXPECT_TRUE(fp64.value.toTensor().allclose(before, 1e-5, 1e-5));
  EXPECT_EQ(note(fp64, "output_dtypes"), "from promotion");
}

TEST(ModuleConversion, Fp16LinearFailsHonestlyWithoutAHalfKernel) {
  Call call = module_call("torch.nn.Linear", module("torch.nn.Linear", {3, 2}), {values({4, 3})});
  EXPECT_THROW(run("eager_cpu_fp16", call), c10::Error);
}

TEST(ModuleConversion, SequentialConvertsEveryStep) {
  auto seq = module("torch.nn.Sequential", {suite::module_to_ivalue(module("torch.nn.Linear", {3, 4})),
                                            suite::module_to_ivalue(module("torch.nn.ReLU")),
                                            suite::module_to_ivalue(module("torch.nn.Linear", {4, 2}))});
  Call call = module_call("torch.nn.Sequential", seq, {values({5, 3})});
  at::Tensor eager = run_tensor("eager_cpu", call);
  for (const char* backend : {"eager_cpu_fp64", "eager_cpu_bf16"}) {
    Output out = run(backend, call);
    EXPECT_EQ(out.value.toTensor().scalar_type(), at::kFloat) << backend;
    EXPECT_TRUE(out.value.toTensor().allclose(eager, 5e-2, 5e-2)) << backend;
  }
  EXPECT_TRUE(run_tensor("eager_cpu", call).equal(eager));
}

TEST(ModuleConversion, BatchNormRunsWithItsRunningStatisticsConverted) {
  Call call = module_call("torch.nn.BatchNorm1d", module("torch.nn.BatchNorm1d", {3}), {values({4, 3})});
  at::Tensor out = run_tensor("eager_cpu_fp64", call);
  EXPECT_TRUE(out.allclose(run_tensor("eager_cpu", call), 1e-5, 1e-5));
}

TEST(ModuleConversion, TorchScriptModuleConvertsAClone) {
  namespace fs = std::filesystem;
  fs::path dir = fs::path(::testing::TempDir()) / "runner_eager_script";
  fs::create_directories(dir);
  torch::jit::Module m("Projection");
  m.register_parameter("w", values({3, 2}), false);
  m.define("def forward(self, x):\n  return torch.mm(x, self.w)\n");  // mm refuses mixed dtypes
  m.save((dir / "projection.pt").string());
  auto script = suite::make_module("file:" + (dir / "projection.pt").string(), {}, {});
  Call call = module_call("file:projection.pt", script, {values({4, 3})});
  at::Tensor before = run_tensor("eager_cpu", call);
  at::Tensor fp64 = run_tensor("eager_cpu_fp64", call);
  EXPECT_EQ(fp64.scalar_type(), at::kFloat);
  EXPECT_TRUE(fp64.allclose(before, 1e-5, 1e-5));
  EXPECT_TRUE(run_tensor("eager_cpu", call).equal(before));
}

// A user's module that implements only forward.
class Doubler : public suite::Module {
 public:
  c10::IValue forward(const std::vector<c10::IValue>& args, const suite::Kwargs&) override {
    return args.at(0).toTensor() * 2;
  }
};

TEST(ModuleConversion, ModuleThatCannotConvertIsSkipped) {
  Call call = module_call("mylib.Doubler", std::make_shared<Doubler>(), {values({3})});
  try {
    find_backend("eager_cpu_fp64")->prepare(call);
    FAIL() << "expected Skip";
  } catch (const Skip& e) {
    EXPECT_EQ(std::string(e.what()),
              "mylib.Doubler: this module cannot be copied: its class does not implement clone()");
  }
  EXPECT_TRUE(run_tensor("eager_cpu_noncontig", call).equal(values({3}) * 2));
}

}  // namespace
}  // namespace opsfuzz::runner
