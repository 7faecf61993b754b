//===- CheckedReciprocalTest.cpp - The divider-free `divide`, hard --------===//
//
// Both backends replace the division of 8-bit qcast by a reciprocal
// multiply plus a per-lane check (jit/src/plan/CheckedReciprocal.cpp has the
// proof), falling back to the division for groups with a lane too close to
// a rounding boundary. The inputs here sit on both sides of that check:
// values whose scaled quotient is a few ulps from a half-integer of the
// rounding step (the fallback must run, and only some of the other lanes
// of a group are close), zero points that turn near-ties into ties when
// added before rounding, saturation, NaN and infinities, and plain random
// values (the fast path). A host model of the check asserts that both
// sides are really exercised.
//
//===----------------------------------------------------------------------===//
#include "plan/CheckedReciprocal.h"
#include "KernelTester.h"
#include "TestSeed.h"
#include "plan/FixedPointBracket.h"

#include "qjit/Isa.h"
#include "qjit/TypeParser.h"
#include "qjit/internal/Backend.h"
#include "qjit/internal/Reference.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <functional>
#include <limits>
#include <ostream>
#include <random>
#include <sstream>
#include <string>
#include <string_view>

namespace qjit {
namespace {

using plan::CheckedReciprocalPlan;
using plan::planCheckedReciprocal;

KernelSpec eightBitSpec(bool isSigned, QuantKnobs knobs, float scale,
                        int64_t zeroPoint) {
  KernelSpec spec;
  spec.storage.bits = 8;
  spec.storage.isSigned = isSigned;
  spec.storage.min = isSigned ? -128 : 0;
  spec.storage.max = isSigned ? 127 : 255;
  spec.knobs = knobs;
  spec.params.scales = {scale};
  spec.params.zeroPoints = {zeroPoint};
  return spec;
}

TEST(CheckedReciprocal, PlansOnlyWhereTheProofHolds) {
  QuantKnobs knobs;
  auto plan = planCheckedReciprocal(eightBitSpec(true, knobs, 0.1f, 3));
  ASSERT_TRUE(plan);
  EXPECT_EQ(plan->limit, 256.0f); // 128 + 3 + 2 → 256.
  EXPECT_EQ(plan->threshold, 0.5f - 0x1p-12f);
  EXPECT_EQ(plan->reciprocals, std::vector<float>{1.0f / 0.1f});
  EXPECT_TRUE(plan->bracket); // Nearest-even before rounding, full range.
  QuantKnobs away;
  away.rounding = RoundingMode::NearestAway;
  EXPECT_FALSE(
      planCheckedReciprocal(eightBitSpec(true, away, 0.1f, 3))->bracket);
  QuantKnobs after;
  after.zeroPoint = ZeroPointOrder::AfterRounding;
  EXPECT_FALSE(
      planCheckedReciprocal(eightBitSpec(false, after, 0.1f, 3))->bracket);
  KernelSpec narrow = eightBitSpec(true, knobs, 0.1f, 3);
  narrow.storage.min = -127;
  EXPECT_FALSE(planCheckedReciprocal(narrow)->bracket);

  QuantKnobs truncating;
  truncating.rounding = RoundingMode::TowardZero;
  EXPECT_FALSE(planCheckedReciprocal(eightBitSpec(true, truncating, 0.1f, 3)));
  QuantKnobs reciprocal;
  reciprocal.scaleOp = ScaleOp::Reciprocal;
  EXPECT_FALSE(planCheckedReciprocal(eightBitSpec(true, reciprocal, 0.1f, 3)));
  EXPECT_FALSE(planCheckedReciprocal(eightBitSpec(true, knobs, 0x1p-61f, 0)));
  EXPECT_FALSE(planCheckedReciprocal(eightBitSpec(true, knobs, 0x1p61f, 0)));
  EXPECT_FALSE(planCheckedReciprocal(eightBitSpec(true, knobs, 0.1f, 5000)));
  KernelSpec wide = eightBitSpec(true, knobs, 0.1f, 0);
  wide.storage.bits = 16;
  wide.storage.min = INT16_MIN;
  wide.storage.max = INT16_MAX;
  EXPECT_FALSE(planCheckedReciprocal(wide));
  KernelSpec runtime = eightBitSpec(true, knobs, 0.1f, 0);
  runtime.params.runtime = true;
  runtime.params.scales.clear();
  runtime.params.zeroPoints.clear();
  auto runtimePlan = planCheckedReciprocal(runtime);
  ASSERT_TRUE(runtimePlan); // Checked per parameter at run time.
  EXPECT_EQ(runtimePlan->limit, 512.0f);
  EXPECT_EQ(runtimePlan->zeroPointLimit, 512 - 128 - 2);
  EXPECT_FALSE(runtimePlan->bracket);
  EXPECT_TRUE(runtimePlan->reciprocals.empty());
}

/// Host model of the kernels' check (before or after rounding).
bool passesCheck(const KernelSpec &spec, const CheckedReciprocalPlan &plan,
                 float x) {
  float u = x * plan.reciprocals[0];
  float w;
  if (spec.knobs.zeroPoint == ZeroPointOrder::BeforeRounding)
    w = std::clamp(u + static_cast<float>(spec.params.zeroPoints[0]),
                   static_cast<float>(spec.storage.min),
                   static_cast<float>(spec.storage.max));
  else
    w = std::clamp(u, -plan.limit, plan.limit);
  return std::fabs(w - std::nearbyint(w)) < plan.threshold;
}

/// x whose quotient by `scale` lies within a few ulps of a rounding
/// boundary, or a random or special value.
float adversarialInput(std::mt19937_64 &rng, const KernelSpec &spec,
                       float scale) {
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  double z = static_cast<double>(spec.params.zeroPoints[0]);
  bool before = spec.knobs.zeroPoint == ZeroPointOrder::BeforeRounding;
  double k = std::floor(unit(rng) * 300) - 150; // Some beyond the bounds.
  double quotient;
  switch (rng() % 6) {
  case 0:
  case 1: // A half-integer of the rounding step.
    quotient = k + 0.5 - (before ? z : 0);
    break;
  case 2: // Just off it: RN(u + z) may still round onto the tie.
    quotient = k + 0.5 - (before ? z : 0) +
               std::ldexp(unit(rng) - 0.5, -12 - static_cast<int>(rng() % 12));
    break;
  case 3: // Integers and quotients near the check's threshold.
    quotient = k + (rng() % 2 ? 0.4995 : 0.0) - (before ? z : 0);
    break;
  case 4: { // Specials and extremes.
    const float specials[] = {std::numeric_limits<float>::quiet_NaN(),
                              std::numeric_limits<float>::infinity(),
                              -std::numeric_limits<float>::infinity(),
                              0.0f,
                              -0.0f,
                              std::numeric_limits<float>::denorm_min(),
                              -std::numeric_limits<float>::max(),
                              std::numeric_limits<float>::max()};
    return specials[rng() % std::size(specials)];
  }
  default:
    return static_cast<float>((unit(rng) * 400 - 200) * scale);
  }
  float x = static_cast<float>(quotient * scale);
  int steps = static_cast<int>(rng() % 9) - 4;
  for (; steps > 0; --steps)
    x = std::nextafter(x, INFINITY);
  for (; steps < 0; ++steps)
    x = std::nextafter(x, -INFINITY);
  return x;
}

std::string hexFloat(float value) {
  std::ostringstream text;
  text << std::hexfloat << value;
  return text.str();
}

struct BackendAtLevel {
  const char *backend;
  IsaLevel isa;
};

// Names the parameter in gtest output (not its raw bytes).
void PrintTo(const BackendAtLevel &param, std::ostream *os) {
  *os << param.backend << " at " << isaLevelName(param.isa);
}

/// Both backends at AVX2 and AVX-512 (the levels with checked kernels), as
/// far as this host runs them.
std::vector<BackendAtLevel> checkedLevels() {
  std::vector<BackendAtLevel> params;
  for (const char *backend : {"llvm", "asmjit"})
    for (IsaLevel isa : testing::runnableIsaLevels())
      if (isa >= IsaLevel::Avx2)
        params.push_back({backend, isa});
  return params;
}

/// The backend of the parameter at its level, and the test's seeded
/// generator.
class CheckedReciprocalKernels
    : public ::testing::TestWithParam<BackendAtLevel> {
protected:
  void SetUp() override {
    Expected<std::unique_ptr<Backend>> backend =
        createBackend(GetParam().backend, GetParam().isa);
    ASSERT_TRUE(backend) << backend.status().message();
    backend_ = std::move(*backend);
  }

  /// Runs `code` and the reference on `input` (with `params` for runtime
  /// parameters) and asserts equal codes; `lane(i)` names element i's
  /// parameters in a failure message (only built on failure).
  void expectReferenceCodes(const KernelSpec &spec, const CompiledCode &code,
                            const std::vector<float> &input,
                            const KernelParams *params,
                            const std::function<std::string(size_t)> &lane) {
    size_t n = input.size();
    std::vector<uint8_t> expected(n), actual(n);
    Status reference =
        runReference(spec, input.data(), expected.data(), n, params);
    ASSERT_TRUE(reference) << reference.message();
    void *entry = const_cast<void *>(code.entry);
    if (params)
      reinterpret_cast<ParamKernelFn>(entry)(input.data(), actual.data(), n,
                                             params);
    else
      reinterpret_cast<KernelFn>(entry)(input.data(), actual.data(), n);
    for (size_t i = 0; i < n; ++i)
      ASSERT_EQ(expected[i], actual[i])
          << GetParam().backend << " seed " << seed << " "
          << spec.canonicalString() << " element " << i
          << " x=" << std::hexfloat << input[i] << " " << lane(i);
  }

  std::unique_ptr<Backend> backend_;
  uint64_t seed = testing::testSeed();
  std::mt19937_64 rng{seed};
};

TEST_P(CheckedReciprocalKernels, MatchTheReferenceOnBothSidesOfTheCheck) {
  size_t passing = 0, failing = 0;
  // Unrolled blocks, single vectors and a tail.
  constexpr size_t kElements = 4096 + 53;
  for (int round = 0; round < 24; ++round) {
    QuantKnobs knobs;
    knobs.zeroPoint = round % 2 ? ZeroPointOrder::AfterRounding
                                : ZeroPointOrder::BeforeRounding;
    knobs.rounding =
        round / 2 % 2 ? RoundingMode::NearestAway : RoundingMode::NearestEven;
    bool isSigned = round / 4 % 2;
    std::uniform_real_distribution<double> mantissa(1.0, 2.0);
    float scale = static_cast<float>(
        std::ldexp(mantissa(rng), static_cast<int>(rng() % 119) - 60));
    int64_t zeroPoint = isSigned ? static_cast<int64_t>(rng() % 256) - 128
                                 : static_cast<int64_t>(rng() % 256);
    KernelSpec spec = eightBitSpec(isSigned, knobs, scale, zeroPoint);
    auto plan = planCheckedReciprocal(spec);
    ASSERT_TRUE(plan) << spec.canonicalString();
    Expected<CompiledCode> code = backend_->compile(spec);
    ASSERT_TRUE(code) << code.status().message();

    std::vector<float> input(kElements);
    for (float &x : input)
      x = adversarialInput(rng, spec, scale);
    // Groups of 32 lanes either all pass (the multiply stores them) or
    // take the division.
    for (size_t g = 0; g + 32 <= kElements; g += 32) {
      bool all =
          std::all_of(input.begin() + g, input.begin() + g + 32,
                      [&](float x) { return passesCheck(spec, *plan, x); });
      ++(all ? passing : failing);
    }
    ASSERT_NO_FATAL_FAILURE(
        expectReferenceCodes(spec, *code, input, nullptr,
                             [&](size_t) { return "s=" + hexFloat(scale); }));
  }
  // Adversarial groups almost always hold a close lane; a calmer run
  // below gives the fast path whole groups.
  EXPECT_GT(failing, 0u);
  std::vector<float> calm(kElements);
  KernelSpec spec = eightBitSpec(true, QuantKnobs{}, 0.0137f, 3);
  auto plan = planCheckedReciprocal(spec);
  ASSERT_TRUE(plan);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  for (float &x : calm)
    x = static_cast<float>((unit(rng) * 300 - 150) * 0.0137);
  for (size_t g = 0; g + 32 <= kElements; g += 32)
    passing +=
        std::all_of(calm.begin() + g, calm.begin() + g + 32,
                    [&](float x) { return passesCheck(spec, *plan, x); });
  EXPECT_GT(passing, 0u);
  Expected<CompiledCode> code = backend_->compile(spec);
  ASSERT_TRUE(code) << code.status().message();
  std::vector<int8_t> expected(kElements), actual(kElements);
  ASSERT_TRUE(runReference(spec, calm.data(), expected.data(), kElements));
  reinterpret_cast<KernelFn>(const_cast<void *>(code->entry))(
      calm.data(), actual.data(), kElements);
  EXPECT_EQ(expected, actual) << GetParam().backend << " seed " << seed;
}

/// x near the half-integers far outside the bounds, where the kernels
/// saturate without clamping: around ±32767 (the i16 step of the
/// bracket's sum), 2^23, 2^24 and ±2^31 (where the conversion gives
/// INT32_MIN), or a NaN of either sign and payload.
float farInput(std::mt19937_64 &rng, int64_t zeroPoint, float scale) {
  const double far[] = {127, 128, 200, 255, 256, 1000, 32766};
  const double extreme[] = {32767,  32768,        40000,
                            0x1p23, 0x1p24 + 2,   0x1p31 - 256,
                            0x1p31, 0x1p31 + 256, 0x1p32};
  // Rare specials, extremes and ties, so that many groups of 32 hold one
  // of them among values the check passes: the check alone must catch it.
  uint64_t kind = rng() % 64;
  if (kind == 0) {
    uint32_t bits = 0x7f800001u + static_cast<uint32_t>(rng() % 0x7fffff);
    bits |= rng() % 2 ? 0x80000000u : 0;
    return std::bit_cast<float>(bits);
  }
  if (kind == 1)
    return static_cast<float>(rng() % 2 ? 1 : -1) *
           std::numeric_limits<float>::infinity();
  double k = kind == 3 ? extreme[rng() % std::size(extreme)]
                       : far[rng() % std::size(far)];
  k *= rng() % 2 ? 1 : -1;
  double offset = kind == 2 ? 0.5 : 0.0;
  auto x = static_cast<float>((k + offset - static_cast<double>(zeroPoint)) *
                              static_cast<double>(scale));
  int steps = static_cast<int>(rng() % 9) - 4;
  for (; steps > 0; --steps)
    x = std::nextafter(x, INFINITY);
  for (; steps < 0; ++steps)
    x = std::nextafter(x, -INFINITY);
  return x;
}

TEST_P(CheckedReciprocalKernels, SaturateFarTiesAndConversionLimits) {
  constexpr size_t kElements = 1024 + 37;
  // Full container ranges (asmjit brackets nearest-even), a narrower
  // range and nearest-away (both check |w - n|).
  for (int round = 0; round < 8; ++round) {
    QuantKnobs knobs;
    knobs.rounding =
        round >= 6 ? RoundingMode::NearestAway : RoundingMode::NearestEven;
    bool isSigned = round % 2;
    std::uniform_real_distribution<double> mantissa(1.0, 2.0);
    float scale = static_cast<float>(
        std::ldexp(mantissa(rng), static_cast<int>(rng() % 41) - 20));
    int64_t zeroPoint = isSigned ? static_cast<int64_t>(rng() % 256) - 128
                                 : static_cast<int64_t>(rng() % 256);
    KernelSpec spec = eightBitSpec(isSigned, knobs, scale, zeroPoint);
    if (round / 2 == 2) {
      spec.storage.min = isSigned ? -127 : 1;
      spec.storage.max = isSigned ? 100 : 254;
    }
    ASSERT_TRUE(planCheckedReciprocal(spec)) << spec.canonicalString();
    Expected<CompiledCode> code = backend_->compile(spec);
    ASSERT_TRUE(code) << code.status().message();
    std::vector<float> input(kElements);
    // Runs of far values, so that whole groups pass the check too.
    for (size_t i = 0; i < kElements; ++i)
      input[i] = i / 64 % 2 ? farInput(rng, zeroPoint, scale)
                            : adversarialInput(rng, spec, scale);
    ASSERT_NO_FATAL_FAILURE(
        expectReferenceCodes(spec, *code, input, nullptr,
                             [&](size_t) { return "s=" + hexFloat(scale); }));
  }
}

TEST_P(CheckedReciprocalKernels, RuntimeParametersInAndOutOfTheCheckedRange) {
  constexpr size_t kElements = 2048 + 13;
  // Scales and zero points in the checked range, and beyond it on every
  // side (those runs must divide).
  const float scales[] = {0.0137f,
                          3.5e-7f,
                          0x1.8p-61f,
                          0x1.8p61f,
                          -0.25f,
                          0.0f,
                          std::numeric_limits<float>::infinity(),
                          std::numeric_limits<float>::quiet_NaN()};
  const int64_t zeroPoints[] = {3, -128, 255, 382, -383, 1000, INT64_MIN};
  for (int round = 0; round < 24; ++round) {
    QuantKnobs knobs;
    knobs.zeroPoint = round % 2 ? ZeroPointOrder::AfterRounding
                                : ZeroPointOrder::BeforeRounding;
    knobs.rounding =
        round / 2 % 2 ? RoundingMode::NearestAway : RoundingMode::NearestEven;
    KernelSpec spec = eightBitSpec(round / 4 % 2, knobs, 1.0f, 0);
    spec.params.runtime = true;
    spec.params.scales.clear();
    spec.params.zeroPoints.clear();
    Expected<CompiledCode> code = backend_->compile(spec);
    // asmjit leaves the exact int64 after-rounding sum to llvm.
    if (!code && std::string_view(GetParam().backend) == "asmjit" &&
        knobs.zeroPoint == ZeroPointOrder::AfterRounding &&
        code.status().code() == ErrorCode::Unsupported)
      continue;
    ASSERT_TRUE(code) << code.status().message();
    float scale = scales[rng() % std::size(scales)];
    int64_t zeroPoint = zeroPoints[rng() % std::size(zeroPoints)];
    // Inputs aimed at the rounding boundaries of a nearby usable scale.
    float aim = std::isfinite(scale) && scale != 0 ? std::fabs(scale) : 1.0f;
    KernelSpec near = eightBitSpec(true, knobs, aim,
                                   std::clamp<int64_t>(zeroPoint, -128, 127));
    std::vector<float> input(kElements);
    for (float &x : input)
      x = adversarialInput(rng, near, aim);
    KernelParams params;
    params.scales = &scale;
    params.zeroPoints = &zeroPoint;
    ASSERT_NO_FATAL_FAILURE(
        expectReferenceCodes(spec, *code, input, &params, [&](size_t) {
          return "s=" + hexFloat(scale) + " z=" + std::to_string(zeroPoint);
        }));
  }
}

TEST_P(CheckedReciprocalKernels, BlockwiseRuntimeParametersInAndOutOfRange) {
  // Runs of 32 with a parameter each (asmjit prepares eight runs'
  // parameters at once), of 48 (single vectors after a block) and of 300
  // (long runs, which llvm checks once each: KernelPlan::runtimeRunsAreLong):
  // most
  // blocks in the checked range, some with a scale or zero point beyond
  // it, so that groups mix both.
  constexpr int64_t kChannels = 24;
  const float farScales[] = {0x1.8p-61f,
                             0x1.8p61f,
                             -0.25f,
                             0.0f,
                             std::numeric_limits<float>::infinity(),
                             std::numeric_limits<float>::quiet_NaN()};
  const int64_t farZeroPoints[] = {382, -383, 1000, INT64_MIN,
                                   (int64_t(1) << 31) + 1};
  std::uniform_real_distribution<double> mantissa(1.0, 2.0);
  for (int round = 0; round < 12; ++round) {
    const int64_t kBlock = std::array<int64_t, 3>{32, 48, 300}[round % 3];
    const size_t kElements = 4 * kChannels * kBlock; // Whole periods.
    QuantKnobs knobs;
    knobs.rounding =
        round % 2 ? RoundingMode::NearestAway : RoundingMode::NearestEven;
    bool isSigned = round / 2 % 2;
    KernelSpec spec = eightBitSpec(isSigned, knobs, 1.0f, 0);
    spec.layout.kind = LayoutSpec::Kind::PerAxis;
    spec.layout.channels = kChannels;
    spec.layout.inner = kBlock;
    spec.params.runtime = true;
    spec.params.scales.clear();
    spec.params.zeroPoints.clear();
    Expected<CompiledCode> code = backend_->compile(spec);
    ASSERT_TRUE(code) << code.status().message();
    std::vector<float> scales(kChannels);
    std::vector<int64_t> zeroPoints(kChannels);
    for (int64_t c = 0; c < kChannels; ++c) {
      scales[c] = static_cast<float>(
          std::ldexp(mantissa(rng), static_cast<int>(rng() % 40) - 20));
      zeroPoints[c] = static_cast<int64_t>(rng() % 256) - (isSigned ? 128 : 0);
      if (rng() % 6 == 0)
        scales[c] = farScales[rng() % std::size(farScales)];
      if (rng() % 6 == 0)
        zeroPoints[c] = farZeroPoints[rng() % std::size(farZeroPoints)];
    }
    std::vector<float> input(kElements);
    for (size_t i = 0; i < kElements; ++i) {
      size_t c = i / kBlock % kChannels;
      float aim = std::isfinite(scales[c]) && scales[c] != 0
                      ? std::fabs(scales[c])
                      : 1.0f;
      KernelSpec near =
          eightBitSpec(isSigned, knobs, aim,
                       std::clamp<int64_t>(zeroPoints[c], spec.storage.min,
                                           spec.storage.max));
      input[i] = adversarialInput(rng, near, aim);
    }
    KernelParams params;
    params.scales = scales.data();
    params.zeroPoints = round / 4 % 2 ? zeroPoints.data() : nullptr;
    ASSERT_NO_FATAL_FAILURE(
        expectReferenceCodes(spec, *code, input, &params, [&](size_t i) {
          size_t c = i / kBlock % kChannels;
          return "s=" + hexFloat(scales[c]) +
                 " z=" + std::to_string(params.zeroPoints ? zeroPoints[c] : 0);
        }));
  }
}

TEST(FixedPointBracket, PlansTheBracketsSpecsOnly) {
  QuantKnobs knobs;
  auto plan = plan::planFixedPointBracket(eightBitSpec(true, knobs, 0.1f, 3));
  ASSERT_TRUE(plan);
  // E = 1/2 + (131 + 131 + 2·133·(1 + 2^-23)) / 256 = 2.56: D = 3, the
  // offset 2^16·(3 + 1/2) + D, F = 6.
  EXPECT_EQ(plan->offsets, std::vector<float>{65536.0f * 3.5f + 3.0f});
  EXPECT_EQ(plan->failBelow, 6u);
  EXPECT_EQ(plan->scaledReciprocals,
            std::vector<float>{65536.0f * (1.0f / 0.1f)});
  EXPECT_EQ(plan->bias, 0);
  auto unsignedPlan =
      plan::planFixedPointBracket(eightBitSpec(false, knobs, 0.1f, 200));
  // v in [-2, 257]: U = 130, V = 257, P = |-2 - 200| = 202, E = 1/2 +
  // (131 + 258 + 2·202·(1 + 2^-23)) / 256 = 3.60: D = 4, F = 8.
  ASSERT_TRUE(unsignedPlan);
  EXPECT_EQ(unsignedPlan->bias, 128);
  EXPECT_EQ(unsignedPlan->failBelow, 8u);
  EXPECT_EQ(unsignedPlan->offsets,
            std::vector<float>{65536.0f * (200 + 0.5f - 128) + 4.0f});
  QuantKnobs reciprocal;
  reciprocal.scaleOp = ScaleOp::Reciprocal;
  EXPECT_TRUE(
      plan::planFixedPointBracket(eightBitSpec(true, reciprocal, 0.1f, 3)));
  QuantKnobs away;
  away.rounding = RoundingMode::NearestAway;
  EXPECT_FALSE(plan::planFixedPointBracket(eightBitSpec(true, away, 0.1f, 3)));
  // XNNPACK's formula: the zero point after rounding, with baked
  // parameters or runtime ones promised within the storage range (failing
  // lanes add z after rounding in f32).
  QuantKnobs xnnpack = knobsForPreset(SemanticsPreset::Xnnpack);
  KernelSpec after = eightBitSpec(true, xnnpack, 0.1f, 3);
  auto afterPlan = plan::planFixedPointBracket(after);
  ASSERT_TRUE(afterPlan);
  EXPECT_EQ(afterPlan->failBelow, 6u);
  after.params.runtime = true;
  after.params.scales.clear();
  after.params.zeroPoints.clear();
  EXPECT_FALSE(plan::planFixedPointBracket(after));
  after.params.zeroPointsInStorage = true;
  EXPECT_TRUE(plan::planFixedPointBracket(after));
  // Exact reciprocals multiply; L <= 512 only.
  EXPECT_FALSE(
      plan::planFixedPointBracket(eightBitSpec(true, knobs, 0.25f, 3)));
  EXPECT_FALSE(
      plan::planFixedPointBracket(eightBitSpec(true, knobs, 0.1f, 600)));
}

/// Every x within 64 ulps of each rounding boundary (x/s + z a
/// half-integer) of the 8-bit range and a little beyond, for scales and
/// zero points drawn at random, either zero-point order: the fixed-point
/// bracket's window edges (a few ulps of v wide) pass and fail on both
/// sides.
TEST_P(CheckedReciprocalKernels, SweepsEveryRoundingBoundary) {
  std::uniform_real_distribution<double> mantissa(1.0, 2.0);
  for (int round = 0; round < 12; ++round) {
    bool isSigned = round % 2;
    QuantKnobs knobs;
    if (round % 3 == 2)
      knobs.scaleOp = ScaleOp::Reciprocal;
    // After rounding, odd zero points round ties otherwise (XNNPACK's
    // formula is reciprocal and after).
    if (round % 4 >= 2)
      knobs.zeroPoint = ZeroPointOrder::AfterRounding;
    float scale = static_cast<float>(
        std::ldexp(mantissa(rng), static_cast<int>(rng() % 41) - 20));
    int64_t zeroPoint = isSigned ? static_cast<int64_t>(rng() % 256) - 128
                                 : static_cast<int64_t>(rng() % 256);
    if (round < 4)
      zeroPoint = isSigned ? 3 : 128; // The bench's kind.
    KernelSpec spec = eightBitSpec(isSigned, knobs, scale, zeroPoint);
    Expected<CompiledCode> code = backend_->compile(spec);
    ASSERT_TRUE(code) << code.status().message();
    std::vector<float> input;
    double low = isSigned ? -131 : -3, high = isSigned ? 130 : 258;
    for (double k = low; k <= high; ++k) {
      auto x = static_cast<float>((k + 0.5 - static_cast<double>(zeroPoint)) *
                                  static_cast<double>(scale));
      for (int i = 0; i < 64; ++i)
        x = std::nextafter(x, -INFINITY);
      for (int i = 0; i <= 128; ++i, x = std::nextafter(x, INFINITY))
        input.push_back(x);
    }
    input.resize(input.size() / 64 * 64 + 37); // A tail too.
    ASSERT_NO_FATAL_FAILURE(
        expectReferenceCodes(spec, *code, input, nullptr,
                             [&](size_t) { return "s=" + hexFloat(scale); }));
    // The same as runtime parameters within the storage range (a dynamic
    // qcast's quantize pass), whose bracket takes either order too.
    KernelSpec runtime = spec;
    runtime.params.runtime = true;
    runtime.params.zeroPointsInStorage = true;
    runtime.params.scales.clear();
    runtime.params.zeroPoints.clear();
    Expected<CompiledCode> runtimeCode = backend_->compile(runtime);
    ASSERT_TRUE(runtimeCode) << runtimeCode.status().message();
    KernelParams params;
    params.scales = &scale;
    params.zeroPoints = &zeroPoint;
    ASSERT_NO_FATAL_FAILURE(expectReferenceCodes(
        runtime, *runtimeCode, input, &params, [&](size_t) {
          return "runtime s=" + hexFloat(scale) +
                 " z=" + std::to_string(zeroPoint);
        }));
  }
}

/// Baked per-axis and blockwise layouts through every parameter source of
/// the AVX-512 fixed-point bracket (per-element tables, runs of 16 and 32
/// sharing unrolled steps, long runs with tails), mostly passing lanes
/// with distinct parameters, a few near ties, specials and far values.
TEST_P(CheckedReciprocalKernels, BakedLayoutsOnBothSidesOfTheCheck) {
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  auto params = [&](int count, bool isSigned, bool distinct) {
    std::string list = "{";
    for (int k = 0; k < count; ++k) {
      float scale = static_cast<float>(0.0137 * (1 + 0.37 * unit(rng)));
      int64_t z = distinct
                      ? static_cast<int64_t>(rng() % 200) - (isSigned ? 100 : 0)
                      : 0;
      char text[48];
      std::snprintf(text, sizeof text, "%s%.9g:%lld", k ? "," : "",
                    static_cast<double>(scale), static_cast<long long>(z));
      list += text;
    }
    return list + "}";
  };
  for (int round = 0; round < 20; ++round) {
    bool isSigned = round % 2, distinct = round / 2 % 2;
    std::string storage = isSigned ? "i8" : "u8";
    std::string type;
    size_t total = 0;
    switch (round / 4) {
    case 0:
      total = 8 * 256;
      type = "tensor<8x256x!quant.uniform<" + storage + ":f32:1, " +
             params(256, isSigned, distinct) + ">>";
      break;
    case 1:
      total = 12 * 16;
      type = "tensor<12x16x!quant.uniform<" + storage + ":f32:0, " +
             params(12, isSigned, distinct) + ">>";
      break;
    case 2:
      total = 10 * 32;
      type = "tensor<10x32x!quant.uniform<" + storage + ":f32:0, " +
             params(10, isSigned, distinct) + ">>";
      break;
    case 3:
      total = 6 * 48;
      type = "tensor<6x48x!quant.uniform<" + storage + ":f32:0, " +
             params(6, isSigned, distinct) + ">>";
      break;
    default: {
      total = 6 * 128;
      type = "tensor<6x128x!quant.uniform<" + storage + ":f32:{0:1, 1:32}, {";
      for (int r = 0; r < 6; ++r)
        type += (r ? "," : "") + params(4, isSigned, distinct);
      type += "}>>";
    }
    }
    Expected<TypeDescriptor> parsed = parseTypeOrError(type);
    ASSERT_TRUE(parsed) << type << ": " << parsed.status().message();
    Expected<KernelSpec> lowered =
        lowerToKernelSpec(*parsed, KernelOp::QCast, {});
    ASSERT_TRUE(lowered) << lowered.status().message();
    for (ScaleOp op : {ScaleOp::Divide, ScaleOp::Reciprocal}) {
      KernelSpec spec = *lowered;
      spec.knobs.scaleOp = op;
      Expected<CompiledCode> code = backend_->compile(spec);
      ASSERT_TRUE(code) << code.status().message();
      float scale = static_cast<float>(spec.params.scales[0]);
      double low = isSigned ? -140 : -10, high = isSigned ? 140 : 270;
      // One period and three (not all whole unrolled steps).
      for (size_t n : {total, 3 * total}) {
        std::vector<float> input(n);
        for (size_t i = 0; i < n; ++i) {
          uint64_t kind = rng() % 128;
          input[i] = kind == 0 ? adversarialInput(rng, spec, scale)
                     : kind == 1
                         ? farInput(rng, spec.params.zeroPoints[0], scale)
                         : static_cast<float>((low + (high - low) * unit(rng)) *
                                              0.0137);
        }
        ASSERT_NO_FATAL_FAILURE(expectReferenceCodes(
            spec, *code, input, nullptr, [&](size_t) { return type; }));
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(
    Backend, CheckedReciprocalKernels, ::testing::ValuesIn(checkedLevels()),
    [](const ::testing::TestParamInfo<BackendAtLevel> &info) {
      return std::string(info.param.backend) + "_" +
             std::string(isaLevelName(info.param.isa));
    });

} // namespace
} // namespace qjit
