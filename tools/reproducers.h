// A finding's reproducers, written to DIR/reproducers/<id>.yaml and <id>.py: its first sample,
// shrunk while the finding's key reproduces, as a YAML test that `ops-fuzz run` reproduces (checked
// here, by running it) and as a Python script for the op's owners (tools/python_reproducer.h).
//
// Shrinking re-generates the op's samples under smaller limits (sizes and rank 1, 2, 3, 4; lists as
// long), the same seed, configuration and validity (an invalid sample violating the same rule),
// so every candidate is solved through the spec's constraints; the smallest candidate (in input
// elements) that gives the finding's key again replaces the first sample. Then dims of that
// sample are halved, its values kept (tensors sharing a dim size, counted from the right, halved
// together), while the spec classifies it as before and the key comes back.
#pragma once

#include <nlohmann/json_fwd.hpp>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "hunt/reproduction.h"
#include "runner/run.h"

namespace opsfuzz {
namespace hunt {
struct Finding;
}

// Shrinks the finding's first sample (`origin`) and writes its reproducers under `dir`, running
// candidates with `options` (its backends replaced by the finding's). A suite's test gets none.
Reproduction reproduce(const hunt::Finding& f, const runner::Origin& origin, const runner::RunOptions& options,
                       const std::string& dir);

}  // namespace opsfuzz
