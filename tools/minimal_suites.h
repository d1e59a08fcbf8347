// ops-fuzz generate --minimal: per op, the fewest samples of a pool that cover every argument class
// the pool reaches and 90 % of its class pairs (generators/minimal.h), as a table, JSONL, or a
// YAML suite per op.
#pragma once

#include <ostream>

#include "tools/commands.h"

namespace opsfuzz {

int generate_minimal(const GenerateOptions& o, std::ostream& out, std::ostream& err);

}  // namespace opsfuzz
