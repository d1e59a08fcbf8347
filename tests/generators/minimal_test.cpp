// Minimal covers (generators/minimal.h) on hand-made keys whose covers are worked out by hand, and
// the review classes of real samples.
#include "generators/minimal.h"

#include <gtest/gtest.h>

#include "engine/config.h"
#include "generators/generators.h"
#include "specs/db/db.h"

namespace opsfuzz {
namespace {

TEST(MinimalCover, TakesTheSampleCoveringMostStillNeededFirst) {
  // Singles 1..4. C covers 1, 2, 3; A covers 1; B covers 4; D covers 2, 4. Greedy: C (3 new),
  // then B or D (1 new each: D's 2 is covered): B, the earlier. A adds nothing.
  const std::vector<CoverKeys> c = {{{1}, {}}, {{4}, {}}, {{1, 2, 3}, {}}, {{2, 4}, {}}};
  const MinimalCover cover = minimal_cover(c, 0.0);
  EXPECT_EQ(cover.chosen, (std::vector<size_t>{2, 1}));
  EXPECT_EQ(cover.singles, 4u);
  EXPECT_EQ(cover.singles_total, 4u);
  // A target of 3 singles: C alone.
  EXPECT_EQ(minimal_cover(c, 0.0, 3).chosen, (std::vector<size_t>{2}));
}

TEST(MinimalCover, PairsCountOnlyUntilTheirShareIsReached) {
  // Every candidate covers single 1; pairs 10..19, one per candidate but the last, which has two.
  std::vector<CoverKeys> c;
  for (uint64_t p = 10; p < 18; ++p) c.push_back({{1}, {p}});
  c.push_back({{1}, {18, 19}});
  const MinimalCover half = minimal_cover(c, 0.5);  // 5 of 10 pairs: the pair of two, then 3 more
  EXPECT_EQ(half.chosen, (std::vector<size_t>{8, 0, 1, 2}));
  EXPECT_EQ(half.pairs, 5u);
  EXPECT_EQ(half.pairs_total, 10u);
  EXPECT_EQ(minimal_cover(c, 1.0).chosen.size(), 9u);
  EXPECT_TRUE(minimal_cover({}, 0.9).chosen.empty());
}

// Review classes are coarser than diversity classes: a pool's samples of add.Tensor reach far
// fewer of them, so a cover of every class and 90 % of the pairs is a small suite.
TEST(MinimalCover, ReviewClassesMakeASmallSuiteOfARealOp) {
  const Spec& spec = *find_spec("add.Tensor");
  const std::vector<Sample> pool = generate_samples(spec, Config{}, 0, Validity::Valid, 500);
  std::vector<CoverKeys> review, diversity;
  for (const Sample& s : pool) review.push_back(review_keys(s)), diversity.push_back(diversity_cover_keys(s));
  const MinimalCover small = minimal_cover(review, 0.9), fine = minimal_cover(diversity, 0.9);
  EXPECT_EQ(small.singles, small.singles_total);
  EXPECT_GE(small.pairs * 10, small.pairs_total * 9);
  EXPECT_LT(small.singles_total, fine.singles_total);
  EXPECT_LT(small.chosen.size() * 5, fine.chosen.size());
  EXPECT_LT(small.chosen.size(), 60u);
  // Each sample's review keys: 3 factors per tensor and one for alpha: 7 singles, 21 pairs.
  EXPECT_EQ(review.front().singles.size(), 7u);
  EXPECT_EQ(review.front().pairs.size(), 21u);
}

}  // namespace
}  // namespace opsfuzz
