#include "tools/known_crashes.h"

#include <fnmatch.h>

#include <algorithm>

namespace opsfuzz {

std::span<const KnownCrash> known_crashes() {
  static constexpr KnownCrash table[] = {
      {"index_select.default", "index_select.zero_dim_self_many_indices", "Aborted",
       "ops-fuzz sweep index_select.default --config contract --seed 0 --max 300",
       "a zero-dim self with more than one index writes past the end of the result; the heap "
       "corruption aborts in free() or malloc()"},
      {"index_select.default", "index_select.zero_dim_self_many_indices", "Segmentation fault",
       "ops-fuzz sweep index_select.default --config contract --seed 0 --max 300",
       "the same heap corruption, met as a segmentation fault"},
      {"_local_scalar_dense.default", "_local_scalar_dense.numel_unchecked", "Segmentation fault",
       "ops-fuzz sweep _local_scalar_dense.default --invalid --config contract,empty --seed 0 --max 300",
       "the kernel never checks that self has one element and reads past the end of an empty one"},
      {"*", "*.lowest_dividend_by_minus_one", "Floating point exception",
       "ops-fuzz sweep --ops 'div.*_mode,fmod.*,remainder.*,floor_divide.*' --config contract,integral --max 1000",
       "the lowest int32 or int64 dividend divided by -1 overflows, and x86 integer division traps"},
      {"avg_pool2d.default", "avg_pool2d.lowest_sum_by_minus_one", "Floating point exception",
       "ops-fuzz sweep avg_pool2d.default --config contract,integral --seed 0 --max 1000",
       "an int64 window summing to the lowest int64, divided by divisor_override -1, overflows and traps"},
      {"sym_s*.int", "sym_s*.dim_unchecked", "Segmentation fault",
       "ops-fuzz sweep --ops 'sym_size.int,sym_stride.int' --config contract --seed 0 --max 1000",
       "dim is neither wrapped nor checked: the operator reads outside self's sizes or strides, and a "
       "garbage SymInt read there may be taken for a symbolic one and dereferenced"},
      {"reflection_pad[12]d.default", "reflection_pad[12]d.padding_length_unchecked", "Segmentation fault",
       "ops-fuzz sweep reflection_pad1d.default --invalid --seed 0 --max 200",
       "a padding list shorter than 2n is read past its end: the pads are garbage and the kernel writes out of bounds"},
      {"native_layer_norm_backward.default", "native_layer_norm_backward.*_shape_unchecked", "Segmentation fault",
       "ops-fuzz sweep native_layer_norm_backward.default --invalid --config contract,empty --seed 0 --max 1000",
       "grad_out, mean and rstd are read as input.numel() and one-per-row elements whatever their shapes: a "
       "smaller (or empty) one is read past its end"},
  };
  return table;
}

const KnownCrash* find_known_crash(const std::string& op, const std::vector<std::string>& wheres,
                                   const std::string& message) {
  auto matches = [](const char* glob, const std::string& s) { return ::fnmatch(glob, s.c_str(), 0) == 0; };
  for (const auto& k : known_crashes())
    if (matches(k.op, op) && std::any_of(wheres.begin(), wheres.end(), [&](const auto& w) { return matches(k.where, w); }) &&
        message.ends_with(std::string("signal ") + k.signal))
      return &k;
  return nullptr;
}

}  // namespace opsfuzz
