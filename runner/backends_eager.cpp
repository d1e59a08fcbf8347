// The eager backends: the operator through the c10 dispatcher (or the module's forward) as given,
// in float64 (the accuracy reference), in Half or BFloat16, and on non-contiguous inputs.
#include <ATen/ATen.h>

#include <algorithm>
#include <functional>
#include <map>
#include <set>

#include "argtypes/rng.h"
#include "opcall/gaps.h"
#include "runner/backend.h"
#include "runner/builtin.h"
#include "runner/op_facts.h"
#include "runner/values.h"
#include "suite/modules.h"

namespace opsfuzz::runner {
namespace {

// ------------------------------------------------------------------------------ plumbing

// What a model runs: the call's operator, or its module (for the precision backends, a converted
// copy of it).
struct Target {
  const opcall::Op* op = nullptr;
  std::shared_ptr<suite::Module> module;
};

Target target_of(const Call& call) {
  if (!call.op && !call.module) throw std::invalid_argument("a call needs an operator or a module (got neither)");
  return {call.op, call.module};
}

// The outputs as Python returns them.
c10::IValue invoke(const Target& target, const Call& in) {
  if (target.op) return opcall::to_python(target.op->call(in.args));
  return target.module->forward(in.args, in.kwargs);
}

using Run = std::function<Output(const Call&)>;

// Runs on a fresh deep copy of the inputs each time, so that an in-place kernel changes neither
// the caller's inputs nor the next run's.
class FnModel : public Model {
 public:
  explicit FnModel(Run run) : run_(std::move(run)) {}
  Output run(const Call& inputs) override { return run_(deep_copy(inputs)); }

 private:
  Run run_;
};

class FnBackend : public Backend {
 public:
  using Prepare = std::function<Run(const Call&)>;
  FnBackend(std::string name, std::string description, Prepare prepare)
      : name_(std::move(name)), description_(std::move(description)), prepare_(std::move(prepare)) {}
  std::string name() const override { return name_; }
  std::string description() const override { return description_; }
  std::unique_ptr<Model> prepare(const Call& call) override { return std::make_unique<FnModel>(prepare_(call)); }

 private:
  std::string name_, description_;
  Prepare prepare_;
};

// How notes name an input: the schema argument for an operator ("self"), the position or keyword
// for a module ("input 0", "hx"); the k-th tensor inside a list gets "[k]".
std::string argument_label(const Call& call, size_t i) {
  if (call.op && i < call.op->schema().arguments().size()) return call.op->schema().arguments()[i].name();
  return "input " + std::to_string(i);
}

using InputFn = std::function<at::Tensor(const at::Tensor&, const std::string& label)>;

// Replaces every defined tensor among the call's inputs (also inside lists) by fn(tensor, label).
void map_inputs(Call& call, const InputFn& fn) {
  auto map_one = [&](c10::IValue& v, const std::string& name) {
    bool single = v.isTensor();
    size_t k = 0;
    v = map_tensors(v,
                    [&](const at::Tensor& t) { return fn(t, single ? name : name + "[" + std::to_string(k++) + "]"); });
  };
  for (size_t i = 0; i < call.args.size(); ++i) map_one(call.args[i], argument_label(call, i));
  for (auto& [name, v] : call.kwargs) map_one(v, name);
}

std::vector<at::ScalarType> tensor_dtypes(const c10::IValue& v) {
  std::vector<at::ScalarType> out;
  map_tensors(v, [&](const at::Tensor& t) {
    out.push_back(t.scalar_type());
    return t;
  });
  return out;
}

// ------------------------------------------------------------------------------ precision

// The dtypes a precision backend runs in.
struct Precision {
  at::ScalarType real;                    // floating inputs and module parameters
  std::optional<at::ScalarType> complex;  // complex inputs (nullopt: they stay)
  bool reports_precision;                 // Output::precision = real (results lost precision)

