#include "suite/modules.h"

#include <torch/script.h>

#include <filesystem>
#include <mutex>

#include "argtypes/argtypes.h"
#include "opcall/opcall.h"
#include "suite/diagnostics.h"
#include "suite/modules_internal.h"

namespace opsfuzz::suite {

void convert_floating(const at::Tensor& t, c10::ScalarType dtype) {
  if (!t.defined() || !at::isFloatingType(t.scalar_type()) || t.scalar_type() == dtype) return;
  at::NoGradGuard no_grad;
  // set_data keeps the tensor object, so the module's parameter slot sees the new data.
  t.set_data(t.to(dtype));
}

std::shared_ptr<Module> Module::clone() const {
  throw UnconvertibleModule("this module cannot be copied: its class does not implement clone()");
}

void Module::to(c10::ScalarType dtype) {
  throw UnconvertibleModule(std::string("this module cannot be converted to ") + std::string(opsfuzz::name(dtype)) +
                            ": its class does not implement to()");
}

std::shared_ptr<Module> converted_copy(const Module& module, c10::ScalarType dtype) {
  std::shared_ptr<Module> copy = module.clone();
  copy->to(dtype);
  return copy;
}

namespace {

struct Entry {
  Signature signature;
  ModuleFactory factory;
  bool variadic = false;
};

struct Registry {
  std::mutex mutex;
  std::map<std::string, Entry> entries;
};

Registry& raw_registry() {
  static Registry r;
  return r;
}

// The registry with the built-in names in it (registered on first use, so that users'
// registrations made afterwards replace them).
Registry& registry() {
  static std::once_flag builtins;
  std::call_once(builtins, [] { register_builtin_modules(); });
  return raw_registry();
}

std::string describe(const c10::IValue& v) { return v.isNone() ? "None" : v.tagKind(); }

// Calls a TorchScript module's forward with positional and keyword inputs.
class ScriptModule : public Module {
 public:
  explicit ScriptModule(torch::jit::Module m) : module_(std::move(m)) { module_.eval(); }
  c10::IValue forward(const std::vector<c10::IValue>& args, const Kwargs& kwargs) override {
    std::unordered_map<std::string, c10::IValue> named(kwargs.begin(), kwargs.end());
    return module_.get_method("forward")(args, named);
  }
  // torch::jit::Module::clone deep-copies the attributes, tensors included.
  std::shared_ptr<Module> clone() const override { return std::make_shared<ScriptModule>(module_.clone()); }
  // Not torch::jit::Module::to: it would convert integral buffers too.
  void to(c10::ScalarType dtype) override {
    for (const at::Tensor& t : module_.parameters()) convert_floating(t, dtype);
    for (const at::Tensor& t : module_.buffers()) convert_floating(t, dtype);
  }
  const torch::jit::Module* script_module() const override { return &module_; }

