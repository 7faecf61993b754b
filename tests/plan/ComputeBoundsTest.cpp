//===- ComputeBoundsTest.cpp - Storage bounds as compute values -----------===//
#include "plan/ComputeBounds.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>

namespace qjit::plan {
namespace {

constexpr int64_t kBounds[] = {0,
                               127,
                               -128,
                               (int64_t(1) << 24) + 1,
                               -(int64_t(1) << 24) - 1,
                               INT32_MAX,
                               INT32_MIN,
                               UINT32_MAX,
                               (int64_t(1) << 32),
                               -(int64_t(1) << 32)};

TEST(ComputeBounds, F32TakesTheNearestValueInside) {
  constexpr float kInfinity = std::numeric_limits<float>::infinity();
  for (int64_t bound : kBounds) {
    double exact = static_cast<double>(bound);
    ComputeBound low = boundInCompute(bound, BoundSide::Low, ValueType::F32);
    ComputeBound high = boundInCompute(bound, BoundSide::High, ValueType::F32);
    for (auto [b, side] :
         {std::pair{low, BoundSide::Low}, std::pair{high, BoundSide::High}}) {
      float value = static_cast<float>(b.value);
      ASSERT_EQ(static_cast<double>(value), b.value) << bound;
      EXPECT_EQ(b.exact, b.value == exact) << bound;
      // Inside the bounds, and no value of f32 between it and the bound.
      if (side == BoundSide::Low) {
        EXPECT_GE(b.value, exact) << bound;
        EXPECT_LT(static_cast<double>(std::nextafter(value, -kInfinity)), exact)
            << bound;
      } else {
        EXPECT_LE(b.value, exact) << bound;
        EXPECT_GT(static_cast<double>(std::nextafter(value, kInfinity)), exact)
            << bound;
      }
    }
  }
  EXPECT_FALSE(
      boundInCompute(INT32_MAX, BoundSide::High, ValueType::F32).exact);
  EXPECT_EQ(boundInCompute(INT32_MAX, BoundSide::High, ValueType::F32).value,
            0x1p31 - 128);
  EXPECT_TRUE(boundInCompute(INT32_MIN, BoundSide::Low, ValueType::F32).exact);
}

TEST(ComputeBounds, F64HoldsEveryBound) {
  for (int64_t bound : kBounds)
    for (BoundSide side : {BoundSide::Low, BoundSide::High}) {
      ComputeBound b = boundInCompute(bound, side, ValueType::F64);
      EXPECT_TRUE(b.exact);
      EXPECT_EQ(b.value, static_cast<double>(bound));
    }
}

} // namespace
} // namespace qjit::plan