  // The dtype an input of dtype `from` runs in, or nullopt when it stays. Only another width
  // converts: float16 goes up to float64, but a BFloat16 input stays in the Half run.
  std::optional<at::ScalarType> run_dtype(at::ScalarType from) const {
    auto other_width = [&](at::ScalarType to) { return c10::elementSize(from) != c10::elementSize(to); };
    if (at::isFloatingType(from) && other_width(real)) return real;
    if (complex && at::isComplexType(from) && other_width(*complex)) return *complex;
    return std::nullopt;
  }
  bool is_run_dtype(at::ScalarType t) const { return t == real || (complex && t == *complex); }
};

// The dtype of each output tensor of the original call: from running the operator on meta
// tensors of the inputs' dtypes and shapes (no data, no arithmetic), or where it has no meta
// kernel or `meta` is false, on a copy of the inputs themselves; nullopt when neither runs.
std::optional<std::vector<at::ScalarType>> original_output_dtypes(const opcall::Op& op, const opcall::Stack& args,
                                                                  bool meta) {
  auto to_meta = [](const at::Tensor& t) {
    return at::empty_strided(t.sizes(), t.strides(), t.options().device(at::kMeta));
  };
  auto to_copy = [](const at::Tensor& t) { return t.clone(at::MemoryFormat::Preserve); };
  using TensorMap = std::function<at::Tensor(const at::Tensor&)>;
  std::vector<TensorMap> ways = {TensorMap(to_copy)};
  if (meta) ways.insert(ways.begin(), TensorMap(to_meta));
  for (const TensorMap& convert : ways) {
    try {
      opcall::Stack inputs = args;
      for (auto& v : inputs) v = map_tensors(v, convert);
      return tensor_dtypes(opcall::to_python(op.call(std::move(inputs))));
    } catch (const std::exception&) {}
  }
  return std::nullopt;
}

// The dtypes the call's dtype arguments ask for (sum(x, dtype=float64)).
std::vector<at::ScalarType> requested_dtypes(const Call& call) {
  std::vector<at::ScalarType> out;
  if (!call.op) return out;
  const auto& params = call.op->schema().arguments();
  for (size_t i = 0; i < params.size() && i < call.args.size(); ++i)
    if (auto asked = dtype_argument(params[i], call.args[i])) out.push_back(*asked);
  return out;
}

// Casts outputs back to the dtypes the original call gives: eager_cpu's outputs are compared with
// these, and a dtype that differs only because of our cast would be a false alarm. Only outputs
// in a run dtype (float64 for fp64) are cast, and only to a floating or complex dtype, so that a
// real dtype disagreement still shows.
//
// Exact for operators: the original dtypes, learnt once (on meta tensors where the operator has a
// meta kernel, else on a copy of the inputs). Otherwise (the original call fails, a module): an
// output in a run dtype came from our cast unless a dtype argument asked for it, and goes back to
// the promoted dtype of the inputs we converted (with no floating input converted, torch's default
// dtype, which module parameters are made in). That rule misses ops whose output dtype is not the promoted one
// (index_put into a Half self from float32 values): those surface as dtype mismatches.
class CastBack {
 public:
  CastBack(const Call& call, const Precision& p)
      : precision_(p), requested_(requested_dtypes(call)), is_op_(call.op != nullptr) {
    std::optional<at::ScalarType> promoted;
    Call probe = call;  // a shallow copy: map_inputs only looks here
    map_inputs(probe, [&](const at::Tensor& t, const std::string&) {
      if (!p.run_dtype(t.scalar_type()) && !p.is_run_dtype(t.scalar_type())) return t;
      converted_dtypes_.insert(t.scalar_type());
      if (p.run_dtype(t.scalar_type()))
        promoted = promoted ? at::promoteTypes(*promoted, t.scalar_type()) : t.scalar_type();
      return t;
    });
    promoted_ = promoted.value_or(c10::get_default_dtype_as_scalartype());
    // Inputs of several floating dtypes are learnt on the inputs themselves: a meta kernel does
    // not check the dtype rules the CPU kernel does (avg_pool2d_backward's, that grad_output's
    // dtype is self's), and the run dtype would erase the difference.
    if (call.op && promoted) original_ = original_output_dtypes(*call.op, call.args, converted_dtypes_.size() <= 1);
  }

