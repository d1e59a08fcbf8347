// OPERA's diversity-first order of operator instances (its prioritization; docs/hunt.md): each
// candidate's score is its op's score times the share of its diversity keys (diversity.h: the
// (argument, class) and (argument pair, class pair) it covers) that no candidate of its op chosen
// before it covered. The highest score goes first; of equal scores, the op with fewer candidates
// chosen so far (so the ops' first all-new candidates come one op after another, not every
// all-new candidate of the first op before the second op's first), then the given order. Once no
// candidate adds a key, coverage starts over, as additional-coverage prioritization does.
// Greedy and lazy: each op keeps its candidates in a heap of scores that are upper bounds (a
// score only falls as its op's coverage grows), and only a stale top is scored again; the ops
// compete through their best candidates, and a choice changes only its own op's.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace opsfuzz {

struct OrderCandidate {
  uint32_t op = 0;             // an index into the op scores
  std::vector<uint64_t> keys;  // diversity_keys of its metas
};

struct Ordered {
  size_t index = 0;  // into the candidates
  double score = 0;  // when it was chosen
};

// The candidates in diversity order. `op_scores[c.op]` weighs candidate c (1 for every op when
// nothing tells them apart; OPERA: ops with fewer existing tests higher).
std::vector<Ordered> diversity_order(std::span<const OrderCandidate> candidates, std::span<const double> op_scores);

}  // namespace opsfuzz
