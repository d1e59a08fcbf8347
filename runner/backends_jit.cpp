// The TorchScript backends: the operator as a one-node TorchScript graph, run by the profiling
// graph executor until its optimized plan runs; the fused variants send the same graph through
// the TensorExpr fuser on CPU.
#include <torch/csrc/jit/api/module.h>
#include <torch/csrc/jit/frontend/schema_matching.h>
#include <torch/csrc/jit/ir/constants.h>
#include <torch/csrc/jit/ir/ir.h>
#include <torch/csrc/jit/passes/tensorexpr_fuser.h>
#include <torch/csrc/jit/runtime/graph_executor.h>
#include <torch/csrc/jit/tensorexpr/kernel.h>

#include <algorithm>
#include <cctype>
#include <optional>
#include <stdexcept>

#include "runner/builtin.h"
#include "runner/values.h"
#include "suite/modules.h"

// Debian's libtorch-dev does not install codegen/fuser/interface.h; libtorch_cpu exports these.
namespace torch::jit {
TORCH_API bool canFuseOnCPU();
TORCH_API void overrideCanFuseOnCPU(bool value);
}  // namespace torch::jit

namespace opsfuzz::runner {

namespace jit = torch::jit;

namespace {

// The graph of one call and which of the call's arguments feed its inputs, in order.
struct SingleOpGraph {
  std::shared_ptr<jit::Graph> graph;
  std::vector<size_t> input_args;
};

// Tensors and tensor lists vary from run to run, so they enter as graph inputs; the rest is
// part of the model, as TorchScript would see it.
bool feeds_graph_input(const c10::IValue& v) {
  if (v.isTensor()) return v.toTensor().defined();
  return v.isList() && v.toList().elementType()->isSubtypeOf(*c10::OptionalType::ofTensor());
}

// The graph value for argument `index` of the call: an input, a constant, or None for an
// undefined optional tensor. Values a graph cannot hold as constants (a Generator) are inputs.
jit::Value* argument_value(SingleOpGraph& g, const c10::Argument& arg, const c10::IValue& v, size_t index) {
  if (!feeds_graph_input(v)) {
    c10::IValue constant = v.isTensor() ? c10::IValue() : v;  // an undefined tensor is None
    if (auto value = jit::tryInsertConstant(*g.graph, constant)) return *value;
  }
  g.input_args.push_back(index);
  return g.graph->addInput(arg.name())->setType(v.isTensor() ? c10::TensorType::get() : v.type());
}

// The first line of a JIT error report (the rest is a source excerpt of an empty program).
// The line of a schema-matching report that says what is wrong ("Expected a value of type
// 'number' for argument 'scale' but instead found type 'bool'."), else its first line.
std::string matching_error(const std::string& text) {
  size_t expected = text.find("Expected a value");
  size_t start = expected != std::string::npos ? expected : text.find_first_not_of("\n ");
  if (start == std::string::npos) return "";
  return text.substr(start, text.find('\n', start) - start);
}

jit::Node* insert_op_node(jit::Graph& graph, const c10::FunctionSchema& schema, std::vector<jit::NamedValue> args,
                          std::vector<jit::NamedValue> kwargs, const std::string& what) {
  jit::MatchedSchema matched;
  try {
    matched = jit::matchSchema(schema, jit::SourceRange(), graph, args, kwargs);
  } catch (const std::exception& e) {
    throw std::runtime_error(what + ": TorchScript does not accept the bound arguments: " + matching_error(e.what()));
  }
  jit::Node* node = graph.insertNode(graph.create(c10::Symbol::fromQualString(schema.name()), matched.inputs, 0));
  for (const c10::TypePtr& type : matched.return_types) node->addOutput()->setType(type);
  return node;
}

// The interpreter resolves a node's operator from its input types; skip when that is not the
// overload asked for (TorchScript would call another kernel).
void check_resolved_overload(const jit::Node* node, const c10::FunctionSchema& schema, const std::string& what) {
  const c10::FunctionSchema* resolved = node->maybeSchema();
  if (!resolved) throw Skip(what + ": TorchScript finds no operator for the graph node");
  if (resolved->operator_name() != schema.operator_name())
    throw Skip(what + ": TorchScript resolves the node to " + c10::toString(resolved->operator_name()));
}

SingleOpGraph build_graph(const Call& call) {
  const c10::FunctionSchema& schema = call.op->schema();
  const std::string what = call.what();
  if (schema.is_vararg() || schema.is_varret()) throw Skip(what + ": a variadic schema has no fixed graph node");
  if (call.args.size() != schema.arguments().size())
    throw std::invalid_argument(what + ": the bound stack has " + std::to_string(call.args.size()) + " values for " +
                                std::to_string(schema.arguments().size()) + " schema arguments");
  SingleOpGraph g{std::make_shared<jit::Graph>(), {}};
  std::vector<jit::NamedValue> args, kwargs;
  for (size_t i = 0; i < call.args.size(); ++i) {
    const c10::Argument& arg = schema.arguments()[i];
    jit::Value* value = argument_value(g, arg, call.args[i], i);
    if (arg.kwarg_only()) kwargs.emplace_back(arg.name(), value);
    else args.emplace_back(value);
  }
  jit::Node* node = insert_op_node(*g.graph, schema, std::move(args), std::move(kwargs), what);
  check_resolved_overload(node, schema, what);
  for (jit::Value* out : node->outputs()) g.graph->registerOutput(out);
  g.graph->lint();
  return g;
}

// Switches the TensorExpr fuser on for CPU (one-node fusion groups, reductions, the IR evaluator
// since this build has no LLVM) while alive, and puts every process-wide setting back after.
class CpuFuserSwitch {
 public:
  explicit CpuFuserSwitch(jit::FusionStrategy strategy)
      : can_fuse_on_cpu_(jit::canFuseOnCPU()),
        fuser_enabled_(jit::tensorExprFuserEnabled()),
        must_use_llvm_(jit::tensorexpr::getTEMustUseLLVMOnCPU()),
        group_inlining_(jit::getFusionGroupInlining()),
        reductions_(jit::texprReductionsEnabled()),
        strategy_(jit::setFusionStrategy(strategy)) {
    apply(true, true, false, false, true);
  }
  ~CpuFuserSwitch() {
    apply(can_fuse_on_cpu_, fuser_enabled_, must_use_llvm_, group_inlining_, reductions_);
    jit::setFusionStrategy(strategy_);
  }
  CpuFuserSwitch(const CpuFuserSwitch&) = delete;
  CpuFuserSwitch& operator=(const CpuFuserSwitch&) = delete;

