//===- ReferenceQuantizeTest.cpp - qcast tables, hand-computed ------------===//
//
// Every expected value here was worked out by hand from docs/semantics.md.
//
//===----------------------------------------------------------------------===//
#include "ReferenceTestSupport.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>

namespace qjit {
namespace {

using testing::integerStorage;
using testing::perTensorSpec;
using testing::quantize;

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

KernelSpec seedSpec(QuantKnobs knobs = {}) {
  // !quant.uniform<i8:f32, 2.0:10>
  return perTensorSpec(KernelOp::QCast, integerStorage(8, true), ValueType::F32,
                       2.0, 10, knobs);
}

TEST(ReferenceQuantize, SeedExamples) {
  EXPECT_EQ(quantize(seedSpec(), {0.0, 2.0, -2.0}),
            (std::vector<int64_t>{10, 11, 9}));
}

struct TieCase {
  ZeroPointOrder order;
  RoundingMode rounding;
  std::vector<int64_t> expected;
};

// Scale 2, zero point 1 (odd, so the two orders differ), inputs whose
// quotient is an exact tie: u = x / 2 = -2.5, -1.5, -0.5, 0.5, 1.5, 2.5.
//   before: round(u + 1) = round(-1.5, -0.5, 0.5, 1.5, 2.5, 3.5)
//   after:  round(u) + 1
TEST(ReferenceQuantize, EveryKnobCombinationOnExactTies) {
  const std::vector<double> inputs = {-5.0, -3.0, -1.0, 1.0, 3.0, 5.0};
  const std::vector<TieCase> cases = {
      {ZeroPointOrder::BeforeRounding,
       RoundingMode::NearestEven,
       {-2, 0, 0, 2, 2, 4}},
      {ZeroPointOrder::BeforeRounding,
       RoundingMode::NearestAway,
       {-2, -1, 1, 2, 3, 4}},
      {ZeroPointOrder::BeforeRounding,
       RoundingMode::TowardZero,
       {-1, 0, 0, 1, 2, 3}},
      {ZeroPointOrder::AfterRounding,
       RoundingMode::NearestEven,
       {-1, -1, 1, 1, 3, 3}},
      {ZeroPointOrder::AfterRounding,
       RoundingMode::NearestAway,
       {-2, -1, 0, 2, 3, 4}},
      {ZeroPointOrder::AfterRounding,
       RoundingMode::TowardZero,
       {-1, 0, 1, 1, 2, 3}},
  };
  // x / 2 and x · fl(1/2) are both exact, so both scale ops agree.
  for (ScaleOp scaleOp : {ScaleOp::Divide, ScaleOp::Reciprocal})
    for (const TieCase &c : cases)
      for (ValueType type :
           {ValueType::F16, ValueType::BF16, ValueType::F32, ValueType::F64}) {
        QuantKnobs knobs{scaleOp, c.order, c.rounding};
        KernelSpec spec = perTensorSpec(
            KernelOp::QCast, integerStorage(8, true), type, 2.0, 1, knobs);
        EXPECT_EQ(quantize(spec, inputs), c.expected)
            << scaleOpName(scaleOp) << ", " << zeroPointOrderName(c.order)
            << ", " << roundingModeName(c.rounding) << ", "
            << valueTypeName(type);
      }
}

// fl(1/7) = 0x1.24924ap-3 is slightly above 1/7: 45.5 / 7 = 6.5 is a tie,
// 45.5 · fl(1/7) = 6.50000048 is not.
TEST(ReferenceQuantize, ReciprocalDiffersFromDivide) {
  QuantKnobs divide{ScaleOp::Divide, ZeroPointOrder::BeforeRounding,
                    RoundingMode::NearestEven};
  QuantKnobs reciprocal = divide;
  reciprocal.scaleOp = ScaleOp::Reciprocal;
  auto spec = [](QuantKnobs knobs) {
    return perTensorSpec(KernelOp::QCast, integerStorage(8, true),
                         ValueType::F32, 7.0, 0, knobs);
  };
  EXPECT_EQ(quantize(spec(divide), {45.5, 10.5}), (std::vector<int64_t>{6, 2}));
  EXPECT_EQ(quantize(spec(reciprocal), {45.5, 10.5}),
            (std::vector<int64_t>{7, 2}));
}

TEST(ReferenceQuantize, PresetsOnOneTable) {
  // Scale 7, zero point 3: u = 45.5 / 7 = 6.5 (divide), 6.50000048
  // (reciprocal); -3.5 / 7 = -0.5.
  struct PresetCase {
    SemanticsPreset preset;
    std::vector<int64_t> expected;
  };
  const std::vector<PresetCase> cases = {
      // before, toward zero: trunc(9.5) = 9, trunc(2.5) = 2.
      {SemanticsPreset::Mlir, {9, 2}},
      // after, even: 6 + 3, -0 + 3.
      {SemanticsPreset::Onnx, {9, 3}},
      // after, even, reciprocal: 7 + 3; -3.5 · fl(1/7) = -0.50000002
      // rounds to -0.5 in f32, then to -0.
      {SemanticsPreset::PyTorch, {10, 3}},
      // after, away: 7 + 3, -1 + 3.
      {SemanticsPreset::TfLite, {10, 2}},
      // before, even: round(9.5) = 10, round(2.5) = 2.
      {SemanticsPreset::Default, {10, 2}},
  };
  for (const PresetCase &c : cases) {
    KernelSpec spec =
        perTensorSpec(KernelOp::QCast, integerStorage(8, true), ValueType::F32,
                      7.0, 3, knobsForPreset(c.preset));
    EXPECT_EQ(quantize(spec, {45.5, -3.5}), c.expected)
        << static_cast<int>(c.preset);
  }
}

TEST(ReferenceQuantize, SpecialValues) {
  const double denormalMin = std::numeric_limits<float>::denorm_min();
  const double floatMax = std::numeric_limits<float>::max();
  const std::vector<double> inputs = {
      kNaN, -kNaN, kInf, -kInf, -0.0, 0.0, denormalMin, floatMax, -floatMax};
  const std::vector<int64_t> expected = {10, 10, 127, -128, 10,
                                         10, 10, 127, -128};
  for (SemanticsPreset preset :
       {SemanticsPreset::Default, SemanticsPreset::Mlir, SemanticsPreset::Onnx,
        SemanticsPreset::PyTorch, SemanticsPreset::TfLite})
    EXPECT_EQ(quantize(seedSpec(knobsForPreset(preset)), inputs), expected)
        << static_cast<int>(preset);
}

TEST(ReferenceQuantize, SaturatesAtTheTypeRange) {
  // u + 10 = 126.5 → 126 (even), 127, 128 → 127; -128, -129 → -128.
  EXPECT_EQ(quantize(seedSpec(), {233.0, 234.0, 236.0, -276.0, -278.0}),
            (std::vector<int64_t>{126, 127, 127, -128, -128}));
  KernelSpec unsignedSpec = perTensorSpec(
      KernelOp::QCast, integerStorage(8, false), ValueType::F32, 1.0, 0);
  EXPECT_EQ(quantize(unsignedSpec, {-1.0, -0.4, 255.0, 256.0, 1e30}),
            (std::vector<int64_t>{0, 0, 255, 255, 255}));
}

TEST(ReferenceQuantize, ExplicitBoundsAndClampedZeroPoint) {
  // !quant.uniform<i8<-5:10>:f32, 1.0:20>: NaN → clamp(20) = 10.
  StorageSpec narrow = integerStorage(8, true);
  narrow.min = -5;
  narrow.max = 10;
  KernelSpec spec =
      perTensorSpec(KernelOp::QCast, narrow, ValueType::F32, 1.0, 20);
  EXPECT_EQ(quantize(spec, {kNaN, -100.0, -24.0, -10.0, 0.0}),
            (std::vector<int64_t>{10, -5, -4, 10, 10}));
  spec.params.zeroPoints = {-20};
  EXPECT_EQ(quantize(spec, {kNaN, 14.0, 100.0}),
            (std::vector<int64_t>{-5, -5, 10}));
}

TEST(ReferenceQuantize, ZeroPointBeyondTheComputeType) {
  // z = 2^24 + 1 is not an f32: before-rounding adds fl(z) = 2^24, after-
  // rounding adds z exactly.
  QuantKnobs after{ScaleOp::Divide, ZeroPointOrder::AfterRounding,
                   RoundingMode::NearestEven};
  KernelSpec before = perTensorSpec(KernelOp::QCast, integerStorage(32, true),
                                    ValueType::F32, 1.0, 16777217);
  KernelSpec exact = perTensorSpec(KernelOp::QCast, integerStorage(32, true),
                                   ValueType::F32, 1.0, 16777217, after);
  EXPECT_EQ(quantize(before, {0.0}), (std::vector<int64_t>{16777216}));
  EXPECT_EQ(quantize(exact, {0.0}), (std::vector<int64_t>{16777217}));
  // Huge zero points and values saturate, in both orders.
  for (KernelSpec spec : {before, exact}) {
    spec.params.zeroPoints = {int64_t(1) << 40};
    EXPECT_EQ(quantize(spec, {0.0, -1e30, kInf, -kInf}),
              (std::vector<int64_t>{2147483647, -2147483648LL, 2147483647,
                                    -2147483648LL}));
    spec.params.zeroPoints = {std::numeric_limits<int64_t>::min()};
    EXPECT_EQ(quantize(spec, {0.0, 1e30}),
              (std::vector<int64_t>{-2147483648LL, 2147483647}));
  }
}

TEST(ReferenceQuantize, F64ComputesInDouble) {
  // 2^30 + 0.5 is exact in f64 and a tie.
  QuantKnobs away{ScaleOp::Divide, ZeroPointOrder::BeforeRounding,
                  RoundingMode::NearestAway};
  KernelSpec even = perTensorSpec(KernelOp::QCast, integerStorage(32, true),
                                  ValueType::F64, 1.0, 0);
  KernelSpec awaySpec = perTensorSpec(KernelOp::QCast, integerStorage(32, true),
                                      ValueType::F64, 1.0, 0, away);
  EXPECT_EQ(quantize(even, {1073741824.5, 1073741825.5}),
            (std::vector<int64_t>{1073741824, 1073741826}));
  EXPECT_EQ(quantize(awaySpec, {1073741824.5}),
            (std::vector<int64_t>{1073741825}));
}

TEST(ReferenceQuantize, ScaleIsRoundedToTheExpressedTypeFirst) {
  // f16(1/3) = 0.333251953125, so 1.5 / s = 4.5011 → 5. With the f32
  // scale fl(1/3) = 0.333333343 the quotient rounds to the tie 4.5 → 4.
  KernelSpec f16 = perTensorSpec(KernelOp::QCast, integerStorage(8, true),
                                 ValueType::F16, 1.0 / 3.0, 0);
  EXPECT_EQ(quantize(f16, {1.5}), (std::vector<int64_t>{5}));
  KernelSpec f32 = perTensorSpec(KernelOp::QCast, integerStorage(8, true),
                                 ValueType::F32, 1.0 / 3.0, 0);
  EXPECT_EQ(quantize(f32, {1.5}), (std::vector<int64_t>{4}));
}

TEST(ReferenceQuantize, HalfAndBfloat16Inputs) {
  // bf16 and f16 carry the seed's values exactly.
  for (ValueType type : {ValueType::F16, ValueType::BF16}) {
    KernelSpec spec =
        perTensorSpec(KernelOp::QCast, integerStorage(8, true), type, 2.0, 10);
    EXPECT_EQ(quantize(spec, {0.0, 2.0, -2.0, kNaN, kInf, 65504.0}),
              (std::vector<int64_t>{10, 11, 9, 10, 127, 127}))
        << valueTypeName(type);
  }
}

TEST(ReferenceQuantize, EveryIntegerWidth) {
  for (unsigned bits = 1; bits <= 32; ++bits)
    for (bool isSigned : {true, false}) {
      StorageSpec storage = integerStorage(bits, isSigned);
      KernelSpec spec =
          perTensorSpec(KernelOp::QCast, storage, ValueType::F64, 1.0, 0);
      EXPECT_EQ(quantize(spec, {-1e300, 1e300, 0.0}),
                (std::vector<int64_t>{storage.min, storage.max, 0}))
          << bits << (isSigned ? " signed" : " unsigned");
    }
}

} // namespace
} // namespace qjit
