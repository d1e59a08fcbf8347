// Walking values: the tensors inside an IValue (lists, tuples, optionals), mapped or flattened.
#pragma once

#include <ATen/core/ivalue.h>

#include <functional>
#include <string>
#include <vector>

namespace opsfuzz::runner {

// v with every tensor (defined ones, also inside lists, tuples and generic lists) replaced by
// fn(tensor); other values kept. Typed tensor lists stay typed.
c10::IValue map_tensors(const c10::IValue& v, const std::function<at::Tensor(const at::Tensor&)>& fn);

// One leaf of an output: a tensor, or a number / bool wrapped as a 0-d tensor, with its path
// ("0", "1.2" for nested tuples; "" for a single output).
struct Leaf {
  std::string path;
  at::Tensor value;
  bool scalar = false;  // a Python number or bool, not a tensor
  bool none = false;    // None (or an undefined tensor)
};
// The leaves of an output in order: tensors, numbers and bools; tuples and lists walked.
std::vector<Leaf> flatten(const c10::IValue& v);

}  // namespace opsfuzz::runner
