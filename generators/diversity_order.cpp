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
  uint64_t era;  // the coverage of its op it was scored against (Op::era)
};

// Highest score first; of equal scores, the earlier candidate.
struct Lower {
  bool operator()(const Entry& a, const Entry& b) const {
    return a.score != b.score ? a.score < b.score : a.index > b.index;
  }
};

// One op's candidates, lazily scored against its coverage.
struct Op {
  KeySet covered;
  uint64_t era = 0;     // grows with every change of `covered`
  uint64_t chosen = 0;  // its candidates in the order so far
  std::priority_queue<Entry, std::vector<Entry>, Lower> heap;
};

// An op's best candidate, as the ops compete: the highest score first; of equal scores, the op
// with fewer chosen, then the earlier candidate.
struct Best {
  double score;
  uint64_t chosen;
  size_t index;
  uint32_t op;
};
struct WorseBest {
  bool operator()(const Best& a, const Best& b) const {
    if (a.score != b.score) return a.score < b.score;
    return a.chosen != b.chosen ? a.chosen > b.chosen : a.index > b.index;
  }
};

}  // namespace

std::vector<Ordered> diversity_order(std::span<const OrderCandidate> candidates, std::span<const double> op_scores) {
  std::vector<Op> ops(op_scores.size());
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
  auto push = [&](size_t i) {
    Op& op = ops[candidates[i].op];
    op.heap.push({score(candidates[i]), i, op.era});
  };
  // The op's best candidate, scored against its coverage now: a stale score is an upper bound (it
  // only falls as coverage grows), so a stale top is scored again until a fresh one is on top.
  auto best_of = [&](uint32_t o) {
    Op& op = ops[o];
    while (op.heap.top().era != op.era) {
      const size_t i = op.heap.top().index;
      op.heap.pop();
      push(i);
    }
    return Best{op.heap.top().score, op.chosen, op.heap.top().index, o};
  };
  std::priority_queue<Best, std::vector<Best>, WorseBest> bests;
  auto start = [&] {  // every remaining candidate scored, each op's best competing
    bests = {};
    for (uint32_t o = 0; o < ops.size(); ++o)
      if (!ops[o].heap.empty()) bests.push(best_of(o));
  };
  for (size_t i = 0; i < candidates.size(); ++i) push(i);
  start();
  std::vector<Ordered> order;
  order.reserve(candidates.size());
  while (!bests.empty()) {
    const Best top = bests.top();
    if (top.score == 0) {  // the best adds nothing, so none does: coverage starts over
      for (Op& op : ops) {
        op.covered.clear(), ++op.era;
        std::vector<size_t> rest;
        for (; !op.heap.empty(); op.heap.pop()) rest.push_back(op.heap.top().index);
        for (size_t i : rest) push(i);
      }
      start();
      if (bests.top().score == 0) break;  // candidates without keys: the given order, below
      continue;
    }
    bests.pop();
    Op& op = ops[top.op];
    op.heap.pop();
    order.push_back({top.index, top.score});
    for (uint64_t key : candidates[top.index].keys) op.covered.insert(key);
    ++op.era, ++op.chosen;
    if (!op.heap.empty()) bests.push(best_of(top.op));
  }
  if (order.size() < candidates.size()) {
    std::vector<size_t> rest;
    for (Op& op : ops)
      for (; !op.heap.empty(); op.heap.pop()) rest.push_back(op.heap.top().index);
    std::sort(rest.begin(), rest.end());
    for (size_t i : rest) order.push_back({i, 0});
  }
  return order;
}

}  // namespace opsfuzz
