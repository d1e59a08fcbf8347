#include "toy_backend.h"

#include <ATen/ATen.h>

#include "runner/backend.h"

namespace {

using opsfuzz::runner::Call;
using opsfuzz::runner::Output;

// Runs operators through the dispatcher, as eager does, except clamp: its lower bound is off by
// one (the deliberate bug the suite must catch).
class ToyModel : public opsfuzz::runner::Model {
 public:
  Output run(const Call& inputs) override {
    Call call = opsfuzz::runner::deep_copy(inputs);
    if (call.op->name() == "aten::clamp" && !call.args.at(1).isNone()) {
      c10::IValue& min = call.args[1];
      min = min.isInt() ? c10::IValue(min.toInt() + 1) : c10::IValue(min.toDouble() + 1);
    }
    return {opsfuzz::opcall::to_python(call.op->call(call.args))};
  }
};

class ToyCpu : public opsfuzz::runner::Backend {
 public:
  std::string name() const override { return "toy_cpu"; }
  std::string description() const override { return "the toy backend on the CPU (clamp is off by one)"; }
  std::unique_ptr<opsfuzz::runner::Model> prepare(const Call& call) override {
    if (!call.op) throw opsfuzz::runner::Skip("the toy backend runs operators, not modules");
    return std::make_unique<ToyModel>();
  }
};

class ToyGpu : public ToyCpu {
 public:
  std::string name() const override { return "toy_gpu"; }
  std::string description() const override { return "the toy backend on its accelerator"; }
  std::optional<std::string> unavailable() const override { return "no toy accelerator on this machine"; }
};

}  // namespace

void register_toy_backends() {
  opsfuzz::runner::register_backend(std::make_shared<ToyCpu>());
  opsfuzz::runner::register_backend(std::make_shared<ToyGpu>());
}
