// Runs samples on the reference CPU kernels through opcall (the c10 dispatcher), in-process or in
// forked workers so that a crashing kernel costs one result, not the run.
#pragma once

#include "generators/generators.h"
#include "opcall/opcall.h"

namespace opsfuzz {

using opcall::CallOutcome;

// Calls the sample's op ("add.Tensor" -> aten::add.Tensor; "x.default" -> aten::x) with its
// positional and keyword arguments bound by opcall's binder (Python's rules, defaults filled,
// types checked). An unknown op or arguments that do not bind are a BindError, never Rejected.
CallOutcome execute(const Sample& sample);

// Runs each sample in a forked worker (opcall::run_isolated: one worker runs samples until one
// crashes or hangs; the next resumes after it). Results come back in order, one per sample.
// Workers drop c10 error backtraces (~6 ms each) unless asked.
std::vector<CallOutcome> execute_isolated(const std::vector<Sample>& samples, double timeout_s = 10,
                                          bool backtraces = false);

}  // namespace opsfuzz
