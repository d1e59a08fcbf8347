// Which tests of a suite a run selects, and what of them this machine cannot run.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "suite/ids.h"
#include "suite/model.h"

namespace opsfuzz::suite {

// Whether a test is selected by the filter (its id, or its pair's id).
bool selected(const Test& test, const IdFilter& filter);

// The selected test ids in suite order, one a line; a pair test as its id, then its selected
// sides indented by two spaces.
std::vector<std::string> listing(const Suite& suite, const IdFilter& filter);

// Why this machine cannot run the test's device (cuda, mps), or nullopt.
std::optional<std::string> unavailable_device(const Test& test);

// What only running can settle, as warnings: unknown operators, modules not available here.
std::vector<std::string> reference_warnings(const Suite& suite);

}  // namespace opsfuzz::suite
