// The diversity order on hand-made candidates whose order is worked out by hand, and against the
// plain greedy it must equal (every candidate scored again after every choice).
#include "generators/diversity_order.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "argtypes/rng.h"

namespace opsfuzz {
namespace {

std::vector<size_t> indexes(const std::vector<Ordered>& order) {
  std::vector<size_t> out;
  for (const Ordered& o : order) out.push_back(o.index);
  return out;
}

TEST(DiversityOrder, NewClassesFirstThenCoverageStartsOver) {
  // B covers what A covers; C covers what neither does: A, then C (all new) before B (nothing
  // new). Then nothing adds a key, coverage starts over, and B comes with all its keys new.
  const std::vector<OrderCandidate> c = {{0, {1, 2}}, {0, {1, 2}}, {0, {3, 4}}};
  const std::vector<Ordered> order = diversity_order(c, std::vector<double>{1.0});
  EXPECT_EQ(indexes(order), (std::vector<size_t>{0, 2, 1}));
  EXPECT_DOUBLE_EQ(order[0].score, 1.0);
  EXPECT_DOUBLE_EQ(order[2].score, 1.0);  // after the fresh start
  // Half new: D shares one of its two keys with A.
  const std::vector<OrderCandidate> d = {{0, {1, 2}}, {0, {2, 5}}, {0, {1, 2}}};
  const std::vector<Ordered> halves = diversity_order(d, std::vector<double>{1.0});
  EXPECT_EQ(indexes(halves), (std::vector<size_t>{0, 1, 2}));
  EXPECT_DOUBLE_EQ(halves[1].score, 0.5);
}

TEST(DiversityOrder, EachOpCountsItsOwnCoverageWeighedByItsScore) {
  // The same keys under two ops are new to each. Op 1 weighs 2: its candidates with new keys come
  // first, then op 0's; then nothing is new, coverage starts over, and op 1's weight decides again.
  const std::vector<OrderCandidate> c = {{0, {1}}, {0, {1}}, {1, {1}}, {1, {2}}, {1, {1}}};
  const std::vector<Ordered> order = diversity_order(c, std::vector<double>{1.0, 2.0});
  EXPECT_EQ(indexes(order), (std::vector<size_t>{2, 3, 0, 4, 1}));
}

TEST(DiversityOrder, OfEqualScoresTheOpWithFewerChosenGoesFirst) {
  // Op 0's two candidates are both all new, as is op 1's one: op 1's comes between them.
  const std::vector<OrderCandidate> c = {{0, {1}}, {0, {2}}, {1, {1}}};
  const std::vector<Ordered> order = diversity_order(c, std::vector<double>{1.0, 1.0});
  EXPECT_EQ(indexes(order), (std::vector<size_t>{0, 2, 1}));
  for (const Ordered& o : order) EXPECT_DOUBLE_EQ(o.score, 1.0);
}

TEST(DiversityOrder, CandidatesWithoutKeysComeLastInTheGivenOrder) {
  const std::vector<OrderCandidate> c = {{0, {}}, {0, {7}}, {0, {}}};
  EXPECT_EQ(indexes(diversity_order(c, std::vector<double>{1.0})), (std::vector<size_t>{1, 0, 2}));
  EXPECT_TRUE(diversity_order({}, std::vector<double>{}).empty());
  const std::vector<OrderCandidate> stray = {{3, {1}}};
  EXPECT_THROW(diversity_order(stray, std::vector<double>{1.0}), std::invalid_argument);
}

// The plain greedy: every remaining candidate scored against its op's coverage after every
// choice; the highest score first, ties to the op with fewer chosen, then to the earlier; when the
// best adds nothing, coverage starts over (and candidates without keys end the order as given).
std::vector<size_t> plain_greedy(const std::vector<OrderCandidate>& c, const std::vector<double>& op_scores) {
  std::vector<std::set<uint64_t>> covered(op_scores.size());
  std::vector<bool> taken(c.size(), false);
  std::vector<size_t> chosen(op_scores.size(), 0);
  std::vector<size_t> out;
  auto score = [&](size_t i) {
    if (c[i].keys.empty()) return 0.0;
    size_t fresh = 0;
    for (uint64_t k : c[i].keys) fresh += !covered[c[i].op].count(k);
    return op_scores[c[i].op] * static_cast<double>(fresh) / static_cast<double>(c[i].keys.size());
  };
  auto better = [&](size_t i, size_t best, double best_score) {
    return score(i) > best_score || (score(i) == best_score && chosen[c[i].op] < chosen[c[best].op]);
  };
  while (out.size() < c.size()) {
    size_t best = c.size();
    double best_score = -1;
    for (size_t i = 0; i < c.size(); ++i)
      if (!taken[i] && (best == c.size() || better(i, best, best_score))) best = i, best_score = score(i);
    if (best_score == 0) {
      for (auto& s : covered) s.clear();
      best = c.size();
      for (size_t i = 0; i < c.size(); ++i)
        if (!taken[i] && (best == c.size() || better(i, best, best_score))) best = i, best_score = score(i);
      if (best_score == 0) {
        for (size_t i = 0; i < c.size(); ++i)
          if (!taken[i]) out.push_back(i), taken[i] = true;
        break;
      }
    }
    taken[best] = true;
    ++chosen[c[best].op];
    out.push_back(best);
    for (uint64_t k : c[best].keys) covered[c[best].op].insert(k);
  }
  return out;
}

TEST(DiversityOrder, LazyScoringGivesThePlainGreedysOrder) {
  for (uint64_t seed = 0; seed < 20; ++seed) {
    Rng rng(seed);
    const size_t ops = 1 + rng.index(4), n = 1 + rng.index(60);
    std::vector<double> op_scores;
    for (size_t o = 0; o < ops; ++o) op_scores.push_back(1.0 / static_cast<double>(1 + rng.index(3)));
    std::vector<OrderCandidate> c(n);
    for (OrderCandidate& x : c) {
      x.op = static_cast<uint32_t>(rng.index(ops));
      std::set<uint64_t> keys;  // distinct, as diversity_keys gives them
      for (size_t k = rng.index(6); k > 0; --k) keys.insert(1 + rng.index(12));
      x.keys.assign(keys.begin(), keys.end());
    }
    EXPECT_EQ(indexes(diversity_order(c, op_scores)), plain_greedy(c, op_scores)) << "seed " << seed;
  }
}

}  // namespace
}  // namespace opsfuzz
