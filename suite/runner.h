// Running tests eagerly on CPU: materialize inputs, call the op or module, report per test.
#pragma once

#include <ATen/core/ivalue.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "suite/ids.h"
#include "suite/model.h"

namespace opsfuzz::suite {

enum class Status : uint8_t { Ok, Error, Skipped };
const char* name(Status s);

struct TestOutcome {
  std::string id;
  Status status = Status::Ok;
  std::string message;  // the error, or why the test was skipped
  c10::IValue output;   // the result when ok (kept for comparisons)
};

struct RunOptions {
  uint64_t seed = 0;
  IdFilter filter;
};

// Why this machine cannot run the test's device (cuda, mps), or nullopt.
std::optional<std::string> unavailable_device(const Test& test);

// Runs one test; never throws for problems of the test itself.
TestOutcome run_test(const Test& test, uint64_t run_seed);

// Runs the selected tests in suite order; `report` sees each outcome as soon as it is known.
// A side of a pair test runs when its own id or its pair's id is selected.
std::vector<TestOutcome> run_eager(const Suite& suite, const RunOptions& options,
                                   const std::function<void(const TestOutcome&)>& report = {});

// "ok ID", "error ID: message", "skipped ID: reason".
std::string format(const TestOutcome& outcome);

// Whether a test is selected by the filter (its id, or its pair's id).
bool selected(const Test& test, const IdFilter& filter);

// The selected test ids in suite order, one a line; a pair test as its id, then its selected
// sides indented by two spaces.
std::vector<std::string> listing(const Suite& suite, const IdFilter& filter);

// What only running can settle, as warnings: unknown operators, modules not available here.
std::vector<std::string> reference_warnings(const Suite& suite);

}  // namespace opsfuzz::suite
