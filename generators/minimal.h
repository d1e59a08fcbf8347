// Minimal suites (StableHLO's testing guidelines G1/G2: few tests a team can review, each type
// category represented): the fewest samples of a large pool of one op's samples that cover every
// single-argument class the pool reaches — and so every dtype, and every type category (integer,
// floating, boolean, complex), each tensor argument takes — and a share of its argument-pair
// classes (generators/diversity.h). A greedy set cover: each step takes the sample covering the
// most classes still needed (pair classes only while the share is not reached), lazily re-counted.
#pragma once

#include <cstddef>
#include <set>
#include <span>
#include <string>
#include <vector>

namespace opsfuzz {

struct Sample;

struct MinimalCover {
  std::vector<size_t> chosen;             // indexes into the pool, in the order taken
  std::vector<size_t> singles_after;      // single classes covered after each choice
  size_t singles = 0, singles_total = 0;  // covered by the chosen; reached by the pool
  size_t pairs = 0, pairs_total = 0;
  std::set<std::string> categories, categories_total;  // of tensor dtypes: "integer", "floating", ...
};

// The cover of `pool` (samples of one spec): every single class of the pool and at least
// `pair_share` of its pair classes.
MinimalCover minimal_cover(std::span<const Sample> pool, double pair_share = 0.9);

// The type categories of a sample's tensor arguments: "boolean", "integer", "floating", "complex".
std::set<std::string> type_categories(const Sample& s);

}  // namespace opsfuzz