  // Whether converting changes what the call asks: the original call fails (no dtypes learnt)
  // and the inputs converted had more than one dtype, which the run dtype makes one.
  bool erases_refused_dtypes() const { return is_op_ && !original_ && converted_dtypes_.size() > 1; }

  // Sets into.value to `out` cast back, and notes how the dtypes were learnt.
  void apply(const c10::IValue& out, Output& into) const {
    bool exact = original_ && tensor_dtypes(out).size() == original_->size();
    size_t index = 0;
    into.value = map_tensors(out, [&](const at::Tensor& t) {
      at::ScalarType to = original_dtype(t.scalar_type(), exact ? &(*original_)[index] : nullptr);
      ++index;
      return to == t.scalar_type() ? t : t.to(to);
    });
    into.notes.emplace_back("output_dtypes", exact ? "as the original call's" : "from promotion");
  }

 private:
  at::ScalarType original_dtype(at::ScalarType actual, const at::ScalarType* meta) const {
    if (!precision_.is_run_dtype(actual)) return actual;
    if (meta) return at::isFloatingType(*meta) || at::isComplexType(*meta) ? *meta : actual;
    if (std::find(requested_.begin(), requested_.end(), actual) != requested_.end()) return actual;
    return at::isComplexType(actual) ? c10::toComplexType(promoted_) : c10::toRealValueType(promoted_);
  }

