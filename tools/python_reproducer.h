// A finding's Python reproducer: a standalone script for the op's owners, which is how PyTorch
// bugs are reported. It calls torch.ops.aten.<op>.<overload> on the exact input values (their
// bytes, sizes and strides), as the baseline and as the backend do it (the non-contiguous layouts
// of eager_cpu_noncontig, the float64 run of eager_cpu_fp64, a scripted call with the TensorExpr
// fuser's settings for the TorchScript backends), prints both results (and the float64 value),
// and exits 1 while the discrepancy holds.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "runner/backend.h"

namespace opsfuzz {

struct PythonFinding {
  std::string id, backend, baseline, kind, message;  // as findings.jsonl has them
};

// The script, or nullopt with why when the backend has no Python counterpart (eager_cpu_grad
// judges gradients against finite differences; a module call; a backend a user registered).
std::optional<std::string> python_reproducer(const runner::Call& call, const PythonFinding& finding, std::string& why);

}  // namespace opsfuzz
