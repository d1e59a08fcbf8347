// Relations that many specs share, over arguments named as in the op's schema. A helper used
// by one spec stays with that spec.
#pragma once

#include "specs/model/dsl.h"

namespace opsfuzz::dsl {

// A dim of tensor `arg`: [-r, r) where r is its rank, with rank 0 treated as rank 1.
Cond dim_of(std::string arg);
// For an int list's entries: each entry is a dim of `arg` not already in the list (dims
// compared after wrapping negatives).
Cond unique_dim_of(std::string arg);
// For a tensor's Size at each dim: broadcastable with the tensors `args` (aligned from the right).
Cond broadcastable_with(std::vector<std::string> args);
// For a Scalar value written into tensors of dtype `dtype(c)` (none: no constraint): integral
// dtypes take only values in their range (uint8 also negative integers, which wrap around), and
// float16, bfloat16 and float32 values up to their largest finite value.
// `what` names that dtype in the label. A tensor's values (a 0-dim tensor read as a Scalar)
// follow the same rule.
Cond fits_dtype(std::string what, std::function<std::optional<c10::ScalarType>(const Ctx&)> dtype);
// For a tensor's values cast to dtype `dtype(c)`: float values stay in the range of an integral
// dtype (out of it the cast is undefined); integers wrap around, so they are free.
Cond casts_into(std::string what, std::function<std::optional<c10::ScalarType>(const Ctx&)> dtype);
// For a tensor's values where `applies` holds: above the lowest value of an int32 or int64 tensor,
// whose division by -1 overflows (`when` ends the label: " when divisor_override is -1").
Cond above_lowest_integer(std::string when, std::function<bool(const Ctx&)> applies);
// The dtype that type promotion gives the tensors `args`.
c10::ScalarType promoted(const Ctx& c, std::initializer_list<std::string_view> args);
// The positive divisors of n that are at most `limit`.
std::vector<int64_t> divisors(int64_t n, int64_t limit);
// A convolution-style parameter list: one entry for all dims, or one per dim.
int64_t param(const Ctx& c, std::string_view list, int64_t i);
// The rank of tensor `arg` as dims see it (rank 0 counts as 1).
int64_t dim_rank(const Ctx& c, std::string_view arg);

}  // namespace opsfuzz::dsl
