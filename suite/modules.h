// Modules by name: `torch.nn.*` classes, TorchScript files, and names users register from C++.
#pragma once

#include <ATen/core/ivalue.h>

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace torch::jit {
struct Module;
}

namespace opsfuzz::suite {

using Kwargs = std::vector<std::pair<std::string, c10::IValue>>;  // as opcall::Kwargs

// A module that cannot be copied or converted to another dtype (a user's module that does not
// implement Module::clone and Module::to).
class UnconvertibleModule : public std::runtime_error {
  using std::runtime_error::runtime_error;
};

// A constructed module (in eval mode), ready to be called.
class Module {
 public:
  virtual ~Module() = default;
  // Multi-output modules return tuples.
  virtual c10::IValue forward(const std::vector<c10::IValue>& args, const Kwargs& kwargs) = 0;
  // A copy with parameters and buffers of its own, so that converting it leaves this module as it
  // is (backends share one module). The default throws UnconvertibleModule.
  virtual std::shared_ptr<Module> clone() const;
  // Converts the floating-point parameters and buffers (submodules' too) to `dtype`, in place;
  // integral, bool and complex ones stay. The default throws UnconvertibleModule.
  virtual void to(c10::ScalarType dtype);
  // The TorchScript module behind a module loaded from a file (nullptr for others), for backends
  // that freeze and optimize it.
  virtual const torch::jit::Module* script_module() const { return nullptr; }
};

// A copy of `module` with its floating-point parameters and buffers in `dtype`; `module` is left
// unchanged. Throws UnconvertibleModule for a module that cannot be copied or converted.
std::shared_ptr<Module> converted_copy(const Module& module, c10::ScalarType dtype);

// A module that cannot be made here for a reason outside the test (a Python source file):
// runners report the test as skipped with this message.
class UnsupportedModule : public std::runtime_error {
  using std::runtime_error::runtime_error;
};

// One parameter of a Python signature; required when it has no default.
struct Param {
  std::string name;
  std::optional<c10::IValue> default_value;
  Param(const char* n) : name(n) {}  // NOLINT: required parameters read as plain names
  Param(const char* n, c10::IValue d) : name(n), default_value(std::move(d)) {}
};
using Signature = std::vector<Param>;

// Arguments bound to a Signature as Python binds them: positionals, keywords, defaults.
class Bound {
 public:
  // Throws opcall::BindError (a std::invalid_argument) naming `what` on a missing, unknown or
  // repeated argument, or too many positionals.
  Bound(const std::string& what, const Signature& signature, const std::vector<c10::IValue>& args, const Kwargs& kwargs,
        bool variadic = false);

  const c10::IValue& get(const std::string& name) const;
  bool none(const std::string& name) const { return get(name).isNone(); }
  int64_t i(const std::string& name) const;
  double d(const std::string& name) const;
  bool b(const std::string& name) const;
  std::string s(const std::string& name) const;
  std::vector<int64_t> ints(const std::string& name) const;  // an int or a list/tuple of ints
  std::optional<int64_t> opt_i(const std::string& name) const;
  std::optional<double> opt_d(const std::string& name) const;
  std::optional<bool> opt_b(const std::string& name) const;
  const std::vector<c10::IValue>& rest() const { return rest_; }  // extra positionals (*args)
  const std::string& what() const { return what_; }

 private:
  [[noreturn]] void wrong_type(const std::string& name, const char* expected) const;
  std::string what_;
  std::map<std::string, c10::IValue> values_;
  std::vector<c10::IValue> rest_;
};

using ModuleFactory = std::function<std::shared_ptr<Module>(const Bound&)>;

// Registers a module path (e.g. "mylib.MyBlock") with its constructor signature; a later
// registration of the same path replaces the earlier one.
void register_module(const std::string& path, Signature signature, ModuleFactory factory, bool variadic = false);
bool is_registered_module(const std::string& path);
std::vector<std::string> registered_modules();

// Constructs the module at `path`: a registered name, or `file:PATH.pt[::a.b]` (TorchScript;
// relative to `directory`). Throws UnsupportedModule for `file:*.py`, std::exception otherwise.
std::shared_ptr<Module> make_module(const std::string& path, const std::vector<c10::IValue>& args, const Kwargs& kwargs,
                                    const std::string& directory = "");

// Constructed objects travel as capsule IValues (construct nodes, Sequential's arguments).
c10::IValue module_to_ivalue(std::shared_ptr<Module> module);
std::shared_ptr<Module> module_from_ivalue(const c10::IValue& v);  // nullptr if not a module

}  // namespace opsfuzz::suite
