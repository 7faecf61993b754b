//===- DynamicQcastTest.cpp - Parameters from the data (semantics 11) -----===//
//
// Dynamic qcast through the public API against values computed by hand
// from docs/semantics.md section 11, on the reference and on llvm (with and
// without a zero-point output): groups per tensor, per axis (rows and
// strided columns), per block and over several periods; all-zero, NaN and
// infinite groups; ties; PyTorch's rules; the parameters read back by a
// runtime-parameter dcast; and the call errors.
//
//===----------------------------------------------------------------------===//
#include "TestSeed.h"

#include "qjit/Runtime.h"
#include "qjit/internal/HostFloat.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <utility>
#include <vector>

namespace qjit {
namespace {

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();

std::unique_ptr<Runtime> makeRuntime(BackendKind backend = BackendKind::Auto) {
  RuntimeOptions options;
  options.backend = backend;
  Expected<std::unique_ptr<Runtime>> runtime = Runtime::create(options);
  return runtime ? std::move(*runtime) : nullptr;
}

Expected<std::shared_ptr<const Kernel>>
compileDynamic(Runtime &runtime, const std::string &type, DynamicScheme scheme,
               SemanticsPreset preset = SemanticsPreset::Default) {
  LoweringOptions lowering = loweringForPreset(preset);
  lowering.dynamicScheme = scheme;
  return runtime.compile(type, KernelOp::QCast, lowering);
}

struct Quantized {
  std::vector<int64_t> codes;
  std::vector<float> scales;
  std::vector<int64_t> zeroPoints;
};

/// Runs an 8-bit dynamic qcast of f32 values on `backend`; `zeroPoints`
/// false passes no zero-point output.
Quantized quantizeOn(BackendKind backend, const std::string &type,
                     DynamicScheme scheme, const std::vector<float> &x,
                     SemanticsPreset preset, bool zeroPoints = true) {
  auto runtime = makeRuntime(backend);
  EXPECT_TRUE(runtime) << backendKindName(backend);
  if (!runtime)
    return {};
  Expected<std::shared_ptr<const Kernel>> kernel =
      compileDynamic(*runtime, type, scheme, preset);
  EXPECT_TRUE(kernel) << kernel.status().message();
  if (!kernel)
    return {};
  const Kernel &k = **kernel;
  EXPECT_EQ(k.backend(), backend);
  size_t count = k.parameterCounts().scales;
  Quantized result;
  result.scales.assign(count, -1.0f);
  result.zeroPoints.assign(zeroPoints ? count : 0, -1);
  std::vector<uint8_t> codes(x.size());
  ParameterCounts lengths{0, count, zeroPoints ? count : 0};
  Status ran = k.runDynamic(
      x.data(), x.size() * sizeof(float), codes.data(), codes.size(), x.size(),
      ParameterOutputs{result.scales.data(),
                       zeroPoints ? result.zeroPoints.data() : nullptr},
      nullptr, &lengths);
  EXPECT_TRUE(ran) << ran.message();
  for (uint8_t code : codes)
    result.codes.push_back(k.spec().storage.isSigned
                               ? static_cast<int64_t>(static_cast<int8_t>(code))
                               : static_cast<int64_t>(code));
  return result;
}

/// The reference's result, which the llvm kernel must equal (with and
/// without a zero-point output).
Quantized quantize(const std::string &type, DynamicScheme scheme,
                   const std::vector<float> &x,
                   SemanticsPreset preset = SemanticsPreset::Default) {
  Quantized reference =
      quantizeOn(BackendKind::Reference, type, scheme, x, preset);
  Quantized jit = quantizeOn(BackendKind::Llvm, type, scheme, x, preset);
  EXPECT_EQ(jit.codes, reference.codes) << type;
  EXPECT_EQ(jit.scales, reference.scales) << type;
  EXPECT_EQ(jit.zeroPoints, reference.zeroPoints) << type;
  Quantized noZeros =
      quantizeOn(BackendKind::Llvm, type, scheme, x, preset, false);
  EXPECT_EQ(noZeros.codes, reference.codes) << type;
  EXPECT_EQ(noZeros.scales, reference.scales) << type;
  return reference;
}

using Codes = std::vector<int64_t>;
using Scales = std::vector<float>;

TEST(DynamicQcast, AbsMaxPerTensor) {
  Quantized q = quantize("!quant.uniform<i8:f32, ?>", DynamicScheme::AbsMax,
                         {-1.0f, 2.0f, 0.5f, 3.0f});
  // s = fl(3 / 127); x / s = -42.33, 84.67, 21.17, 127.
  EXPECT_EQ(q.scales, Scales{3.0f / 127.0f});
  EXPECT_EQ(q.zeroPoints, Codes{0});
  EXPECT_EQ(q.codes, (Codes{-42, 85, 21, 127}));
}

TEST(DynamicQcast, AbsMaxTiesRoundToEven) {
  // a = 127 gives s = 1, so x / s is x: 2.5, 3.5 and -0.5 are exact ties.
  Quantized q = quantize("!quant.uniform<i8:f32, ?>", DynamicScheme::AbsMax,
                         {127.0f, 2.5f, 3.5f, -0.5f});
  EXPECT_EQ(q.scales, Scales{1.0f});
  EXPECT_EQ(q.codes, (Codes{127, 2, 4, 0}));
}

TEST(DynamicQcast, AllZeroGroupHasScaleOne) {
  Quantized absmax = quantize("!quant.uniform<i8:f32, ?>",
                              DynamicScheme::AbsMax, {0.0f, -0.0f, 0.0f});
  EXPECT_EQ(absmax.scales, Scales{1.0f});
  EXPECT_EQ(absmax.codes, (Codes{0, 0, 0}));
  // minmax: s = 1 and z = qmin - rne(0 / 1) = qmin, which stands for 0.
  Quantized minmax = quantize("!quant.uniform<i8:f32, ?>",
                              DynamicScheme::MinMax, {0.0f, -0.0f});
  EXPECT_EQ(minmax.scales, Scales{1.0f});
  EXPECT_EQ(minmax.zeroPoints, Codes{-128});
  EXPECT_EQ(minmax.codes, (Codes{-128, -128}));
}

TEST(DynamicQcast, NaNAndInfinitiesTakeNoPartInTheRange) {
  Quantized q = quantize("!quant.uniform<i8:f32, ?>", DynamicScheme::AbsMax,
                         {1e-3f, -5.0f, kNaN, kInf, -kInf});
  EXPECT_EQ(q.scales, Scales{5.0f / 127.0f});
  // NaN stores the zero point; the infinities saturate to the bounds.
  EXPECT_EQ(q.codes, (Codes{0, -127, 0, 127, -128}));

  Quantized onlySpecial = quantize("!quant.uniform<i8:f32, ?>",
                                   DynamicScheme::AbsMax, {kNaN, kInf});
  EXPECT_EQ(onlySpecial.scales, Scales{1.0f});
  EXPECT_EQ(onlySpecial.codes, (Codes{0, 127}));
}

TEST(DynamicQcast, ASignallingNanDropsNoLargerMagnitudeBeforeIt) {
  // Stretches of 16 values (an AVX-512 vector of f32), by threes: falling
  // magnitudes, signalling NaNs, ones. asmjit's absmax ranges met a quieted
  // NaN with the next vector's values and returned those, dropping the
  // magnitudes before the NaN; the reference takes every finite value.
  // Rows of 48 are ranged in batches, longer ones run by run.
  float signalling = std::numeric_limits<float>::signaling_NaN();
  struct Case {
    const char *type;
    size_t n;
  };
  for (Case c : {Case{"tensor<36x48x!quant.uniform<i8:f32:0, ?>>", 1728},
                 Case{"tensor<3x1024x!quant.uniform<i8:f32:0, ?>>", 3072},
                 Case{"tensor<48x32x!quant.uniform<i8:f32:{1:32}, ?>>", 1536},
                 Case{"!quant.uniform<i8:f32, ?>", 1728}}) {
    const char *type = c.type;
    SCOPED_TRACE(type);
    std::vector<float> x(c.n);
    for (size_t i = 0; i < x.size(); ++i) {
      size_t stretch = i / 16 % 3;
      x[i] = stretch == 1   ? signalling
             : stretch == 2 ? 1.0f
                            : 1000.0f / static_cast<float>(1 + i % 96);
    }
    Quantized reference =
        quantizeOn(BackendKind::Reference, type, DynamicScheme::AbsMax, x,
                   SemanticsPreset::Default);
    for (BackendKind backend : {BackendKind::Asmjit, BackendKind::Llvm}) {
      Quantized jit = quantizeOn(backend, type, DynamicScheme::AbsMax, x,
                                 SemanticsPreset::Default);
      EXPECT_EQ(jit.scales, reference.scales) << backendKindName(backend);
      EXPECT_EQ(jit.codes, reference.codes) << backendKindName(backend);
    }
  }
}

TEST(DynamicQcast, MinMaxExtendsTheRangeToZero) {
  // u8, [-1, 2]: s = fl(3 / 255), fl(-1 / s) rounds to -85, z = 85.
  Quantized u8 = quantize("!quant.uniform<u8:f32, ?>", DynamicScheme::MinMax,
                          {-1.0f, 2.0f, 0.0f});
  EXPECT_EQ(u8.scales, Scales{3.0f / 255.0f});
  EXPECT_EQ(u8.zeroPoints, Codes{85});
  EXPECT_EQ(u8.codes, (Codes{0, 255, 85}));
  // Positive values only: lo = 0, so z = qmin and 0 stores as qmin.
  Quantized positive = quantize("!quant.uniform<i8:f32, ?>",
                                DynamicScheme::MinMax, {255.0f, 1.0f});
  EXPECT_EQ(positive.scales, Scales{1.0f});
  EXPECT_EQ(positive.zeroPoints, Codes{-128});
  EXPECT_EQ(positive.codes, (Codes{127, -127}));
}

TEST(DynamicQcast, PerAxisRowsAreContiguousGroups) {
  Quantized q =
      quantize("tensor<2x4x!quant.uniform<i8:f32:0, ?>>", DynamicScheme::AbsMax,
               {127.0f, 1.0f, 2.0f, 3.0f, -254.0f, 4.0f, 6.0f, 0.0f});
  EXPECT_EQ(q.scales, (Scales{1.0f, 2.0f}));
  EXPECT_EQ(q.codes, (Codes{127, 1, 2, 3, -127, 2, 3, 0}));
}

TEST(DynamicQcast, PerAxisInnermostColumnsAreStridedGroups) {
  Quantized q =
      quantize("tensor<2x4x!quant.uniform<i8:f32:1, ?>>", DynamicScheme::AbsMax,
               {127.0f, 127.0f, 254.0f, 0.0f, -254.0f, 1.0f, 127.0f, 0.0f});
  EXPECT_EQ(q.scales, (Scales{2.0f, 1.0f, 2.0f, 1.0f}));
  // 127 / 2 = 63.5 is a tie: to the even 64.
  EXPECT_EQ(q.codes, (Codes{64, 127, 127, 0, -127, 1, 64, 0}));
}

TEST(DynamicQcast, GroupsSpanEveryPeriodOfTheCall) {
  // Two 2x2 tensors back to back, per row: row 0 of the second tensor
  // (254) sets the scale of row 0 of both.
  Quantized q =
      quantize("tensor<2x2x!quant.uniform<i8:f32:0, ?>>", DynamicScheme::AbsMax,
               {127.0f, 1.0f, 127.0f, 2.0f, 254.0f, 0.0f, 4.0f, 6.0f});
  EXPECT_EQ(q.scales, (Scales{2.0f, 1.0f}));
  EXPECT_EQ(q.codes, (Codes{64, 0, 127, 2, 127, 0, 4, 6}));
}

TEST(DynamicQcast, SubChannelBlocks) {
  Quantized q = quantize("tensor<1x8x!quant.uniform<i8:f32:{1:4}, ?>>",
                         DynamicScheme::AbsMax,
                         {127.0f, 1.0f, 2.0f, 3.0f, 254.0f, 2.0f, 0.0f, -3.0f});
  EXPECT_EQ(q.scales, (Scales{1.0f, 2.0f}));
  EXPECT_EQ(q.codes, (Codes{127, 1, 2, 3, 127, 1, 0, -2}));
}

TEST(DynamicQcast, PyTorchAbsMaxClampsTheMagnitude) {
  Quantized q = quantize("!quant.uniform<i8:f32, ?>", DynamicScheme::AbsMax,
                         {1e-7f, 0.0f}, SemanticsPreset::PyTorch);
  // max(a, fl32(1e-5)) / 127; then x * fl(1 / s) = 1.27 -> 1.
  EXPECT_EQ(q.scales, Scales{1e-5f / 127.0f});
  EXPECT_EQ(q.codes, (Codes{1, 0}));
  Quantized all = quantize("!quant.uniform<i8:f32, ?>", DynamicScheme::AbsMax,
                           {1e-5f, -2e-5f}, SemanticsPreset::PyTorch);
  EXPECT_EQ(all.scales, Scales{2e-5f / 127.0f});
  EXPECT_EQ(all.codes, (Codes{64, -127}));
}

TEST(DynamicQcast, PyTorchMinMaxSmallScaleAndFallback) {
  // All zero: d = 0 -> 0.1; qint8 takes the zero point from qmax.
  Quantized zeros = quantize("!quant.uniform<i8:f32, ?>", DynamicScheme::MinMax,
                             {0.0f, 0.0f}, SemanticsPreset::PyTorch);
  EXPECT_EQ(zeros.scales, Scales{0.1f});
  EXPECT_EQ(zeros.zeroPoints, Codes{127});
  // [0, 1e-3]: d < 6.1e-5 with lo = 0, so s = fl32(6.1e-5), z = qmin.
  Quantized small = quantize("!quant.uniform<u8:f32, ?>", DynamicScheme::MinMax,
                             {1e-3f, 0.0f}, SemanticsPreset::PyTorch);
  EXPECT_EQ(small.scales, Scales{6.1e-5f});
  EXPECT_EQ(small.zeroPoints, Codes{0});
  // [-1, 1]: d = 2/255, z_lo = -128 + 127.5 = -0.5 wins (error 0.5 < 1)
  // and rounds to even: 0.
  Quantized unit = quantize("!quant.uniform<i8:f32, ?>", DynamicScheme::MinMax,
                            {-1.0f, 1.0f}, SemanticsPreset::PyTorch);
  EXPECT_EQ(unit.scales, Scales{static_cast<float>(2.0 / 255.0)});
  EXPECT_EQ(unit.zeroPoints, Codes{0});
}

/// XNNPACK's xnn_f32_qd8_asymmetric_quantization_params (src/xnnpack/
/// quantization.h), restated for the test: the dequantization scale
/// 1 / multiplier and the rounded zero point, every step in f32.
std::pair<float, int64_t> xnnpackQd8(float min, float max) {
  const float qmin = -128.0f, qmax = 127.0f;
  float rmin = std::min(0.0f, min), rmax = std::max(0.0f, max);
  float scale = rmin == rmax ? 1.0f : (qmax - qmin) / (rmax - rmin);
  float descaledMin = rmin * scale, descaledMax = rmax * scale;
  float zero = (qmin + descaledMin) + (qmax + descaledMax) > 0
                   ? qmin - descaledMin
                   : qmax - descaledMax;
  zero = std::min(std::max(zero, qmin), qmax);
  return {1.0f / scale, static_cast<int64_t>(std::nearbyint(zero))};
}

TEST(DynamicQcast, XnnpackQd8Parameters) {
  // [-1, 2]: multiplier 255 / 3 = 85; the min error -213 and max error 297
  // sum above 0, so z = -128 + 85; codes x * fl(1 / fl(1 / 85)) + z.
  Quantized q = quantize("!quant.uniform<i8:f32, ?>", DynamicScheme::MinMax,
                         {-1.0f, 2.0f, 0.0f}, SemanticsPreset::Xnnpack);
  EXPECT_EQ(q.scales, Scales{1.0f / 85.0f});
  EXPECT_EQ(q.zeroPoints, Codes{-43});
  EXPECT_EQ(q.codes, (Codes{-128, 127, -43}));
  // All zero: multiplier 1, and the max side gives z = 127.
  Quantized zeros = quantize("!quant.uniform<i8:f32, ?>", DynamicScheme::MinMax,
                             {0.0f, -0.0f}, SemanticsPreset::Xnnpack);
  EXPECT_EQ(zeros.scales, Scales{1.0f});
  EXPECT_EQ(zeros.zeroPoints, Codes{127});
  EXPECT_EQ(zeros.codes, (Codes{127, 127}));
  // The rule is qd8's: minmax of f32 values to full-range i8 only.
  auto runtime = makeRuntime();
  ASSERT_TRUE(runtime);
  for (const char *type :
       {"!quant.uniform<u8:f32, ?>", "!quant.uniform<i8<-127:127>:f32, ?>"})
    EXPECT_FALSE(compileDynamic(*runtime, type, DynamicScheme::MinMax,
                                SemanticsPreset::Xnnpack))
        << type;
  EXPECT_FALSE(compileDynamic(*runtime, "!quant.uniform<i8:f32, ?>",
                              DynamicScheme::AbsMax, SemanticsPreset::Xnnpack));
}

TEST(DynamicQcast, XnnpackQd8MatchesItsFormulaOnRandomRanges) {
  std::mt19937_64 rng(testing::testSeed());
  std::uniform_real_distribution<float> unit(-1.0f, 1.0f);
  for (BackendKind backend : {BackendKind::Reference, BackendKind::Llvm}) {
    auto runtime = makeRuntime(backend);
    ASSERT_TRUE(runtime);
    Expected<std::shared_ptr<const Kernel>> kernel =
        compileDynamic(*runtime, "!quant.uniform<i8:f32, ?>",
                       DynamicScheme::MinMax, SemanticsPreset::Xnnpack);
    ASSERT_TRUE(kernel) << kernel.status().message();
    for (int i = 0; i < 2000; ++i) {
      float magnitude = std::ldexp(1.0f, static_cast<int>(rng() % 80) - 40);
      float x[2] = {unit(rng) * magnitude, unit(rng) * magnitude};
      if (i % 4 == 0)
        x[0] = std::fabs(x[0]); // One-signed ranges too.
      int8_t codes[2];
      float scale = 0;
      int64_t zero = 0;
      ASSERT_TRUE((*kernel)->runDynamic(x, sizeof x, codes, sizeof codes, 2,
                                        ParameterOutputs{&scale, &zero}));
      auto [want, wantZero] =
          xnnpackQd8(std::min(x[0], x[1]), std::max(x[0], x[1]));
      ASSERT_EQ(scale, want)
          << backendKindName(backend) << " " << x[0] << " " << x[1];
      ASSERT_EQ(zero, wantZero) << x[0] << " " << x[1];
    }
  }
}

/// llama.cpp's quantize_row_q8_0_ref for one block, restated: d = amax /
/// 127 in f32, stored as f16; q = roundf(x * id), id = 1 / d (0 for d = 0).
void ggmlQ8_0(const float *x, size_t n, uint16_t &storedD, int8_t *q) {
  float amax = 0;
  for (size_t i = 0; i < n; ++i)
    amax = std::max(amax, std::fabs(x[i]));
  const float d = amax / 127.0f;
  const float id = d != 0 ? 1.0f / d : 0.0f;
  storedD = floatToHalfBits(d);
  for (size_t i = 0; i < n; ++i)
    q[i] = static_cast<int8_t>(std::round(x[i] * id));
}

TEST(DynamicQcast, GgmlQ8_0MatchesItsFormula) {
  // docs/semantics.md 11.9: blocks of 32, f16 d, codes from the unrounded
  // d with ties away from zero. Random blocks of many magnitudes, a zero
  // block, and ties (amax 127 gives d = 1: 2.5 goes to 3).
  const std::string type = "tensor<8x64x!quant.uniform<i8:f32:{0:1, 1:32}, ?>>";
  std::mt19937_64 rng(testing::testSeed());
  std::normal_distribution<float> normal;
  std::vector<float> x(512);
  for (size_t i = 0; i < x.size(); ++i)
    x[i] = normal(rng) * std::ldexp(1.0f, static_cast<int>(i / 32) * 3 - 24);
  std::fill(x.begin() + 32, x.begin() + 64, 0.0f);
  const float ties[] = {127, 2.5f, -2.5f, 0.5f, -126.5f};
  std::copy(std::begin(ties), std::end(ties), x.begin() + 64);
  std::fill(x.begin() + 64 + 5, x.begin() + 96, 1.5f);
  std::vector<uint16_t> wantScales(16);
  std::vector<int8_t> want(x.size());
  for (size_t block = 0; block < 16; ++block)
    ggmlQ8_0(&x[32 * block], 32, wantScales[block], &want[32 * block]);
  EXPECT_EQ(wantScales[1], 0); // The zero block stores d = 0.
  EXPECT_EQ(want[64 + 1], 3);
  EXPECT_EQ(want[64 + 2], -3);
  for (BackendKind backend : {BackendKind::Reference, BackendKind::Llvm}) {
    SCOPED_TRACE(backendKindName(backend));
    auto runtime = makeRuntime(backend);
    ASSERT_TRUE(runtime);
    LoweringOptions lowering = loweringForPreset(SemanticsPreset::Ggml);
    lowering.dynamicScheme = DynamicScheme::AbsMax;
    Expected<std::shared_ptr<const Kernel>> kernel =
        runtime->compile(type, KernelOp::QCast, lowering);
    ASSERT_TRUE(kernel) << kernel.status().message();
    EXPECT_NE((*kernel)->spec().canonicalString().find(
                  " params=dynamic(absmax,ggml,scales=f16) "),
              std::string::npos);
    std::vector<uint16_t> scales(16, 0xAAAA);
    std::vector<int8_t> codes(x.size());
    ASSERT_TRUE((*kernel)->runDynamic(
        x.data(), x.size() * sizeof(float), codes.data(), codes.size(),
        x.size(), ParameterOutputs{scales.data(), nullptr}));
    EXPECT_EQ(scales, wantScales);
    EXPECT_EQ(codes, want);
  }
}

TEST(DynamicQcast, VllmPerTokenFp8MatchesItsFormula) {
  // docs/semantics.md 11.10: s = max(amax / 448, 1 / (448 * 512)) per
  // token, codes x / s to f8E4M3FN (8.2): what a runtime-parameter qcast
  // with those scales stores. Rows of many magnitudes, one below the
  // smallest scale, and a zero row.
  const std::string type = "tensor<6x40x!quant.uniform<f8E4M3FN:f32:0, ?>>";
  std::mt19937_64 rng(testing::testSeed());
  std::normal_distribution<float> normal;
  std::vector<float> x(240);
  for (size_t i = 0; i < x.size(); ++i)
    x[i] = normal(rng) * std::ldexp(1.0f, static_cast<int>(i / 40) * 6 - 20);
  std::fill(x.begin() + 40, x.begin() + 80, 0.0f);
  std::vector<float> want(6);
  for (size_t row = 0; row < 6; ++row) {
    float amax = 0;
    for (size_t i = 0; i < 40; ++i)
      amax = std::max(amax, std::fabs(x[40 * row + i]));
    want[row] = std::max(amax / 448.0f, 1.0f / (448.0f * 512.0f));
  }
  EXPECT_EQ(want[0], 1.0f / (448.0f * 512.0f)); // 2^-20 magnitudes.
  auto runtime = makeRuntime(BackendKind::Reference);
  ASSERT_TRUE(runtime);
  LoweringOptions runtimeScales;
  runtimeScales.runtimeParameters = true;
  Expected<std::shared_ptr<const Kernel>> qcast =
      runtime->compile(type, KernelOp::QCast, runtimeScales);
  ASSERT_TRUE(qcast) << qcast.status().message();
  std::vector<uint8_t> wantCodes(x.size());
  KernelParams params;
  params.scales = want.data();
  ASSERT_TRUE((*qcast)->run(x.data(), x.size() * sizeof(float),
                            wantCodes.data(), wantCodes.size(), x.size(),
                            &params));
  for (BackendKind backend : {BackendKind::Reference, BackendKind::Llvm}) {
    SCOPED_TRACE(backendKindName(backend));
    auto on = makeRuntime(backend);
    ASSERT_TRUE(on);
    LoweringOptions lowering = loweringForPreset(SemanticsPreset::Vllm);
    lowering.dynamicScheme = DynamicScheme::AbsMax;
    Expected<std::shared_ptr<const Kernel>> kernel =
        on->compile(type, KernelOp::QCast, lowering);
    ASSERT_TRUE(kernel) << kernel.status().message();
    EXPECT_NE((*kernel)->spec().canonicalString().find(
                  " params=dynamic(absmax,vllm) "),
              std::string::npos);
    std::vector<float> scales(6, -1);
    std::vector<uint8_t> codes(x.size());
    ASSERT_TRUE((*kernel)->runDynamic(
        x.data(), x.size() * sizeof(float), codes.data(), codes.size(),
        x.size(), ParameterOutputs{scales.data(), nullptr}));
    EXPECT_EQ(scales, want);
    EXPECT_EQ(codes, wantCodes);
  }
}

TEST(DynamicQcast, RoundTripsThroughRuntimeParameterDcast) {
  auto runtime = makeRuntime();
  ASSERT_TRUE(runtime);
  const std::string type = "tensor<2x4x!quant.uniform<u8:f32:0, ?>>";
  const std::vector<float> x = {-1.5f, 0.25f, 3.0f, 7.0f,
                                2.0f,  4.0f,  8.0f, 1.0f};
  Quantized q = quantize(type, DynamicScheme::MinMax, x);
  LoweringOptions lowering = runtime->defaultLowering();
  lowering.runtimeParameters = true;
  Expected<std::shared_ptr<const Kernel>> dcast =
      runtime->compile(type, KernelOp::DCast, lowering);
  ASSERT_TRUE(dcast) << dcast.status().message();
  std::vector<uint8_t> codes(q.codes.begin(), q.codes.end());
  std::vector<float> y(x.size());
  KernelParams params;
  params.scales = q.scales.data();
  params.zeroPoints = q.zeroPoints.data();
  ASSERT_TRUE((*dcast)->run(codes.data(), codes.size(), y.data(),
                            y.size() * sizeof(float), x.size(), &params));
  for (size_t i = 0; i < x.size(); ++i) {
    size_t row = i / 4;
    float expected = (static_cast<float>(q.codes[i]) -
                      static_cast<float>(q.zeroPoints[row])) *
                     q.scales[row];
    EXPECT_EQ(y[i], expected) << i;
    EXPECT_NEAR(y[i], x[i], q.scales[row] / 2 * 1.0001f) << i;
  }
}

TEST(DynamicQcast, F64ValuesGiveF64Scales) {
  auto runtime = makeRuntime();
  ASSERT_TRUE(runtime);
  Expected<std::shared_ptr<const Kernel>> kernel = compileDynamic(
      *runtime, "!quant.uniform<i8:f64, ?>", DynamicScheme::AbsMax);
  ASSERT_TRUE(kernel) << kernel.status().message();
  const double x[2] = {0.1, -3.0};
  int8_t codes[2] = {};
  double scale = 0;
  ASSERT_TRUE((*kernel)->runDynamic(x, sizeof x, codes, sizeof codes, 2,
                                    ParameterOutputs{&scale, nullptr}));
  EXPECT_EQ(scale, 3.0 / 127.0);
  EXPECT_EQ(codes[0], 4); // 0.1 / (3/127) = 4.23
  EXPECT_EQ(codes[1], -127);
}

TEST(DynamicQcast, ScalesInAnotherFormatAreRoundedAndQuantizeTheCodes) {
  // docs/semantics.md 11.7: s' = f16(amax / 127) or bf16(...), written, and
  // the codes are x / s' rounded: what a dcast of (codes, s') reads back.
  const std::vector<float> x = {0.1f, -3.0f, 1.7f, 2.9f};
  const float s = 3.0f / 127.0f;
  for (BackendKind backend : {BackendKind::Llvm, BackendKind::Reference}) {
    auto runtime = makeRuntime(backend);
    ASSERT_TRUE(runtime);
    for (ScaleFormat format : {ScaleFormat::F16, ScaleFormat::BF16}) {
      SCOPED_TRACE(std::string(backendKindName(backend)) + " " +
                   std::string(scaleFormatName(format)));
      LoweringOptions lowering;
      lowering.dynamicScheme = DynamicScheme::AbsMax;
      lowering.scaleFormat = format;
      Expected<std::shared_ptr<const Kernel>> kernel = runtime->compile(
          "!quant.uniform<i8:f32, ?>", KernelOp::QCast, lowering);
      ASSERT_TRUE(kernel) << kernel.status().message();
      uint16_t written = 0;
      std::vector<int8_t> codes(x.size());
      ASSERT_TRUE((*kernel)->runDynamic(x.data(), x.size() * sizeof(float),
                                        codes.data(), codes.size(), x.size(),
                                        ParameterOutputs{&written, nullptr}));
      uint16_t want = format == ScaleFormat::F16 ? floatToHalfBits(s)
                                                 : floatToBfloat16Bits(s);
      EXPECT_EQ(written, want);
      float rounded = format == ScaleFormat::F16 ? halfBitsToFloat(want)
                                                 : bfloat16BitsToFloat(want);
      for (size_t i = 0; i < x.size(); ++i)
        EXPECT_EQ(codes[i],
                  std::clamp(std::nearbyint(x[i] / rounded), -128.0f, 127.0f))
            << i;
    }
  }
}

TEST(DynamicQcast, EmptyCallWritesEveryParameter) {
  auto runtime = makeRuntime();
  ASSERT_TRUE(runtime);
  Expected<std::shared_ptr<const Kernel>> kernel =
      compileDynamic(*runtime, "tensor<3x2x!quant.uniform<u8:f32:0, ?>>",
                     DynamicScheme::MinMax);
  ASSERT_TRUE(kernel) << kernel.status().message();
  float scales[3] = {0, 0, 0};
  int64_t zeroPoints[3] = {9, 9, 9};
  ASSERT_TRUE((*kernel)->runDynamic(nullptr, 0, nullptr, 0, 0,
                                    ParameterOutputs{scales, zeroPoints}));
  EXPECT_EQ(std::vector<float>(scales, scales + 3), (Scales{1, 1, 1}));
  EXPECT_EQ(std::vector<int64_t>(zeroPoints, zeroPoints + 3), (Codes{0, 0, 0}));
}

TEST(DynamicQcastSpec, CanonicalStringNamesSchemeAndRule) {
  auto runtime = makeRuntime();
  ASSERT_TRUE(runtime);
  Expected<std::shared_ptr<const Kernel>> absmax = compileDynamic(
      *runtime, "!quant.uniform<i8:f32, ?>", DynamicScheme::AbsMax);
  ASSERT_TRUE(absmax);
  EXPECT_NE(
      (*absmax)->spec().canonicalString().find(" params=dynamic(absmax) "),
      std::string::npos);
  Expected<std::shared_ptr<const Kernel>> pytorch =
      compileDynamic(*runtime, "!quant.uniform<u8:f32, 1.0>",
                     DynamicScheme::MinMax, SemanticsPreset::PyTorch);
  ASSERT_TRUE(pytorch);
  EXPECT_NE((*pytorch)->spec().canonicalString().find(
                " params=dynamic(minmax,pytorch) "),
            std::string::npos);
  EXPECT_NE(*absmax, *pytorch);
}

TEST(DynamicQcastSpec, WhatIsNotDefinedIsUnsupported) {
  auto runtime = makeRuntime();
  ASSERT_TRUE(runtime);
  struct Case {
    const char *type;
    KernelOp op;
    DynamicScheme scheme;
    SemanticsPreset preset;
  };
  for (const Case &c : {
           Case{"!quant.uniform<i8:f32, ?>", KernelOp::DCast,
                DynamicScheme::AbsMax, SemanticsPreset::Default},
           Case{"!quant.uniform<i8:f16, ?>", KernelOp::QCast,
                DynamicScheme::AbsMax, SemanticsPreset::Default},
           Case{"!quant.uniform<f8E4M3FN:f32, ?>", KernelOp::QCast,
                DynamicScheme::MinMax, SemanticsPreset::Default},
           Case{"!quant.uniform<f8E5M2:f32, ?>", KernelOp::QCast,
                DynamicScheme::AbsMax, SemanticsPreset::Vllm},
           Case{"!quant.uniform<u8:f32, ?>", KernelOp::QCast,
                DynamicScheme::AbsMax, SemanticsPreset::Default},
           Case{"!quant.uniform<i4:f32, ?>", KernelOp::QCast,
                DynamicScheme::MinMax, SemanticsPreset::PyTorch},
       }) {
    LoweringOptions lowering = loweringForPreset(c.preset);
    lowering.dynamicScheme = c.scheme;
    Expected<std::shared_ptr<const Kernel>> kernel =
        runtime->compile(c.type, c.op, lowering);
    ASSERT_FALSE(kernel) << c.type;
    EXPECT_EQ(kernel.status().code(), ErrorCode::Unsupported)
        << c.type << ": " << kernel.status().message();
  }
}

TEST(DynamicQcastBackends, AutoTakesAsmjitForRowsOfBlocksAndLlvmAcrossRows) {
  const char *perTensor = "!quant.uniform<i8:f32, ?>";
  const char *rowBlocks = "tensor<2x64x!quant.uniform<i8:f32:{0:1, 1:32}, ?>>";
  const char *squares = "tensor<4x64x!quant.uniform<i8:f32:{0:2, 1:32}, ?>>";
  // asmjit needs AVX2 (a runtime capped below makes none): there it
  // computes per-tensor groups, long runs and rows of blocks of whole
  // vectors, and refuses blocks across rows.
  bool asmjitDynamic = false;
  if (auto asmjit = makeRuntime(BackendKind::Asmjit)) {
    for (const char *type : {perTensor, rowBlocks}) {
      Expected<std::shared_ptr<const Kernel>> kernel =
          compileDynamic(*asmjit, type, DynamicScheme::AbsMax);
      ASSERT_TRUE(kernel) << kernel.status().message();
      EXPECT_EQ((*kernel)->backend(), BackendKind::Asmjit);
    }
    asmjitDynamic = true;
    Expected<std::shared_ptr<const Kernel>> kernel =
        compileDynamic(*asmjit, squares, DynamicScheme::AbsMax);
    ASSERT_FALSE(kernel);
    EXPECT_EQ(kernel.status().code(), ErrorCode::Unsupported)
        << kernel.status().message();
  }
  auto runtime = makeRuntime();
  ASSERT_TRUE(runtime);
  for (const char *type : {perTensor, rowBlocks}) {
    Expected<std::shared_ptr<const Kernel>> kernel =
        compileDynamic(*runtime, type, DynamicScheme::AbsMax);
    ASSERT_TRUE(kernel) << kernel.status().message();
    EXPECT_EQ((*kernel)->backend(),
              asmjitDynamic ? BackendKind::Asmjit : BackendKind::Llvm);
    // Its code has its own ABI: no ParamKernelFn to hand out.
    EXPECT_EQ((*kernel)->paramFunction(), nullptr);
    EXPECT_EQ((*kernel)->function(), nullptr);
  }
  Expected<std::shared_ptr<const Kernel>> kernel =
      compileDynamic(*runtime, squares, DynamicScheme::AbsMax);
  ASSERT_TRUE(kernel) << kernel.status().message();
  EXPECT_EQ((*kernel)->backend(), BackendKind::Llvm);
}

TEST(DynamicQcastErrors, CallsAreCheckedAndWriteNothing) {
  auto runtime = makeRuntime();
  ASSERT_TRUE(runtime);
  Expected<std::shared_ptr<const Kernel>> kernel =
      compileDynamic(*runtime, "tensor<2x2x!quant.uniform<i8:f32:0, ?>>",
                     DynamicScheme::AbsMax);
  ASSERT_TRUE(kernel) << kernel.status().message();
  const Kernel &k = **kernel;
  const float x[4] = {1, 2, 3, 4};
  int8_t codes[4] = {7, 7, 7, 7};
  float scales[2] = {5, 5};
  int64_t zeroPoints[2] = {5, 5};
  ParameterOutputs outputs{scales, zeroPoints};
  auto untouched = [&] {
    return codes[0] == 7 && codes[3] == 7 && scales[0] == 5 && scales[1] == 5 &&
           zeroPoints[0] == 5;
  };
  // run() cannot give it somewhere to write the parameters.
  Status plain = k.run(x, sizeof x, codes, sizeof codes, 4);
  EXPECT_EQ(plain.code(), ErrorCode::InvalidArgument);
  EXPECT_NE(plain.message().find("runDynamic"), std::string::npos);
  // No scales output; short arrays; a partial period; a short destination.
  EXPECT_EQ(k.runDynamic(x, sizeof x, codes, sizeof codes, 4,
                         ParameterOutputs{nullptr, zeroPoints})
                .code(),
            ErrorCode::InvalidArgument);
  ParameterCounts shortScales{0, 1, 2};
  EXPECT_EQ(k.runDynamic(x, sizeof x, codes, sizeof codes, 4, outputs, nullptr,
                         &shortScales)
                .code(),
            ErrorCode::InvalidArgument);
  ParameterCounts shortZeros{0, 2, 1};
  EXPECT_EQ(k.runDynamic(x, sizeof x, codes, sizeof codes, 4, outputs, nullptr,
                         &shortZeros)
                .code(),
            ErrorCode::InvalidArgument);
  EXPECT_EQ(k.runDynamic(x, sizeof x, codes, sizeof codes, 3, outputs).code(),
            ErrorCode::InvalidArgument);
  EXPECT_EQ(k.runDynamic(x, sizeof x, codes, 3, 4, outputs).code(),
            ErrorCode::InvalidArgument);
  EXPECT_TRUE(untouched());

  // A kernel that is not a dynamic qcast refuses runDynamic.
  Expected<std::shared_ptr<const Kernel>> baked = runtime->compile(
      "tensor<2x2x!quant.uniform<i8:f32:0, {1.0, 2.0}>>", KernelOp::QCast);
  ASSERT_TRUE(baked);
  EXPECT_EQ(
      (*baked)->runDynamic(x, sizeof x, codes, sizeof codes, 4, outputs).code(),
      ErrorCode::InvalidArgument);
  EXPECT_TRUE(untouched());
}

} // namespace
} // namespace qjit
