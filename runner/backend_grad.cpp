// eager_cpu_grad: the backward pass checked gradcheck-style. The floating inputs are upcast to
// float64 leaves; L = sum_k <g_k, out_k> over the floating outputs with a random upstream gradient
// g drawn from the call's seed; autograd's dL/dx is the value, central finite differences of L
// are the reference. Points where L has a kink are excluded rather than reported, and counted, as
// are those where finite differences cannot be a reference: a step the inputs or outputs cannot
// resolve, a forward whose float64 arithmetic overflowed, an infinite input.
#include <ATen/ATen.h>
#include <ATen/CPUGeneratorImpl.h>
#include <torch/csrc/autograd/autograd.h>

#include <cfenv>
#include <cfloat>
#include <cmath>
#include <set>
#include <sstream>

#include "argtypes/argtypes.h"
#include "argtypes/text.h"
#include "runner/builtin.h"
#include "runner/values.h"
#include "suite/modules.h"

namespace opsfuzz::runner {
namespace {

// torch.autograd.gradcheck's defaults. In float64 a central step of 1e-6 leaves a truncation
// error ~eps^2 and a rounding error ~1e-16/eps relative to the outputs, both far inside atol 1e-5
// and rtol 1e-3; the same numbers keep our verdicts in line with PyTorch's own gradient tests.
constexpr double kEps = 1e-6;
constexpr Tolerance kTolerance{1e-5, 1e-3};
// Finite differences cost two calls per input element (a complex element counts twice).
constexpr int64_t kMaxInputElements = 512;

using Notes = std::vector<std::pair<std::string, std::string>>;

// Floating and complex strided tensors take part; integral, bool and sparse ones stay as they are.
bool is_floating(const at::Tensor& t) {
  return t.defined() && t.layout() == at::kStrided &&
         (at::isFloatingType(t.scalar_type()) || at::isComplexType(t.scalar_type()));
}

// A complex tensor as its (re, im) pairs: perturbing and comparing then works on doubles alone.
at::Tensor real_view(const at::Tensor& t) { return t.is_complex() ? at::view_as_real(t.resolve_conj()) : t; }

at::Tensor to_float64(const at::Tensor& t) {
  return t.detach().to(t.is_complex() ? at::kComplexDouble : at::kDouble, /*non_blocking=*/false,
                       /*copy=*/true);
}

// The oracle's rule: value within atol + rtol * |reference|.
bool matches(double value, double reference) {
  return std::abs(value - reference) <= kTolerance.atol + kTolerance.rtol * std::abs(reference);
}
// Two finite differences agree when either could be the reference.
bool agree(double a, double b) { return matches(a, b) || matches(b, a); }

// Autograd's ways of saying an op has no derivative (derivatives.yaml's not_implemented, complex
// outputs of real-only formulas, a formula that refuses the point).
bool is_missing_derivative(const std::string& message) {
  return (message.find("derivative for") != std::string::npos &&
          message.find("not implemented") != std::string::npos) ||
         message.find("does not support automatic differentiation") != std::string::npos ||
         message.find("is not differentiable") != std::string::npos;
}

// "The function 'native_batch_norm' is not differentiable with respect to argument
// 'running_mean'. ..." -> "running_mean".
std::optional<std::string> refused_argument(const std::string& message) {
  const std::string marker = "not differentiable with respect to argument '";
  size_t start = message.find(marker);
  if (start == std::string::npos) return std::nullopt;
  start += marker.size();
  size_t end = message.find('\'', start);
  if (end == std::string::npos) return std::nullopt;
  return message.substr(start, end - start);
}

bool succeeds(const std::function<void()>& fn) {
  try {
    fn();
    return true;
  } catch (const std::exception&) { return false; }
}

// What is called: the op's bound stack, or a module's forward arguments.
struct Invocation {
  opcall::Stack args;
  opcall::Kwargs kwargs;
};

// `inv` with each floating tensor replaced by fn(argument index, tensor); keyword arguments are
// indexed after the positionals.
Invocation map_floating(const Invocation& inv, const std::function<at::Tensor(size_t, const at::Tensor&)>& fn) {
  Invocation out;
  size_t index = 0;
  auto map = [&](const c10::IValue& v) {
    size_t arg = index++;
    return map_tensors(v, [&](const at::Tensor& t) { return is_floating(t) ? fn(arg, t) : t; });
  };
  for (const auto& v : inv.args) out.args.push_back(map(v));
  for (const auto& [name, v] : inv.kwargs) out.kwargs.emplace_back(name, map(v));
  return out;
}

// Random ops (dropout, normal, rrelu) draw from the default CPU generator: every evaluation starts
// it from the call's seed, so that finite differences see the draws autograd's forward saw. The
// generator's state is restored when the check ends.
class RandomReplay {
 public:
  explicit RandomReplay(uint64_t seed) : seed_(seed) {
    std::lock_guard lock(generator_.mutex());
    saved_ = generator_.get_state();
  }
  ~RandomReplay() {
    std::lock_guard lock(generator_.mutex());
    generator_.set_state(saved_);
  }
  RandomReplay(const RandomReplay&) = delete;
  RandomReplay& operator=(const RandomReplay&) = delete;

