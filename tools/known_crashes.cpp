#include "tools/known_crashes.h"

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
  };
  return table;
}

const KnownCrash* find_known_crash(const std::string& op, const std::vector<std::string>& wheres,
                                   const std::string& message) {
  for (const auto& k : known_crashes())
    if (op == k.op && std::find(wheres.begin(), wheres.end(), k.where) != wheres.end() &&
        message.ends_with(std::string("signal ") + k.signal))
      return &k;
  return nullptr;
}

}  // namespace opsfuzz
