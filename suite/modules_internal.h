// What the files behind modules.h share: the registry (modules.cpp) and the built-in `torch.nn.*`
// names (modules_nn.cpp: the helpers below and the list of families; nn_*.cpp: the families).
// Not part of the suite's interface.
#pragma once

#include <torch/torch.h>

#include "argtypes/names.h"
#include "suite/modules.h"

namespace opsfuzz::suite {

// Registers a built-in name; the registry calls register_builtin_modules once, on first use
// (modules.cpp).
void register_builtin_module(const std::string& path, Signature signature, ModuleFactory factory, bool variadic);
// Converts a parameter or buffer to `dtype` in place when it is floating-point (modules.cpp).
void convert_floating(const at::Tensor& t, c10::ScalarType dtype);
// Registers the built-in `torch.nn.*` names (modules_nn.cpp).
void register_builtin_modules();

// The built-in `torch.nn.*` names: torch::nn modules bound by their Python signatures.
namespace builtin_nn {

namespace nn = torch::nn;
using Forward = std::function<c10::IValue(const Bound&)>;

extern const c10::IValue None;

c10::IValue str(const char* s);

at::Tensor tensor(const Bound& b, const std::string& name);

// An undefined tensor stands for None in the C++ frontend's forward signatures.
at::Tensor tensor_or_undefined(const Bound& b, const std::string& name);

template <class T> c10::optional<T> c10_opt(const std::optional<T>& v) {
  return v ? c10::optional<T>(*v) : c10::nullopt;
}

c10::IValue tuple(std::vector<c10::IValue> items);

template <size_t D> torch::ExpandingArray<D> arr(const Bound& b, const std::string& name) {
  auto v = b.ints(name);
  if (v.size() == 1) return torch::ExpandingArray<D>(v[0]);
  if (v.size() != D)
    throw std::invalid_argument(b.what() + ": argument '" + name + "' expects an int or " + std::to_string(D) +
                                " ints");
  return torch::ExpandingArray<D>(at::ArrayRef<int64_t>(v));
}

// A module without parameters or buffers whose forward is a function of its bound forward
// arguments: a copy shares nothing that converting could change.
class FnModule : public Module {
 public:
  FnModule(std::string what, Signature signature, Forward fn)
      : what_(std::move(what)), signature_(std::move(signature)), fn_(std::move(fn)) {}
  c10::IValue forward(const std::vector<c10::IValue>& args, const Kwargs& kwargs) override {
    return fn_(Bound(what_, signature_, args, kwargs));
  }
  std::shared_ptr<Module> clone() const override { return std::make_shared<FnModule>(*this); }
  void to(c10::ScalarType) override {}

 private:
  std::string what_;
  Signature signature_;
  Forward fn_;
};

// A torch::nn module (M is its holder, e.g. nn::Linear) with a forward function of its bound
// forward arguments.
template <class M> class NnModule : public Module {
 public:
  using Fn = std::function<c10::IValue(M&, const Bound&)>;
  NnModule(std::string what, Signature signature, M m, Fn fn)
      : what_(std::move(what)), signature_(std::move(signature)), m_(std::move(m)), fn_(std::move(fn)) {}
  c10::IValue forward(const std::vector<c10::IValue>& args, const Kwargs& kwargs) override {
    return fn_(m_, Bound(what_, signature_, args, kwargs));
  }
  // torch::nn's clone deep-copies parameters, buffers and submodules, and keeps eval mode.
  std::shared_ptr<Module> clone() const override {
    auto copy = std::dynamic_pointer_cast<typename M::ContainedType>(m_->clone());
    return std::make_shared<NnModule>(what_, signature_, M(std::move(copy)), fn_);
  }
  // Not torch::nn::Module::to: it would convert integral buffers (num_batches_tracked) too.
  void to(c10::ScalarType dtype) override {
    for (const at::Tensor& t : m_->parameters()) convert_floating(t, dtype);
    for (const at::Tensor& t : m_->buffers()) convert_floating(t, dtype);
  }

 private:
  std::string what_;
  Signature signature_;
  M m_;
  Fn fn_;
};

// Puts a torch::nn module in eval mode and keeps it for its forward function.
template <class M> std::shared_ptr<Module> wrap(const Bound& ctor, M m, Signature forward_signature,
                                                std::function<c10::IValue(M&, const Bound&)> fn) {
  m->eval();
  return std::make_shared<NnModule<M>>(ctor.what() + ".forward", std::move(forward_signature), std::move(m),
                                       std::move(fn));
}

// The usual case: forward(input) -> Tensor.
template <class M> std::shared_ptr<Module> unary(const Bound& ctor, M m) {
  return wrap<M>(ctor, std::move(m), {"input"},
                 [](M& m, const Bound& in) { return c10::IValue(m->forward(tensor(in, "input"))); });
}

Signature placement(Signature s);

// Applies the `device` and `dtype` constructor arguments of parametric modules.
template <class M> M placed(M m, const Bound& b) {
  const auto& device = b.get("device");
  if (!device.isNone() && !(device.isString() && device.toStringRef() == "cpu") &&
      !(device.isDevice() && device.toDevice().is_cpu()))
    throw std::invalid_argument(b.what() + ": only device cpu is supported here");
  const auto& dtype = b.get("dtype");
  if (dtype.isString()) {
    auto t = parse_dtype(dtype.toStringRef());
    if (!t) throw std::invalid_argument(b.what() + ": unknown dtype '" + dtype.toStringRef() + "'");
    m->to(*t);
  } else if (dtype.isInt()) {
    m->to(static_cast<c10::ScalarType>(dtype.toInt()));
  }
  return m;
}

void reg(const std::string& name, Signature signature, ModuleFactory factory, bool variadic = false);

// The families, each registering its names; register_builtin_modules calls them.
void register_linear_and_conv();          // nn_linear_conv.cpp
void register_embeddings();               // nn_linear_conv.cpp
void register_norms();                    // nn_normalization.cpp
void register_recurrent_and_attention();  // nn_recurrent_attention.cpp
void register_cells();                    // nn_recurrent_attention.cpp
void register_activations();              // nn_activation_pooling.cpp
void register_more_activations();         // nn_activation_pooling.cpp
void register_pooling();                  // nn_activation_pooling.cpp
void register_shapes();                   // nn_shape_misc.cpp
void register_more_layers();              // nn_shape_misc.cpp
void register_losses();                   // nn_loss.cpp

}  // namespace builtin_nn
}  // namespace opsfuzz::suite
