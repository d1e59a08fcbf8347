// What lies between the elements of a view in its storage (a strided layout's gaps, what comes
// before its offset): one value per dtype, the same wherever a layout is made (generation, YAML
// const_tensors), so a sample and its reproducer hold the same bytes. A value a kernel cannot
// mistake for data: NaN for floating and complex dtypes, the largest value for integers, true for
// bool. A kernel that reads outside its view then shows it, the same way every run.
#pragma once

#include <ATen/core/Tensor.h>

namespace opsfuzz::opcall {

// A tensor of `sizes`, every element the gap value of the dtype of `options`.
at::Tensor gap_filled(at::IntArrayRef sizes, const at::TensorOptions& options);

}  // namespace opsfuzz::opcall
