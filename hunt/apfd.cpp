#include "hunt/apfd.h"

#include <stdexcept>
#include <string>

namespace opsfuzz::hunt {

std::optional<double> apfd(const std::vector<uint64_t>& firsts, uint64_t n) {
  if (n == 0 || firsts.empty()) return std::nullopt;
  double ranks = 0;  // TF_1 + ... + TF_m
  for (uint64_t first : firsts) {
    if (first >= n)
      throw std::invalid_argument("a finding opens at position " + std::to_string(first) + ", past the " +
                                  std::to_string(n) + " items run");
    ranks += static_cast<double>(first + 1);
  }
  const double items = static_cast<double>(n), faults = static_cast<double>(firsts.size());
  return 1 - ranks / (items * faults) + 1 / (2 * items);
}

}  // namespace opsfuzz::hunt
