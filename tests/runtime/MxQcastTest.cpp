//===- MxQcastTest.cpp - OCP MX dynamic qcast (semantics 11.8) ------------===//
//
// The mx scheme through the public API, on the reference and on both
// backends, against values worked out by hand from docs/semantics.md 11.8: each
// scale rounding's exponent at and around its edges (powers of two, the 1.5
// midpoint, subnormal quotients, the E8M0 clamp), the elements rounded and
// saturated in the block's scale, MXFP4 read back by the E8M0 dcast, the
// spec's spelling and what the scheme refuses. The backends' sweep over
// layouts and storages is DynamicKernelTest's.
//
//===----------------------------------------------------------------------===//
#include "TestSeed.h"

#include "qjit/KernelCall.h"
#include "qjit/Runtime.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

namespace qjit {
namespace {

std::unique_ptr<Runtime> makeRuntime(BackendKind backend,
                                     DynamicRule rule = DynamicRule::Default) {
  RuntimeOptions options;
  options.backend = backend;
  options.dynamicRule = rule;
  Expected<std::unique_ptr<Runtime>> runtime = Runtime::create(options);
  return runtime ? std::move(*runtime) : nullptr;
}

Expected<std::shared_ptr<const Kernel>>
compileMx(Runtime &runtime, const std::string &type, ScaleRounding rounding) {
  LoweringOptions lowering = runtime.defaultLowering();
  lowering.dynamicScheme = DynamicScheme::Mx;
  lowering.scaleRounding = rounding;
  return runtime.compile(type, KernelOp::QCast, lowering);
}

struct MxResult {
  std::vector<uint8_t> codes;
  std::vector<uint8_t> scales; ///< E8M0 bytes.
};

/// The backends that compute mx: llvm, and asmjit's x86 code.
std::vector<BackendKind> mxBackends() {
  std::vector<BackendKind> backends = {BackendKind::Reference,
                                       BackendKind::Llvm};
#if defined(__x86_64__)
  backends.push_back(BackendKind::Asmjit);
#endif
  return backends;
}

/// The mx qcast of `x` on the reference and on mxBackends(), which must
/// agree.
MxResult quantizeMx(const std::string &type, ScaleRounding rounding,
                    const std::vector<float> &x) {
  const std::vector<BackendKind> backends = mxBackends();
  std::vector<MxResult> results(backends.size());
  for (size_t b = 0; b < backends.size(); ++b) {
    auto runtime = makeRuntime(backends[b]);
    EXPECT_TRUE(runtime);
    if (!runtime)
      return {};
    Expected<std::shared_ptr<const Kernel>> kernel =
        compileMx(*runtime, type, rounding);
    EXPECT_TRUE(kernel) << type << ": " << kernel.status().message();
    if (!kernel)
      return {};
    const Kernel &k = **kernel;
    Expected<size_t> codeBytes =
        bufferBytes(k.spec(), BufferSide::Storage, x.size());
    EXPECT_TRUE(codeBytes);
    MxResult &result = results[b];
    result.codes.assign(codeBytes ? *codeBytes : 0, 0xAA);
    result.scales.assign(k.parameterCounts().scales, 0xAA);
    Status ran =
        k.runDynamic(x.data(), x.size() * sizeof(float), result.codes.data(),
                     result.codes.size(), x.size(),
                     ParameterOutputs{result.scales.data(), nullptr});
    EXPECT_TRUE(ran) << ran.message();
  }
  for (size_t b = 1; b < backends.size(); ++b) {
    EXPECT_EQ(results[b].codes, results[0].codes)
        << type << " on " << backendKindName(backends[b]);
    EXPECT_EQ(results[b].scales, results[0].scales)
        << type << " on " << backendKindName(backends[b]);
  }
  return results[0];
}

/// The scale byte of a per-tensor mx qcast of {-amax, amax / 3}.
int scaleByte(const std::string &storage, ScaleRounding rounding, float amax) {
  MxResult result = quantizeMx("!quant.uniform<" + storage + ":f32, ?>",
                               rounding, {-amax, amax / 3});
  return result.scales.empty() ? -1 : result.scales[0];
}

constexpr ScaleRounding kFloor = ScaleRounding::Floor;
constexpr ScaleRounding kCeil = ScaleRounding::Ceil;
constexpr ScaleRounding kEven = ScaleRounding::Even;

TEST(MxQcast, FloorIsTheSpecsSharedExponent) {
  // E = floor(log2 amax) - floor(log2 M): M = 448 (2^8), 57344 (2^15), 6
  // (2^2), 127 (2^6).
  EXPECT_EQ(scaleByte("f8E4M3FN", kFloor, 448.0f), 127);
  EXPECT_EQ(scaleByte("f8E4M3FN", kFloor, 511.9f), 127);
  EXPECT_EQ(scaleByte("f8E4M3FN", kFloor, 512.0f), 128);
  EXPECT_EQ(scaleByte("f8E4M3FN", kFloor, 1.0f), 119);
  EXPECT_EQ(scaleByte("f8E5M2", kFloor, 1.0f), 112);
  EXPECT_EQ(scaleByte("f4E2M1FN", kFloor, 6.0f), 127);
  EXPECT_EQ(scaleByte("f4E2M1FN", kFloor, 8.0f), 128);
  EXPECT_EQ(scaleByte("i8", kFloor, 127.0f), 127);
  EXPECT_EQ(scaleByte("i8", kFloor, 128.0f), 128);
  // The largest f32: 2^127 / 2^2.
  EXPECT_EQ(scaleByte("f4E2M1FN", kFloor, std::numeric_limits<float>::max()),
            252);
  // Below E8M0's range: clamped to 2^-127 (byte 0).
  EXPECT_EQ(scaleByte("f4E2M1FN", kFloor, 0x1p-126f), 0);
  EXPECT_EQ(scaleByte("f8E4M3FN", kFloor, 0x1p-149f), 0);
}

TEST(MxQcast, CeilIsTheSmallestPowerAboveAmaxOverTheLargest) {
  EXPECT_EQ(scaleByte("f8E4M3FN", kCeil, 448.0f), 127);
  EXPECT_EQ(scaleByte("f8E4M3FN", kCeil, 449.0f), 128);
  EXPECT_EQ(scaleByte("f8E4M3FN", kCeil, 224.0f), 126);
  EXPECT_EQ(scaleByte("f4E2M1FN", kCeil, 6.0f), 127);
  EXPECT_EQ(scaleByte("f4E2M1FN", kCeil, 6.5f), 128);
  EXPECT_EQ(scaleByte("i8", kCeil, 127.0f), 127);
  EXPECT_EQ(scaleByte("i8", kCeil, 127.5f), 128);
  // v = amax / 6 subnormal: 2^-127 (byte 0) up to it, 2^-126 above.
  EXPECT_EQ(scaleByte("f4E2M1FN", kCeil, 6 * 0x1p-127f), 0);
  EXPECT_EQ(scaleByte("f4E2M1FN", kCeil, 7.5f * 0x1p-127f), 1);
}

TEST(MxQcast, EvenRoundsAsPyTorchsE8m0Conversion) {
  // A normal v goes up from 1.5 * 2^k on (E8M0 values are all odd).
  EXPECT_EQ(scaleByte("f8E4M3FN", kEven, 448.0f * 1.5f), 128);
  EXPECT_EQ(scaleByte("f8E4M3FN", kEven, 671.0f), 127);
  EXPECT_EQ(scaleByte("f4E2M1FN", kEven, 9.0f), 128);
  EXPECT_EQ(scaleByte("f4E2M1FN", kEven, 8.9f), 127);
  EXPECT_EQ(scaleByte("f4E2M1FN", kEven, 6.0f * 1.25f * 0x1p-126f), 1);
  EXPECT_EQ(scaleByte("f4E2M1FN", kEven, 6.0f * 1.5f * 0x1p-126f), 2);
  // A subnormal v as PyTorch's bits see it: up once it is above 2^-127.
  EXPECT_EQ(scaleByte("f4E2M1FN", kEven, 6 * 0x1p-127f), 0);
  EXPECT_EQ(scaleByte("f4E2M1FN", kEven, 7.5f * 0x1p-127f), 1);
}

TEST(MxQcast, AnAllZeroOrNonFiniteGroupHasTheSmallestScale) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  for (ScaleRounding rounding : {kFloor, kCeil, kEven}) {
    MxResult zero =
        quantizeMx("!quant.uniform<f8E4M3FN:f32, ?>", rounding, {0.0f, -0.0f});
    EXPECT_EQ(zero.scales, std::vector<uint8_t>{0});
    EXPECT_EQ(zero.codes, (std::vector<uint8_t>{0x00, 0x80}));
    // NaN and ±inf take no part in amax = 1; NaN stores NaN, ±inf
    // saturate. floor and ceil give 2^-8 (1 / 448 = 1.14 * 2^-9), so 1
    // stores 256 (0x78); even gives 2^-9, and 512 saturates to 448.
    MxResult special = quantizeMx("!quant.uniform<f8E4M3FN:f32, ?>", rounding,
                                  {nan, inf, -inf, 1.0f});
    bool even = rounding == kEven;
    EXPECT_EQ(special.scales, std::vector<uint8_t>{uint8_t(even ? 118 : 119)});
    EXPECT_EQ(
        special.codes,
        (std::vector<uint8_t>{0x7F, 0x7E, 0xFE, uint8_t(even ? 0x7E : 0x78)}));
  }
}

TEST(MxQcast, ElementsAreRoundedToEvenAndSaturatedInTheBlocksScale) {
  // f4E2M1FN values 0, 0.5, 1, 1.5, 2, 3, 4, 6 (codes 0-7, sign 8).
  // floor: amax 7 gives 2^0; 7 saturates to 6, 5 ties to 4, -2.5 to -2.
  MxResult floor =
      quantizeMx("!quant.uniform<f4E2M1FN:f32, ?>", kFloor, {7, 5, -2.5, 0.2});
  EXPECT_EQ(floor.scales, std::vector<uint8_t>{127});
  EXPECT_EQ(floor.codes, (std::vector<uint8_t>{0x67, 0x0C}));
  // ceil: 7 / 6 goes up to 2^1; x / 2 = 3.5, 2.5, -1.25, 0.1 tie to 4, 2,
  // -1 and round to 0.
  MxResult ceil =
      quantizeMx("!quant.uniform<f4E2M1FN:f32, ?>", kCeil, {7, 5, -2.5, 0.2});
  EXPECT_EQ(ceil.scales, std::vector<uint8_t>{128});
  EXPECT_EQ(ceil.codes, (std::vector<uint8_t>{0x46, 0x0A}));
  // Integer storage: the codes' scale is 2^E (for i8, MX's X is 2^(E+6)).
  MxResult i8 = quantizeMx("!quant.uniform<i8:f32, ?>", kFloor, {200, -3});
  EXPECT_EQ(i8.scales, std::vector<uint8_t>{128}); // 2^(7-6)
  EXPECT_EQ(i8.codes, (std::vector<uint8_t>{100, 0xFE}));
}

TEST(MxQcast, BlocksAtEveryRoundingsEdgesAgreeOnEveryBackend) {
  // 16 blocks of 32: asmjit chooses them a vector's lanes at a time. Block
  // k's largest magnitude is edge k of the roundings: around 2^-127 * M
  // (v's smallest power), 1.5 * 2^k * M (even's midpoint), powers times M,
  // and the largest f32 (with M = 1, i2's, ceil and even clamp E to 127).
  for (const char *storage : {"f4E2M1FN", "f8E4M3FN", "i2"}) {
    const double m = std::string(storage) == "i2"         ? 1.0
                     : std::string(storage) == "f8E4M3FN" ? 448.0
                                                          : 6.0;
    const double edges[16] = {0.0,
                              0x1p-149,
                              m * 0x1p-127,
                              m * 0x1p-127 * (1 + 0x1p-22),
                              m * 0x1p-127 * (1 - 0x1p-22),
                              m * 0x1p-126,
                              m * 1.5 * 0x1p-126,
                              m * 1.5 * 0x1p-126 * (1 - 0x1p-23),
                              m,
                              m * (1 + 0x1p-23),
                              m * 1.5,
                              m * 1.5 * (1 - 0x1p-23),
                              m * 1.75 * 0x1p100,
                              std::numeric_limits<float>::max(),
                              std::numeric_limits<float>::max() / 3,
                              m * 0x1p-140};
    std::vector<float> x(16 * 32);
    for (size_t i = 0; i < x.size(); ++i) {
      float edge = static_cast<float>(edges[i / 32]);
      x[i] = i % 32 == 7 ? -edge : edge / static_cast<float>(i % 32 + 2);
    }
    const std::string type = "tensor<1x512x!quant.uniform<" +
                             std::string(storage) + ":f32:{0:1, 1:32}, ?>>";
    for (ScaleRounding rounding : {kFloor, kCeil, kEven}) {
      SCOPED_TRACE(type);
      MxResult result = quantizeMx(type, rounding, x);
      EXPECT_EQ(result.scales.size(), 16u);
    }
  }
}

/// f4E2M1FN code → value.
float f4Value(uint8_t code) {
  const float magnitudes[8] = {0, 0.5f, 1, 1.5f, 2, 3, 4, 6};
  return (code & 8 ? -1.0f : 1.0f) * magnitudes[code & 7];
}

TEST(MxQcast, Mxfp4BlocksReadBackThroughTheE8m0Dcast) {
  const std::string type =
      "tensor<4x64x!quant.uniform<f4E2M1FN:f32:{0:1, 1:32}, ?>>";
  std::mt19937_64 rng(testing::testSeed());
  std::normal_distribution<float> normal;
  std::vector<float> x(256);
  for (size_t i = 0; i < x.size(); ++i)
    x[i] = normal(rng) * std::ldexp(1.0f, static_cast<int>(i / 32) * 5 - 20);
  for (ScaleRounding rounding : {kFloor, kCeil, kEven}) {
    MxResult q = quantizeMx(type, rounding, x);
    ASSERT_EQ(q.scales.size(), 8u);
    ASSERT_EQ(q.codes.size(), 128u);
    auto runtime = makeRuntime(BackendKind::Auto);
    ASSERT_TRUE(runtime);
    LoweringOptions lowering = runtime->defaultLowering();
    lowering.runtimeParameters = true;
    lowering.scaleFormat = ScaleFormat::E8M0;
    Expected<std::shared_ptr<const Kernel>> dcast =
        runtime->compile(type, KernelOp::DCast, lowering);
    ASSERT_TRUE(dcast) << dcast.status().message();
    std::vector<float> y(x.size());
    KernelParams params;
    params.scales = q.scales.data();
    ASSERT_TRUE((*dcast)->run(q.codes.data(), q.codes.size(), y.data(),
                              y.size() * sizeof(float), x.size(), &params));
    for (size_t i = 0; i < x.size(); ++i) {
      uint8_t code = (q.codes[i / 2] >> (4 * (i % 2))) & 0xF;
      float scale = std::ldexp(1.0f, q.scales[i / 32] - 127);
      ASSERT_EQ(y[i], f4Value(code) * scale) << i;
      // Within half a step of 2^E * 2 (the coarsest), or saturated.
      if (std::fabs(x[i]) <= 6 * scale) {
        EXPECT_LE(std::fabs(y[i] - x[i]), scale) << i;
      }
    }
  }
}

TEST(MxQcastSpec, CanonicalStringNamesTheRoundingAndE8m0) {
  auto runtime = makeRuntime(BackendKind::Auto);
  ASSERT_TRUE(runtime);
  Expected<std::shared_ptr<const Kernel>> ceil =
      compileMx(*runtime, "!quant.uniform<f8E4M3FN:f32, ?>", kCeil);
  ASSERT_TRUE(ceil) << ceil.status().message();
  EXPECT_NE((*ceil)->spec().canonicalString().find(
                " params=dynamic(mx,ceil,scales=e8m0) "),
            std::string::npos)
      << (*ceil)->spec().canonicalString();
  EXPECT_EQ((*ceil)->spec().params.scaleFormat, ScaleFormat::E8M0);
  Expected<std::shared_ptr<const Kernel>> floor =
      compileMx(*runtime, "!quant.uniform<f8E4M3FN:f32, ?>", kFloor);
  ASSERT_TRUE(floor);
  EXPECT_NE(*floor, *ceil);
}

TEST(MxQcastSpec, APresetsRuleIsNotMxs) {
  // --semantics=pytorch sets the pytorch rule for absmax and minmax; mx
  // has none, and compiles the same spec.
  auto runtime = makeRuntime(BackendKind::Auto, DynamicRule::PyTorch);
  ASSERT_TRUE(runtime);
  Expected<std::shared_ptr<const Kernel>> kernel =
      compileMx(*runtime, "!quant.uniform<f8E4M3FN:f32, ?>", kEven);
  ASSERT_TRUE(kernel) << kernel.status().message();
  EXPECT_EQ((*kernel)->spec().params.dynamicRule, DynamicRule::Default);
}

TEST(MxQcastSpec, WhatTheSchemeDoesNotDefineIsRefused) {
  auto runtime = makeRuntime(BackendKind::Auto);
  ASSERT_TRUE(runtime);
  for (const char *type :
       {"!quant.uniform<f8E4M3FN:f64, ?>", "!quant.uniform<i8:bf16, ?>",
        "!quant.uniform<u8:f32, ?>"}) {
    Expected<std::shared_ptr<const Kernel>> kernel =
        compileMx(*runtime, type, kFloor);
    ASSERT_FALSE(kernel) << type;
    EXPECT_EQ(kernel.status().code(), ErrorCode::Unsupported)
        << type << ": " << kernel.status().message();
  }
  // A scale rounding without mx.
  LoweringOptions lowering;
  lowering.dynamicScheme = DynamicScheme::AbsMax;
  lowering.scaleRounding = kCeil;
  Expected<std::shared_ptr<const Kernel>> absmax =
      runtime->compile("!quant.uniform<i8:f32, ?>", KernelOp::QCast, lowering);
  ASSERT_FALSE(absmax);
  EXPECT_EQ(absmax.status().code(), ErrorCode::InvalidArgument);
  EXPECT_NE(absmax.status().message().find("mx"), std::string::npos);
}

TEST(MxQcastBackends, AutoTakesAsmjitOnX86) {
  // asmjit's driver chooses each block's exponent between its two passes
  // and, on x86, fits mx as well as llvm (asmjit first: it compiles in
  // microseconds); elsewhere llvm computes mx.
  auto runtime = makeRuntime(BackendKind::Auto);
  ASSERT_TRUE(runtime);
  Expected<std::shared_ptr<const Kernel>> kernel = compileMx(
      *runtime, "tensor<2x64x!quant.uniform<f4E2M1FN:f32:{0:1, 1:32}, ?>>",
      kFloor);
  ASSERT_TRUE(kernel) << kernel.status().message();
#if defined(__x86_64__)
  EXPECT_EQ((*kernel)->backend(), BackendKind::Asmjit);
#else
  EXPECT_EQ((*kernel)->backend(), BackendKind::Llvm);
#endif
}

} // namespace
} // namespace qjit
