#include "suite/runner.h"

#include <ATen/Context.h>
#include <c10/util/Exception.h>

#include <filesystem>

#include "opcall/opcall.h"
#include "suite/modules.h"
#include "suite/materialize.h"

namespace opsfuzz::suite {

namespace {

TestOutcome failed(const Test& test, Status status, std::string message) {
  return TestOutcome{test.id, status, std::move(message), {}};
}

}  // namespace

std::optional<std::string> unavailable_device(const Test& test) {
  switch (test.device) {
    case Device::Cpu:
      return std::nullopt;
    case Device::Gpu:
    case Device::Cuda:
      if (at::hasCUDA())
        return "device " + std::string(name(test.device)) + " is not supported by this runner yet";
      return "device " + std::string(name(test.device)) + " is not available (no CUDA)";
    case Device::Mps:
      return "device mps is not available";
  }
  return std::nullopt;
}

const char* name(Status s) {
  switch (s) {
    case Status::Ok:
      return "ok";
    case Status::Error:
      return "error";
    case Status::Skipped:
      return "skipped";
  }
  return "?";
}

TestOutcome run_test(const Test& test, uint64_t run_seed) {
  if (auto why = unavailable_device(test)) return failed(test, Status::Skipped, *why);
  try {
    std::shared_ptr<Module> module;
    if (test.module) module = materialize_module(test, run_seed);
    Inputs inputs = materialize_inputs(test, run_seed);
    c10::IValue out = module ? module->forward(inputs.args, inputs.kwargs)
                             : opcall::to_python(opcall::call(test.op, inputs.args, inputs.kwargs));
    return TestOutcome{test.id, Status::Ok, "", std::move(out)};
  } catch (const UnsupportedModule& e) {
    return failed(test, Status::Skipped, std::string("unsupported: ") + e.what());
  } catch (const c10::Error& e) {
    return failed(test, Status::Error, e.what_without_backtrace());
  } catch (const std::exception& e) {
    return failed(test, Status::Error, e.what());
  }
}

bool selected(const Test& test, const IdFilter& filter) {
  return filter.matches(test.id) || (!test.pair.empty() && filter.matches(test.pair));
}

std::vector<TestOutcome> run_eager(const Suite& suite, const RunOptions& options,
                                   const std::function<void(const TestOutcome&)>& report) {
  std::vector<TestOutcome> outcomes;
  for (const auto& test : suite.tests) {
    if (!selected(test, options.filter)) continue;
    outcomes.push_back(run_test(test, options.seed));
    if (report) report(outcomes.back());
  }
  return outcomes;
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

namespace {

// A module path that cannot be resolved here, checked with its construct arguments.
void check_module(const Node& n, const Test& test, std::vector<std::string>& warnings) {
  if (n.type != NodeType::Module && n.type != NodeType::Construct) return;
  bool found = is_registered_module(n.path);
  if (n.path.starts_with("file:")) {
    std::string file = n.path.substr(5);
    file = file.substr(0, file.find("::"));  // "file:m.pt::a.b" -> "m.pt"
    found = std::filesystem::exists(std::filesystem::path(test.directory) / file) ||
            std::filesystem::exists(file);
  }
  if (!found)
    warnings.push_back(n.pos.str() + ": warning: " + test.id + ": module '" + n.path +
                       "' is not available here");
  for (const auto& arg : n.args) check_module(arg, test, warnings);
  for (const auto& [name, arg] : n.kwargs) check_module(arg, test, warnings);
}

}  // namespace

std::vector<std::string> reference_warnings(const Suite& suite) {
  std::vector<std::string> warnings;
  for (const auto& test : suite.tests) {
    if (test.module)
      check_module(*test.module, test, warnings);
    else if (!opcall::has_op(test.op))
      warnings.push_back(test.pos.str() + ": warning: " + test.id + ": unknown operator '" +
                         test.op + "'" + opcall::suggest_op(test.op));
  }
  return warnings;
}

std::string format(const TestOutcome& o) {
  std::string line = std::string(name(o.status)) + " " + o.id;
  if (!o.message.empty()) {
    std::string one_line = o.message;
    for (char& c : one_line)
      if (c == '\n') c = ' ';
    line += ": " + one_line;
  }
  return line;
}

}  // namespace opsfuzz::suite
