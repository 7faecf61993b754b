//===- CompatPyTorchTest.cpp - The pytorch preset against ATen's formula --===//
//
// PyTorch's scalar quantizer (ATen AffineQuantizerBase.cpp, the non-FBGEMM
// build) is:
//
//   float inv_scale = 1.0f / static_cast<float>(scale);
//   qvalue = static_cast<int64_t>(zero_point + nearbyint(value * inv_scale));
//   qvalue = min(max(qvalue, qmin), qmax);
//
// and its dequantizer `static_cast<float>(scale) * (value - zero_point)`.
// On values where that code is well defined (no NaN, no float-to-integer
// overflow), the `pytorch` preset must agree with it exactly.
//
//===----------------------------------------------------------------------===//
#include "ReferenceTestSupport.h"

#include "qjit/TypeParser.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace qjit {
namespace {

using testing::dequantize;
using testing::integerStorage;
using testing::perTensorSpec;
using testing::quantize;

int64_t atenQuantizeVal(double scale, int64_t zeroPoint, float value,
                        int64_t qmin, int64_t qmax) {
  float inverseScale = 1.0f / static_cast<float>(scale);
  float product = value * inverseScale; // Separate statements: no FMA.
  int64_t qvalue = static_cast<int64_t>(zeroPoint + std::nearbyint(product));
  return std::min(std::max(qvalue, qmin), qmax);
}

float atenDequantizeVal(double scale, int64_t zeroPoint, int64_t value) {
  return static_cast<float>(scale) *
         static_cast<float>(value - static_cast<int32_t>(zeroPoint));
}

/// ATen's dequantize_per_channel_affine_kernel: double scales, double
/// arithmetic, one store to float.
float atenDequantizePerChannelVal(double scale, int64_t zeroPoint,
                                  int64_t value) {
  return static_cast<float>((value - zeroPoint) * scale);
}

struct Quantizer {
  double scale;
  int64_t zeroPoint;
  unsigned bits;
  bool isSigned;
};

const std::vector<Quantizer> kQuantizers = {
    {0.1, 0, 8, true},          {0.02, -5, 8, true},  {7.0, 3, 8, true},
    {1.0 / 3.0, 128, 8, false}, {0.05, 17, 8, false}, {2.5e-3, 0, 32, true},
    {0.75, -1000, 32, true},
};

/// Hand-picked inputs: ties of several scales, values near rounding
/// boundaries, zeros, subnormals, and out-of-range values whose float is
/// still far from integer overflow.
std::vector<float> handPickedInputs() {
  std::vector<float> inputs = {
      0.0f,     -0.0f,  0.05f,   -0.05f,  0.15f,   0.25f,  -0.25f,  1.0f,
      -1.0f,    3.5f,   10.5f,   45.5f,   -3.5f,   1e-40f, -1e-40f, 12.7f,
      -12.8f,   127.4f, -128.6f, 1000.0f, -1e6f,   0.01f,  0.03f,   1.0f / 3,
      2.0f / 3, 0.35f,  6.35f,   -6.45f,  3.1416f, 99.99f};
  for (int k = -40; k <= 40; ++k)
    inputs.push_back(static_cast<float>(k) * 0.0125f);
  return inputs;
}

TEST(CompatPyTorch, QuantizeMatchesATen) {
  for (const Quantizer &quantizer : kQuantizers) {
    StorageSpec storage = integerStorage(quantizer.bits, quantizer.isSigned);
    // PyTorch rounds the double scale to float, as the f32 contract does.
    KernelSpec spec =
        perTensorSpec(KernelOp::QCast, storage, ValueType::F32,
                      static_cast<float>(quantizer.scale), quantizer.zeroPoint,
                      knobsForPreset(SemanticsPreset::PyTorch));
    std::vector<float> inputs = handPickedInputs();
    std::vector<int64_t> expected;
    for (float value : inputs)
      expected.push_back(atenQuantizeVal(quantizer.scale, quantizer.zeroPoint,
                                         value, storage.min, storage.max));
    std::vector<double> wide(inputs.begin(), inputs.end());
    EXPECT_EQ(quantize(spec, wide), expected)
        << "scale " << quantizer.scale << " zero point " << quantizer.zeroPoint;
  }
}

TEST(CompatPyTorch, DequantizeMatchesATen) {
  for (const Quantizer &quantizer : kQuantizers) {
    if (quantizer.bits != 8)
      continue;
    StorageSpec storage = integerStorage(quantizer.bits, quantizer.isSigned);
    KernelSpec spec =
        perTensorSpec(KernelOp::DCast, storage, ValueType::F32,
                      static_cast<float>(quantizer.scale), quantizer.zeroPoint);
    std::vector<int64_t> stored;
    std::vector<double> expected;
    for (int64_t q = storage.min; q <= storage.max; ++q) {
      stored.push_back(q);
      expected.push_back(
          atenDequantizeVal(quantizer.scale, quantizer.zeroPoint, q));
    }
    EXPECT_EQ(dequantize(spec, stored), expected)
        << "scale " << quantizer.scale << " zero point " << quantizer.zeroPoint;
  }
}

TEST(CompatPyTorch, PerChannelDequantizeMatchesATenInDouble) {
  // The pytorch preset lowers per-axis dcast to f64 arithmetic with the
  // scale literals' doubles; every i8 and u8 value of three channels whose
  // scales f32 does not hold.
  for (const char *storage : {"i8", "u8"}) {
    const std::vector<double> scales = {0.7771, 0.123456789, 1.0 / 3};
    const std::vector<int64_t> zeroPoints = {-5, 3, 100};
    std::string type = std::string("tensor<256x3x!quant.uniform<") + storage +
                       ":f32:1, {0.7771:-5, 0.123456789:3, " +
                       "0.33333333333333331:100}>>";
    Expected<TypeDescriptor> parsed = parseTypeOrError(type);
    ASSERT_TRUE(parsed) << parsed.status().message();
    LoweringOptions options = loweringForPreset(SemanticsPreset::PyTorch);
    Expected<KernelSpec> spec =
        lowerToKernelSpec(*parsed, KernelOp::DCast, options);
    ASSERT_TRUE(spec) << spec.status().message();
    std::vector<int64_t> stored;
    std::vector<double> expected;
    size_t mismatchesInF32 = 0;
    for (int64_t q = spec->storage.min; q <= spec->storage.max; ++q)
      for (size_t c = 0; c < 3; ++c) {
        stored.push_back(q);
        expected.push_back(
            atenDequantizePerChannelVal(scales[c], zeroPoints[c], q));
        mismatchesInF32 +=
            expected.back() != atenDequantizeVal(scales[c], zeroPoints[c], q);
      }
    EXPECT_EQ(dequantize(*spec, stored), expected) << type;
    EXPECT_GT(mismatchesInF32, 0u); // The f32 formula would not do.
  }
}

} // namespace
} // namespace qjit
