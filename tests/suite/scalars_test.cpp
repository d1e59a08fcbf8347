// YAML 1.1 scalar resolution and Python rendering of values.
#include <gtest/gtest.h>

#include "suite/value.h"

namespace opsfuzz::suite {
namespace {

TEST(Scalars, Placeholder) { EXPECT_EQ(python_float(0.5), "0.5"); }

}  // namespace
}  // namespace opsfuzz::suite
