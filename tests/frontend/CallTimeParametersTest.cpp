//===- CallTimeParametersTest.cpp - `?` scales lower to runtime params ----===//
//
// A type whose scale list is `?` (docs/types.md) lowers exactly as the same
// type with a written list does under LoweringOptions::runtimeParameters:
// the tensor shape gives the layout. Without runtime parameters there is
// nothing to bake, and lowering says so. The must-fail cases are the
// CallTimeParametersErrors suite.
//
//===----------------------------------------------------------------------===//
#include "qjit/KernelSpec.h"
#include "qjit/TypeParser.h"

#include <gtest/gtest.h>

#include <string>

namespace qjit {
namespace {

TypeDescriptor parse(const std::string &text) {
  Expected<TypeDescriptor> type = parseTypeOrError(text);
  EXPECT_TRUE(type.hasValue()) << type.takeStatus().message();
  return type ? *type : TypeDescriptor{};
}

LoweringOptions runtimeParameters() {
  LoweringOptions options;
  options.runtimeParameters = true;
  return options;
}

Expected<KernelSpec> lower(const std::string &text, KernelOp op,
                           const LoweringOptions &options) {
  return lowerToKernelSpec(parse(text), op, options);
}

/// `?` and a written list of `count` scales give the same runtime spec.
void expectSameAsWrittenList(const std::string &withQuestionMark,
                             const std::string &withList) {
  for (KernelOp op : {KernelOp::QCast, KernelOp::DCast}) {
    Expected<KernelSpec> a = lower(withQuestionMark, op, runtimeParameters());
    Expected<KernelSpec> b = lower(withList, op, runtimeParameters());
    ASSERT_TRUE(a.hasValue()) << a.takeStatus().message();
    ASSERT_TRUE(b.hasValue()) << b.takeStatus().message();
    EXPECT_EQ(a->canonicalString(), b->canonicalString());
    EXPECT_TRUE(a->params.runtime);
  }
}

TEST(CallTimeParameters, ParsesIntoAnEmptyScaleList) {
  TypeDescriptor type = parse("tensor<4x8x!quant.uniform<i8:f32:{1:4}, ?>>");
  EXPECT_TRUE(type.element.parametersAtCallTime);
  EXPECT_TRUE(type.element.scales.empty());
  EXPECT_TRUE(type.element.zeroPoints.empty());
  EXPECT_TRUE(type.element.scaleShape.empty());
  EXPECT_EQ(type.element.blockSizes.size(), 1u);
  // Equality sees the `?`.
  EXPECT_FALSE(parse("!quant.uniform<i8:f32, ?>") ==
               parse("!quant.uniform<i8:f32, 1.0>"));
  EXPECT_EQ(parse("!quant.uniform<i8:f32, ?>"),
            parse("!quant.uniform<i8:f32,   ?  >"));
}

TEST(CallTimeParameters, LowersAsAWrittenListWithRuntimeParameters) {
  expectSameAsWrittenList("!quant.uniform<i8:f32, ?>",
                          "!quant.uniform<i8:f32, 1.0>");
  expectSameAsWrittenList("tensor<3x4x!quant.uniform<i8:f32:0, ?>>",
                          "tensor<3x4x!quant.uniform<i8:f32:0, "
                          "{1.0, 2.0, 3.0}>>");
  expectSameAsWrittenList("tensor<2x8x!quant.uniform<u4:f16:{0:1, 1:4}, ?>>",
                          "tensor<2x8x!quant.uniform<u4:f16:{0:1, 1:4}, "
                          "{{1.0, 2.0}, {3.0, 4.0}}>>");
  // A dynamic dim that is not blocked stays a whole block.
  std::string sixteen = "1.0";
  for (int i = 1; i < 16; ++i)
    sixteen += ", 1.0";
  expectSameAsWrittenList("tensor<?x16x!quant.uniform<i8:f32:1, ?>>",
                          "tensor<?x16x!quant.uniform<i8:f32:1, {" + sixteen +
                              "}>>");
}

TEST(CallTimeParameters, ShapeFromTheOptionsForABareType) {
  LoweringOptions options = runtimeParameters();
  options.shape = {8192, 64};
  Expected<KernelSpec> perAxis =
      lower("!quant.uniform<i8:f32:0, ?>", KernelOp::QCast, options);
  ASSERT_TRUE(perAxis.hasValue()) << perAxis.takeStatus().message();
  EXPECT_EQ(perAxis->layout.kind, LayoutSpec::Kind::PerAxis);
  EXPECT_EQ(perAxis->layout.parameterCount(), 8192);
  // Rows of two blocks of 32; without 0:1, dim 0 would be one block.
  Expected<KernelSpec> blocked =
      lower("!quant.uniform<i4:f32:{0:1, 1:32}, ?>", KernelOp::DCast, options);
  ASSERT_TRUE(blocked.hasValue()) << blocked.takeStatus().message();
  EXPECT_EQ(blocked->layout.parameterCount(), 8192 * 2);
  Expected<KernelSpec> columns =
      lower("!quant.uniform<i4:f32:{1:32}, ?>", KernelOp::DCast, options);
  ASSERT_TRUE(columns.hasValue()) << columns.takeStatus().message();
  EXPECT_EQ(columns->layout.parameterCount(), 2);
}

TEST(CallTimeParameters, QuantileStorageBlockwise) {
  // NF4-style: a table as storage, one scale per block of 64.
  Expected<KernelSpec> spec =
      lower("tensor<8x128x!quant.uniform<!quant.quantile<u2:f16, "
            "{-1.0, -0.25, 0.5, 1.0}>:f32:{0:1, 1:64}, ?>>",
            KernelOp::DCast, runtimeParameters());
  ASSERT_TRUE(spec.hasValue()) << spec.takeStatus().message();
  EXPECT_EQ(spec->storage.kind, StorageType::Kind::Quantile);
  EXPECT_EQ(spec->layout.parameterCount(), 16);
}

TEST(CallTimeParametersErrors, BakingHasNothingToBake) {
  Expected<KernelSpec> spec =
      lower("tensor<4x!quant.uniform<i8:f32:0, ?>>", KernelOp::QCast, {});
  ASSERT_FALSE(spec.hasValue());
  Status status = spec.takeStatus();
  EXPECT_EQ(status.code(), ErrorCode::Unsupported);
  EXPECT_NE(status.message().find("'?'"), std::string::npos)
      << status.message();
  EXPECT_NE(status.message().find("runtime parameters"), std::string::npos)
      << status.message();
}

TEST(CallTimeParametersErrors, TheCountNeedsAStaticDim) {
  Expected<KernelSpec> perAxis =
      lower("tensor<?x4x!quant.uniform<i8:f32:0, ?>>", KernelOp::QCast,
            runtimeParameters());
  ASSERT_FALSE(perAxis.hasValue());
  EXPECT_NE(perAxis.takeStatus().message().find("quantized dim 0"),
            std::string::npos);
  Expected<KernelSpec> blocked =
      lower("tensor<4x?x!quant.uniform<i8:f32:{1:4}, ?>>", KernelOp::QCast,
            runtimeParameters());
  ASSERT_FALSE(blocked.hasValue());
  EXPECT_NE(blocked.takeStatus().message().find("blocked dim 1"),
            std::string::npos);
  Expected<KernelSpec> bare = lower("!quant.uniform<i8:f32:0, ?>",
                                    KernelOp::QCast, runtimeParameters());
  ASSERT_FALSE(bare.hasValue());
  EXPECT_NE(bare.takeStatus().message().find("needs a shape"),
            std::string::npos);
}

TEST(CallTimeParametersErrors, BlocksMustDivideAGivenShape) {
  LoweringOptions options = runtimeParameters();
  options.shape = {4, 10};
  Expected<KernelSpec> spec =
      lower("!quant.uniform<i8:f32:{1:4}, ?>", KernelOp::QCast, options);
  ASSERT_FALSE(spec.hasValue());
  EXPECT_NE(spec.takeStatus().message().find("does not divide dim 1"),
            std::string::npos);
}

} // namespace
} // namespace qjit
