// The backend interface: what runs one call (an operator with its bound arguments, or a module's
// forward) and returns its outputs. Users implement Backend and register it from their own code;
// the built-in backends are registered the same way.
#pragma once

#include <ATen/core/ivalue.h>

#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "opcall/opcall.h"

namespace opsfuzz::suite {
class Module;
}

namespace opsfuzz::runner {

// One call: an operator overload with its complete bound stack (every schema argument, defaults
// filled), or a module with its forward arguments. Each backend gets its own deep copy.
struct Call {
  const opcall::Op* op = nullptr;         // set for an operator
  std::shared_ptr<suite::Module> module;  // set for a module
  std::string module_path;                // "torch.nn.Linear", for messages
  opcall::Stack args;                     // op: the bound stack; module: positionals
  opcall::Kwargs kwargs;                  // module only
  uint64_t seed = 0;                      // for backends that choose (the non-contiguous layout)

  std::string what() const;  // "aten::add.Tensor" or "torch.nn.Linear"
};

// A deep copy: tensors cloned (keeping strides), lists and tuples rebuilt, so that an in-place
// kernel on one copy cannot change another.
Call deep_copy(const Call& call);
// Visits the call's tensor inputs (inside lists too) in argument order, then its keyword ones.
void for_each_tensor(const Call& call, const std::function<void(const at::Tensor&)>& fn);

// Two values match where |a - b| <= atol + rtol * |b| (b the reference).
struct Tolerance {
  double atol = 0, rtol = 0;
};

// What a backend's model returned for one run.
struct Output {
  c10::IValue value;  // as Python returns it: None, one value, or a tuple
  // A backend that judges itself (eager_cpu_grad: autograd against finite differences) puts its
  // reference here; the oracle compares value with it instead of with the baseline.
  std::optional<c10::IValue> reference;
  // The dtype whose tolerances apply (eager_cpu_fp16: Half) when the outputs were cast back.
  std::optional<c10::ScalarType> precision;
  // A tolerance of the backend's own, over any dtype's (eager_cpu_grad: gradcheck's).
  std::optional<Tolerance> tolerance;
  // Facts recorded in the result: {"fused", "true"}, {"layout", "transposed"}, ...
  std::vector<std::pair<std::string, std::string>> notes;
};

// A call prepared for one backend (opdiff's exported model): built once, run once per repeat,
// each time on a fresh copy of the inputs. run throws on failure (INFER_FAIL, TIMING_FAIL), or
// Skip when only the values show that the backend does not apply (SKIPPED).
class Model {
 public:
  virtual ~Model() = default;
  virtual Output run(const Call& inputs) = 0;
};

// Thrown by Backend::prepare when the backend does not apply to the call (SKIPPED, with why).
struct Skip : std::runtime_error {
  using std::runtime_error::runtime_error;
};

class Backend {
 public:
  virtual ~Backend() = default;
  virtual std::string name() const = 0;         // "eager_cpu"
  virtual std::string description() const = 0;  // one line, for list-backends
  // Why this machine cannot run the backend (every call SKIPPED with it), or nullopt.
  virtual std::optional<std::string> unavailable() const { return std::nullopt; }
  // Builds the model for a call. Throws Skip when the backend does not apply; any other
  // exception is EXPORT_FAIL.
  virtual std::unique_ptr<Model> prepare(const Call& call) = 0;
};

// Registers a backend under its name (replacing one of the same name).
void register_backend(std::shared_ptr<Backend> backend);
// The backend called `name`; throws std::invalid_argument listing the registered ones.
std::shared_ptr<Backend> find_backend(std::string_view name);
// Every registered backend's name, the built-in ones first.
std::vector<std::string> backend_names();
// Whether `name` is one of the backends every ops-fuzz has (not one a user registered).
bool is_builtin_backend(std::string_view name);

}  // namespace opsfuzz::runner
