// Calls for the runner's tests: an operator with its arguments bound by opcall.
#pragma once

#include <string_view>

#include "opcall/opcall.h"
#include "runner/backend.h"

namespace opsfuzz::runner {

inline Call op_call(std::string_view name, const opcall::Stack& args, const opcall::Kwargs& kwargs = {},
                    uint64_t seed = 0) {
  Call call;
  call.op = &opcall::find_op(name);
  call.args = call.op->bind(args, kwargs);
  call.seed = seed;
  return call;
}

}  // namespace opsfuzz::runner
