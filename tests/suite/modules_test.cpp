// Modules: every built-in name runs with the documented shapes; eval mode; registration; files.
#include "suite/modules.h"

#include <torch/script.h>
#include <torch/torch.h>

#include <filesystem>
#include <fstream>
#include <set>

#include "suite/materialize.h"
#include "run_util.h"
#include "test_util.h"

namespace opsfuzz::suite {
namespace {

using testing::data;

// Whether `v` has the structure the `out` node describes (tensor shapes and kinds, tuples).
void expect_matches(const c10::IValue& v, const YamlValue& out, const std::string& where) {
  const YamlValue* type = out.find("type");
  ASSERT_TRUE(type) << where;
  if (type->s == "tuple") {
    ASSERT_TRUE(v.isTuple()) << where;
    const auto& elems = out.find("elems")->items;
    ASSERT_EQ(v.toTupleRef().elements().size(), elems.size()) << where;
    for (size_t k = 0; k < elems.size(); ++k)
      expect_matches(v.toTupleRef().elements()[k], elems[k], where + "[" + std::to_string(k) + "]");
    return;
  }
  ASSERT_TRUE(v.isTensor()) << where;
  std::vector<int64_t> shape;
  for (const auto& d : out.find("shape")->items) shape.push_back(d.i);
  EXPECT_EQ(v.toTensor().sizes().vec(), shape) << where;
  if (const YamlValue* kind = out.find("kind"))
    EXPECT_EQ(v.toTensor().is_floating_point(), kind->s == "float") << where;
  if (const YamlValue* dtype = out.find("dtype"))
    EXPECT_EQ(v.toTensor().scalar_type(), at::kDouble) << where << " " << dtype->s;
}

TEST(Modules, EveryBuiltinRunsWithTheExpectedShapes) {
  Suite s = load_suite(data("modules.yaml"));
  for (const auto& test : s.tests) {
    Ran o = run_test(test, 0);
    ASSERT_EQ(o.status, Status::Ok) << test.id << ": " << o.message;
    expect_matches(o.output, *test.out, test.id);
  }
}

TEST(Modules, TheFixtureCoversEveryBuiltinName) {
  Suite s = load_suite(data("modules.yaml"));
  std::set<std::string> used;
  for (const auto& t : s.tests) used.insert(t.module->path);
  for (const auto& name : registered_modules())
    if (name.starts_with("torch.nn.")) EXPECT_TRUE(used.count(name)) << name << " has no test";
  EXPECT_GE(registered_modules().size(), 60u);
}

// Runs `op` (a module node in YAML flow style) on one input node.
Ran run_one(const std::string& op, const std::string& in, uint64_t seed = 0) {
  Suite s = testing::valid("tests:\n  - {id: m, op: " + op + ", in: [" + in + "]}\n");
  return run_test(s.tests.at(0), seed);
}

TEST(Modules, EvalModeAndSemantics) {
  const char* x = "{type: tensor, shape: [4, 5], kind: float}";
  Suite s = testing::valid(std::string("tests:\n  - {id: m, op: aten::relu, in: [") + x + "]}\n");
  at::Tensor input = materialize_inputs(s.tests[0], 0).args[0].toTensor();
  auto output = [&](const std::string& op) {
    Ran o = run_one(op, x);
    EXPECT_EQ(o.status, Status::Ok) << o.message;
    return o.output.toTensor();
  };
  // Inputs are seeded by test id, so every run_one below sees `input`.
  EXPECT_TRUE(output("{type: module, path: torch.nn.Dropout, args: [0.9]}").equal(input));
  EXPECT_TRUE(output("{type: module, path: torch.nn.Hardswish}").equal(at::hardswish(input)));
  EXPECT_TRUE(output("{type: module, path: torch.nn.Softmax}").equal(at::softmax(input, 1)));  // implicit dim
  EXPECT_TRUE(output("{type: module, path: torch.nn.ReLU6}").equal(at::clamp(input, 0, 6)));
  // A fresh BatchNorm in eval mode uses its running stats (mean 0, var 1).
  at::Tensor bn = output("{type: module, path: torch.nn.BatchNorm1d, args: [5]}");
  EXPECT_TRUE(bn.allclose(input / std::sqrt(1 + 1e-5)));
}

// The C++ layers are sequence-first: batch_first=True must equal the transposed computation.
TEST(Modules, BatchFirstMatchesSequenceFirst) {
  at::Tensor x = at::randn({5, 2, 8});  // (sequence, batch, features)
  at::Tensor xb = x.transpose(0, 1).contiguous();
  for (const char* path : {"torch.nn.MultiheadAttention", "torch.nn.TransformerEncoderLayer"}) {
    bool attention = std::string(path).ends_with("Attention");
    std::vector<c10::IValue> inputs = attention ? std::vector<c10::IValue>{x, x, x} : std::vector<c10::IValue>{x};
    std::vector<c10::IValue> batch_inputs =
        attention ? std::vector<c10::IValue>{xb, xb, xb} : std::vector<c10::IValue>{xb};
    torch::manual_seed(3);
    auto seq = make_module(path, {8, 2}, {});
    torch::manual_seed(3);
    auto batch = make_module(path, {8, 2}, {{"batch_first", true}});
    c10::IValue a = seq->forward(inputs, {}), b = batch->forward(batch_inputs, {});
    at::Tensor ta = attention ? a.toTupleRef().elements()[0].toTensor() : a.toTensor();
    at::Tensor tb = attention ? b.toTupleRef().elements()[0].toTensor() : b.toTensor();
    EXPECT_TRUE(ta.allclose(tb.transpose(0, 1), 1e-5, 1e-6)) << path;
  }
}

TEST(Modules, UpsampleSizeAppliesToEverySpatialDim) {
  auto up = make_module("torch.nn.Upsample", {}, {{"size", 3}});
  EXPECT_EQ(up->forward({at::ones({1, 1, 2})}, {}).toTensor().sizes(), at::IntArrayRef({1, 1, 3}));
  EXPECT_EQ(up->forward({at::ones({1, 1, 2, 2})}, {}).toTensor().sizes(), at::IntArrayRef({1, 1, 3, 3}));
}

TEST(Modules, WeightsAreDeterministic) {
  const char* linear = "{type: module, path: torch.nn.Linear, args: [4, 3]}";
  const char* x = "{type: tensor, shape: [2, 4], kind: float}";
  at::Tensor a = run_one(linear, x, 5).output.toTensor();
  EXPECT_TRUE(a.equal(run_one(linear, x, 5).output.toTensor()));
  EXPECT_FALSE(a.equal(run_one(linear, x, 6).output.toTensor()));
}

TEST(Modules, ConstructorArgumentsBoundLikePython) {
  auto error = [](const std::string& op) { return run_one(op, "{type: tensor, shape: [2, 4], kind: float}").message; };
  EXPECT_NE(error("{type: module, path: torch.nn.Linear, args: [4]}")
                .find("torch.nn.Linear missing required argument 'out_features'"),
            std::string::npos);
  EXPECT_NE(error("{type: module, path: torch.nn.Linear, args: [4, 3], kwargs: {baias: true}}")
                .find("unexpected keyword argument 'baias' (did you mean 'bias'?)"),
            std::string::npos);
  EXPECT_NE(error("{type: module, path: torch.nn.Linear, args: [4, 3], kwargs: {in_features: 4}}")
                .find("multiple values for argument 'in_features'"),
            std::string::npos);
  EXPECT_NE(error("{type: module, path: torch.nn.Linear, args: [4.5, 3]}")
                .find("argument 'in_features' expects int, got Double"),
            std::string::npos);
  EXPECT_NE(error("{type: module, path: torch.nn.Lineer, args: [4, 3]}")
                .find("unknown module 'torch.nn.Lineer' (did you mean 'torch.nn.Linear'?)"),
            std::string::npos);
}

// A user's module: multiplies by `factor` and adds `shift`.
class Scale : public Module {
 public:
  Scale(double factor, double shift) : factor_(factor), shift_(shift) {}
  c10::IValue forward(const std::vector<c10::IValue>& args, const Kwargs&) override {
    return args.at(0).toTensor() * factor_ + shift_;
  }

