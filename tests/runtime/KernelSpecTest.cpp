//===- KernelSpecTest.cpp - Names, canonical form, hash, verification -----===//
#include "ReferenceTestSupport.h"

#include <gtest/gtest.h>

#include <cctype>
#include <functional>
#include <set>

namespace qjit {
namespace {

using testing::integerStorage;
using testing::perTensorSpec;

KernelSpec seedSpec() {
  return perTensorSpec(KernelOp::QCast, integerStorage(8, true), ValueType::F32,
                       2.0, 10);
}

TEST(KernelSpec, Presets) {
  EXPECT_EQ(knobsForPreset(SemanticsPreset::Default), QuantKnobs{});
  EXPECT_EQ(knobsForPreset(SemanticsPreset::Mlir),
            (QuantKnobs{ScaleOp::Divide, ZeroPointOrder::BeforeRounding,
                        RoundingMode::TowardZero}));
  EXPECT_EQ(knobsForPreset(SemanticsPreset::Onnx),
            (QuantKnobs{ScaleOp::Divide, ZeroPointOrder::AfterRounding,
                        RoundingMode::NearestEven}));
  EXPECT_EQ(knobsForPreset(SemanticsPreset::PyTorch),
            (QuantKnobs{ScaleOp::Reciprocal, ZeroPointOrder::AfterRounding,
                        RoundingMode::NearestEven}));
  EXPECT_EQ(knobsForPreset(SemanticsPreset::TfLite),
            (QuantKnobs{ScaleOp::Divide, ZeroPointOrder::AfterRounding,
                        RoundingMode::NearestAway}));
}

TEST(KernelSpec, Names) {
  EXPECT_EQ(kernelOpName(KernelOp::DCast), "dcast");
  EXPECT_EQ(valueTypeName(ValueType::BF16), "bf16");
  EXPECT_EQ(valueTypeBytes(ValueType::F16), 2u);
  EXPECT_EQ(roundingModeName(RoundingMode::NearestAway), "nearest-away");
  EXPECT_EQ(scaleOpName(ScaleOp::Reciprocal), "reciprocal");
  EXPECT_EQ(zeroPointOrderName(ZeroPointOrder::AfterRounding),
            "after-rounding");
}

TEST(KernelSpec, ContainerBytes) {
  EXPECT_EQ(integerStorage(1, true).containerBytes(), 1u);
  EXPECT_EQ(integerStorage(8, true).containerBytes(), 1u);
  EXPECT_EQ(integerStorage(9, false).containerBytes(), 2u);
  EXPECT_EQ(integerStorage(16, true).containerBytes(), 2u);
  EXPECT_EQ(integerStorage(17, true).containerBytes(), 4u);
  EXPECT_EQ(integerStorage(32, false).containerBytes(), 4u);
}

TEST(KernelSpec, ParameterCountAndTakesParams) {
  KernelSpec spec = seedSpec();
  EXPECT_EQ(spec.layout.parameterCount(), 1);
  EXPECT_FALSE(spec.takesParams());
  spec.layout.kind = LayoutSpec::Kind::PerAxis;
  spec.layout.channels = 5;
  EXPECT_EQ(spec.layout.parameterCount(), 5);
  spec.layout.inner = LayoutSpec::kDynamic;
  EXPECT_TRUE(spec.takesParams());
  spec.layout.kind = LayoutSpec::Kind::Blocked;
  spec.layout.dims = {
      {6, 3}, {LayoutSpec::kDynamic, LayoutSpec::kDynamic}, {8, 2}};
  EXPECT_EQ(spec.layout.parameterCount(), 8);
  EXPECT_TRUE(spec.takesParams());
  spec.layout.dims[1] = {5, 5};
  EXPECT_FALSE(spec.takesParams());
  spec.params.runtime = true;
  EXPECT_TRUE(spec.takesParams());
}

TEST(KernelSpec, CanonicalStringOfTheSeed) {
  KernelSpec spec = seedSpec();
  spec.shape = {2, LayoutSpec::kDynamic};
  EXPECT_EQ(spec.canonicalString(),
            "qcast storage=i8<-128:127> unpacked expressed=f32 compute=f32 "
            "layout=per-tensor scales=[2] zero-points=[10] "
            "knobs=divide,before-rounding,nearest-even shape=2x?");
}

/// Every way to change one field of the seed spec.
std::vector<std::function<void(KernelSpec &)>> mutations() {
  return {
      [](KernelSpec &s) { s.op = KernelOp::DCast; },
      [](KernelSpec &s) { s.storage.bits = 7; },
      [](KernelSpec &s) { s.storage.isSigned = false; },
      [](KernelSpec &s) { s.storage.min = -127; },
      [](KernelSpec &s) { s.storage.max = 126; },
      [](KernelSpec &s) { s.storage.packed = true; },
      [](KernelSpec &s) { s.expressed = ValueType::F16; },
      [](KernelSpec &s) { s.compute = ValueType::F64; },
      [](KernelSpec &s) { s.layout.kind = LayoutSpec::Kind::PerAxis; },
      [](KernelSpec &s) {
        s.layout.kind = LayoutSpec::Kind::PerAxis;
        s.layout.inner = 3;
      },
      [](KernelSpec &s) { s.params.runtime = true; },
      [](KernelSpec &s) {
        s.params.runtime = true;
        s.params.zeroPointsInStorage = true;
      },
      [](KernelSpec &s) { s.params.scales = {0.5}; },
      [](KernelSpec &s) { s.params.scales = {2.0000000000000004}; },
      [](KernelSpec &s) { s.params.zeroPoints = {-10}; },
      [](KernelSpec &s) { s.knobs.scaleOp = ScaleOp::Reciprocal; },
      [](KernelSpec &s) { s.knobs.zeroPoint = ZeroPointOrder::AfterRounding; },
      [](KernelSpec &s) { s.knobs.rounding = RoundingMode::TowardZero; },
      [](KernelSpec &s) { s.shape = {4}; },
  };
}

TEST(KernelSpec, CanonicalStringDeterminesTheSpec) {
  KernelSpec seed = seedSpec();
  KernelSpec copy = seedSpec();
  EXPECT_EQ(seed, copy);
  EXPECT_EQ(seed.canonicalString(), copy.canonicalString());
  EXPECT_EQ(seed.hash(), copy.hash());
  EXPECT_EQ(seed.kernelName(), copy.kernelName());

  std::set<std::string> strings = {seed.canonicalString()};
  std::set<size_t> hashes = {seed.hash()};
  for (const auto &mutate : mutations()) {
    KernelSpec changed = seedSpec();
    mutate(changed);
    EXPECT_NE(changed, seed) << changed.canonicalString();
    EXPECT_TRUE(strings.insert(changed.canonicalString()).second)
        << changed.canonicalString();
    hashes.insert(changed.hash());
  }
  EXPECT_EQ(hashes.size(), strings.size()) << "hash collision";
}

TEST(KernelSpec, KernelNameIsAnIdentifier) {
  KernelSpec spec = seedSpec();
  std::string name = spec.kernelName();
  EXPECT_EQ(name.rfind("qjit_qcast_i8_f32_pt_", 0), 0u) << name;
  for (char c : name)
    EXPECT_TRUE(std::isalnum(static_cast<unsigned char>(c)) || c == '_')
        << name;
}

TEST(KernelSpec, VerifyAcceptsTheSeed) {
  EXPECT_TRUE(verifyKernelSpec(seedSpec()).isOk());
}

TEST(KernelSpec, VerifyRejectsBrokenSpecs) {
  std::vector<std::function<void(KernelSpec &)>> breakages = {
      [](KernelSpec &s) { s.storage.bits = 33; },
      [](KernelSpec &s) {
        s.storage.min = 1;
        s.storage.max = 0;
      },
      [](KernelSpec &s) { s.storage.min = -129; },
      [](KernelSpec &s) { s.storage.packed = true; },
      [](KernelSpec &s) { s.compute = ValueType::F16; },
      [](KernelSpec &s) { s.params.zeroPoints = {}; },
      [](KernelSpec &s) { s.params.runtime = true; },
      // Zero points promised within the storage range are runtime ones.
      [](KernelSpec &s) { s.params.zeroPointsInStorage = true; },
      [](KernelSpec &s) {
        s.layout.kind = LayoutSpec::Kind::PerAxis;
        s.layout.channels = 0;
      },
      [](KernelSpec &s) {
        s.layout.kind = LayoutSpec::Kind::Blocked;
        s.layout.dims = {{LayoutSpec::kDynamic, LayoutSpec::kDynamic}};
      },
      [](KernelSpec &s) {
        s.layout.kind = LayoutSpec::Kind::Blocked;
        s.layout.dims = {{2, 2}, {LayoutSpec::kDynamic, 1}};
      },
  };
  for (size_t i = 0; i < breakages.size(); ++i) {
    KernelSpec spec = seedSpec();
    breakages[i](spec);
    EXPECT_EQ(verifyKernelSpec(spec).code(), ErrorCode::InvalidArgument)
        << "breakage " << i;
  }
}

/// Float storage bounds strictly between two neighbouring format values
/// hold none of them: no clamp to [lo, hi] exists (lo > hi), so no kernel
/// is made (a fuzzer found the reference and the kernels clamping them in
/// different orders). Bounds on format values, or around one, still verify.
TEST(KernelSpec, VerifyRejectsFloatBoundsHoldingNoFormatValue) {
  auto withBounds = [](FloatType format, int64_t min, int64_t max) {
    KernelSpec spec = seedSpec();
    spec.storage.kind = StorageType::Kind::Float;
    spec.storage.floatFormat = format;
    spec.storage.bits = floatTypeBits(format);
    spec.storage.isSigned = false;
    spec.storage.min = min;
    spec.storage.max = max;
    spec.params.zeroPoints = {0};
    return verifyKernelSpec(spec);
  };
  Status empty = withBounds(FloatType::F8E5M2, 802, 855);
  EXPECT_EQ(empty.code(), ErrorCode::InvalidArgument);
  EXPECT_NE(empty.message().find("hold no value"), std::string::npos)
      << empty.message();
  EXPECT_NE(empty.message().find("768 and 896"), std::string::npos)
      << empty.message();
  EXPECT_FALSE(withBounds(FloatType::F8E5M2, -855, -802));
  EXPECT_FALSE(withBounds(FloatType::F8E4M3FN, 449, 479));
  EXPECT_TRUE(withBounds(FloatType::F8E5M2, 768, 768));
  EXPECT_TRUE(withBounds(FloatType::F8E5M2, 802, 896));
  EXPECT_TRUE(withBounds(FloatType::F8E4M3FN, -100, 100));
}

} // namespace
} // namespace qjit
