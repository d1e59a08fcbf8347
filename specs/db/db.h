// The SpecDB: every operator spec, registered once from the op-family files.
#pragma once

#include "specs/model/spec.h"

#include <string_view>
#include <vector>

namespace opsfuzz {

const std::vector<Spec>& spec_db();
const Spec* find_spec(std::string_view op);  // nullptr when unknown
// Ops of the SpecDB whose names are closest to `op` (for "did you mean").
std::vector<std::string> close_specs(std::string_view op, size_t n = 3);

}  // namespace opsfuzz
