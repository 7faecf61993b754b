//===- ReferenceDequantizeTest.cpp - dcast and scast, hand-computed -------===//
#include "ReferenceTestSupport.h"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <limits>

namespace qjit {
namespace {

using testing::dequantize;
using testing::integerStorage;
using testing::perTensorSpec;

TEST(ReferenceDequantize, SeedExamples) {
  // !quant.uniform<i8:f32, 2.0:10>
  KernelSpec spec = perTensorSpec(KernelOp::DCast, integerStorage(8, true),
                                  ValueType::F32, 2.0, 10);
  EXPECT_EQ(dequantize(spec, {10, 11, 9, -128, 127}),
            (std::vector<double>{0.0, 2.0, -2.0, -276.0, 234.0}));
}

TEST(ReferenceDequantize, EveryExpressedType) {
  for (ValueType type :
       {ValueType::F16, ValueType::BF16, ValueType::F32, ValueType::F64}) {
    KernelSpec spec = perTensorSpec(KernelOp::DCast, integerStorage(8, false),
                                    type, 0.5, 128);
    EXPECT_EQ(dequantize(spec, {0, 128, 255}),
              (std::vector<double>{-64.0, 0.0, 63.5}))
        << valueTypeName(type);
  }
}

TEST(ReferenceDequantize, HalfResultsRoundToNearestEven) {
  // s = 1 + 2^-10; 3 · s = 3.0029296875 lies halfway between the f16
  // neighbours 3.001953125 (odd) and 3.00390625 (even).
  KernelSpec f16 = perTensorSpec(KernelOp::DCast, integerStorage(8, true),
                                 ValueType::F16, 1.0 + 0x1p-10, 0);
  EXPECT_EQ(dequantize(f16, {3}), (std::vector<double>{3.00390625}));
  // s = 1 + 2^-7; 3 · s = 3.0234375 lies halfway between the bf16
  // neighbours 3.015625 (odd) and 3.03125 (even).
  KernelSpec bf16 = perTensorSpec(KernelOp::DCast, integerStorage(8, true),
                                  ValueType::BF16, 1.0 + 0x1p-7, 0);
  EXPECT_EQ(dequantize(bf16, {3}), (std::vector<double>{3.03125}));
}

TEST(ReferenceDequantize, HalfResultsAreRoundedTwice) {
  // 8955 · 1.9501953125 = 17463.9990234375 exactly; f16 would round that
  // to 17456, but the f32 product rounds to 17464, a tie between the f16
  // neighbours 17456 (odd) and 17472 (even), which then goes to 17472.
  KernelSpec spec = perTensorSpec(KernelOp::DCast, integerStorage(16, true),
                                  ValueType::F16, 1.9501953125, 0);
  EXPECT_EQ(dequantize(spec, {8955}), (std::vector<double>{17472.0}));
}

TEST(ReferenceDequantize, IntegersRoundToTheComputeType) {
  // C(q) and C(z) are rounded to f32: 16777217 → 16777216.
  KernelSpec f32 = perTensorSpec(KernelOp::DCast, integerStorage(32, true),
                                 ValueType::F32, 1.0, 0);
  EXPECT_EQ(dequantize(f32, {16777217, 2147483647}),
            (std::vector<double>{16777216.0, 2147483648.0}));
  KernelSpec f64 = perTensorSpec(KernelOp::DCast, integerStorage(32, true),
                                 ValueType::F64, 0.1, -2147483648LL);
  EXPECT_EQ(dequantize(f64, {2147483647}),
            (std::vector<double>{4294967295.0 * 0.1}));
}

TEST(ReferenceDequantize, OverflowToInfinity) {
  // (32767 - (-32768)) · 2 = 131070 > 65504: +inf in f16.
  KernelSpec spec = perTensorSpec(KernelOp::DCast, integerStorage(16, true),
                                  ValueType::F16, 2.0, -32768);
  std::vector<double> result = dequantize(spec, {32767});
  EXPECT_TRUE(std::isinf(result[0]) && result[0] > 0);
}

TEST(ReferenceDequantize, OnlyTheLowBitsOfAContainerCount) {
  // i4 unpacked: 0xF3 has low bits 0011 = 3, 0x0D has 1101 = -3.
  KernelSpec spec = perTensorSpec(KernelOp::DCast, integerStorage(4, true),
                                  ValueType::F32, 1.0, 0);
  const uint8_t src[2] = {0xF3, 0x0D};
  float dst[2] = {};
  ASSERT_TRUE(runReference(spec, src, dst, 2).isOk());
  EXPECT_EQ(dst[0], 3.0f);
  EXPECT_EQ(dst[1], -3.0f);
  // u12 in a 2-byte container: 0xF001 has low bits 0x001.
  KernelSpec wide = perTensorSpec(KernelOp::DCast, integerStorage(12, false),
                                  ValueType::F32, 1.0, 0);
  const uint16_t wideSrc[1] = {0xF001};
  ASSERT_TRUE(runReference(wide, wideSrc, dst, 1).isOk());
  EXPECT_EQ(dst[0], 1.0f);
}

TEST(ReferenceDequantize, RuntimeNaNScaleGivesNaN) {
  KernelSpec spec = perTensorSpec(KernelOp::DCast, integerStorage(8, true),
                                  ValueType::BF16, 1.0, 0);
  spec.params = {};
  spec.params.runtime = true;
  const uint16_t nanScale = 0x7FC0;
  KernelParams params;
  params.scales = &nanScale;
  const int8_t src[1] = {5};
  uint16_t dst[1] = {};
  ASSERT_TRUE(runReference(spec, src, dst, 1, &params).isOk());
  EXPECT_TRUE(std::isnan(bfloat16BitsToFloat(dst[0])));
}

TEST(ReferenceStorageCast, CanonicalizesContainers) {
  // scast reads the low bits and writes sign-extended containers; no
  // clamping to explicit bounds.
  StorageSpec storage = integerStorage(4, true);
  storage.min = -2;
  storage.max = 2;
  KernelSpec spec =
      perTensorSpec(KernelOp::SCast, storage, ValueType::F32, 1.0, 0);
  const uint8_t src[4] = {0xF3, 0x0D, 0x07, 0x08};
  uint8_t dst[4] = {};
  ASSERT_TRUE(runReference(spec, src, dst, 4).isOk());
  EXPECT_EQ(dst[0], 0x03);
  EXPECT_EQ(dst[1], 0xFD);
  EXPECT_EQ(dst[2], 0x07);
  EXPECT_EQ(dst[3], 0xF8);
}

} // namespace
} // namespace qjit
