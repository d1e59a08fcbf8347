// APFD on small hand-made orders whose answer is worked out by hand.
#include "hunt/apfd.h"

#include <gtest/gtest.h>

namespace opsfuzz::hunt {
namespace {

TEST(Apfd, HandMadeOrders) {
  // 5 items, findings opening at the 1st and 3rd: 1 - (1 + 3) / (5·2) + 1/10 = 0.7.
  EXPECT_DOUBLE_EQ(*apfd({0, 2}, 5), 0.7);
  // 10 items, three findings at the 1st, 2nd and 5th: 1 - 8/30 + 1/20 = 0.78333...
  EXPECT_DOUBLE_EQ(*apfd({0, 1, 4}, 10), 1 - 8.0 / 30 + 0.05);
  // The same findings in the reverse order of 10 items (at the 10th, 9th and 6th): 1 - 25/30 + 1/20.
  EXPECT_DOUBLE_EQ(*apfd({9, 8, 5}, 10), 1 - 25.0 / 30 + 0.05);
  // Several findings opening at one item count each.
  EXPECT_DOUBLE_EQ(*apfd({0, 0, 0}, 4), 1 - 3.0 / 12 + 1.0 / 8);
}

TEST(Apfd, EarlierIsHigherAndTheBoundsAreReached) {
  EXPECT_GT(*apfd({0, 1}, 100), *apfd({50, 51}, 100));
  EXPECT_DOUBLE_EQ(*apfd({0}, 1), 0.5);                    // one item, which finds it: 1 - 1 + 1/2
  EXPECT_DOUBLE_EQ(*apfd({0}, 1000), 1 - 0.001 + 0.0005);  // near 1: found at once
  EXPECT_DOUBLE_EQ(*apfd({999}, 1000), 0.0005);            // near 0: found at the last item
}

// Findings an order did not reach count at rank n + 1: one found at item 1 of 4 and one not found,
// 1 - (1 + 5) / (4 * 2) + 1/8 = 0.375; none found at all, 1 - 5/4 + 1/8 = -0.125.
TEST(Apfd, UnreachedFindingsCountPastTheLastItem) {
  EXPECT_DOUBLE_EQ(*apfd({0}, 4, 1), 0.375);
  EXPECT_DOUBLE_EQ(*apfd({}, 4, 1), -0.125);
  EXPECT_DOUBLE_EQ(*apfd({0, 2}, 4, 0), *apfd({0, 2}, 4));
}

TEST(Apfd, NothingToMeasure) {
  EXPECT_FALSE(apfd({}, 10));
  EXPECT_FALSE(apfd({0}, 0));
  EXPECT_THROW(apfd({10}, 10), std::invalid_argument);
}

}  // namespace
}  // namespace opsfuzz::hunt