 private:
  torch::jit::Module module_;
};

std::shared_ptr<Module> load_script_module(const std::string& spec, const std::string& directory) {
  std::string file = spec.substr(5);  // after "file:"
  std::string attribute;
  if (size_t sep = file.find("::"); sep != std::string::npos) {
    attribute = file.substr(sep + 2);
    file = file.substr(0, sep);
  }
  if (file.ends_with(".py"))
    throw UnsupportedModule(
        "Python source modules cannot be loaded; save the module with torch.jit.save and use "
        "file:PATH.pt");
  std::filesystem::path path(file);
  if (path.is_relative() && !directory.empty() && std::filesystem::exists(directory / path)) path = directory / path;
  torch::jit::Module module = torch::jit::load(path.string());
  size_t start = 0;
  while (!attribute.empty() && start <= attribute.size()) {  // "a.b": nested submodules
    size_t end = attribute.find('.', start);
    if (end == std::string::npos) end = attribute.size();
    module = module.attr(attribute.substr(start, end - start)).toModule();
    start = end + 1;
  }
  return std::make_shared<ScriptModule>(std::move(module));
}

// Holds a module inside an IValue.
struct ModuleCapsule : torch::CustomClassHolder {
  std::shared_ptr<Module> module;
};

}  // namespace

Bound::Bound(const std::string& what, const Signature& signature, const std::vector<c10::IValue>& args,
             const Kwargs& kwargs, bool variadic)
    : what_(what) {
  // Python's rules, as for operators; a variadic signature is (*args, name=default, ...).
  std::vector<opcall::Parameter> params;
  params.reserve(signature.size());
  for (const auto& p : signature) params.push_back({p.name, p.default_value ? &*p.default_value : nullptr, variadic});
  std::vector<c10::IValue> values = opcall::bind_arguments(what, params, args, kwargs, variadic ? &rest_ : nullptr);
  for (size_t k = 0; k < signature.size(); ++k) values_[signature[k].name] = std::move(values[k]);
}

const c10::IValue& Bound::get(const std::string& name) const {
  auto it = values_.find(name);
  if (it == values_.end()) throw std::logic_error(what_ + ": no parameter '" + name + "'");
  return it->second;
}

void Bound::wrong_type(const std::string& name, const char* expected) const {
  const c10::IValue& v = get(name);
  std::string hint = v.isString() ? " '" + v.toStringRef() +
                                        "' (dim symbols are not resolved in constructor arguments: "
                                        "pass them through template vars)"
                                  : "";
  throw std::invalid_argument(what_ + ": argument '" + name + "' expects " + expected + ", got " + describe(v) + hint);
}

int64_t Bound::i(const std::string& name) const {
  const auto& v = get(name);
  if (!v.isInt()) wrong_type(name, "int");
  return v.toInt();
}

double Bound::d(const std::string& name) const {
  const auto& v = get(name);
  if (v.isInt()) return static_cast<double>(v.toInt());
  if (!v.isDouble()) wrong_type(name, "float");
  return v.toDouble();
}

bool Bound::b(const std::string& name) const {
  const auto& v = get(name);
  if (!v.isBool()) wrong_type(name, "bool");
  return v.toBool();
}

std::string Bound::s(const std::string& name) const {
  const auto& v = get(name);
  if (!v.isString()) wrong_type(name, "str");
  return v.toStringRef();
}

std::vector<int64_t> Bound::ints(const std::string& name) const {
  const auto& v = get(name);
  if (v.isInt()) return {v.toInt()};
  std::vector<int64_t> out;
  auto take = [&](const c10::IValue& e) {
    if (!e.isInt()) wrong_type(name, "an int or a list of ints");
    out.push_back(e.toInt());
  };
  if (v.isList()) {
    for (const auto& e : v.toListRef()) take(e);
  } else if (v.isTuple()) {
    for (const auto& e : v.toTupleRef().elements()) take(e);
  } else {
    wrong_type(name, "an int or a list of ints");
  }
  return out;
}

std::optional<int64_t> Bound::opt_i(const std::string& name) const {
  if (none(name)) return std::nullopt;
  return i(name);
}

std::optional<double> Bound::opt_d(const std::string& name) const {
  if (none(name)) return std::nullopt;
  return d(name);
}

std::optional<bool> Bound::opt_b(const std::string& name) const {
  if (none(name)) return std::nullopt;
  return b(name);
}

void register_builtin_module(const std::string& path, Signature signature, ModuleFactory factory, bool variadic) {
  raw_registry().entries[path] = Entry{std::move(signature), std::move(factory), variadic};
}

void register_module(const std::string& path, Signature signature, ModuleFactory factory, bool variadic) {
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  r.entries[path] = Entry{std::move(signature), std::move(factory), variadic};
}

bool is_registered_module(const std::string& path) {
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  return r.entries.count(path) > 0;
}

std::vector<std::string> registered_modules() {
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  std::vector<std::string> out;
  for (const auto& [name, entry] : r.entries) out.push_back(name);
  return out;
}

std::shared_ptr<Module> make_module(const std::string& path, const std::vector<c10::IValue>& args, const Kwargs& kwargs,
                                    const std::string& directory) {
  if (path.starts_with("file:")) {
    auto module = load_script_module(path, directory);
    if (!args.empty() || !kwargs.empty())
      throw std::invalid_argument(path + ": a TorchScript module takes no constructor arguments");
    return module;
  }
  Entry entry;
  {
    Registry& r = registry();
    std::lock_guard lock(r.mutex);
    auto it = r.entries.find(path);
    if (it == r.entries.end()) {
      std::vector<std::string> names;
      for (const auto& [name, e] : r.entries) names.push_back(name);
      throw std::invalid_argument("unknown module '" + path + "'" + did_you_mean(path, names));
    }
    entry = it->second;
  }
  Bound bound(path, entry.signature, args, kwargs, entry.variadic);
  return entry.factory(bound);
}

c10::IValue module_to_ivalue(std::shared_ptr<Module> module) {
  auto capsule = c10::make_intrusive<ModuleCapsule>();
  capsule->module = std::move(module);
  return c10::IValue::make_capsule(std::move(capsule));
}

std::shared_ptr<Module> module_from_ivalue(const c10::IValue& v) {
  if (!v.isCapsule()) return nullptr;
  auto* capsule = dynamic_cast<ModuleCapsule*>(v.toCapsule().get());
  return capsule ? capsule->module : nullptr;
}

}  // namespace opsfuzz::suite