  void rewind() {
    std::lock_guard lock(generator_.mutex());
    generator_.set_current_seed(seed_);
  }

 private:
  at::Generator generator_ = at::detail::getDefaultCPUGenerator();
  uint64_t seed_;
  at::Tensor saved_;
};

// Why an op's gradient is not checked, whatever the values: it writes to its arguments, or its
// gradient is not the derivative by design.
std::optional<std::string> unchecked_op(const opcall::Op& op, const opcall::Stack& args) {
  if (op.schema().is_mutable())
    return op.name() +
           " writes to its arguments (an in-place or out= overload): autograd refuses "
           "in-place writes to the leaves it differentiates";
  auto argument = [&](const char* name) {
    auto index = op.schema().argumentIndexWithName(name);
    return index ? args.at(*index) : c10::IValue();
  };
  // torch.nn.functional.embedding's documented gradients.
  if (c10::IValue scale = argument("scale_grad_by_freq"); scale.isBool() && scale.toBool())
    return "scale_grad_by_freq=True divides " + op.name() +
           "'s gradient by index frequencies on purpose: it is not the derivative";
  c10::IValue padding = argument("padding_idx");
  if (op.name() == "aten::embedding" && padding.isInt() && padding.toInt() != -1)
    return "aten::embedding gives the padding_idx row no gradient on purpose: it is not the derivative";
  return std::nullopt;
}

// The dtypes of the call's floating tensor inputs.
std::set<at::ScalarType> floating_dtypes(const Call& call) {
  std::set<at::ScalarType> out;
  for_each_tensor(call, [&](const at::Tensor& t) {
    if (is_floating(t)) out.insert(t.scalar_type());
  });
  return out;
}

// Throws Skip for calls this backend does not check, whatever their values.
void check_applies(const Call& call) {
  if (!call.op && !call.module) throw std::invalid_argument("eager_cpu_grad: a call without an op or module");
  if (call.op)
    if (auto reason = unchecked_op(*call.op, call.args)) throw Skip(*reason);
  bool generator =
      std::any_of(call.args.begin(), call.args.end(), [](const auto& v) { return v.isGenerator(); }) ||
      std::any_of(call.kwargs.begin(), call.kwargs.end(), [](const auto& kv) { return kv.second.isGenerator(); });
  if (generator)
    throw Skip(call.what() +
               " is given an explicit generator: its draws cannot be replayed for "
               "finite differences");
  if (floating_dtypes(call).empty()) throw Skip("no floating inputs");
}

// The call as a function of its differentiable inputs, in float64: the floating tensors, in
// argument order, except those of arguments autograd refuses.
class Evaluator {
 public:
  explicit Evaluator(const Call& call)
      : call_(call),
        base_(map_floating({call.args, call.kwargs}, [](size_t, const at::Tensor& t) { return to_float64(t); })),
        excluded_(call.args.size() + call.kwargs.size(), false),
        replay_(call.seed) {
    if (!call.module) return;
    try {
      module_ = suite::converted_copy(*call.module, at::kDouble);
    } catch (const suite::UnconvertibleModule& e) {
      throw Skip(call.what() + " cannot be converted to float64: " + e.what());
    }
  }

