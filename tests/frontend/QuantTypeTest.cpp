//===- QuantTypeTest.cpp - Storage ranges and exact equality --------------===//
#include "TypeTestUtil.h"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>

namespace qjit {
namespace {

using testing::parseOk;

StorageType integer(unsigned width, bool isSigned) {
  StorageType storage;
  storage.kind = StorageType::Kind::Integer;
  storage.width = width;
  storage.isSigned = isSigned;
  return storage;
}

StorageType floatStorage(FloatType type) {
  StorageType storage;
  storage.kind = StorageType::Kind::Float;
  storage.floatType = type;
  storage.width = floatTypeBits(type);
  return storage;
}

TEST(QuantTypeTest, IntegerDefaultRanges) {
  EXPECT_EQ(integer(1, true).defaultMin(), -1);
  EXPECT_EQ(integer(1, true).defaultMax(), 0);
  EXPECT_EQ(integer(1, false).defaultMax(), 1);
  EXPECT_EQ(integer(8, true).defaultMin(), -128);
  EXPECT_EQ(integer(8, false).defaultMax(), 255);
  EXPECT_EQ(integer(32, true).defaultMin(), INT32_MIN);
  EXPECT_EQ(integer(32, false).defaultMax(), 4294967295);
}

TEST(QuantTypeTest, FloatStorageDefaultRanges) {
  EXPECT_EQ(floatStorage(FloatType::F8E4M3FN).defaultMax(), 448);
  EXPECT_EQ(floatStorage(FloatType::F8E4M3FN).defaultMin(), -448);
  EXPECT_EQ(floatStorage(FloatType::F8E5M2).defaultMax(), 57344);
  EXPECT_EQ(floatStorage(FloatType::F4E2M1FN).defaultMin(), -6);
}

TEST(QuantTypeTest, EqualityComparesEveryField) {
  auto parse = [](const char *text) { return parseOk(text); };
  EXPECT_EQ(parse("!quant.uniform<i8:f32, 1.0>"),
            parse("!quant.uniform<si8<-128:127>:f32, 1.0:0>"));
  EXPECT_NE(parse("!quant.uniform<i8:f32, 1.0>"),
            parse("!quant.uniform<i8:f16, 1.0>"));
  EXPECT_NE(parse("!quant.uniform<i8:f32, 1.0>"),
            parse("!quant.uniform<i8:f32, 1.0:1>"));
  EXPECT_NE(parse("!quant.uniform<i8:f32, 1.0>"),
            parse("!quant.uniform<i8<-127:127>:f32, 1.0>"));
  EXPECT_NE(parse("!quant.uniform<i8:f32, 1.0>"),
            parse("tensor<!quant.uniform<i8:f32, 1.0>>"));
  EXPECT_NE(parse("!quant.uniform<i8:f32:0, {1.0}>"),
            parse("!quant.uniform<i8:f32:{0:1}, {1.0}>"));
  EXPECT_NE(parse("!quant.quantile<u1:f16, {-1.0, 1.0}>"),
            parse("!quant.quantile<u1:f16, {-1.0, 0.5}>"));
}

TEST(QuantTypeTest, FloatFieldsCompareBitForBit) {
  QuantType a = parseOk("!quant.uniform<i8:f32, 1.0>").element;
  QuantType b = a;
  b.scales[0] = std::nextafter(1.0, 2.0);
  EXPECT_NE(a, b);
  QuantType nanA = a, nanB = a;
  nanA.scales[0] = std::bit_cast<double>(0x7FF8000000000000ull);
  nanB.scales[0] = nanA.scales[0];
  EXPECT_EQ(nanA, nanB); // Same bits, although NaN != NaN.
}

TEST(QuantTypeTest, IntegerTableTypesCompareAsStorageDoes) {
  auto parse = [](const char *text) { return parseOk(text); };
  // si8 and i8 are one type (the prefix is presentation), ui8 is not.
  EXPECT_EQ(parse("!quant.quantile<u1:i8, {-1.0, 1.0}>"),
            parse("!quant.quantile<u1:si8, {-1.0, 1.0}>"));
  EXPECT_NE(parse("!quant.quantile<u1:i8, {0.0, 1.0}>"),
            parse("!quant.quantile<u1:ui8, {0.0, 1.0}>"));
  EXPECT_NE(parse("!quant.quantile<u1:i8, {0.0, 1.0}>"),
            parse("!quant.quantile<u1:i16, {0.0, 1.0}>"));
  EXPECT_NE(parse("!quant.quantile<u1:i8, {0.0, 1.0}>"),
            parse("!quant.quantile<u1:f32, {0.0, 1.0}>"));
}

TEST(QuantTypeTest, QuantileStorageComparesTheTable) {
  QuantType a = parseOk("!quant.uniform<!quant.quantile<u1:f16, {-1.0, 1.0}>"
                        ":f32, 1.0>")
                    .element;
  QuantType b = parseOk("!quant.uniform<!quant.quantile<u1:f16, {-1.0, 0.5}>"
                        ":f32, 1.0>")
                    .element;
  EXPECT_NE(a, b);
  EXPECT_EQ(a, parseOk("!quant.uniform<!quant<quantile<ui1:f16, {-1.0, 1.0}>>"
                       ":f32, 1.0>")
                   .element);
}

} // namespace
} // namespace qjit
