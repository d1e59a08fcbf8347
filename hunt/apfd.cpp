#include "hunt/apfd.h"

#include <cstdio>
#include <stdexcept>
#include <string>

namespace opsfuzz::hunt {

std::optional<double> apfd(const std::vector<uint64_t>& firsts, uint64_t n, uint64_t unreached) {
  if (n == 0 || firsts.size() + unreached == 0) return std::nullopt;
  double ranks = static_cast<double>(unreached) * static_cast<double>(n + 1);  // TF_1 + ... + TF_m
  for (uint64_t first : firsts) {
    if (first >= n)
      throw std::invalid_argument("a finding opens at position " + std::to_string(first) + ", past the " +
                                  std::to_string(n) + " items run");
    ranks += static_cast<double>(first + 1);
  }
  const double items = static_cast<double>(n), faults = static_cast<double>(firsts.size() + unreached);
  return 1 - ranks / (items * faults) + 1 / (2 * items);
}

std::string apfd_line(const std::vector<uint64_t>& firsts, uint64_t items) {
  const std::optional<double> value = hunt::apfd(firsts, items);
  const std::string counted = std::to_string(firsts.size()) + " findings over " + std::to_string(items) + " items";
  if (!value) return "APFD: none (" + counted + ")";
  char text[32];
  std::snprintf(text, sizeof text, "%.4f", *value);
  return "APFD " + std::string(text) + " (" + counted + ")";
}

}  // namespace opsfuzz::hunt
