// Checks a spec against the FunctionSchema of its op in the linked libtorch: the arguments'
// names, order, kinds, keyword-only flags and optionality, and the arguments it leaves out
// (only those with a default).
#pragma once

#include "specs/model/spec.h"

#include <string>
#include <vector>

namespace c10 {
struct FunctionSchema;
}

namespace opsfuzz {

// How `spec` disagrees with `schema`, one sentence a problem (empty: it agrees). `out_schema`,
// the op's `out` overload, is checked against the spec's out= arguments when it has any.
std::vector<std::string> schema_mismatches(const Spec& spec, const c10::FunctionSchema& schema,
                                           const c10::FunctionSchema* out_schema = nullptr);

// The schema types an ArgType stands for: "Tensor", "int[]", "Scalar?", ... (for messages).
std::string schema_kinds(ArgType t);

}  // namespace opsfuzz
