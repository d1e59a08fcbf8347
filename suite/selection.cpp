#include "suite/selection.h"

#include <ATen/Context.h>

#include <filesystem>

#include "opcall/opcall.h"
#include "suite/modules.h"

namespace opsfuzz::suite {

bool selected(const Test& test, const IdFilter& filter) {
  return filter.matches(test.id) || (!test.pair.empty() && filter.matches(test.pair));
}

std::vector<std::string> listing(const Suite& suite, const IdFilter& filter) {
  std::vector<std::string> lines;
  for (const auto& test : suite.tests) {
    if (!selected(test, filter)) continue;
    const PairTest* pair = suite.pair_of(test);
    if (!pair) {
      lines.push_back(test.id);
    } else if (&suite.tests[pair->a] == &test || !selected(suite.tests[pair->a], filter)) {
      lines.push_back(pair->id);  // the pair is listed once, at its first selected side
      for (size_t side : {pair->a, pair->b})
        if (selected(suite.tests[side], filter)) lines.push_back("  " + suite.tests[side].id);
    }
  }
  return lines;
}

std::optional<std::string> unavailable_device(const Test& test) {
  switch (test.device) {
    case Device::Cpu: return std::nullopt;
    case Device::Gpu:
    case Device::Cuda:
      if (at::hasCUDA()) return "device " + std::string(name(test.device)) + " is not supported by this runner yet";
      return "device " + std::string(name(test.device)) + " is not available (no CUDA)";
    case Device::Mps: return "device mps is not available";
  }
  return std::nullopt;
}

namespace {

// A module path that cannot be resolved here, checked with its construct arguments.
void check_module(const Node& n, const Test& test, std::vector<std::string>& warnings) {
  if (n.type != NodeType::Module && n.type != NodeType::Construct) return;
  bool found = is_registered_module(n.path);
  if (n.path.starts_with("file:")) {
    std::string file = n.path.substr(5);
    file = file.substr(0, file.find("::"));  // "file:m.pt::a.b" -> "m.pt"
    found = std::filesystem::exists(std::filesystem::path(test.directory) / file) || std::filesystem::exists(file);
  }
  if (!found)
    warnings.push_back(n.pos.str() + ": warning: " + test.id + ": module '" + n.path + "' is not available here");
  for (const auto& arg : n.args) check_module(arg, test, warnings);
  for (const auto& [name, arg] : n.kwargs) check_module(arg, test, warnings);
}

}  // namespace

std::vector<std::string> reference_warnings(const Suite& suite) {
  std::vector<std::string> warnings;
  for (const auto& test : suite.tests) {
    if (test.module) check_module(*test.module, test, warnings);
    else if (!opcall::has_op(test.op))
      warnings.push_back(test.pos.str() + ": warning: " + test.id + ": unknown operator '" + test.op + "'" +
                         opcall::suggest_op(test.op));
  }
  return warnings;
}
}  // namespace opsfuzz::suite
