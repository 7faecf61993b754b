//===- HostFloatTest.cpp - Exact f16 / bf16 conversions -------------------===//
#include "qjit/internal/HostFloat.h"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <limits>

namespace qjit {
namespace {

TEST(HostFloat, Widening) {
  EXPECT_EQ(halfBitsToFloat(0x3C00), 1.0f);
  EXPECT_EQ(halfBitsToFloat(0x7BFF), 65504.0f);
  EXPECT_EQ(halfBitsToFloat(0x0001), 0x1p-24f);
  EXPECT_TRUE(std::signbit(halfBitsToFloat(0x8000)));
  EXPECT_EQ(bfloat16BitsToFloat(0x3F80), 1.0f);
  EXPECT_EQ(bfloat16BitsToFloat(0xC040), -3.0f);
  EXPECT_TRUE(std::isinf(bfloat16BitsToFloat(0x7F80)));
}

TEST(HostFloat, Bfloat16RoundsToNearestEven) {
  EXPECT_EQ(floatToBfloat16Bits(1.0f + 0x1p-8f), 0x3F80); // Tie → even.
  EXPECT_EQ(floatToBfloat16Bits(1.0f + 0x3p-8f), 0x3F82); // Tie → even.
  EXPECT_EQ(floatToBfloat16Bits(1.0f + 0x1p-8f + 0x1p-20f), 0x3F81);
  EXPECT_EQ(floatToBfloat16Bits(-0.0f), 0x8000);
  EXPECT_EQ(floatToBfloat16Bits(std::numeric_limits<float>::max()), 0x7F80);
  EXPECT_EQ(floatToBfloat16Bits(0x1p-149f), 0x0000);   // Rounds to zero.
  EXPECT_EQ(floatToBfloat16Bits(0x1.8p-133f), 0x0002); // Subnormal tie.
}

TEST(HostFloat, Bfloat16NaNStaysQuietWithItsSign) {
  EXPECT_EQ(floatToBfloat16Bits(std::bit_cast<float>(0x7F800001u)), 0x7FC0);
  EXPECT_EQ(floatToBfloat16Bits(std::bit_cast<float>(0xFFC00000u)), 0xFFC0);
  EXPECT_EQ(floatToBfloat16Bits(std::bit_cast<float>(0x7FFFFFFFu)), 0x7FFF);
}

TEST(HostFloat, HalfRoundsToNearestEven) {
  EXPECT_EQ(floatToHalfBits(1.0f + 0x1p-11f), 0x3C00); // Tie → even.
  EXPECT_EQ(floatToHalfBits(1.0f + 0x3p-11f), 0x3C02); // Tie → even.
  EXPECT_EQ(floatToHalfBits(65520.0f), 0x7C00);        // Overflow tie → inf.
  EXPECT_EQ(floatToHalfBits(65519.0f), 0x7BFF);
  EXPECT_EQ(floatToHalfBits(0x1p-25f), 0x0000); // Tie with zero → even.
  EXPECT_EQ(floatToHalfBits(0x1.8p-25f), 0x0001);
  EXPECT_TRUE(std::isnan(halfBitsToFloat(
      floatToHalfBits(std::numeric_limits<float>::quiet_NaN()))));
}

TEST(HostFloat, DoubleNarrowsOnce) {
  // 1 + 2^-8 + 2^-30 is just above a bf16 tie; through f32 it would land
  // on the tie and round down to 1.
  double justAboveTie = 1.0 + 0x1p-8 + 0x1p-30;
  EXPECT_EQ(floatToBfloat16Bits(static_cast<float>(justAboveTie)), 0x3F80);
  EXPECT_EQ(doubleToBfloat16Bits(justAboveTie), 0x3F81);
  EXPECT_EQ(doubleToBfloat16Bits(1.0 + 0x1p-8), 0x3F80);
  EXPECT_EQ(doubleToBfloat16Bits(-(1.0 + 0x1p-8 + 0x1p-30)), 0xBF81);
  double halfJustAboveTie = 1.0 + 0x1p-11 + 0x1p-40;
  EXPECT_EQ(floatToHalfBits(static_cast<float>(halfJustAboveTie)), 0x3C00);
  EXPECT_EQ(doubleToHalfBits(halfJustAboveTie), 0x3C01);
  EXPECT_EQ(doubleToBfloat16Bits(1e300), 0x7F80);
  EXPECT_EQ(doubleToBfloat16Bits(std::numeric_limits<float>::max()), 0x7F80);
}

TEST(HostFloat, RoundToValueType) {
  EXPECT_EQ(roundToValueType(0.1, ValueType::F16), 0.0999755859375);
  EXPECT_EQ(roundToValueType(0.1, ValueType::BF16), 0.10009765625);
  EXPECT_EQ(roundToValueType(0.1, ValueType::F32), static_cast<double>(0.1f));
  EXPECT_EQ(roundToValueType(0.1, ValueType::F64), 0.1);
}

} // namespace
} // namespace qjit