  Precision precision_;
  std::vector<at::ScalarType> requested_;
  at::ScalarType promoted_;
  std::optional<std::vector<at::ScalarType>> original_;
  bool is_op_;
  std::set<at::ScalarType> converted_dtypes_;  // the floating (complex) dtypes among inputs, run dtype included
};

// The inputs in the run dtypes; `converted` tells whether any tensor changed.
// Once floating inputs run in the run dtype, a dtype argument asking for a floating (complex) dtype
// narrower than it asks for the run dtype instead: an op may refuse to narrow its inputs
// (linalg_vector_norm's dtype must hold its input's). CastBack returns the outputs to the dtypes
// the call asked for, learnt from the original call. A call without converted inputs (zeros,
// arange, sum of integers with a dtype) runs as it is.
void widen_dtype_arguments(Call& call, const Precision& p) {
  if (!call.op) return;
  const auto& params = call.op->schema().arguments();
  for (size_t i = 0; i < params.size() && i < call.args.size(); ++i) {
    const std::optional<at::ScalarType> dtype = dtype_argument(params[i], call.args[i]);
    if (!dtype) continue;
    const at::ScalarType asked = *dtype;
    const std::optional<at::ScalarType> run = at::isComplexType(asked)    ? p.complex
                                              : at::isFloatingType(asked) ? std::optional(p.real)
                                                                          : std::nullopt;
    if (run && c10::elementSize(asked) < c10::elementSize(*run)) call.args[i] = static_cast<int64_t>(*run);
  }
}

Call convert_inputs(Call call, const Precision& p, bool& converted) {
  map_inputs(call, [&](const at::Tensor& t, const std::string&) {
    auto to = p.run_dtype(t.scalar_type());
    if (!to) return t;
    converted = true;
    return t.to(*to);
  });
  if (converted) widen_dtype_arguments(call, p);
  return call;
}

// Two correct float32 results computed differently (against the float64 reference; on another
// layout, which takes another kernel path) differ by rounding that reductions and compound
// formulas accumulate, relative to the magnitude of what they combine rather than to each result
// (a small result of cancelling terms: bicubic weights, convolution gradients): 1e-4 relative
// (~840 ulp), and 1e-5 of the output's largest magnitude absolute. A wrong kernel is off by far
// more. nullopt when an output is of another floating dtype (half and bfloat16 keep their own,
// looser tolerances; float64 runs keep float64's).
std::optional<Tolerance> reordered_rounding(const c10::IValue& value) {
  double largest = 1;
  for (const Leaf& leaf : flatten(value)) {
    if (leaf.none || leaf.scalar) continue;
    at::ScalarType t = leaf.value.scalar_type();
    if (!at::isFloatingType(t) && !at::isComplexType(t)) continue;
    if (t != at::kFloat && t != at::kComplexFloat) return std::nullopt;
    at::Tensor finite = leaf.value.abs().nan_to_num(0, 0, 0);
    if (finite.numel() > 0) largest = std::max(largest, finite.max().item<double>());
  }
  return Tolerance{1e-5 * largest, 1e-4};
}

Run prepare_precision(const Call& call, const Precision& p) {
  Target target = target_of(call);
  if (target.module) {
    try {
      target.module = suite::converted_copy(*target.module, p.real);
    } catch (const suite::UnconvertibleModule& e) { throw Skip(call.what() + ": " + e.what()); }
  }
  auto back = std::make_shared<const CastBack>(call, p);
  if (back->erases_refused_dtypes())
    throw Skip(call.what() +
               ": the call as given is refused and its inputs differ in floating dtype; in one run "
               "dtype the difference vanishes, so the run would not be the same call");
  return [target, back, p](const Call& in) {
    bool converted = false;
    Call run = convert_inputs(in, p, converted);
    Output out;
    if (!converted && !target.module) {  // nothing changed: the eager call as it is
      out.value = invoke(target, run);
      return out;
    }
    back->apply(invoke(target, run), out);
    if (p.reports_precision) out.precision = p.real;
    else out.tolerance = reordered_rounding(out.value);
    return out;
  };
}

// ------------------------------------------------------------------------------ layouts

enum Layout { strided, transposed, channels_last, layouts };
constexpr const char* layout_names[] = {"strided", "transposed", "channels_last"};

// Every other element along the last dim of size > 1, from offset 1 (a non-zero storage offset
// too), the gaps holding the gap value (opcall/gaps.h); undefined when no dim has size > 1.
at::Tensor strided_copy(const at::Tensor& t) {
  int64_t dim = t.dim() - 1;
  while (dim >= 0 && t.size(dim) <= 1) --dim;
  if (dim < 0) return {};
  std::vector<int64_t> sizes = t.sizes().vec();
  sizes[dim] = 2 * sizes[dim];
  at::Tensor view = opcall::gap_filled(sizes, t.options()).slice(dim, 1, sizes[dim], 2);
  return view.copy_(t);
}

// A transposed contiguous buffer: the last two dims swapped in memory.
at::Tensor transposed_copy(const at::Tensor& t) {
  if (t.dim() < 2) return {};
  std::vector<int64_t> sizes = t.sizes().vec();
  std::swap(sizes[sizes.size() - 1], sizes[sizes.size() - 2]);
  return at::empty(sizes, t.options()).transpose(-1, -2).copy_(t);
}

at::Tensor channels_last_copy(const at::Tensor& t) {
  if (t.dim() != 4) return {};
  return at::empty_like(t, at::MemoryFormat::ChannelsLast).copy_(t);
}

// t's values in `wanted` layout when that makes it non-contiguous, else strided; t itself
// ("unchanged") when no layout can (rank 0, at most one element). Returns the layout's name.
std::pair<at::Tensor, std::string> non_contiguous(const at::Tensor& t, Layout wanted) {
  if (t.layout() != at::kStrided || t.numel() == 0) return {t, "unchanged"};
  static const std::function<at::Tensor(const at::Tensor&)> makers[] = {strided_copy, transposed_copy,
                                                                        channels_last_copy};
  for (Layout layout : {wanted, strided}) {
    at::Tensor copy = makers[layout](t);
    if (copy.defined() && !copy.is_contiguous()) return {copy, layout_names[layout]};
  }
  return {t, "unchanged"};
}

constexpr uint64_t layout_stream = 0x6c61796f7574;  // "layout"

// The call's tensor inputs in the layouts chosen from its seed (the same choices on every run),
// and each input's layout by label.
std::pair<Call, std::vector<std::pair<std::string, std::string>>> in_noncontig_layouts(const Call& in) {
  Call run = in;
  Rng rng(derive_seed(in.seed, layout_stream));
  std::vector<std::pair<std::string, std::string>> chosen;
  map_inputs(run, [&](const at::Tensor& t, const std::string& label) {
    auto [copy, name] = non_contiguous(t, static_cast<Layout>(rng.index(layouts)));
    chosen.emplace_back(label, name);
    return copy;
  });
  return {std::move(run), std::move(chosen)};
}

// The "layout" note: "self strided, other transposed".
std::string layouts_note(const std::vector<std::pair<std::string, std::string>>& chosen) {
  std::string note;
  for (const auto& [label, name] : chosen) note += (note.empty() ? "" : ", ") + label + " " + name;
  return note.empty() ? "no tensor inputs" : note;
}

Run prepare_noncontig(const Call& call) {
  Target target = target_of(call);
  if (call.op)
    if (auto why = rules_out_noncontig(*call.op)) throw Skip(call.what() + ": " + *why);
  return [target](const Call& in) {
    auto [run, chosen] = in_noncontig_layouts(in);
    Output out;
    out.value = invoke(target, run);
    out.notes.emplace_back("layout", layouts_note(chosen));
    out.tolerance = reordered_rounding(out.value);  // another layout, another kernel path
    return out;
  };
}

std::shared_ptr<Backend> precision_backend(std::string name, std::string description, Precision p) {
  return std::make_shared<FnBackend>(std::move(name), std::move(description),
                                     [p](const Call& call) { return prepare_precision(call, p); });
}

}  // namespace

std::map<std::string, std::string> noncontig_layouts(const Call& call) {
  auto chosen = in_noncontig_layouts(call).second;
  return {chosen.begin(), chosen.end()};
}

std::shared_ptr<Backend> make_eager_cpu() {
  return std::make_shared<FnBackend>("eager_cpu",
                                     "the operator through the c10 dispatcher on CPU, or the module's forward",
                                     [](const Call& call) -> Run {
                                       Target target = target_of(call);
                                       return [target](const Call& in) {
                                         Output out;
                                         out.value = invoke(target, in);
                                         return out;
                                       };
                                     });
}

std::shared_ptr<Backend> make_eager_cpu_fp64() {
  return precision_backend("eager_cpu_fp64",
                           "eager with floating inputs and module parameters in float64 (complex in complex128), "
                           "results cast back: the accuracy reference",
                           {at::kDouble, at::kComplexDouble, false});
}

std::shared_ptr<Backend> make_eager_cpu_fp16() {
  return precision_backend("eager_cpu_fp16",
                           "eager with float32/float64 inputs and module parameters in float16, "
                           "results cast back and compared with float16 tolerances",
                           {at::kHalf, std::nullopt, true});
}

std::shared_ptr<Backend> make_eager_cpu_bf16() {
  return precision_backend("eager_cpu_bf16",
                           "eager with float32/float64 inputs and module parameters in bfloat16, "
                           "results cast back and compared with bfloat16 tolerances",
                           {at::kBFloat16, std::nullopt, true});
}

std::shared_ptr<Backend> make_eager_cpu_noncontig() {
  return std::make_shared<FnBackend>(
      "eager_cpu_noncontig",
      "eager with every tensor input non-contiguous, same values (strided, transposed or "
      "channels_last, chosen by the seed)",
      prepare_noncontig);
}

}  // namespace opsfuzz::runner
