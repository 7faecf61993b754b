//===- NormalizeTest.cpp - MLIR's normalize-quant-types -------------------===//
#include "TypeTestUtil.h"

#include <gtest/gtest.h>

namespace qjit {
namespace {

using testing::parseOk;

std::string normalized(std::string_view text) {
  return printType(normalizeType(parseOk(text)));
}

TEST(NormalizeTest, OneScaleBecomesPerTensor) {
  // mlir-opt prints 44 here: it wraps the zero point to u8.
  EXPECT_EQ(normalized("tensor<6x2x!quant.uniform<u8:f16:{}, {{1.0:300}}>>"),
            "tensor<6x2x!quant.uniform<u8:f16, 1.000000e+00:300>>");
}

TEST(NormalizeTest, OneNonUnitScaleDimBecomesPerAxis) {
  EXPECT_EQ(normalized("tensor<6x2x!quant.uniform<i8:f32:{0:1}, "
                       "{{1.0:5}, {2.0}, {3.0}, {4.0}, {5.0}, {6.0}}>>"),
            "tensor<6x2x!quant.uniform<i8:f32:0, {1.000000e+00:5,2.000000e+00,"
            "3.000000e+00,4.000000e+00,5.000000e+00,6.000000e+00}>>");
  // Scales keep the value they had in the expressed type (as mlir-opt).
  EXPECT_EQ(normalized("tensor<4x!quant.uniform<u8:f16:{0:1}, "
                       "{0.1, 0.2, 0.3, 0.4}>>"),
            "tensor<4x!quant.uniform<u8:f16:0, {0.0999755859375,"
            "0.199951171875,0.300048828125,0.39990234375}>>");
}

TEST(NormalizeTest, KeepsBlocksThatPerAxisCannotExpress) {
  // MLIR turns this into 4 per-axis scales on an axis of size 8.
  const char *blocked =
      "tensor<2x8x!quant.uniform<i8:f32:{1:2}, {{1.0, 2.0, 3.0, 4.0}}>>";
  EXPECT_EQ(normalizeType(parseOk(blocked)), parseOk(blocked));
  const char *grid = "tensor<2x4x!quant.uniform<u8:f32:{0:1, 1:2}, "
                     "{{2.0:120, 3.0:127}, {4.0, 5.0}}>>";
  EXPECT_EQ(normalizeType(parseOk(grid)), parseOk(grid));
}

TEST(NormalizeTest, LeavesOtherTypesAlone) {
  // MLIR's pass rewrites tensor types only: bare sub-channel types stay.
  for (const char *text :
       {"!quant.uniform<i8:f32, 1.0>", "!quant.uniform<i8:f32:0, {1.0, 2.0}>",
        "!quant.any<i8>", "!quant.calibrated<f32<-1.0:1.0>>",
        "!quant.uniform<i8:f32:{}, {{1.0}}>",
        "!quant.uniform<i8:f32:{0:1}, {1.0, 2.0}>"})
    EXPECT_EQ(normalizeType(parseOk(text)), parseOk(text)) << text;
}

TEST(NormalizeTest, ResultVerifiesInItsTensor) {
  TypeDescriptor type = normalizeType(
      parseOk("tensor<3x2x!quant.uniform<i8:f32:{1:1}, {{1.0, 2.0}}>>"));
  EXPECT_EQ(type.element.granularity, QuantType::Granularity::PerAxis);
  EXPECT_EQ(type.element.axis, 1);
  EXPECT_TRUE(verifyElementOfTensor(type.element, *type.tensor).isOk());
}

} // namespace
} // namespace qjit