 private:
  double factor_, shift_;
};

TEST(Modules, UsersRegisterTheirOwnNames) {
  register_module("mylib.Scale", {"factor", {"shift", 0.0}},
                  [](const Bound& b) { return std::make_shared<Scale>(b.d("factor"), b.d("shift")); });
  EXPECT_TRUE(is_registered_module("mylib.Scale"));
  Ran o = run_one("{type: module, path: mylib.Scale, args: [3], kwargs: {shift: 1}}",
                  "{type: const_tensor, shape: [2], kind: float, value: [1, 2]}");
  ASSERT_EQ(o.status, Status::Ok) << o.message;
  EXPECT_TRUE(o.output.toTensor().equal(at::tensor({4.0f, 7.0f})));
}

TEST(Modules, TorchScriptFiles) {
  namespace fs = std::filesystem;
  fs::path dir = fs::path(::testing::TempDir()) / "suite_script_modules";
  fs::create_directories(dir);
  torch::jit::Module inner("Inner");
  inner.define("def forward(self, x):\n  return x + 1\n");
  torch::jit::Module outer("Outer");
  outer.register_module("inner", inner);
  outer.define("def forward(self, x, scale: float = 2.0):\n  return self.inner.forward(x) * scale\n");
  outer.save((dir / "model.pt").string());
  std::ofstream(dir / "suite.yaml") << R"(tests:
  - {id: whole, op: {type: module, path: file:model.pt}, in: [{type: const_tensor, shape: [1], kind: float, value: [1]}]}
  - {id: kw, op: {type: module, path: file:model.pt}, in: [{type: const_tensor, shape: [1], kind: float, value: [1]}], kwargs: {scale: {type: const, value: 3.0}}}
  - {id: sub, op: {type: module, path: "file:model.pt::inner"}, in: [{type: const_tensor, shape: [1], kind: float, value: [1]}]}
  - {id: py, op: {type: module, path: "file:model.py::M"}, in: []}
  - {id: missing, op: {type: module, path: file:missing.pt}, in: []}
)";
  auto outcomes = run_eager(load_suite((dir / "suite.yaml").string()));
  ASSERT_EQ(outcomes.size(), 5u);
  ASSERT_EQ(outcomes[0].status, Status::Ok) << outcomes[0].message;
  EXPECT_EQ(outcomes[0].output.toTensor().item<float>(), 4.0f);
  ASSERT_EQ(outcomes[1].status, Status::Ok) << outcomes[1].message;
  EXPECT_EQ(outcomes[1].output.toTensor().item<float>(), 6.0f);
  ASSERT_EQ(outcomes[2].status, Status::Ok) << outcomes[2].message;
  EXPECT_EQ(outcomes[2].output.toTensor().item<float>(), 2.0f);
  EXPECT_EQ(outcomes[3].status, Status::Skipped);
  EXPECT_EQ(outcomes[3].message,
            "unsupported: Python source modules cannot be loaded; save the module with "
            "torch.jit.save and use file:PATH.pt");
  EXPECT_EQ(outcomes[4].status, Status::Error);
}

}  // namespace
}  // namespace opsfuzz::suite
