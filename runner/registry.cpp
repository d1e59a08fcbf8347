#include <ATen/ATen.h>

#include <algorithm>
#include <mutex>

#include "runner/backend.h"
#include "runner/builtin.h"
#include "runner/values.h"
#include "suite/modules.h"

namespace opsfuzz::runner {

std::string Call::what() const { return op ? op->name() : module_path; }

Call deep_copy(const Call& call) {
  Call copy = call;
  auto clone = [](const at::Tensor& t) { return t.clone(at::MemoryFormat::Preserve); };
  for (auto& v : copy.args) v = map_tensors(v, clone);
  for (auto& [name, v] : copy.kwargs) v = map_tensors(v, clone);
  return copy;
}

void for_each_tensor(const Call& call, const std::function<void(const at::Tensor&)>& fn) {
  auto visit = [&](const c10::IValue& v) {
    map_tensors(v, [&](const at::Tensor& t) {
      fn(t);
      return t;
    });
  };
  for (const c10::IValue& v : call.args) visit(v);
  for (const auto& [name, v] : call.kwargs) visit(v);
}

namespace {

struct Registry {
  std::mutex mutex;
  std::vector<std::shared_ptr<Backend>> backends;
  std::vector<std::string> builtin;

  Registry() {
    for (auto make :
         {make_eager_cpu, make_eager_cpu_fp64, make_eager_cpu_fp16, make_eager_cpu_bf16, make_eager_cpu_noncontig,
          make_torchscript_cpu, make_torchscript_cpu_fused, make_torchscript_cpu_fused_dynamic, make_eager_cpu_grad}) {
      backends.push_back(make());
      builtin.push_back(backends.back()->name());
    }
  }
};

Registry& registry() {
  static Registry r;
  return r;
}

}  // namespace

void register_backend(std::shared_ptr<Backend> backend) {
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  auto same = [&](const auto& b) { return b->name() == backend->name(); };
  auto it = std::find_if(r.backends.begin(), r.backends.end(), same);
  if (it != r.backends.end()) *it = std::move(backend);
  else r.backends.push_back(std::move(backend));
}

std::shared_ptr<Backend> find_backend(std::string_view name) {
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  std::string known;
  for (const auto& b : r.backends) {
    if (b->name() == name) return b;
    known += (known.empty() ? "" : ", ") + b->name();
  }
  throw std::invalid_argument("unknown backend '" + std::string(name) + "' (known: " + known + ")");
}

std::vector<std::string> backend_names() {
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  std::vector<std::string> names;
  for (const auto& b : r.backends) names.push_back(b->name());
  return names;
}

bool is_builtin_backend(std::string_view name) {
  const auto& builtin = registry().builtin;  // fixed once built
  return std::find(builtin.begin(), builtin.end(), name) != builtin.end();
}

}  // namespace opsfuzz::runner
