// Walking values: the tensors inside an IValue (lists, tuples, optionals), mapped or flattened.
#pragma once

#include <ATen/core/ivalue.h>

#include <array>
#include <charconv>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace c10 {
struct Argument;
}

namespace opsfuzz::runner {

// A schema argument's type, an Optional's element type for an optional one.
c10::TypePtr element_type(const c10::Argument& param);
// The dtype a dtype argument (`ScalarType`, optional or not) asks for; nullopt for another
// argument, or None.
std::optional<at::ScalarType> dtype_argument(const c10::Argument& param, const c10::IValue& v);

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

// Where the flat (row-major) position `flat` lies in a tensor of `sizes`: " at [1, 4]"; "" for 0-d.
std::string index_text(int64_t flat, c10::IntArrayRef sizes);

// Shortest text that reads back as the same value of T (float or double).
template <typename T> std::string number_text(T v) {
  std::array<char, 64> buffer{};
  auto [end, ec] = std::to_chars(buffer.data(), buffer.data() + buffer.size(), v);
  return std::string(buffer.data(), ec == std::errc() ? end : buffer.data());
}

}  // namespace opsfuzz::runner
