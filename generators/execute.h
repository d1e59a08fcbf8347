// Runs samples on the reference CPU kernels through the c10 dispatcher, in-process or in forked
// children so that a crashing kernel costs one result, not the run.
#pragma once

#include "generators/generators.h"

namespace opsfuzz {

struct Outcome {
  enum Kind : uint8_t { Accepted, Rejected, Crashed, TimedOut } kind = Accepted;
  std::string message;  // the kernel's error, or the signal
};
std::string_view name(Outcome::Kind k);

// Calls the sample's op ("add.Tensor" -> aten::add.Tensor; "x.default" -> aten::x) with its
// arguments bound against the op's schema (keywords by name, defaults filled in).
Outcome execute(const Sample& sample);

// Runs each sample in a forked child (one child runs samples until one crashes or hangs; the
// next child resumes after it). Results come back in order, one per sample.
std::vector<Outcome> execute_isolated(const std::vector<Sample>& samples, double timeout_s = 10);

}  // namespace opsfuzz
