// Minimal suites (StableHLO's testing guidelines G1/G2: the fewest tests that cover an op's cases,
// 90 % when all is impractical; one representative per type category): the fewest samples of a
// large pool of one op's samples that cover every class its arguments take in the pool and a share
// of the pairs of classes. A greedy set cover: each step takes the sample covering the most classes
// still needed (pairs only while the share is not reached), lazily re-counted.
//
// The classes are review classes, coarser than the diversity classes (generators/diversity.h):
// there a tensor's class is its dtype, rank and every dim's size class at once, so nearly every
// sample of a two-tensor op is a pair of its own and 90 % of the pairs a pool reaches takes 90 % of
// the pool. Here each argument is split into factors, each with few values, and pairs are taken
// between factors, as pairwise (covering-array) testing does, so one sample covers many pairs:
//   tensor         type category (boolean, integer, floating, complex: G1's representatives),
//                  rank (0 .. 4, 5 or more), extent (a dim of size 0; else one of size 1; else neither)
//   tensor list    length (0, 1, more), the type categories of its entries, the largest rank,
//                  the extent of its entries together
//   int list       length (0 .. 3, 4 or more), the classes its entries take (diversity.h's integer
//                  classes, as a set)
//   anything else  its diversity class (a None, a bool, an integer's or float's class, each enum)
#pragma once

#include <cstddef>
#include <cstdint>
#include <set>
#include <span>
#include <string>
#include <vector>

namespace opsfuzz {

struct Sample;

// What a candidate covers: its classes, and its pairs of classes.
struct CoverKeys {
  std::vector<uint64_t> singles, pairs;
};

// The review classes of a sample (above), and their pairs.
CoverKeys review_keys(const Sample& s);
// The diversity classes of a sample (diversity.h: what FACTO's figures count), and their pairs.
CoverKeys diversity_cover_keys(const Sample& s);

struct MinimalCover {
  std::vector<size_t> chosen;             // indexes into the candidates, in the order taken
  size_t singles = 0, singles_total = 0;  // covered by the chosen; reached by the candidates
  size_t pairs = 0, pairs_total = 0;
};

// The cover of `candidates`: `singles_target` of their classes (0: all of them) and at least
// `pair_share` of their pairs.
MinimalCover minimal_cover(std::span<const CoverKeys> candidates, double pair_share, size_t singles_target = 0);

// The type categories of a sample's tensor arguments: "boolean", "integer", "floating", "complex".
std::set<std::string> type_categories(const Sample& s);

}  // namespace opsfuzz
