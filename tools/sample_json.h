// One sample as one JSON object (the `generate --format jsonl` line).
#pragma once

#include "generators/generators.h"

#include <string>

namespace opsfuzz {
std::string to_json(const Spec& spec, const Sample& s);
}
