// Internals shared by opcall's sources (not part of the API).
#pragma once

#include <ATen/core/stack.h>

#include "opcall/opcall.h"

namespace c10 {
class OperatorHandle;
}
namespace torch::jit {
struct Operator;
}

namespace opsfuzz::opcall {

struct Op::Impl {
  explicit Impl(const c10::OperatorHandle& op);             // a dispatcher operator
  explicit Impl(std::shared_ptr<torch::jit::Operator> op);  // one of TorchScript only

  std::shared_ptr<const c10::OperatorHandle> handle;  // the dispatcher's entry, or
  std::shared_ptr<torch::jit::Operator> jit;          // TorchScript's, with its operation
  std::shared_ptr<torch::jit::Operation> operation;
  const c10::FunctionSchema* schema = nullptr;  // owned by the registry's entry
  std::string name;                             // "aten::add.Tensor"
  std::vector<Parameter> params;                // the schema's arguments, for binding

 private:
  void init();
};

// Why arguments do not bind: the argument concerned ("" if none) and the message.
struct Failure {
  std::string argument;
  std::string message;
};

// Binds by Python's rules and checks and converts types: true and the full stack in `out`, or
// false and why in `why`.
bool bind_schema(const Op& op, const Stack& args, const Kwargs& kwargs, Stack& out, Failure& why);

// Op's implementation, for the sources of opcall.
const Op::Impl& impl_of(const Op& op);

}  // namespace opsfuzz::opcall
