//===- ReferenceLayoutTest.cpp - Parameter index mapping and call checks --===//
//
// Quantizing zeros with scale 1 yields each element's zero point, so giving
// parameter k the zero point k makes the output the index map itself.
//
//===----------------------------------------------------------------------===//
#include "LayoutSpecs.h"
#include "ReferenceTestSupport.h"

#include <gtest/gtest.h>

#include <numeric>

namespace qjit {
namespace {

using testing::blocked;
using testing::integerStorage;
using testing::perAxis;
using testing::perTensorSpec;
using testing::quantize;

/// A qcast spec over i32 storage whose parameter k has zero point k.
KernelSpec indexRevealingSpec(LayoutSpec layout) {
  KernelSpec spec = perTensorSpec(KernelOp::QCast, integerStorage(32, true),
                                  ValueType::F32, 1.0, 0);
  spec.layout = std::move(layout);
  size_t count = static_cast<size_t>(spec.layout.parameterCount());
  spec.params.scales.assign(count, 1.0);
  spec.params.zeroPoints.resize(count);
  std::iota(spec.params.zeroPoints.begin(), spec.params.zeroPoints.end(), 0);
  return spec;
}

TEST(ReferenceLayout, PerAxisRepeatsOverOuterDims) {
  // tensor<2x3x2> quantized along axis 1: channels 3, inner 2.
  KernelSpec spec = indexRevealingSpec(perAxis(3, 2));
  EXPECT_EQ(quantize(spec, std::vector<double>(12, 0.0)),
            (std::vector<int64_t>{0, 0, 1, 1, 2, 2, 0, 0, 1, 1, 2, 2}));
}

TEST(ReferenceLayout, BlockedIndexIsRowMajorOverTheGrid) {
  // A 4x6 tensor in 2x3 blocks: grid 2x2, element (j0, j1) uses
  // 2 · (j0 / 2) + j1 / 3. Two periods.
  KernelSpec spec = indexRevealingSpec(blocked({{4, 2}, {6, 3}}));
  std::vector<int64_t> period = {0, 0, 0, 1, 1, 1, //
                                 0, 0, 0, 1, 1, 1, //
                                 2, 2, 2, 3, 3, 3, //
                                 2, 2, 2, 3, 3, 3};
  std::vector<int64_t> expected = period;
  expected.insert(expected.end(), period.begin(), period.end());
  EXPECT_EQ(quantize(spec, std::vector<double>(48, 0.0)), expected);
}

TEST(ReferenceLayout, ThreeBlockedDims) {
  // 2x2x4 in blocks 1x2x2: grid 2x1x2 → 4 parameters.
  KernelSpec spec = indexRevealingSpec(blocked({{2, 1}, {2, 2}, {4, 2}}));
  EXPECT_EQ(quantize(spec, std::vector<double>(16, 0.0)),
            (std::vector<int64_t>{0, 0, 1, 1, 0, 0, 1, 1, //
                                  2, 2, 3, 3, 2, 2, 3, 3}));
}

TEST(ReferenceLayout, DynamicExtentsComeFromTheCall) {
  // Per-axis with a dynamic inner extent of 3.
  KernelSpec axis = indexRevealingSpec(perAxis(2, LayoutSpec::kDynamic));
  ASSERT_TRUE(axis.takesParams());
  const int64_t inner[1] = {3};
  KernelParams params;
  params.extents = inner;
  EXPECT_EQ(quantize(axis, std::vector<double>(12, 0.0), &params),
            (std::vector<int64_t>{0, 0, 0, 1, 1, 1, 0, 0, 0, 1, 1, 1}));

  // 2x?x2 in blocks 1x?x... : dims[1] is dynamic (2 at this call), dims[2]
  // is split in halves. extents[d - 1] serves dims[d].
  KernelSpec block = indexRevealingSpec(
      blocked({{2, 1}, {LayoutSpec::kDynamic, LayoutSpec::kDynamic}, {2, 1}}));
  const int64_t extents[2] = {2, /*dims[2], static: ignored*/ 99};
  params.extents = extents;
  EXPECT_EQ(quantize(block, std::vector<double>(8, 0.0), &params),
            (std::vector<int64_t>{0, 1, 0, 1, 2, 3, 2, 3}));
}

TEST(ReferenceLayout, RuntimeParameters) {
  KernelSpec spec = perTensorSpec(KernelOp::QCast, integerStorage(8, true),
                                  ValueType::F16, 1.0, 0);
  spec.layout = perAxis(2, 1);
  spec.params = {};
  spec.params.runtime = true;
  const uint16_t scales[2] = {0x4000, 0x3800}; // f16 2.0 and 0.5
  const int64_t zeroPoints[2] = {10, -10};
  KernelParams params;
  params.scales = scales;
  params.zeroPoints = zeroPoints;
  EXPECT_EQ(quantize(spec, {2.0, 2.0, -4.0, 1.0}, &params),
            (std::vector<int64_t>{11, -6, 8, -8}));
  params.zeroPoints = nullptr; // All zero.
  EXPECT_EQ(quantize(spec, {2.0, 2.0}, &params), (std::vector<int64_t>{1, 4}));
}

TEST(ReferenceLayout, RuntimeScalesAreUsedAsGiven) {
  // IEEE arithmetic on whatever the caller passes: -2 flips the sign,
  // x / 0 = ±inf saturates, 0 / 0 = NaN gives the zero point.
  KernelSpec spec = perTensorSpec(KernelOp::QCast, integerStorage(8, true),
                                  ValueType::F32, 1.0, 0);
  spec.layout = perAxis(3, 1);
  spec.params = {};
  spec.params.runtime = true;
  const float scales[3] = {-2.0f, 0.0f, 0.0f};
  const int64_t zeroPoints[3] = {5, 5, 5};
  KernelParams params;
  params.scales = scales;
  params.zeroPoints = zeroPoints;
  EXPECT_EQ(quantize(spec, {4.0, 1.0, 0.0, -4.0, -1.0, 0.0}, &params),
            (std::vector<int64_t>{3, 127, 5, 7, -128, 5}));
}

class ReferenceCallCheck : public ::testing::Test {
protected:
  /// Runs with a poisoned destination and checks it stays untouched.
  Status run(const KernelSpec &spec, size_t n, const KernelParams *params,
             bool nullSource = false) {
    std::vector<float> src(n + 1, 0.0f);
    std::vector<uint8_t> dst(64, 0xA5);
    Status status = runReference(spec, nullSource ? nullptr : src.data(),
                                 dst.data(), n, params);
    if (!status.isOk()) {
      for (uint8_t byte : dst) {
        EXPECT_EQ(byte, 0xA5) << "dst touched on error";
      }
    }
    return status;
  }
};

TEST_F(ReferenceCallCheck, RejectsSizesThatDoNotFitTheLayout) {
  KernelSpec spec = indexRevealingSpec(perAxis(3, 2));
  EXPECT_EQ(run(spec, 5, nullptr).code(), ErrorCode::InvalidArgument);
  EXPECT_TRUE(run(spec, 6, nullptr).isOk());
  KernelSpec block = indexRevealingSpec(blocked({{4, 2}, {2, 1}}));
  EXPECT_EQ(run(block, 4, nullptr).code(), ErrorCode::InvalidArgument);
  EXPECT_TRUE(run(block, 8, nullptr).isOk());
}

TEST_F(ReferenceCallCheck, RejectsMissingParams) {
  KernelSpec spec = indexRevealingSpec(perAxis(2, LayoutSpec::kDynamic));
  EXPECT_EQ(run(spec, 4, nullptr).code(), ErrorCode::InvalidArgument);
  KernelParams noExtents;
  EXPECT_EQ(run(spec, 4, &noExtents).code(), ErrorCode::InvalidArgument);
  const int64_t zero[1] = {0};
  KernelParams zeroExtent;
  zeroExtent.extents = zero;
  EXPECT_EQ(run(spec, 4, &zeroExtent).code(), ErrorCode::InvalidArgument);

  KernelSpec runtime = perTensorSpec(KernelOp::QCast, integerStorage(8, true),
                                     ValueType::F32, 1.0, 0);
  runtime.params = {};
  runtime.params.runtime = true;
  KernelParams noScales;
  EXPECT_EQ(run(runtime, 4, &noScales).code(), ErrorCode::InvalidArgument);
  EXPECT_TRUE(run(runtime, 0, &noScales).isOk());
}

TEST_F(ReferenceCallCheck, IgnoresParamsTheSpecDoesNotTake) {
  KernelSpec spec = perTensorSpec(KernelOp::QCast, integerStorage(8, true),
                                  ValueType::F32, 1.0, 0);
  KernelParams unused;
  EXPECT_TRUE(run(spec, 4, &unused).isOk());
}

TEST_F(ReferenceCallCheck, RejectsNullBuffers) {
  KernelSpec spec = perTensorSpec(KernelOp::QCast, integerStorage(8, true),
                                  ValueType::F32, 1.0, 0);
  EXPECT_EQ(run(spec, 4, nullptr, /*nullSource=*/true).code(),
            ErrorCode::InvalidArgument);
  EXPECT_TRUE(runReference(spec, nullptr, nullptr, 0).isOk());
}

TEST_F(ReferenceCallCheck, RejectsInvalidSpecs) {
  KernelSpec base = perTensorSpec(KernelOp::QCast, integerStorage(8, true),
                                  ValueType::F32, 1.0, 0);
  KernelSpec zeroWidth = base;
  zeroWidth.storage.bits = 0;
  EXPECT_EQ(run(zeroWidth, 4, nullptr).code(), ErrorCode::InvalidArgument);
  KernelSpec packedThree = base;
  packedThree.storage = integerStorage(3, true, /*packed=*/true);
  EXPECT_EQ(run(packedThree, 4, nullptr).code(), ErrorCode::InvalidArgument);
  KernelSpec wrongCompute = base;
  wrongCompute.compute = ValueType::F64;
  EXPECT_EQ(run(wrongCompute, 4, nullptr).code(), ErrorCode::InvalidArgument);
  KernelSpec missingScales = base;
  missingScales.layout = perAxis(2, 1);
  EXPECT_EQ(run(missingScales, 4, nullptr).code(), ErrorCode::InvalidArgument);
  KernelSpec badBlock = indexRevealingSpec(blocked({{4, 3}}));
  EXPECT_EQ(run(badBlock, 4, nullptr).code(), ErrorCode::InvalidArgument);
  KernelSpec outOfRange = base;
  outOfRange.storage.max = 128;
  EXPECT_EQ(run(outOfRange, 4, nullptr).code(), ErrorCode::InvalidArgument);
  KernelSpec floatStorage = base;
  floatStorage.storage.kind = StorageType::Kind::Float;
  floatStorage.storage.floatFormat = FloatType::F8E4M3FN;
  floatStorage.storage.min = -448;
  floatStorage.storage.max = 448;
  // Float codes are unsigned bit patterns (isSigned is false).
  EXPECT_EQ(run(floatStorage, 4, nullptr).code(), ErrorCode::InvalidArgument);
}

} // namespace
} // namespace qjit
