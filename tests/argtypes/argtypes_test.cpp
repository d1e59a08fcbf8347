#include "argtypes/argtypes.h"
#include "argtypes/rng.h"

#include <gtest/gtest.h>

namespace opsfuzz {
namespace {

TEST(ArgType, Predicates) {
  EXPECT_TRUE(is_tensor(ArgType::TensorOpt));
  EXPECT_TRUE(is_optional(ArgType::TensorOpt));
  EXPECT_FALSE(is_optional(ArgType::Tensor));
  EXPECT_TRUE(is_tensor_list(ArgType::TensorOptList));
  EXPECT_TRUE(is_list(ArgType::DimListOpt));
  EXPECT_TRUE(is_int(ArgType::IndexOpt));
  EXPECT_FALSE(is_int(ArgType::DimList));
  EXPECT_EQ(base(ArgType::MemoryFormatOpt), ArgType::MemoryFormat);
}

TEST(ArgType, HierarchiesFollowTheSolvingOrder) {
  using A = Attribute;
  auto h = hierarchy(ArgType::TensorOptList);
  EXPECT_EQ(std::vector<A>(h.begin(), h.end()),
            (std::vector<A>{A::Length, A::Optional, A::Dtype, A::Rank, A::Size, A::Value}));
  auto t = hierarchy(ArgType::Tensor);
  EXPECT_EQ(std::vector<A>(t.begin(), t.end()), (std::vector<A>{A::Dtype, A::Rank, A::Size, A::Value}));
  auto s = hierarchy(ArgType::ScalarOpt);
  EXPECT_EQ(std::vector<A>(s.begin(), s.end()), (std::vector<A>{A::Optional, A::Dtype, A::Value}));
  EXPECT_TRUE(is_per_element(ArgType::Tensor, A::Size));
  EXPECT_FALSE(is_per_element(ArgType::Tensor, A::Rank));
}

TEST(Dtypes, Sets) {
  EXPECT_EQ(all_dtypes().size(), 10u);
  EXPECT_EQ(integral_dtypes().size(), 5u);
  EXPECT_EQ(floating_dtypes().front(), c10::ScalarType::Half);
  EXPECT_EQ(name(c10::ScalarType::ComplexDouble), "complex128");
  EXPECT_EQ(scalar_dtype_of(c10::ScalarType::Bool), ScalarDtype::Bool);
  EXPECT_EQ(scalar_dtype_of(c10::ScalarType::BFloat16), ScalarDtype::Float);
}

TEST(Rng, SameSeedSameSequenceAndBoundsHold) {
  Rng a(42), b(42), c(43);
  bool differs = false;
  for (int i = 0; i < 100; ++i) {
    uint64_t x = a.next();
    EXPECT_EQ(x, b.next());
    differs |= x != c.next();
    int64_t v = a.uniform_int(-3, 3);
    b.uniform_int(-3, 3);
    EXPECT_GE(v, -3);
    EXPECT_LE(v, 3);
  }
  EXPECT_TRUE(differs);
  EXPECT_NE(derive_seed(1, 0), derive_seed(1, 1));
}

}  // namespace
}  // namespace opsfuzz
