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
      // Unchecked indices (max_pool2d_with_indices_backward) and batch dims of grad_output or indices
      // (both backward ops): the gradient is scattered past the end of the result, or read past the
      // end of a shorter grad_output or indices.
      {"[am]*pool2d*_backward.default", "[am]*pool2d*_backward.*_unchecked", "Aborted",
       "ops-fuzz sweep --ops 'avg_pool2d_backward.default,max_pool2d_with_indices_backward.default' --invalid "
       "--config contract --seed 0 --max 1000",
       "indices outside the plane of self, or a grad_output or indices with more batches than self, write past "
       "the end of the result; the heap corruption aborts in free() or malloc()"},
      {"[am]*pool2d*_backward.default", "[am]*pool2d*_backward.*_unchecked", "Segmentation fault",
       "ops-fuzz sweep --ops 'avg_pool2d_backward.default,max_pool2d_with_indices_backward.default' --invalid "
       "--config contract --seed 0 --max 1000",
       "the same accesses outside the result, grad_output or indices, met as a segmentation fault"},
      {"[am]*pool2d*_backward.default", "[am]*pool2d*_backward.*_unchecked", "Bus error",
       "ops-fuzz sweep max_pool2d_with_indices_backward.default --invalid --config contract --seed 0 --max 1000",
       "the same accesses outside the result, met as a bus error"},
      {"_adaptive_avg_pool2d_backward.default", "_adaptive_avg_pool2d_backward.*_unchecked", "Segmentation fault",
       "ops-fuzz sweep _adaptive_avg_pool2d_backward.default --invalid --config contract,empty --seed 0 --max 300",
       "self's sizes and grad_output's planes are not checked against each other: an empty spatial dim of self, "
       "or a grad_output with more planes than self, makes the kernel write past the end of the result"},
      {"_adaptive_avg_pool2d_backward.default", "_adaptive_avg_pool2d_backward.*_unchecked", "Aborted",
       "ops-fuzz sweep _adaptive_avg_pool2d_backward.default --invalid --config contract,empty --seed 0 --max 300",
       "the same writes past the end of the result; the heap corruption aborts in free() or malloc()"},
      {"avg_pool*.default", "avg_pool*.lowest_*_by_minus_one", "Floating point exception",
       "ops-fuzz sweep --ops 'avg_pool2d.default,avg_pool3d.default,avg_pool2d_backward.default' "
       "--config contract,integral --seed 0 --max 1000",
       "an int64 window summing to the lowest int64 (or such a gradient), divided by divisor_override -1, "
       "overflows and traps"},
      {"sym_s*.int", "sym_s*.dim_unchecked", "Segmentation fault",
       "ops-fuzz sweep --ops 'sym_size.int,sym_stride.int' --config contract --seed 0 --max 1000",
       "dim is neither wrapped nor checked: the operator reads outside self's sizes or strides, and a "
       "garbage SymInt read there may be taken for a symbolic one and dereferenced"},
      {"reflection_pad[12]d.default", "reflection_pad[12]d.padding_length_unchecked", "Segmentation fault",
       "ops-fuzz sweep reflection_pad1d.default --invalid --seed 0 --max 200",
       "a padding list shorter than 2n is read past its end: the pads are garbage and the kernel writes out of bounds"},
      {"_fft_r2c.default", "_fft_r2c.dim_unchecked", "Segmentation fault",
       "ops-fuzz sweep _fft_r2c.default --invalid --config contract --seed 0 --max 1000",
       "a dim out of [0, self.rank) is used to read self's sizes and to write the result's size before it is "
       "checked: -2 overwrites the size vector's data pointer, a large dim reads far outside the sizes"},
      {"_fft_r2c.default", "_fft_r2c.dim_unchecked", "Aborted",
       "ops-fuzz sweep _fft_r2c.default --invalid --config contract --seed 0 --max 1000",
       "a rank-6 self (its sizes held outside the tensor) with dim[-1] == -1, onesided: the size read before them "
       "and written before the result's size vector corrupt the heap, met as free(): invalid size"},
      {"embedding_dense_backward.default", "embedding_dense_backward.indices_unchecked", "Aborted",
       "ops-fuzz sweep embedding_dense_backward.default --invalid --config contract --seed 0 --max 300",
       "an index outside [0, num_weights) adds into memory outside the gradient; the heap corruption aborts in "
       "free() or malloc()"},
      {"embedding_dense_backward.default", "embedding_dense_backward.indices_unchecked", "Segmentation fault",
       "ops-fuzz sweep embedding_dense_backward.default --invalid --config contract --seed 0 --max 300",
       "the same heap corruption, met as a segmentation fault"},
      {"embedding_dense_backward.default", "embedding_dense_backward.indices_unchecked", "Bus error",
       "ops-fuzz sweep embedding_dense_backward.default --invalid --config contract --seed 0 --max 1000",
       "the same heap corruption, met as a bus error"},
      {"_embedding_bag.default", "_embedding_bag.mode_unchecked", "Segmentation fault",
       "ops-fuzz sweep _embedding_bag.default --invalid --config contract --seed 0 --max 300",
       "mode is not checked: a mode other than 0, 1 or 2 writes out of bounds"},
      {"_embedding_bag.default", "_embedding_bag.mode_unchecked", "Aborted",
       "ops-fuzz sweep _embedding_bag.default --invalid --config contract --seed 0 --max 300",
       "the same out-of-bounds writes, met as heap corruption that aborts in free() or malloc()"},
      {"_embedding_bag.default", "_embedding_bag.indices_rank_unchecked", "Segmentation fault",
       "ops-fuzz sweep _embedding_bag.default --invalid --config contract --seed 1 --max 1000",
       "2-d indices are taken: bags are laid out over indices.size(0) but filled over all its elements, out of "
       "bounds"},
      {"_embedding_bag.default", "_embedding_bag.indices_rank_unchecked", "Aborted",
       "ops-fuzz sweep _embedding_bag.default --invalid --config contract --seed 1 --max 1000",
       "the same out-of-bounds writes, met as heap corruption"},
      {"_embedding_bag.default", "_embedding_bag.offsets_unchecked", "Segmentation fault",
       "ops-fuzz sweep _embedding_bag.default --invalid --config contract,empty --seed 0 --max 600",
       "with no offsets (no bag) and some indices, the max mode writes the indices' rows into a bag that does not "
       "exist; an empty offsets of 2 or more dims is read as if it held offsets"},
      {"_embedding_bag.default", "_embedding_bag.weight_rank_unchecked", "Segmentation fault",
       "ops-fuzz sweep _embedding_bag.default --invalid --config contract,empty --seed 0 --max 600",
       "a weight of more than 2 dims is taken and its rows read as if it had 2"},
      {"_embedding_bag.default", "_embedding_bag.index_dtype_promoted", "Aborted",
       "ops-fuzz sweep _embedding_bag.default --invalid --config contract --seed 0 --max 300",
       "bool offsets cannot hold len(indices): with include_last_offset a last offset short of len(indices) "
       "corrupts the heap in the max mode (the kernel does not check offsets[-1] == len(indices))"},
      {"_embedding_bag.default", "_embedding_bag.index_dtype_promoted", "Segmentation fault",
       "ops-fuzz sweep _embedding_bag.default --invalid --config contract --seed 0 --max 1000",
       "the same heap corruption, met as a segmentation fault"},
      {"native_layer_norm_backward.default", "native_layer_norm_backward.*_shape_unchecked", "Segmentation fault",
       "ops-fuzz sweep native_layer_norm_backward.default --invalid --config contract,empty --seed 0 --max 1000",
       "grad_out, mean and rstd are read as input.numel() and one-per-row elements whatever their shapes: a "
       "smaller (or empty) one is read past its end"},
      {"convolution_backward.default", "convolution_backward.grad_output_batch_unchecked", "Segmentation fault",
       "ops-fuzz sweep convolution_backward.default --invalid --config contract,empty --seed 0 --max 300",
       "the slow kernels of plain convolutions do not compare grad_output.size(0) with input.size(0): a grad_output "
       "with fewer (or no) batches is read past its end"},
      {"convolution_backward.default", "convolution_backward.bias_gradient_without_bias", "Aborted",
       "ops-fuzz sweep convolution_backward.default --invalid --config contract,empty --seed 0 --max 1000",
       "output_mask[2] with bias_sizes None on an input without batches or channels: the kernel dereferences the "
       "empty bias_sizes in a noexcept operator (bad optional access), which terminates"},
  };
  return table;
}

const KnownCrash* find_known_crash(const std::string& op, const std::vector<std::string>& wheres,
                                   const std::string& message) {
  auto matches = [](const char* glob, const std::string& s) { return ::fnmatch(glob, s.c_str(), 0) == 0; };
  for (const auto& k : known_crashes())
    if (matches(k.op, op) && std::any_of(wheres.begin(), wheres.end(), [&](const auto& w) { return matches(k.where, w); }) &&
        message.find(std::string(" (") + k.signal + ")") != std::string::npos)
      return &k;
  return nullptr;
}

}  // namespace opsfuzz
