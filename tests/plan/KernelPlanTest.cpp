//===- KernelPlanTest.cpp - Families and decisions from the spec ----------===//
#include "plan/KernelPlan.h"

#include "qjit/TypeParser.h"

#include <gtest/gtest.h>

#include <string>

namespace qjit::plan {
namespace {

KernelSpec lower(const std::string &text, KernelOp op, QuantKnobs knobs = {}) {
  Expected<TypeDescriptor> type = parseTypeOrError(text);
  EXPECT_TRUE(type) << text << ": " << type.status().message();
  LoweringOptions options;
  options.knobs = knobs;
  Expected<KernelSpec> spec = lowerToKernelSpec(*type, op, options);
  EXPECT_TRUE(spec) << text << ": " << spec.status().message();
  return spec ? *spec : KernelSpec{};
}

TEST(KernelPlan, FamiliesFollowOpStorageAndArithmetic) {
  QuantKnobs after;
  after.zeroPoint = ZeroPointOrder::AfterRounding;
  struct Case {
    const char *type;
    KernelOp op;
    QuantKnobs knobs;
    KernelFamily family;
  } cases[] = {
      {"!quant.uniform<i8:f32, 0.5:3>",
       KernelOp::QCast,
       {},
       KernelFamily::Quantize},
      {"!quant.uniform<i4:f32, 0.5:3>",
       KernelOp::QCast,
       {},
       KernelFamily::Quantize},
      {"!quant.uniform<i32:f32, 0.5:3>",
       KernelOp::QCast,
       {},
       KernelFamily::QuantizeWide},
      {"!quant.uniform<i16:f32, 0.5:20000000>", KernelOp::QCast, after,
       KernelFamily::QuantizeWide},
      {"!quant.uniform<i16:f32, 0.5:20000000>",
       KernelOp::QCast,
       {},
       KernelFamily::Quantize},
      {"!quant.uniform<i8:f64, 0.5:3>",
       KernelOp::QCast,
       {},
       KernelFamily::QuantizeWide},
      {"!quant.uniform<i8:f64, 0.5:3>",
       KernelOp::DCast,
       {},
       KernelFamily::DequantizeWide},
      {"!quant.uniform<i32:f32, 0.5:3>",
       KernelOp::DCast,
       {},
       KernelFamily::Dequantize},
      {"!quant.uniform<f8E4M3FN:f32, 0.5>",
       KernelOp::QCast,
       {},
       KernelFamily::QuantizeFloat},
      {"!quant.uniform<f8E4M3FN:f64, 0.5>",
       KernelOp::DCast,
       {},
       KernelFamily::DequantizeCompactWide},
      {"!quant.quantile<u2:f32, {-1.0, -0.5, 0.5, 1.0}>",
       KernelOp::DCast,
       {},
       KernelFamily::DequantizeQuantile},
      {"!quant.quantile<u2:f64, {-1.0, -0.5, 0.5, 1.0}>",
       KernelOp::QCast,
       {},
       KernelFamily::QuantizeCompactWide},
      {"!quant.uniform<i8:f32, 0.5:3>",
       KernelOp::SCast,
       {},
       KernelFamily::StorageCast},
  };
  for (const Case &c : cases) {
    KernelSpec spec = lower(c.type, c.op, c.knobs);
    EXPECT_EQ(kernelFamilyName(kernelFamily(spec)), kernelFamilyName(c.family))
        << spec.canonicalString();
    EXPECT_EQ(planKernel(spec).family, c.family);
  }
  EXPECT_TRUE(kernelFamilyIsWide(KernelFamily::QuantizeWide));
  EXPECT_FALSE(kernelFamilyIsWide(KernelFamily::QuantizeFloat));
}

TEST(KernelPlan, ScalingAndCheckedReciprocal) {
  KernelPlan divide =
      planKernel(lower("!quant.uniform<i8:f32, 0.1:3>", KernelOp::QCast));
  EXPECT_EQ(divide.scaling, Scaling::Divide);
  ASSERT_TRUE(divide.checked);
  EXPECT_TRUE(divide.checked->bracket);
  KernelPlan powerOfTwo =
      planKernel(lower("!quant.uniform<i8:f32, 0.125:3>", KernelOp::QCast));
  EXPECT_EQ(powerOfTwo.scaling, Scaling::ExactReciprocal);
  EXPECT_FALSE(powerOfTwo.checked);
  QuantKnobs reciprocal;
  reciprocal.scaleOp = ScaleOp::Reciprocal;
  EXPECT_EQ(planKernel(lower("!quant.uniform<i8:f32, 0.1:3>", KernelOp::QCast,
                             reciprocal))
                .scaling,
            Scaling::Reciprocal);
  KernelPlan wide =
      planKernel(lower("!quant.uniform<i32:f32, 0.1:3>", KernelOp::QCast));
  EXPECT_FALSE(wide.checked);
  EXPECT_FALSE(wide.high.exact); // INT32_MAX is no f32.
  EXPECT_NE(describeKernelPlan(wide).find("(inside)"), std::string::npos);
}

TEST(KernelPlan, RuntimeParametersAreCheckedInLongRunsOnly) {
  // Runs of kCheckedRunElements and more, or one per tensor.
  auto runsAreLong = [](const std::string &text) {
    KernelSpec spec = lower(text, KernelOp::QCast);
    spec.params.runtime = true;
    spec.params.scales.clear();
    spec.params.zeroPoints.clear();
    return planKernel(spec).runtimeRunsAreLong;
  };
  EXPECT_TRUE(runsAreLong("!quant.uniform<i8:f32, 0.5>"));
  EXPECT_TRUE(
      runsAreLong("tensor<2x256x!quant.uniform<i8:f32:0, {0.5,0.25}>>"));
  EXPECT_FALSE(
      runsAreLong("tensor<2x255x!quant.uniform<i8:f32:0, {0.5,0.25}>>"));
  EXPECT_FALSE(
      runsAreLong("tensor<256x2x!quant.uniform<i8:f32:1, {0.5,0.25}>>"));
  EXPECT_FALSE(planKernel(lower("!quant.uniform<i8:f32, 0.5>", KernelOp::QCast))
                   .runtimeRunsAreLong);
}

TEST(KernelPlan, DynamicQcastSaysWhereItsParametersComeFrom) {
  LoweringOptions options;
  options.dynamicScheme = DynamicScheme::MinMax;
  Expected<TypeDescriptor> type = parseTypeOrError("!quant.uniform<u8:f32, ?>");
  ASSERT_TRUE(type) << type.status().message();
  Expected<KernelSpec> spec =
      lowerToKernelSpec(*type, KernelOp::QCast, options);
  ASSERT_TRUE(spec) << spec.status().message();
  KernelPlan plan = planKernel(*spec);
  EXPECT_EQ(plan.dynamic, DynamicScheme::MinMax);
  EXPECT_NE(describeKernelPlan(plan).find(
                "parameters: from the data, minmax (default rule)"),
            std::string::npos);
  EXPECT_EQ(describeKernelPlan(planKernel(lower("!quant.uniform<u8:f32, 0.5>",
                                                KernelOp::QCast)))
                .find("parameters:"),
            std::string::npos);
  EXPECT_TRUE(plan.dynamicPerTensor);
  EXPECT_NE(describeKernelPlan(plan).find("groups: the tensor"),
            std::string::npos);
}

TEST(KernelPlan, DynamicQcastSaysHowItsGroupsAreRanged) {
  auto groups = [](const char *text) {
    LoweringOptions options;
    options.dynamicScheme = DynamicScheme::AbsMax;
    Expected<TypeDescriptor> type = parseTypeOrError(text);
    EXPECT_TRUE(type) << type.status().message();
    Expected<KernelSpec> spec =
        lowerToKernelSpec(*type, KernelOp::QCast, options);
    EXPECT_TRUE(spec) << spec.status().message();
    std::string described = describeKernelPlan(planKernel(*spec));
    size_t at = described.find("groups: ");
    return at == std::string::npos
               ? std::string()
               : described.substr(at, described.find('\n', at) - at);
  };
  EXPECT_EQ(groups("tensor<4x1024x!quant.uniform<i8:f32:{0:1,1:32}, ?>>"),
            "groups: runs of 32 consecutive elements; asmjit (a call of one "
            "period) ranges, "
            "chooses and quantizes 16 KiB of input at a time, prefetching the "
            "next 16 KiB (short runs a vector's lanes at once), llvm ranges "
            "them all first");
  EXPECT_EQ(groups("tensor<2x4096x!quant.uniform<i8:f32:0, ?>>"),
            "groups: runs of 4096 consecutive elements; asmjit (a call of one "
            "period) ranges, "
            "chooses and quantizes 16 KiB of input at a time, prefetching the "
            "next 16 KiB, llvm ranges them all first");
  EXPECT_EQ(groups("tensor<2x?x!quant.uniform<i8:f32:0, ?>>"),
            "groups: rows of the call's inner extent; asmjit (a call of one "
            "period) ranges, "
            "chooses and quantizes 16 KiB of input at a time, prefetching the "
            "next 16 KiB, llvm ranges them all first");
  EXPECT_NE(groups("tensor<4x64x!quant.uniform<i8:f32:{0:2,1:32}, ?>>")
                .find("blocks across rows"),
            std::string::npos);
}

} // namespace
} // namespace qjit::plan
