// The built-in backends; registry.cpp registers them before any lookup.
#pragma once

#include <map>
#include <memory>
#include <string>

#include "runner/backend.h"

namespace opsfuzz::runner {

// backends_eager.cpp
std::shared_ptr<Backend> make_eager_cpu();            // the op through the dispatcher, or forward
std::shared_ptr<Backend> make_eager_cpu_fp64();       // floating inputs upcast, results cast back
std::shared_ptr<Backend> make_eager_cpu_fp16();       // floating inputs downcast to Half
std::shared_ptr<Backend> make_eager_cpu_bf16();       // floating inputs downcast to BFloat16
std::shared_ptr<Backend> make_eager_cpu_noncontig();  // same values, non-contiguous tensors
// The layout eager_cpu_noncontig gives each of a call's tensor inputs, by the label its "layout"
// note uses ("self" -> "strided", "tensors[1]" -> "unchanged"): chosen from the call's seed, the
// same on every run.
std::map<std::string, std::string> noncontig_layouts(const Call& call);

// backends_jit.cpp
std::shared_ptr<Backend> make_torchscript_cpu();                // single-op graph, profiling executor
std::shared_ptr<Backend> make_torchscript_cpu_fused();          // + TensorExpr fuser, static shapes
std::shared_ptr<Backend> make_torchscript_cpu_fused_dynamic();  // + TensorExpr fuser, dynamic shapes

// backend_grad.cpp
std::shared_ptr<Backend> make_eager_cpu_grad();  // autograd in float64 against finite differences

}  // namespace opsfuzz::runner
