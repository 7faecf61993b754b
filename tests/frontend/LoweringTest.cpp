//===- LoweringTest.cpp - Parsed type + op + options → KernelSpec ---------===//
#include "LayoutSpecs.h"

#include "qjit/KernelSpec.h"
#include "qjit/TypeParser.h"
#include "qjit/internal/HostFloat.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>

namespace qjit {
namespace {

using testing::blocked;
using testing::perAxis;

constexpr int64_t kDynamic = LayoutSpec::kDynamic;

TypeDescriptor parse(const std::string &text) {
  Expected<TypeDescriptor> type = parseTypeOrError(text);
  EXPECT_TRUE(type.hasValue()) << type.takeStatus().message();
  return type ? *type : TypeDescriptor{};
}

KernelSpec lower(const std::string &text, KernelOp op = KernelOp::QCast,
                 const LoweringOptions &options = {}) {
  Expected<KernelSpec> spec = lowerToKernelSpec(parse(text), op, options);
  EXPECT_TRUE(spec.hasValue()) << text << ": " << spec.takeStatus().message();
  return spec ? *spec : KernelSpec{};
}

Status lowerError(const TypeDescriptor &type,
                  const LoweringOptions &options = {}) {
  Expected<KernelSpec> spec = lowerToKernelSpec(type, KernelOp::QCast, options);
  EXPECT_FALSE(spec.hasValue()) << spec->canonicalString();
  return spec.takeStatus();
}

Status lowerError(const std::string &text,
                  const LoweringOptions &options = {}) {
  return lowerError(parse(text), options);
}

TEST(Lowering, Seed) {
  KernelSpec spec = lower("!quant.uniform<i8:f32, 2.0:10>");
  EXPECT_EQ(spec.canonicalString(),
            "qcast storage=i8<-128:127> unpacked expressed=f32 compute=f32 "
            "layout=per-tensor scales=[2] zero-points=[10] "
            "knobs=divide,before-rounding,nearest-even shape=none");
  EXPECT_FALSE(spec.takesParams());
  EXPECT_TRUE(verifyKernelSpec(spec).isOk());
}

TEST(Lowering, KnobsOnlyForQCast) {
  LoweringOptions options;
  options.knobs = knobsForPreset(SemanticsPreset::PyTorch);
  const std::string type = "!quant.uniform<i8:f32, 2.0:10>";
  EXPECT_EQ(lower(type, KernelOp::QCast, options).knobs, options.knobs);
  EXPECT_EQ(lower(type, KernelOp::DCast, options).knobs, QuantKnobs{});
  EXPECT_EQ(lower(type, KernelOp::SCast, options).knobs, QuantKnobs{});
  EXPECT_EQ(lower(type, KernelOp::SCast, options).op, KernelOp::SCast);
}

TEST(Lowering, PyTorchPerAxisDequantizeComputesInF64) {
  // PyTorch's per-channel dequantize multiplies by the double scale in
  // double; its per-tensor one by the scale rounded to float.
  LoweringOptions options = loweringForPreset(SemanticsPreset::PyTorch);
  EXPECT_TRUE(options.perAxisDequantizeInF64);
  EXPECT_EQ(options.knobs, knobsForPreset(SemanticsPreset::PyTorch));
  EXPECT_FALSE(loweringForPreset(SemanticsPreset::Onnx).perAxisDequantizeInF64);
  const std::string perAxis = "tensor<2x3x!quant.uniform<i8:f32:1, "
                              "{0.1:1, 0.7771:-5, 3.0}>>";
  KernelSpec spec = lower(perAxis, KernelOp::DCast, options);
  EXPECT_EQ(spec.expressed, ValueType::F32);
  EXPECT_EQ(spec.compute, ValueType::F64);
  EXPECT_EQ(spec.params.scales, (std::vector<double>{0.1, 0.7771, 3.0}));
  EXPECT_EQ(bakedScale(spec, 1), 0.7771);
  EXPECT_EQ(spec.knobs, QuantKnobs{});
  EXPECT_TRUE(verifyKernelSpec(spec).isOk());

  // Everything else keeps the f32 contract.
  auto compute = [&](const std::string &type, KernelOp op,
                     LoweringOptions with) {
    return lower(type, op, with).compute;
  };
  EXPECT_EQ(compute(perAxis, KernelOp::DCast, {}), ValueType::F32);
  EXPECT_EQ(compute(perAxis, KernelOp::QCast, options), ValueType::F32);
  EXPECT_EQ(compute("!quant.uniform<i8:f32, 0.1:1>", KernelOp::DCast, options),
            ValueType::F32);
  EXPECT_EQ(compute("tensor<2x4x!quant.uniform<i8:f32:{0:1, 1:2}, {{0.1, 0.2}, "
                    "{0.3, 0.4}}>>",
                    KernelOp::DCast, options),
            ValueType::F32);
  EXPECT_EQ(compute("tensor<2x3x!quant.uniform<i8:f16:1, {0.1, 0.2, 0.3}>>",
                    KernelOp::DCast, options),
            ValueType::F32);
  LoweringOptions runtime = options;
  runtime.runtimeParameters = true;
  EXPECT_EQ(compute(perAxis, KernelOp::DCast, runtime), ValueType::F32);
  EXPECT_EQ(lower(perAxis, KernelOp::DCast).params.scales[1], double(0.7771f));

  // Only that dcast computes f32 values in f64.
  KernelSpec qcast = lower(perAxis, KernelOp::QCast);
  qcast.compute = ValueType::F64;
  EXPECT_FALSE(verifyKernelSpec(qcast).isOk());
}

TEST(Lowering, Storage) {
  KernelSpec bounded = lower("!quant.uniform<u8<1:200>:f32, 1.0>");
  EXPECT_FALSE(bounded.storage.isSigned);
  EXPECT_EQ(bounded.storage.min, 1);
  EXPECT_EQ(bounded.storage.max, 200);
  EXPECT_TRUE(lower("!quant.uniform<i4:f32, 1.0>").storage.packed);
  EXPECT_TRUE(lower("!quant.uniform<u2:f32, 1.0>").storage.packed);
  EXPECT_TRUE(lower("!quant.uniform<u1:f32, 1.0>").storage.packed);
  EXPECT_FALSE(lower("!quant.uniform<i3:f32, 1.0>").storage.packed);
  EXPECT_FALSE(lower("!quant.uniform<i16:f32, 1.0>").storage.packed);
  LoweringOptions unpacked;
  unpacked.unpacked = true;
  KernelSpec spec =
      lower("!quant.uniform<i4:f32, 1.0>", KernelOp::QCast, unpacked);
  EXPECT_FALSE(spec.storage.packed);
  EXPECT_EQ(spec.storage.bits, 4u);
}

TEST(Lowering, ExpressedTypesAndScaleRounding) {
  KernelSpec f16 = lower("!quant.uniform<i8:f16, 0.1>");
  EXPECT_EQ(f16.expressed, ValueType::F16);
  EXPECT_EQ(f16.compute, ValueType::F32);
  EXPECT_EQ(f16.params.scales, std::vector<double>{0.0999755859375});
  KernelSpec bf16 = lower("!quant.uniform<i8:bf16, 0.1>");
  EXPECT_EQ(bf16.compute, ValueType::F32);
  EXPECT_EQ(bf16.params.scales, std::vector<double>{0.10009765625});
  KernelSpec f32 = lower("!quant.uniform<i8:f32, 0.1>");
  EXPECT_EQ(f32.params.scales, std::vector<double>{static_cast<double>(0.1f)});
  KernelSpec f64 = lower("!quant.uniform<i8:f64, 0.1>");
  EXPECT_EQ(f64.compute, ValueType::F64);
  EXPECT_EQ(f64.params.scales, std::vector<double>{0.1});
}

TEST(Lowering, RejectsScalesTheExpressedTypeCannotHold) {
  TypeDescriptor type = parse("!quant.uniform<i8:f16, 1.0>");
  type.element.scales = {1.0e6}; // The parser would refuse it.
  Status status = lowerError(type);
  EXPECT_EQ(status.code(), ErrorCode::Unsupported);
  EXPECT_NE(status.message().find("inf"), std::string::npos)
      << status.message();
  type.element.scales = {1.0e-10};
  EXPECT_EQ(lowerError(type).code(), ErrorCode::Unsupported);
}

TEST(Lowering, RejectsWhatNoKernelComputes) {
  struct Case {
    std::string text;
    std::string mention;
  };
  const std::vector<Case> cases = {
      {"!quant.any<i8:f32>", "!quant.any"},
      {"!quant.calibrated<f32<-1.0:1.0>>", "!quant.calibrated"},
      {"!quant.uniform<i8:tf32, 1.0>", "tf32"},
      {"!quant.uniform<i8:f8E5M2, 1.0>", "f8E5M2"},
      {"!quant.quantile<f4E2M1FN:f16, {-6.0,-5.0,-4.0,-3.0,-2.0,-1.0,0.0,"
       "1.0,2.0,3.0,4.0,5.0,6.0}>",
       "quantile type with float storage"},
      // Standalone, the table type would be the kernels' expressed type.
      {"!quant.quantile<ui1:si8, {-1.0, 1.0}>", "integer table type si8"},
  };
  for (const Case &c : cases) {
    Status status = lowerError(c.text);
    EXPECT_EQ(status.code(), ErrorCode::Unsupported) << c.text;
    EXPECT_NE(status.message().find(c.mention), std::string::npos)
        << c.text << ": " << status.message();
  }
}

TEST(Lowering, IntegerTablesAreExact) {
  // No rounding to the table type: f16 would hold 2049 as 2048.
  KernelSpec spec = lower("!quant.uniform<!quant.quantile<u2:i16, {-2049.0, "
                          "-0.0, 7.0, 2049.0}>:f16, 0.5>",
                          KernelOp::DCast);
  EXPECT_EQ(spec.storage.kind, StorageType::Kind::Quantile);
  EXPECT_EQ(spec.storage.table,
            (std::vector<double>{-2049.0, 0.0, 7.0, 2049.0}));
  EXPECT_FALSE(std::signbit(spec.storage.table[1]));
  // Only the compute type rounds: 2^24 + 1 is not an f32.
  KernelSpec wide = lower("!quant.uniform<!quant.quantile<u1:i32, "
                          "{-16777217.0, 16777217.0}>:f32, 1.0>");
  EXPECT_EQ(wide.storage.table, (std::vector<double>{-16777216.0, 16777216.0}));
  KernelSpec f64 = lower("!quant.uniform<!quant.quantile<u1:i32, "
                         "{-16777217.0, 16777217.0}>:f64, 1.0>");
  EXPECT_EQ(f64.storage.table, (std::vector<double>{-16777217.0, 16777217.0}));
}

TEST(Lowering, PerAxis) {
  KernelSpec middle =
      lower("tensor<2x3x4x!quant.uniform<i8:f32:1, {1.0:1, 2.0:2, 3.0:3}>>");
  EXPECT_EQ(middle.layout, perAxis(3, 4));
  EXPECT_EQ(middle.params.scales, (std::vector<double>{1.0, 2.0, 3.0}));
  EXPECT_EQ(middle.params.zeroPoints, (std::vector<int64_t>{1, 2, 3}));
  EXPECT_EQ(middle.shape, (std::vector<int64_t>{2, 3, 4}));
  EXPECT_EQ(
      lower("tensor<3x4x!quant.uniform<i8:f32:0, {1.0, 2.0, 3.0}>>").layout,
      perAxis(3, 4));
  EXPECT_EQ(
      lower("tensor<5x3x!quant.uniform<i8:f32:1, {1.0, 2.0, 3.0}>>").layout,
      perAxis(3, 1));
  // Extent-1 dims vanish; one channel is per-tensor.
  EXPECT_EQ(
      lower("tensor<1x3x1x2x!quant.uniform<i8:f32:1, {1.0, 2.0, 3.0}>>").layout,
      perAxis(3, 2));
  KernelSpec single = lower("tensor<4x1x!quant.uniform<i8:f32:1, {2.0:3}>>");
  EXPECT_EQ(single.layout, LayoutSpec{});
  EXPECT_EQ(single.params.scales, std::vector<double>{2.0});
  EXPECT_EQ(single.params.zeroPoints, std::vector<int64_t>{3});
}

TEST(Lowering, PerAxisWithDynamicDims) {
  const std::string text =
      "tensor<?x3x?x!quant.uniform<i8:f32:1, {1.0, 2.0, 3.0}>>";
  KernelSpec dynamic = lower(text);
  EXPECT_EQ(dynamic.layout, perAxis(3, kDynamic));
  EXPECT_TRUE(dynamic.takesParams());
  EXPECT_EQ(dynamic.shape, (std::vector<int64_t>{kDynamic, 3, kDynamic}));
  Expected<std::vector<int64_t>> extents =
      lowerCallExtents(parse(text), {}, {2, 3, 5});
  ASSERT_TRUE(extents.hasValue()) << extents.takeStatus().message();
  EXPECT_EQ(*extents, std::vector<int64_t>{5});

  LoweringOptions filled;
  filled.shape = {2, 3, 5};
  KernelSpec fixed = lower(text, KernelOp::QCast, filled);
  EXPECT_EQ(fixed.layout, perAxis(3, 5));
  EXPECT_FALSE(fixed.takesParams());
  EXPECT_EQ(fixed.shape, filled.shape);

  // Static whole dims after a dynamic one fold into the dynamic extent.
  const std::string mixed =
      "tensor<3x?x4x!quant.uniform<i8:f32:0, {1.0, 2.0, 3.0}>>";
  EXPECT_EQ(lower(mixed).layout, perAxis(3, kDynamic));
  extents = lowerCallExtents(parse(mixed), {}, {3, 7, 4});
  ASSERT_TRUE(extents.hasValue()) << extents.takeStatus().message();
  EXPECT_EQ(*extents, std::vector<int64_t>{28});
}

TEST(Lowering, PerAxisNeedsAShape) {
  const std::string bare = "!quant.uniform<i8:f32:1, {1.0, 2.0}>";
  EXPECT_EQ(lowerError(bare).code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(lowerError("tensor<*x!quant.uniform<i8:f32:1, {1.0, 2.0}>>").code(),
            ErrorCode::InvalidArgument);
  LoweringOptions shaped;
  shaped.shape = {4, 2};
  EXPECT_EQ(lower(bare, KernelOp::QCast, shaped).layout, perAxis(2, 1));
  shaped.shape = {4, 3}; // Axis 1 has 2 channels.
  EXPECT_EQ(lowerError(bare, shaped).code(), ErrorCode::InvalidArgument);
  shaped.shape = {2};
  EXPECT_EQ(lowerError(bare, shaped).code(), ErrorCode::InvalidArgument);
}

TEST(Lowering, ShapeOptionMustFitTheTensor) {
  const std::string text = "tensor<2x?x!quant.uniform<i8:f32, 1.0>>";
  LoweringOptions options;
  options.shape = {3, 4};
  EXPECT_EQ(lowerError(text, options).code(), ErrorCode::InvalidArgument);
  options.shape = {2, 4, 1};
  EXPECT_EQ(lowerError(text, options).code(), ErrorCode::InvalidArgument);
  options.shape = {2, -7};
  EXPECT_EQ(lowerError(text, options).code(), ErrorCode::InvalidArgument);
  options.shape = {2, 4};
  EXPECT_EQ(lower(text, KernelOp::QCast, options).shape, options.shape);
}

TEST(Lowering, RejectsShapesThatOverflow) {
  LoweringOptions options;
  options.shape = {int64_t(1) << 40, int64_t(1) << 40, 2};
  EXPECT_EQ(lowerError("!quant.uniform<i8:f32:2, {1.0, 2.0}>", options).code(),
            ErrorCode::InvalidArgument);
  // A dim of 0 leaves the tensor empty but must not hide an overflow of the
  // others, which the layout's collapse multiplies (a fuzzer found UBSan's
  // signed overflow there).
  Status hidden = lowerError(
      "tensor<?x0x5477580700000001300x!quant.uniform<i4:f16:0, {2., 34.5}>>");
  EXPECT_EQ(hidden.code(), ErrorCode::InvalidArgument);
  EXPECT_NE(hidden.message().find("too many elements"), std::string::npos)
      << hidden.message();
  EXPECT_EQ(lower("tensor<0x4x!quant.uniform<i8:f32:1, {1.0, 2.0, 3.0, 4.0}>>")
                .layout.channels,
            4);
}

TEST(Lowering, SubChannel) {
  KernelSpec grid = lower("tensor<4x6x!quant.uniform<i8:f32:{0:2, 1:3}, "
                          "{{1.0:1, 2.0:2}, {3.0:3, 4.0:4}}>>");
  EXPECT_EQ(grid.layout, blocked({{4, 2}, {6, 3}}));
  EXPECT_EQ(grid.params.scales, (std::vector<double>{1.0, 2.0, 3.0, 4.0}));
  EXPECT_EQ(grid.params.zeroPoints, (std::vector<int64_t>{1, 2, 3, 4}));
  EXPECT_FALSE(grid.takesParams());
}

TEST(Lowering, SubChannelCollapses) {
  // Blocks of 2 along the last axis, one scale along the first: per-axis
  // with 2 channels of 2 elements, repeating.
  EXPECT_EQ(
      lower("tensor<2x4x!quant.uniform<i8:f32:{1:2}, {{1.0, 2.0}}>>").layout,
      perAxis(2, 2));
  // Blocks of 3 rows: a whole trailing dim joins the block.
  EXPECT_EQ(
      lower("tensor<6x4x!quant.uniform<i8:f32:{0:3}, {{1.0}, {2.0}}>>").layout,
      perAxis(2, 12));
  // One scale per row per 4 columns: groups of 4 consecutive elements.
  EXPECT_EQ(lower("tensor<2x8x!quant.uniform<i8:f32:{0:1, 1:4}, "
                  "{{1.0, 2.0}, {3.0, 4.0}}>>")
                .layout,
            perAxis(4, 4));
  // A leading dim without blocks (static or dynamic) is the repetition.
  const std::string inner = "x4x6x!quant.uniform<i8:f32:{1:2, 2:3}, "
                            "{{{1.0, 2.0}, {3.0, 4.0}}}>>";
  EXPECT_EQ(lower("tensor<2" + inner).layout, blocked({{4, 2}, {6, 3}}));
  KernelSpec dynamicLead = lower("tensor<?" + inner);
  EXPECT_EQ(dynamicLead.layout, blocked({{4, 2}, {6, 3}}));
  EXPECT_FALSE(dynamicLead.takesParams());
  // One scale: per-tensor (normalized).
  EXPECT_EQ(lower("tensor<6x2x!quant.uniform<i8:f32:{}, {{1.0}}>>").layout.kind,
            LayoutSpec::Kind::PerTensor);
}

TEST(Lowering, SubChannelWithADynamicMiddleDim) {
  const std::string text = "tensor<4x?x6x!quant.uniform<i8:f32:{0:2, 2:3}, "
                           "{{{1.0, 2.0}}, {{3.0, 4.0}}}>>";
  KernelSpec spec = lower(text);
  EXPECT_EQ(spec.layout, blocked({{4, 2}, {kDynamic, kDynamic}, {6, 3}}));
  EXPECT_TRUE(spec.takesParams());
  Expected<std::vector<int64_t>> extents =
      lowerCallExtents(parse(text), {}, {4, 5, 6});
  ASSERT_TRUE(extents.hasValue()) << extents.takeStatus().message();
  EXPECT_EQ(*extents, (std::vector<int64_t>{5, 6}));
  EXPECT_FALSE(lowerCallExtents(parse(text), {}, {4, 5, 7}).hasValue());
  EXPECT_FALSE(lowerCallExtents(parse(text), {}, {4, -1, 6}).hasValue());
}

TEST(Lowering, RuntimeParameters) {
  LoweringOptions options;
  options.runtimeParameters = true;
  KernelSpec spec =
      lower("tensor<2x3x!quant.uniform<i8:f32:1, {1.0:1, 2.0:2, 3.0:3}>>",
            KernelOp::DCast, options);
  EXPECT_TRUE(spec.params.runtime);
  EXPECT_TRUE(spec.params.scales.empty());
  EXPECT_TRUE(spec.params.zeroPoints.empty());
  EXPECT_EQ(spec.layout, perAxis(3, 1));
  EXPECT_TRUE(spec.takesParams());
  EXPECT_TRUE(verifyKernelSpec(spec).isOk());
}

TEST(Lowering, HandBuiltDescriptors) {
  // What the parser would build for !quant.uniform<i8:f32, 0.5:-3> in a
  // tensor<8>.
  TypeDescriptor type;
  type.tensor = TensorShape{true, {8}};
  type.element.scales = {0.5};
  type.element.zeroPoints = {-3};
  type.element.expressed = FloatType::F32;
  Expected<KernelSpec> spec = lowerToKernelSpec(type, KernelOp::DCast);
  ASSERT_TRUE(spec.hasValue()) << spec.takeStatus().message();
  EXPECT_EQ(spec->params.scales, std::vector<double>{0.5});
  EXPECT_EQ(spec->shape, std::vector<int64_t>{8});

  type.element.expressed.reset();
  EXPECT_EQ(lowerError(type).code(), ErrorCode::Unsupported);

  // A sub-channel type needs a ranked shape too.
  TypeDescriptor bare;
  bare.element.granularity = QuantType::Granularity::SubChannel;
  bare.element.expressed = FloatType::F32;
  bare.element.scales = {1.0, 2.0, 3.0, 4.0};
  bare.element.zeroPoints = {0, 0, 0, 0};
  bare.element.blockSizes = {{0, 2}, {1, 2}};
  bare.element.scaleShape = {2, 2};
  EXPECT_EQ(lowerError(bare).code(), ErrorCode::InvalidArgument);
  LoweringOptions shaped;
  shaped.shape = {4, 4};
  spec = lowerToKernelSpec(bare, KernelOp::QCast, shaped);
  ASSERT_TRUE(spec.hasValue()) << spec.takeStatus().message();
  EXPECT_EQ(spec->layout, blocked({{4, 2}, {4, 2}}));
}

} // namespace
} // namespace qjit