 private:
  static void apply(bool can_fuse_on_cpu, bool fuser_enabled, bool must_use_llvm, bool group_inlining,
                    bool reductions) {
    jit::overrideCanFuseOnCPU(can_fuse_on_cpu);
    jit::setTensorExprFuserEnabled(fuser_enabled);
    jit::tensorexpr::getTEMustUseLLVMOnCPU() = must_use_llvm;
    jit::debugSetFusionGroupInlining(group_inlining);
    jit::setTexprReductionsEnabled(reductions);
  }

  bool can_fuse_on_cpu_, fuser_enabled_, must_use_llvm_, group_inlining_, reductions_;
  jit::FusionStrategy strategy_;
};

// The IR evaluator interprets every element: larger inputs would take minutes.
constexpr int64_t kFusedMaxElements = 4096;

int64_t input_elements(const Call& call) {
  int64_t total = 0;
  for_each_tensor(call, [&](const at::Tensor& t) { total += t.numel(); });
  return total;
}

bool has_fusion_group(const jit::Block* block) {
  for (const jit::Node* node : block->nodes()) {
    if (node->kind() == c10::prim::TensorExprGroup || node->kind() == c10::prim::TensorExprDynamicGroup) return true;
    for (const jit::Block* inner : node->blocks())
      if (has_fusion_group(inner)) return true;
  }
  return false;
}

// The kernel's own error from an interpreter error, rethrown: its header and traceback dropped so
// that the message reads as eager's, and of the class the kernel raised (the interpreter reports
// every error as a RuntimeError, naming the kernel's Python exception in its text).
[[noreturn]] void rethrow_kernel_error(const std::string& text) {
  static const std::string header = "The following operation failed in the TorchScript interpreter.\n";
  if (!text.starts_with(header)) throw std::runtime_error(text);
  std::string message = text.substr(text.find('\n', header.size()) + 1);  // after the traceback line
  std::string type;
  auto letter = [](unsigned char c) { return std::isalpha(c) != 0; };
  if (size_t name_end = message.find("Error: "); name_end != std::string::npos && name_end > 0 &&
                                                 std::all_of(message.begin(), message.begin() + name_end, letter)) {
    type = message.substr(0, name_end + 5);
    message = message.substr(name_end + 7);
  }
  while (!message.empty() && message.back() == '\n') message.pop_back();
  if (type == "IndexError") throw c10::IndexError(message, "");
  if (type == "ValueError") throw c10::ValueError(message, "");
  if (type == "TypeError") throw c10::TypeError(message, "");
  if (type == "NotImplementedError") throw c10::NotImplementedError(message, "");
  throw std::runtime_error(message);
}

// Profiling runs before the optimized plan exists (one by default; more are allowed in case the
// setting was raised).
constexpr int kMaxRuns = 8;

class SingleOpModel : public Model {
 public:
  SingleOpModel(SingleOpGraph g, std::string what, std::optional<jit::FusionStrategy> fusion)
      : input_args_(std::move(g.input_args)),
        what_(std::move(what)),
        fusion_(std::move(fusion)),
        executor_(g.graph, what_) {}

