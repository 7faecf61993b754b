//===- ExactReciprocalTest.cpp - x / s == x · (1/s), where claimed --------===//
//
// The claim of plan/ExactReciprocal.h at every power of two of f32 and
// f64, on random bit patterns, specials, subnormals and values next to
// overflow.
//
//===----------------------------------------------------------------------===//
#include "plan/ExactReciprocal.h"

#include "TestSeed.h"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

namespace qjit::plan {
namespace {

template <typename T, typename Bits>
std::vector<T> inputs(std::mt19937_64 &rng, size_t count) {
  std::vector<T> values = {T(0),
                           -T(0),
                           std::numeric_limits<T>::infinity(),
                           -std::numeric_limits<T>::infinity(),
                           std::numeric_limits<T>::quiet_NaN(),
                           std::numeric_limits<T>::denorm_min(),
                           -std::numeric_limits<T>::denorm_min(),
                           std::numeric_limits<T>::min(),
                           std::numeric_limits<T>::max(),
                           -std::numeric_limits<T>::max(),
                           T(1),
                           T(3)};
  while (values.size() < count)
    values.push_back(std::bit_cast<T>(static_cast<Bits>(rng())));
  return values;
}

template <typename T, typename Bits>
void expectClaimAtEveryPowerOfTwo(ValueType compute) {
  uint64_t seed = testing::testSeed();
  std::mt19937_64 rng(seed);
  std::vector<T> xs = inputs<T, Bits>(rng, 4096);
  int claimed = 0;
  for (int k = std::numeric_limits<T>::min_exponent -
               std::numeric_limits<T>::digits - 1;
       k <= std::numeric_limits<T>::max_exponent; ++k) {
    for (T sign : {T(1), T(-1)}) {
      T scale = sign * std::ldexp(T(1), k);
      std::optional<double> reciprocal = exactReciprocal(scale, compute);
      bool normal = std::isnormal(scale) && std::isnormal(T(1) / scale);
      ASSERT_EQ(reciprocal.has_value(), normal) << "2^" << k;
      if (!reciprocal)
        continue;
      ++claimed;
      T r = static_cast<T>(*reciprocal);
      ASSERT_EQ(r, T(1) / scale);
      for (T x : xs) {
        T quotient = x / scale, product = x * r;
        ASSERT_EQ(std::bit_cast<Bits>(quotient), std::bit_cast<Bits>(product))
            << "x=" << x << " s=2^" << k << " sign " << sign << " seed "
            << seed;
      }
    }
  }
  EXPECT_GT(claimed, 0);
}

TEST(ExactReciprocal, F32DivisionIsTheMultiplyAtEveryClaimedScale) {
  expectClaimAtEveryPowerOfTwo<float, uint32_t>(ValueType::F32);
}

TEST(ExactReciprocal, F64DivisionIsTheMultiplyAtEveryClaimedScale) {
  expectClaimAtEveryPowerOfTwo<double, uint64_t>(ValueType::F64);
}

TEST(ExactReciprocal, OtherScalesDivide) {
  for (double scale :
       {3.0, 0.1, 1.5, 0.75, 0.0, -0.0, std::numeric_limits<double>::infinity(),
        std::numeric_limits<double>::quiet_NaN()})
    EXPECT_FALSE(exactReciprocal(scale, ValueType::F64)) << scale;
  // A power of two of f64 that f32 does not hold.
  EXPECT_FALSE(exactReciprocal(0x1p-130, ValueType::F32));
  EXPECT_TRUE(exactReciprocal(0x1p-130, ValueType::F64));
}

TEST(ExactReciprocal, SpecsNeedEveryBakedScaleExact) {
  KernelSpec spec;
  spec.params.scales = {0.25, 4.0};
  spec.params.zeroPoints = {0, 0};
  EXPECT_TRUE(scalesHaveExactReciprocals(spec));
  spec.params.scales[1] = 3.0;
  EXPECT_FALSE(scalesHaveExactReciprocals(spec));
  spec.params.scales = {};
  spec.params.zeroPoints = {};
  spec.params.runtime = true;
  EXPECT_FALSE(scalesHaveExactReciprocals(spec));
}

} // namespace
} // namespace qjit::plan
