// Operator names, the overload cache and suggestions.
#include <ATen/core/dispatch/Dispatcher.h>
#include <torch/csrc/jit/runtime/operator.h>

#include <algorithm>
#include <mutex>
#include <unordered_map>

#include "argtypes/names.h"
#include "opcall/impl.h"

namespace opsfuzz::opcall {

std::string OpName::qualified() const { return ns + "::" + name; }

std::string OpName::str() const { return qualified() + (overload && !overload->empty() ? "." + *overload : ""); }

OpName parse_name(std::string_view text) {
  auto malformed = [&](const char* why) {
    return LookupError("malformed operator name '" + std::string(text) + "': " + why);
  };
  OpName out;
  std::string_view rest = text;
  if (size_t sep = rest.find("::"); sep != std::string_view::npos) {
    out.ns = std::string(rest.substr(0, sep));
    rest = rest.substr(sep + 2);
    if (out.ns.empty()) throw malformed("empty namespace");
  }
  if (size_t dot = rest.find('.'); dot != std::string_view::npos) {
    std::string_view overload = rest.substr(dot + 1);
    rest = rest.substr(0, dot);
    if (overload.empty()) throw malformed("empty overload");
    out.overload = overload == "default" ? "" : std::string(overload);
  }
  if (rest.empty()) throw malformed("empty name");
  auto bad = [](char c) { return c == ':' || c == '.' || c == ' ' || c == '(' || c == ')'; };
  if (std::any_of(rest.begin(), rest.end(), bad) ||
      (out.overload && std::any_of(out.overload->begin(), out.overload->end(), bad)))
    throw malformed("expected [namespace::]name[.overload]");
  out.name = std::string(rest);
  return out;
}

namespace {

std::string overload_text(const std::string& overload) { return overload.empty() ? "default" : overload; }

struct Cache {
  std::mutex mutex;
  // Qualified name -> its overloads. Entries are never changed or freed once made.
  std::unordered_map<std::string, std::unique_ptr<const std::vector<Op>>> by_name;
  // "aten::add.Tensor" (or "aten::abs." for a default overload) -> that overload alone: found in
  // the dispatcher without reading the TorchScript registry's other schemas.
  std::unordered_map<std::string, std::unique_ptr<const Op>> exact;
  std::vector<std::string> all_names;  // every qualified operator name, for suggestions
};

Cache& cache() {
  static Cache c;
  return c;
}

std::vector<Op> collect(const std::string& qualified) {
  auto ops = torch::jit::getAllOperatorsFor(c10::Symbol::fromQualString(qualified));
  // Dispatcher operators first, then those of TorchScript only, each in registration order: a
  // stable order whatever the build registered first.
  std::stable_partition(ops.begin(), ops.end(), [](const auto& op) { return op->isC10Op(); });
  std::vector<Op> out;
  for (auto& op : ops) {
    const auto& s = op->schema();
    auto handle = op->isC10Op() ? c10::Dispatcher::singleton().findSchema({s.name(), s.overload_name()}) : c10::nullopt;
    if (handle) out.emplace_back(std::make_shared<const Op::Impl>(*handle));
    else out.emplace_back(std::make_shared<const Op::Impl>(std::move(op)));
  }
  return out;
}

const std::vector<Op>* find_overloads(const std::string& qualified) {
  Cache& c = cache();
  std::lock_guard lock(c.mutex);
  auto it = c.by_name.find(qualified);
  if (it != c.by_name.end()) return it->second.get();
  std::vector<Op> ops = collect(qualified);
  if (ops.empty()) return nullptr;  // not cached: it may be registered later
  auto& slot = c.by_name[qualified];
  slot = std::make_unique<const std::vector<Op>>(std::move(ops));
  return slot.get();
}

// The overload n names (n.overload set), or nullptr.
const Op* find_exact(const OpName& n) {
  const std::string key = n.qualified() + "." + *n.overload;
  {
    Cache& c = cache();
    std::lock_guard lock(c.mutex);
    if (auto it = c.exact.find(key); it != c.exact.end()) return it->second.get();
    if (auto h = c10::Dispatcher::singleton().findSchema({n.qualified(), *n.overload})) {
      auto& slot = c.exact[key];
      slot = std::make_unique<const Op>(std::make_shared<const Op::Impl>(*h));
      return slot.get();
    }
  }
  // Not in the dispatcher: one of TorchScript only, if any.
  const std::vector<Op>* ops = find_overloads(n.qualified());
  if (!ops) return nullptr;
  for (const auto& op : *ops)
    if (op.schema().overload_name() == *n.overload) return &op;
  return nullptr;
}

const std::vector<std::string>& all_names() {
  Cache& c = cache();
  std::lock_guard lock(c.mutex);
  if (c.all_names.empty()) {
    for (const auto& op : torch::jit::getAllOperators()) c.all_names.push_back(op->schema().name());
    std::sort(c.all_names.begin(), c.all_names.end());
    c.all_names.erase(std::unique(c.all_names.begin(), c.all_names.end()), c.all_names.end());
  }
  return c.all_names;
}

// " (did you mean 'aten::relu'?)": the closest name, within a typo of the name without its
// namespace.
std::string suggest(const OpName& n) {
  auto best = closest(n.qualified(), all_names(), 1, typo_distance(n.name));
  return best.empty() ? "" : " (did you mean '" + best[0] + "'?)";
}

const std::vector<Op>& overloads_of(const OpName& n) {
  const std::vector<Op>* ops = find_overloads(n.qualified());
  if (!ops) throw LookupError("unknown operator '" + n.qualified() + "'" + suggest(n));
  return *ops;
}

[[noreturn]] void no_overload(const OpName& n, const std::vector<Op>& ops) {
  std::vector<std::string> names;
  for (const auto& op : ops) names.push_back(overload_text(op.schema().overload_name()));
  std::string list;
  for (const auto& s : names) list += (list.empty() ? "" : ", ") + s;
  const std::string wanted = overload_text(*n.overload);
  throw LookupError("operator '" + n.qualified() + "' has no overload '" + wanted + "'" + did_you_mean(wanted, names) +
                    "; its overloads: " + list);
}

}  // namespace

Op::Impl::Impl(const c10::OperatorHandle& op)
    : handle(std::make_shared<const c10::OperatorHandle>(op)), schema(&handle->schema()) {
  init();
}

Op::Impl::Impl(std::shared_ptr<torch::jit::Operator> op)
    : jit(std::move(op)),
      operation(std::make_shared<torch::jit::Operation>(jit->getOperation())),
      schema(&jit->schema()) {
  init();
}

void Op::Impl::init() {
  name = schema->name() + (schema->overload_name().empty() ? "" : "." + schema->overload_name());
  for (const auto& a : schema->arguments())
    params.push_back({a.name(), a.default_value() ? &*a.default_value() : nullptr, a.kwarg_only()});
}

const c10::FunctionSchema& Op::schema() const { return *impl_->schema; }
const std::string& Op::name() const { return impl_->name; }
bool Op::in_dispatcher() const { return impl_->handle != nullptr; }

std::span<const Op> overloads(std::string_view name) { return overloads_of(parse_name(name)); }

const Op& find_op(std::string_view name) {
  // Per thread, so the hot path takes no lock: text -> the op it names.
  thread_local std::unordered_map<std::string, const Op*> memo;
  if (auto it = memo.find(std::string(name)); it != memo.end()) return *it->second;
  OpName n = parse_name(name);
  if (!n.overload) n.overload = "";
  const Op* op = find_exact(n);
  if (!op) no_overload(n, overloads_of(n));  // says which: the operator or the overload
  memo.emplace(std::string(name), op);
  return *op;
}

bool has_op(std::string_view name) {
  OpName n;
  try {
    n = parse_name(name);
  } catch (const LookupError&) { return false; }
  if (n.overload) return find_exact(n) != nullptr;
  return find_overloads(n.qualified()) != nullptr;
}

std::string suggest_op(std::string_view name) {
  try {
    return suggest(parse_name(name));
  } catch (const LookupError&) { return ""; }
}

Resolved resolve(std::string_view name, const Stack& args, const Kwargs& kwargs) {
  OpName n = parse_name(name);
  if (n.overload) {
    const Op* op = find_exact(n);
    if (!op) no_overload(n, overloads_of(n));
    return {op, op->bind(args, kwargs)};
  }
  const auto& ops = overloads_of(n);
  std::string reasons, argument;
  bool same_argument = true;
  for (const auto& op : ops) {
    Failure why;
    Resolved r{&op, {}};
    if (bind_schema(op, args, kwargs, r.stack, why)) return r;
    reasons += (reasons.empty() ? "" : "; ") + why.message;
    if (&op == &ops.front()) argument = why.argument;
    same_argument &= why.argument == argument;
  }
  std::string given;
  for (const auto& a : args) given += (given.empty() ? "" : ", ") + describe(a);
  for (const auto& [k, v] : kwargs) given += (given.empty() ? "" : ", ") + k + "=" + describe(v);
  throw BindError(n.qualified(), same_argument ? argument : "",
                  "no overload of " + n.qualified() + " accepts (" + given + "): " + reasons);
}

}  // namespace opsfuzz::opcall
