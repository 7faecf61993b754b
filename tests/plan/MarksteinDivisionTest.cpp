//===- MarksteinDivisionTest.cpp - Both forms equal fl(x / s) -------------===//
//
// The scalar model of each form (plan/MarksteinDivision.h) against f32
// division: every significand of x, at several exponents, for the scales
// whose reciprocals round worst (largest |RN(1/s) - 1/s| relative to an
// ulp), the ends of each form's range, and random pairs (seed printed,
// QJIT_TEST_SEED replays). Kernels emit these steps; the differential
// tests check the kernels against the reference.
//
//===----------------------------------------------------------------------===//
#include "plan/MarksteinDivision.h"

#include "TestSeed.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

namespace qjit::plan {
namespace {

float fromBits(uint32_t bits) { return std::bit_cast<float>(bits); }

/// Significands in [1, 2) whose reciprocal's rounding error is largest, in
/// units of half an ulp of 1/s: where q = RN(x · y) is least accurate.
std::vector<float> worstReciprocalSignificands(size_t count) {
  std::vector<std::pair<double, float>> worst;
  for (uint32_t m = 0; m < (1u << 23); ++m) {
    float s = fromBits(0x3f800000u | m);
    float y = 1.0f / s;
    double error = std::fabs(double(y) - 1.0 / double(s)) * 0x1p25;
    if (error > 0.499)
      worst.push_back({error, s});
  }
  std::sort(worst.begin(), worst.end(),
            [](auto a, auto b) { return a.first > b.first; });
  std::vector<float> scales;
  for (size_t k = 0; k < std::min(count, worst.size()); ++k)
    scales.push_back(worst[k].second);
  return scales;
}

/// The first x of binary exponent `exponent` (a normal one) where the
/// form differs from x / s.
::testing::AssertionResult everySignificand(MarksteinForm form, float s,
                                            int exponent) {
  float y = 1.0f / s;
  uint32_t exponentBits = static_cast<uint32_t>(exponent + 127) << 23;
  for (uint32_t m = 0; m < (1u << 23); ++m) {
    float x = fromBits(exponentBits | m);
    float want = x / s, got = marksteinQuotient(form, x, s, y);
    if (std::bit_cast<uint32_t>(want) != std::bit_cast<uint32_t>(got))
      return ::testing::AssertionFailure()
             << std::hexfloat << "x = " << x << ", s = " << s
             << ": x / s = " << want << ", the form gives " << got;
  }
  return ::testing::AssertionSuccess();
}

TEST(MarksteinDivision, OneCorrectionEveryXForTheWorstReciprocals) {
  // x < s (quotients in (1/2, 1)) is where faithfulness is not proved;
  // x >= s too. Exponents move the pair inside [2^-32, 1] and far from it.
  for (float m : worstReciprocalSignificands(6))
    for (auto [sExponent, xExponent] :
         {std::pair{-1, -1}, std::pair{-1, 0}, std::pair{-32, -40},
          std::pair{-20, 50}}) {
      float s = std::ldexp(m, sExponent);
      ASSERT_TRUE(marksteinScaleInRange(MarksteinForm::OneCorrection, s));
      ASSERT_TRUE(everySignificand(MarksteinForm::OneCorrection, s, xExponent));
    }
}

TEST(MarksteinDivision, TwoCorrectionsEveryXForTheWorstReciprocals) {
  for (float m : worstReciprocalSignificands(3))
    for (auto [sExponent, xExponent] :
         {std::pair{0, 0}, std::pair{0, -1}, std::pair{-60, -80},
          std::pair{59, 70}}) {
      float s = std::ldexp(m, sExponent);
      ASSERT_TRUE(marksteinScaleInRange(MarksteinForm::TwoCorrections, s));
      ASSERT_TRUE(
          everySignificand(MarksteinForm::TwoCorrections, s, xExponent));
      ASSERT_TRUE(
          everySignificand(MarksteinForm::TwoCorrections, -s, xExponent));
    }
}

TEST(MarksteinDivision, RandomPairsWhereTheQuotientMatters) {
  std::mt19937_64 rng(testing::testSeed());
  for (MarksteinForm form :
       {MarksteinForm::OneCorrection, MarksteinForm::TwoCorrections}) {
    std::uniform_int_distribution<int> exponents(
        form == MarksteinForm::OneCorrection ? -32 : -60,
        form == MarksteinForm::OneCorrection ? -1 : 59);
    for (int k = 0; k < 2000000; ++k) {
      float s = std::ldexp(fromBits(0x3f800000u | (rng() & 0x7fffff)),
                           exponents(rng));
      float x = fromBits(static_cast<uint32_t>(rng()));
      if (std::isnan(x))
        continue;
      float want = x / s, got = marksteinQuotient(form, x, s, 1.0f / s);
      // Where the forms may differ, the stored result cannot: tiny
      // quotients (both below 2^-25) and, for two corrections, saturated
      // ones (both at least 2^40, same sign).
      float magnitude = std::fabs(want);
      if (magnitude < 0x1p-30f) {
        EXPECT_LT(std::fabs(got), 0x1p-25f);
        continue;
      }
      if (form == MarksteinForm::TwoCorrections && magnitude > 0x1p40f) {
        EXPECT_GE(std::fabs(got), 0x1p40f * 0.99f);
        EXPECT_EQ(std::signbit(got), std::signbit(want));
        continue;
      }
      if (form == MarksteinForm::OneCorrection && magnitude > 0x1p100f) {
        EXPECT_GT(std::fabs(got), 0x1p99f);
        EXPECT_EQ(std::signbit(got), std::signbit(want));
        continue;
      }
      ASSERT_EQ(std::bit_cast<uint32_t>(want), std::bit_cast<uint32_t>(got))
          << std::hexfloat << "x = " << x << ", s = " << s;
    }
  }
}

TEST(MarksteinDivision, NaNStaysNaNAndRangesAreTheDocumentedOnes) {
  float nan = std::nanf("");
  for (MarksteinForm form :
       {MarksteinForm::OneCorrection, MarksteinForm::TwoCorrections})
    EXPECT_TRUE(std::isnan(marksteinQuotient(form, nan, 0.5f, 2.0f)));
  EXPECT_TRUE(marksteinScaleInRange(MarksteinForm::OneCorrection, 0x1p-32));
  EXPECT_TRUE(marksteinScaleInRange(MarksteinForm::OneCorrection, 1.0));
  EXPECT_FALSE(marksteinScaleInRange(MarksteinForm::OneCorrection, 1.5));
  EXPECT_FALSE(marksteinScaleInRange(MarksteinForm::OneCorrection, 0x1p-33));
  EXPECT_TRUE(marksteinScaleInRange(MarksteinForm::TwoCorrections, -0x1p60));
  EXPECT_FALSE(marksteinScaleInRange(MarksteinForm::TwoCorrections, 0x1p61));
}

} // namespace
} // namespace qjit::plan