  // The differentiable inputs' float64 values.
  std::vector<at::Tensor> inputs() const {
    std::vector<at::Tensor> out;
    map_floating(base_, [&](size_t arg, const at::Tensor& t) {
      if (!excluded_[arg]) out.push_back(t);
      return t;
    });
    return out;
  }

  // The outputs with `inputs` in place of the differentiable inputs. The excluded floating
  // arguments are copied per call: kernels like batch norm update their running statistics.
  c10::IValue operator()(const std::vector<at::Tensor>& inputs) {
    size_t next = 0;
    Invocation inv = map_floating(
        base_, [&](size_t arg, const at::Tensor& t) { return excluded_[arg] ? t.clone() : inputs.at(next++); });
    replay_.rewind();
    if (module_) return module_->forward(inv.args, inv.kwargs);
    return opcall::to_python(call_.op->call(std::move(inv.args)));
  }

  // Makes the op's argument `name` a plain input; false when it is unknown or already one.
  bool exclude(const std::string& name) {
    if (!call_.op) return false;
    auto index = call_.op->schema().argumentIndexWithName(name);
    if (!index || excluded_.at(*index)) return false;
    excluded_[*index] = true;
    excluded_names_.push_back(name);
    return true;
  }
  const std::vector<std::string>& excluded() const { return excluded_names_; }

  // Whether the forward runs without grad: in float64, and in the call's own dtypes. They tell a
  // failure due to requires_grad, or to float64, from the sample's own.
  bool runs_without_grad() {
    at::NoGradGuard no_grad;
    return succeeds([&] { (*this)(inputs()); });
  }
  bool runs_in_own_dtypes() const {
    at::NoGradGuard no_grad;
    Call copy = deep_copy(call_);
    return succeeds([&] {
      if (copy.module) copy.module->forward(copy.args, copy.kwargs);
      else copy.op->call(std::move(copy.args));
    });
  }

  std::string what() const { return call_.what(); }

