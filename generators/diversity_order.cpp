#include "generators/diversity_order.h"

#include <algorithm>
#include <queue>
#include <stdexcept>
#include <string>

#include "generators/diversity.h"

namespace opsfuzz {

namespace {

struct Entry {
  double score;
  size_t index;
  uint64_t era;  // the coverage of its op it was scored against (OpCoverage::era)
};

// Highest score first; of equal scores, the earlier candidate.
struct Lower {
  bool operator()(const Entry& a, const Entry& b) const {
    return a.score != b.score ? a.score < b.score : a.index > b.index;
  }
};

struct OpCoverage {
  KeySet covered;
  uint64_t era = 0;  // grows with every change of `covered`
};

}  // namespace

std::vector<Ordered> diversity_order(std::span<const OrderCandidate> candidates, std::span<const double> op_scores) {
  std::vector<OpCoverage> ops(op_scores.size());
  for (const OrderCandidate& c : candidates)
    if (c.op >= ops.size())
      throw std::invalid_argument("diversity_order: a candidate of op " + std::to_string(c.op) + " beyond the " +
                                  std::to_string(ops.size()) + " op scores");
  // A candidate's keys are distinct (each names its argument or argument pair).
  auto score = [&](const OrderCandidate& c) {
    if (c.keys.empty()) return 0.0;
    size_t fresh = 0;
    for (uint64_t key : c.keys) fresh += !ops[c.op].covered.contains(key);
    return op_scores[c.op] * static_cast<double>(fresh) / static_cast<double>(c.keys.size());
  };
  std::priority_queue<Entry, std::vector<Entry>, Lower> heap;
  auto push = [&](size_t i) { heap.push({score(candidates[i]), i, ops[candidates[i].op].era}); };
  for (size_t i = 0; i < candidates.size(); ++i) push(i);
  std::vector<Ordered> order;
  order.reserve(candidates.size());
  while (!heap.empty()) {
    const Entry top = heap.top();
    heap.pop();
    const OrderCandidate& c = candidates[top.index];
    OpCoverage& op = ops[c.op];
    if (top.era != op.era) {  // scored against less coverage: an upper bound, scored again
      push(top.index);
      continue;
    }
    if (top.score == 0) {  // the best adds nothing, so none does: coverage starts over
      std::vector<size_t> rest = {top.index};
      for (; !heap.empty(); heap.pop()) rest.push_back(heap.top().index);
      for (OpCoverage& o : ops) o.covered.clear(), ++o.era;
      for (size_t i : rest) push(i);
      if (heap.top().score == 0) {  // candidates without keys: the given order
        std::sort(rest.begin(), rest.end());
        for (size_t i : rest) order.push_back({i, 0});
        break;
      }
      continue;
    }
    order.push_back({top.index, top.score});
    for (uint64_t key : c.keys) op.covered.insert(key);
    ++op.era;
  }
  return order;
}

}  // namespace opsfuzz
