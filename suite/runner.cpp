#include "suite/runner.h"

#include <ATen/Context.h>
#include <c10/util/Exception.h>

#include "opcall/opcall.h"
#include "suite/materialize.h"

namespace opsfuzz::suite {

namespace {

// Why a test cannot run here, if it cannot.
std::optional<std::string> unavailable(const Test& test) {
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

TestOutcome failed(const Test& test, Status status, std::string message) {
  return TestOutcome{test.id, status, std::move(message), {}};
}

}  // namespace

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
  if (auto why = unavailable(test)) return failed(test, Status::Skipped, *why);
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