 private:
  const Call& call_;
  Invocation base_;
  std::vector<bool> excluded_;  // by argument index
  std::vector<std::string> excluded_names_;
  std::shared_ptr<suite::Module> module_;  // a float64 copy
  RandomReplay replay_;
};

int64_t real_elements(const std::vector<at::Tensor>& tensors) {
  int64_t n = 0;
  for (const auto& t : tensors) n += t.numel() * (t.is_complex() ? 2 : 1);
  return n;
}

// The forward on leaves that require grad. Arguments autograd refuses (batch norm's running
// statistics: "not differentiable with respect to argument 'running_mean'") become plain inputs,
// one at a time.
c10::IValue forward_with_grad(Evaluator& eval, std::vector<at::Tensor>& leaves) {
  for (;;) {
    leaves.clear();
    for (const auto& t : eval.inputs()) leaves.push_back(t.detach().requires_grad_(true));
    if (leaves.empty()) throw Skip("no differentiable inputs: autograd refuses " + join(eval.excluded(), ","));
    if (int64_t n = real_elements(leaves); n > kMaxInputElements)
      throw Skip(std::to_string(n) + " differentiable input elements exceed the cap of " +
                 std::to_string(kMaxInputElements) + " (finite differences cost two calls each)");
    try {
      return eval(leaves);
    } catch (const std::exception& e) {
      std::string message = opcall::message_of(e);
      if (auto argument = refused_argument(message); argument && eval.exclude(*argument)) continue;
      if (is_missing_derivative(message)) throw Skip(eval.what() + " has no derivative here: " + message);
      if (eval.runs_without_grad())
        throw std::runtime_error("the forward of " + eval.what() +
                                 " fails only when its inputs require grad: " + message);
      if (eval.runs_in_own_dtypes()) throw Skip(eval.what() + " refuses float64 inputs: " + message);
      throw;
    }
  }
}

// The output leaves that enter L: floating tensors that require grad. Throws Skip when there are
// none, or when one is not float64 (a dtype argument: finite differences would lose precision).
std::vector<size_t> differentiable_outputs(const c10::IValue& out, const std::string& what, Notes& notes) {
  std::vector<Leaf> leaves = flatten(out);
  std::vector<size_t> selected;
  size_t floating = 0;
  for (size_t i = 0; i < leaves.size(); ++i) {
    const Leaf& leaf = leaves[i];
    if (leaf.none || leaf.scalar || !is_floating(leaf.value)) continue;
    ++floating;
    if (!leaf.value.requires_grad()) continue;
    auto dtype = leaf.value.scalar_type();
    if (dtype != at::kDouble && dtype != at::kComplexDouble)
      throw Skip(what + "'s output " + (leaf.path.empty() ? "" : leaf.path + " ") + "is " +
                 std::string(opsfuzz::name(dtype)) + " on float64 inputs: finite differences need float64 outputs");
    selected.push_back(i);
  }
  if (floating == 0) throw Skip("no floating outputs");
  if (selected.empty()) throw Skip("no output of " + what + " requires grad: it has no derivative");
  if (selected.size() < floating)
    notes.emplace_back("outputs_without_grad", std::to_string(floating - selected.size()));
  return selected;
}

// The selected output leaves as one float64 vector (complex ones as (re, im) pairs).
at::Tensor flat_outputs(const c10::IValue& out, const std::vector<size_t>& selected) {
  std::vector<Leaf> leaves = flatten(out);
  std::vector<at::Tensor> parts;
  for (size_t i : selected) parts.push_back(real_view(leaves.at(i).value).reshape(-1));
  return at::cat(parts);
}

// The autograd side of the check, and what finite differences reuse.
struct AutogradPass {
  std::vector<at::Tensor> inputs;     // the differentiable inputs (float64, no grad)
  std::vector<size_t> outputs;        // the output leaves in L
  at::Tensor flat_output, upstream;   // those leaves flattened, and g
  std::vector<at::Tensor> gradients;  // dL/dx per input
  // The forward's float64 arithmetic overflowed: its finite value is not the function's (a norm's
  // |x|^-10 past float64's range gives 0). An invalid operation alone (0/0 for an empty group's
  // mean) says nothing: its NaN, where it reaches the output, makes the call a skip.
  bool left_range = false;
  bool infinite_input = false;  // a differentiable input holds inf or NaN
  Notes notes;
};

AutogradPass autograd_pass(Evaluator& eval, uint64_t seed) {
  at::AutoGradMode grad_mode(true);
  AutogradPass pass;
  std::vector<at::Tensor> leaves;
  std::feclearexcept(FE_ALL_EXCEPT);  // workers compute in their one thread: its flags are the forward's
  c10::IValue out = forward_with_grad(eval, leaves);
  pass.left_range = std::fetestexcept(FE_OVERFLOW) != 0;
  pass.outputs = differentiable_outputs(out, eval.what(), pass.notes);
  at::Tensor y = flat_outputs(out, pass.outputs);
  if (!at::isfinite(y).all().item<bool>()) throw Skip("the output is not finite at this input");
  pass.upstream = at::randn({y.numel()}, at::make_generator<at::CPUGeneratorImpl>(seed), at::kDouble);
  at::Tensor loss = at::dot(pass.upstream, y);
  try {
    pass.gradients = torch::autograd::grad({loss}, leaves, {}, /*retain_graph=*/false,
                                           /*create_graph=*/false, /*allow_unused=*/true);
  } catch (const std::exception& e) {
    std::string message = opcall::message_of(e);
    if (is_missing_derivative(message)) throw Skip(eval.what() + " has no derivative: " + message);
    throw std::runtime_error("the backward of " + eval.what() + " failed: " + message);
  }
  for (size_t k = 0; k < leaves.size(); ++k) {
    at::Tensor& g = pass.gradients[k];
    if (!g.defined()) g = at::zeros_like(leaves[k]);   // an unused input
    if (g.layout() != at::kStrided) g = g.to_dense();  // sparse_grad=True
    g = g.detach();
    pass.inputs.push_back(leaves[k].detach());
    pass.infinite_input = pass.infinite_input || !at::isfinite(pass.inputs.back()).all().item<bool>();
  }
  pass.flat_output = y.detach();
  if (!eval.excluded().empty()) pass.notes.emplace_back("not_differentiable_args", join(eval.excluded(), ","));
  return pass;
}

// Where each element of a dense tensor sits in its storage, in logical (row-major) order.
at::Tensor element_offsets(const at::Tensor& dense) {
  at::Tensor offsets = at::empty_strided(dense.sizes(), dense.strides(), at::kLong);
  offsets.as_strided({dense.numel()}, {1}).copy_(at::arange(dense.numel(), at::kLong));
  return offsets.reshape(-1).contiguous();
}

struct FiniteDifferences {
  std::vector<at::Tensor> gradients;
  int64_t kinks = 0;     // L is not differentiable at the input element (relu at 0, a tie, a jump)
  int64_t unstable = 0;  // a step left the domain (the kernel refused, non-finite, reshaped) or was not resolved;
                         // the forward left float64's range; an infinite input made autograd's value inf or NaN
};

// dL/dx for each input element by central differences. Where L is not differentiable at the input
// (a kink, or a step that leaves the domain) the element takes autograd's value, so that the
// comparison passes over it, and is counted instead.
class Differencer {
 public:
  Differencer(Evaluator& eval, const AutogradPass& pass)
      : eval_(eval),
        pass_(pass),
        rounding_(DBL_EPSILON * at::dot(pass.upstream.abs(), pass.flat_output.abs()).item<double>() / kEps) {
    for (const auto& t : pass.inputs) inputs_.push_back(t.clone());  // dense: clone keeps the layout
  }