  Output run(const Call& call) override {
    std::optional<CpuFuserSwitch> fuser;
    if (fusion_) fuser.emplace(*fusion_);
    for (int i = 0; i < kMaxRuns; ++i) {
      jit::Stack stack = graph_inputs(deep_copy(call));  // an in-place op must see fresh inputs
      try {
        executor_.run(stack);
      } catch (const std::exception& e) { rethrow_kernel_error(e.what()); }
      if (executor_.isOptimized()) return output(std::move(stack));
    }
    throw std::runtime_error(what_ + ": the profiling executor did not optimize the graph in " +
                             std::to_string(kMaxRuns) + " runs");
  }

 private:
  jit::Stack graph_inputs(const Call& call) const {
    jit::Stack stack;
    for (size_t index : input_args_) stack.push_back(call.args[index]);
    return stack;
  }

  Output output(jit::Stack stack) {
    Output out;
    out.value = opcall::to_python(std::move(stack));
    if (fusion_) {
      bool fused = false;
      for (const auto& [spec, plan] : executor_.getDebugState().execution_plans)
        fused = fused || has_fusion_group(plan.graph->block());
      out.notes.emplace_back("fused", fused ? "true" : "false");
    }
    return out;
  }

  std::vector<size_t> input_args_;
  std::string what_;
  std::optional<jit::FusionStrategy> fusion_;
  jit::GraphExecutor executor_;  // keeps its optimized plan across runs
};

// A TorchScript module (loaded from a file) frozen and optimized for inference, as
// torch.jit.freeze and torch.jit.optimize_for_inference do; a copy, so the shared module stays.
class FrozenModuleModel : public Model {
 public:
  explicit FrozenModuleModel(const jit::Module& module) {
    jit::Module copy = module.clone();
    copy.eval();
    frozen_ = jit::freeze(copy);
    frozen_ = jit::optimize_for_inference(frozen_);
  }

  Output run(const Call& inputs) override {
    std::unordered_map<std::string, c10::IValue> named(inputs.kwargs.begin(), inputs.kwargs.end());
    return Output{frozen_.get_method("forward")(inputs.args, named), {}, {}, {}, {}};
  }

 private:
  jit::Module frozen_;
};

class TorchScriptBackend : public Backend {
 public:
  TorchScriptBackend(std::string name, std::string description, std::optional<jit::FusionStrategy> fusion)
      : name_(std::move(name)), description_(std::move(description)), fusion_(std::move(fusion)) {}

  std::string name() const override { return name_; }
  std::string description() const override { return description_; }

  std::unique_ptr<Model> prepare(const Call& call) override {
    if (call.module) {
      const jit::Module* script = call.module->script_module();
      if (!script) throw Skip(call.what() + ": torch::nn modules built in C++ cannot be scripted");
      if (fusion_) throw Skip(call.what() + ": the fused backends run single operators");
      return std::make_unique<FrozenModuleModel>(*script);
    }
    if (fusion_) check_size(call);
    std::optional<CpuFuserSwitch> fuser;  // the executor reads the fusion strategy when built
    if (fusion_) fuser.emplace(*fusion_);
    return std::make_unique<SingleOpModel>(build_graph(call), call.what(), fusion_);
  }

 private:
  static void check_size(const Call& call) {
    int64_t elements = input_elements(call);
    if (elements > kFusedMaxElements)
      throw Skip(call.what() + ": the inputs have " + std::to_string(elements) + " elements, over the " +
                 std::to_string(kFusedMaxElements) +
                 " this backend allows (without LLVM the TensorExpr IR evaluator is slow)");
  }

  std::string name_, description_;
  std::optional<jit::FusionStrategy> fusion_;
};

std::string fused_description(const char* shapes) {
  return std::string("the one-node graph through the TensorExpr fuser on CPU, ") + shapes + " shapes (inputs up to " +
         std::to_string(kFusedMaxElements) + " elements)";
}

}  // namespace

// The graph torchscript_cpu runs for an operator call (not in a header: for the tests).
std::shared_ptr<torch::jit::Graph> single_op_graph(const Call& call) { return build_graph(call).graph; }

std::shared_ptr<Backend> make_torchscript_cpu() {
  return std::make_shared<TorchScriptBackend>(
      "torchscript_cpu", "the op as a one-node TorchScript graph, optimized by the profiling executor", std::nullopt);
}

std::shared_ptr<Backend> make_torchscript_cpu_fused() {
  return std::make_shared<TorchScriptBackend>("torchscript_cpu_fused", fused_description("static"),
                                              jit::FusionStrategy{{jit::FusionBehavior::STATIC, 2}});
}

std::shared_ptr<Backend> make_torchscript_cpu_fused_dynamic() {
  return std::make_shared<TorchScriptBackend>("torchscript_cpu_fused_dynamic", fused_description("dynamic"),
                                              jit::FusionStrategy{{jit::FusionBehavior::DYNAMIC, 10}});
}

}  // namespace opsfuzz::runner
