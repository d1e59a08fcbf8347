// Suite tests run on eager_cpu in this process, through the runner (side_from_test,
// run_side_here), with their outputs: for tests that look at the values.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "runner/run.h"
#include "suite/selection.h"
#include "suite/suite.h"

namespace opsfuzz::suite::testing {

using runner::Status;

struct Ran {
  std::string id;
  Status status = Status::Ok;
  std::string message;  // the error, or why the test was skipped
  c10::IValue output;
};

inline Ran run_test(const Test& test, uint64_t seed = 0) {
  runner::SideRun r = runner::run_side_here(runner::side_from_test(test, "", seed));
  return {test.id, r.result.status, r.result.err, r.output};
}

// The selected tests in suite order (each side of a pair test on its own).
inline std::vector<Ran> run_eager(const Suite& suite, const IdFilter& filter = IdFilter(), uint64_t seed = 0) {
  std::vector<Ran> out;
  for (const Test& test : suite.tests)
    if (selected(test, filter)) out.push_back(run_test(test, seed));
  return out;
}

}  // namespace opsfuzz::suite::testing

// The suite's tests call them as if they were the suite's own.
namespace opsfuzz::suite {
using testing::Ran;
using testing::run_eager;
using testing::run_test;
using testing::Status;
}  // namespace opsfuzz::suite