  FiniteDifferences run() {
    at::NoGradGuard no_grad;
    for (size_t k = 0; k < inputs_.size(); ++k) result_.gradients.push_back(gradient(k));
    return std::move(result_);
  }

 private:
  at::Tensor gradient(size_t k) {
    at::Tensor real = real_view(inputs_[k]);
    at::Tensor autograd = real_view(pass_.gradients[k]).reshape(-1).contiguous();
    at::Tensor offsets = element_offsets(real);
    at::Tensor fd = at::empty({real.numel()}, at::kDouble);
    for (int64_t j = 0; j < real.numel(); ++j) {
      double& x = real.data_ptr<double>()[offsets.data_ptr<int64_t>()[j]];
      double autograd_j = autograd.data_ptr<double>()[j];
      fd.data_ptr<double>()[j] = derivative(x, autograd_j).value_or(autograd_j);
    }
    fd = fd.view(real.sizes());
    return inputs_[k].is_complex() ? at::view_as_complex(fd) : fd;
  }

  // dL/dx at one element, or nullopt (counted) where L is not differentiable there.
  std::optional<double> derivative(double& x, double autograd) {
    // Outputs so large that their rounding, divided by the step, exceeds the tolerance: no
    // difference quotient can be told from noise there.
    if (rounding_ > kTolerance.atol + kTolerance.rtol * std::abs(autograd)) return unstable();
    const at::Tensor& at_x = pass_.flat_output;
    auto plus = outputs_with(x, kEps), minus = outputs_with(x, -kEps);
    if (!plus || !minus) return unstable();
    // One-sided differences that disagree: a kink (relu at 0, a tie of max).
    if (!agree(slope(at_x, *plus, kEps), slope(*minus, at_x, kEps))) return kink();
    double central = slope(*minus, *plus, 2 * kEps);
    if (matches(autograd, central)) return central;
    // Neither difference is the derivative where the forward left float64's range, and the chain
    // rule's products with an infinite input are inf or NaN where the derivative is not (0 * inf).
    if (pass_.left_range || (pass_.infinite_input && !std::isfinite(autograd))) return unstable();
    // Outputs that do not move at all at ±step, yet move at a step 2^20 times longer: the step is
    // below the rounding of the terms they are computed from (products of 2^52 that cancel). An
    // output that does not depend on x (scatter's unused source) moves at neither.
    if (at::equal(*plus, at_x) && at::equal(*minus, at_x)) {
      auto far = outputs_with(x, kEps * 0x1p20);
      if (!far || !at::equal(*far, at_x)) return unstable();
    }
    // A jump at x (sign at 0) looks like a steep slope on both sides; unlike a derivative, that
    // slope doubles at half the step. Jumps throughout the step (fmod(2147483646, b) jumps by b
    // every 1.8e-8 of b) average to a slope both steps agree on, but not both sides at half of it.
    auto half_plus = outputs_with(x, kEps / 2), half_minus = outputs_with(x, -kEps / 2);
    if (!half_plus || !half_minus) return unstable();
    if (!agree(central, slope(*half_minus, *half_plus, kEps)) ||
        !agree(slope(at_x, *half_plus, kEps / 2), slope(*half_minus, at_x, kEps / 2)))
      return kink();
    return central;
  }

