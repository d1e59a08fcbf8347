// APFD (average percentage of faults detected) of an execution order: how early the order reaches
// its findings. For n items and m findings whose first items sit at ranks TF_1..TF_m (1-based),
// APFD = 1 - (TF_1 + ... + TF_m) / (n·m) + 1 / (2n), as OPERA measures its prioritization: 1 when
// every finding opens at the first item, near 0 when all open at the last.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace opsfuzz::hunt {

// The APFD of n items whose findings open at the 0-based positions `firsts` (Finding::first), and
// of `unreached` more findings the n items did not reach, each counted at rank n + 1 (orders
// compared on the findings any of them reached); nullopt when there is no item or no finding
// (APFD measures nothing then). Throws std::invalid_argument for a position outside the n items.
std::optional<double> apfd(const std::vector<uint64_t>& firsts, uint64_t n, uint64_t unreached = 0);

// The line a hunt ends with and `apfd` prints: "APFD 0.8123 (148 findings over 67560 items)", or
// why there is none.
std::string apfd_line(const std::vector<uint64_t>& firsts, uint64_t items);

}  // namespace opsfuzz::hunt
