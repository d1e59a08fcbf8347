#include "specs/model/spec.h"

#include <ATen/core/ivalue.h>

#include <stdexcept>

namespace opsfuzz {

std::string_view name(Suffix s) {
  static constexpr std::string_view names[] = {"Eq", "Ne", "In", "NotIn", "Le", "Lt", "Ge", "Gt", "Be", "Gen"};
  return names[static_cast<int>(s)];
}

const c10::IValue& Ctx::value(int arg) const {
  if (!values_ || arg < 0 || static_cast<size_t>(arg) >= values_->size())
    throw std::out_of_range("argument " + std::to_string(arg) + " is not materialized");
  return (*values_)[arg];
}

int64_t Ctx::size(int arg, int64_t dim) const {
  const auto& s = shape(arg);
  int64_t r = static_cast<int64_t>(s.size());
  if (dim < 0) dim += r;
  return s.at(static_cast<size_t>(dim));
}

int64_t Ctx::numel(int arg) const {
  int64_t n = 1;
  for (auto s : shape(arg)) n *= s;
  return n;
}

int64_t Ctx::length(int arg) const {
  const auto& m = meta(arg);
  if (is_tensor_list(m.argtype)) return static_cast<int64_t>(m.tensors.size());
  return static_cast<int64_t>(std::get<IntList>(m.value).size());
}

ArgSpec& ArgSpec::add(Attribute a, Cond c) {
  auto attrs = hierarchy(type);
  if (std::find(attrs.begin(), attrs.end(), a) == attrs.end())
    throw std::invalid_argument("argument '" + name + "' (" + std::string(opsfuzz::name(type)) +
                                ") has no " + std::string(opsfuzz::name(a)) + " attribute");
  std::string label = name + "." + std::string(opsfuzz::name(a)) + "." +
                      std::string(opsfuzz::name(c.suffix)) + "(" + c.text + ")";
  constraints.push_back({a, c.suffix, std::move(c.fn), std::move(label), c.negatable, c.constant});
  return *this;
}

Spec& Spec::in(ArgSpec a) {
  args_.push_back(std::move(a));
  return *this;
}

Spec& Spec::kw(ArgSpec a) {
  a.keyword = true;
  args_.push_back(std::move(a));
  return *this;
}

Spec& Spec::out(ArgSpec a) {
  a.keyword = true;
  outs_.push_back(std::move(a));
  return *this;
}

std::vector<int> solve_order(const Spec& spec) {
  const auto& args = spec.args();
  enum Mark { Unseen, Active, Done };
  std::vector<Mark> mark(args.size(), Unseen);
  std::vector<int> order;
  auto visit = [&](auto& self, int i, const std::string& via) -> void {
    if (i < 0 || static_cast<size_t>(i) >= args.size())
      throw std::invalid_argument(spec.op() + ": argument '" + via + "' depends on unknown argument index " +
                                  std::to_string(i));
    if (mark[i] == Done) return;
    if (mark[i] == Active)
      throw std::invalid_argument(spec.op() + ": dependency cycle through argument '" + args[i].name + "'");
    mark[i] = Active;
    for (int d : args[i].dependencies) self(self, d, args[i].name);
    mark[i] = Done;
    order.push_back(i);
  };
  for (size_t i = 0; i < args.size(); ++i) visit(visit, static_cast<int>(i), args[i].name);
  return order;
}

}  // namespace opsfuzz
