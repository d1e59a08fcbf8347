// Calling ATen operators by name through the c10 dispatcher, with Python-style arguments.
#pragma once

#include <ATen/core/ivalue.h>

#include <string>
#include <vector>

#include "suite/modules.h"

namespace opsfuzz::suite {

// Calls `aten::NAME[.OVERLOAD]` (or `NAME[.OVERLOAD]`, meaning aten::). Arguments are bound
// against the schema: positionals, keywords by name, defaults filled, types checked and
// converted (int to float, dtype / memory format / layout names to their enums, an int to an
// int[N]). Without an overload, dispatcher overloads and then TorchScript-only ones are tried in
// registration order and the first that accepts the arguments runs. Returns the single result,
// or a tuple of results. Throws std::invalid_argument when no overload accepts the arguments
// (the message says why for each), and the kernel's error (c10::Error) when the call fails.
c10::IValue call_op(const std::string& name, const std::vector<c10::IValue>& args,
                    const Kwargs& kwargs);

// Whether an operator of this name exists (any overload; `NAME.OVERLOAD` for that overload).
bool has_operator(const std::string& name);
// Operator names close to `name`, as " (did you mean 'aten::x'?)" or "".
std::string suggest_operator(const std::string& name);

// The overload call_op would run for these arguments, as "aten::add.Tensor".
std::string resolve_op(const std::string& name, const std::vector<c10::IValue>& args,
                       const Kwargs& kwargs);

}  // namespace opsfuzz::suite