  // The selected outputs with x moved by `step` (then put back), or nullopt when the call fails
  // there, is not finite or changes shape, or x cannot move by that step.
  std::optional<at::Tensor> outputs_with(double& x, double step) {
    const double x0 = x;
    x = x0 + step;
    // A step the input's precision cannot resolve (|x| near 1e7 and above): the difference
    // quotient would divide rounding by the step asked for, not the step taken.
    if (std::abs((x - x0) - step) > 1e-3 * std::abs(step)) {
      x = x0;
      return std::nullopt;
    }
    std::optional<at::Tensor> y;
    try {
      y = flat_outputs(eval_(inputs_), pass_.outputs);
      if (y->numel() != pass_.flat_output.numel() || !at::isfinite(*y).all().item<bool>()) y.reset();
    } catch (const std::exception&) {}
    x = x0;
    return y;
  }

  double slope(const at::Tensor& from, const at::Tensor& to, double step) const {
    return at::dot(pass_.upstream, to - from).item<double>() / step;
  }

  std::optional<double> kink() {
    ++result_.kinks;
    return std::nullopt;
  }
  std::optional<double> unstable() {
    ++result_.unstable;
    return std::nullopt;
  }

  Evaluator& eval_;
  const AutogradPass& pass_;
  double rounding_;                 // what rounding L's terms in float64 contributes to a difference quotient
  std::vector<at::Tensor> inputs_;  // the differentiable inputs, moved one element at a time
  FiniteDifferences result_;
};

c10::IValue tuple_of(const std::vector<at::Tensor>& tensors) {
  return c10::ivalue::Tuple::create(std::vector<c10::IValue>(tensors.begin(), tensors.end()));
}

std::string number(double v) {
  std::ostringstream s;
  s << v;
  return s.str();
}

// In float64 a difference of floating dtypes among the inputs vanishes; where the call as given
// is refused (for that difference, as a mixed-dtype invalid sample is), the check would not be of
// the same call.
void check_same_call(const Call& call, const Evaluator& eval) {
  if (floating_dtypes(call).size() > 1 && !eval.runs_in_own_dtypes())
    throw Skip(call.what() + " is refused as given and its inputs differ in floating dtype, which float64 erases");
}

class GradModel : public Model {
 public:
  Output run(const Call& call) override {
    check_applies(call);
    Evaluator eval(call);
    check_same_call(call, eval);
    AutogradPass pass = autograd_pass(eval, call.seed);
    FiniteDifferences fd = Differencer(eval, pass).run();
    Output out;
    out.value = tuple_of(pass.gradients);
    out.reference = tuple_of(fd.gradients);
    out.tolerance = kTolerance;
    out.notes = {{"eps", number(kEps)}, {"kinks", std::to_string(fd.kinks)}};
    if (fd.unstable > 0) out.notes.emplace_back("unstable_steps", std::to_string(fd.unstable));
    out.notes.insert(out.notes.end(), pass.notes.begin(), pass.notes.end());
    return out;
  }
};

class GradBackend : public Backend {
 public:
  std::string name() const override { return "eager_cpu_grad"; }
  std::string description() const override {
    return "autograd gradients in float64 against central finite differences (gradcheck's eps 1e-6, "
           "atol 1e-5, rtol 1e-3; kinks excluded)";
  }
  // Whether the backend applies depends on values too (a missing derivative, outputs that do not
  // require grad, a non-finite output): the autograd pass, without finite differences, finds out.
  // Other failures are left to run, which meets them again and reports them as the call's own.
  std::unique_ptr<Model> prepare(const Call& call) override {
    check_applies(call);
    try {
      Evaluator eval(call);
      autograd_pass(eval, call.seed);
    } catch (const Skip&) { throw; } catch (const std::exception&) {
    }
    return std::make_unique<GradModel>();
  }
};

}  // namespace

std::shared_ptr<Backend> make_eager_cpu_grad() { return std::make_shared<GradBackend>(); }

}  // namespace opsfuzz::runner
