// The built-in `torch.nn.*` names: torch::nn modules bound by their Python signatures. Here: the
// helpers every family uses (declared in modules_internal.h) and the list of families, one
// nn_*.cpp file each.
#include "suite/modules_internal.h"

namespace opsfuzz::suite {
namespace builtin_nn {

const c10::IValue None;

c10::IValue str(const char* s) { return c10::IValue(std::string(s)); }

at::Tensor tensor(const Bound& b, const std::string& name) {
  const auto& v = b.get(name);
  if (!v.isTensor())
    throw std::invalid_argument(b.what() + ": argument '" + name + "' expects a Tensor, got " +
                                (v.isNone() ? "None" : v.tagKind()));
  return v.toTensor();
}

at::Tensor tensor_or_undefined(const Bound& b, const std::string& name) {
  return b.none(name) ? at::Tensor() : tensor(b, name);
}

c10::IValue tuple(std::vector<c10::IValue> items) { return c10::ivalue::Tuple::create(std::move(items)); }

Signature placement(Signature s) {
  s.push_back({"device", None});
  s.push_back({"dtype", None});
  return s;
}

void reg(const std::string& name, Signature signature, ModuleFactory factory, bool variadic) {
  register_builtin_module("torch.nn." + name, std::move(signature), std::move(factory), variadic);
}

}  // namespace builtin_nn

void register_builtin_modules() {
  using namespace builtin_nn;
  register_linear_and_conv();
  register_norms();
  register_embeddings();
  register_recurrent_and_attention();
  register_cells();
  register_activations();
  register_more_activations();
  register_pooling();
  register_shapes();
  register_more_layers();
  register_losses();
}

}  // namespace opsfuzz::suite
