//===- AsmjitKernelTest.cpp - asmjit kernels vs the reference -------------===//
//
// Every asmjit kernel the backend generates, at every ISA level this host
// supports (AVX-512, and AVX2 capped on an AVX-512 host), through the
// shared differential tester. Specs the backend does not cover yet must be
// refused with ErrorCode::Unsupported, never miscompiled.
//
//===----------------------------------------------------------------------===//
#include "ExpressedValues.h"
#include "KernelTester.h"
#include "LayoutSpecs.h"
#include "TestSeed.h"

#include "qjit/Isa.h"
#include "qjit/TypeParser.h"
#include "qjit/internal/Backend.h"
#include "qjit/internal/Reference.h"

#include <gtest/gtest.h>

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <vector>

namespace qjit {
namespace {

using testing::KernelTester;
using testing::SweepAxes;

std::vector<IsaLevel> hostLevels() {
  std::vector<IsaLevel> levels;
  for (IsaLevel level : testing::runnableIsaLevels())
    if (level >= IsaLevel::Avx2)
      levels.push_back(level);
  return levels;
}

class AsmjitKernelTest : public ::testing::TestWithParam<IsaLevel> {
protected:
  void SetUp() override {
    Expected<std::unique_ptr<Backend>> backend =
        createAsmjitBackend(GetParam());
    ASSERT_TRUE(backend) << backend.status().message();
    backend_ = std::move(*backend);
  }

  /// Checks every spec of the sweep the backend compiles (only packed
  /// ones with `packedOnly`); returns how many it compiled. Unsupported
  /// specs must say so. Runtime zero points span all of int64 (the exact
  /// after-rounding sum).
  size_t checkSweep(const SweepAxes &axes, bool packedOnly = false,
                    KernelTester::Options options = {.lanes = 64,
                                                     .largeSize = 4099,
                                                     .wideZeroPoints = true}) {
    size_t compiled = 0;
    testing::CompileOnlyTargets compileOnly(*backend_);
    for (const KernelSpec &spec : testing::specSweep(axes)) {
      if (packedOnly && !spec.storage.packed)
        continue;
      compileOnly.generate(spec);
      Expected<CompiledCode> code = backend_->compile(spec);
      if (!code) {
        EXPECT_EQ(code.status().code(), ErrorCode::Unsupported)
            << spec.canonicalString() << ": " << code.status().message();
        continue;
      }
      // At most the requested level (some kernels are AVX2 code only,
      // packed storage among them).
      EXPECT_LE(code->isa, GetParam());
      if (spec.storage.packed) {
        EXPECT_EQ(code->isa, std::min(GetParam(), IsaLevel::Avx2));
      }
      ++compiled;
      KernelTester tester(spec, qjit::testing::testSeed(), options);
      EXPECT_TRUE(tester.check(code->entry)) << spec.canonicalString();
      if (HasFailure())
        break;
    }
    return compiled;
  }

  std::unique_ptr<Backend> backend_;
};

// Runs of the main loop with a zero point per channel (the bracket keeps
// one zero point in registers: it must not take these).
TEST_P(AsmjitKernelTest, LongPerAxisRunsWithDistinctZeroPoints) {
  SweepAxes axes = testing::longPerAxisRunSweep();
  EXPECT_EQ(
      testing::checkSweep(*backend_, axes, {.lanes = 16, .largeSize = 1200}),
      2u * 2 * 13);
}

TEST_P(AsmjitKernelTest, PerTensorEveryKnob) {
  SweepAxes axes;
  axes.ops = {KernelOp::QCast};
  axes.widths = {8, 16, 32};
  axes.packed = false;
  axes.narrowBounds = true;
  axes.knobs = testing::allKnobs();
  axes.runtimeParams = {false, true};
  // 3 widths × 2 signs × 2 bounds × 12 knobs × 2 parameter kinds.
  EXPECT_EQ(checkSweep(axes), 3u * 2 * 2 * 12 * 2);
}

TEST_P(AsmjitKernelTest, EveryWidthAndOp) {
  SweepAxes axes;
  axes.ops = {KernelOp::QCast, KernelOp::DCast, KernelOp::SCast};
  axes.widths = {1, 2, 3, 4, 7, 8, 9, 12, 15, 16, 17, 24, 25, 27, 30, 31, 32};
  axes.packed = false;
  axes.narrowBounds = true;
  axes.knobs = {QuantKnobs{},
                {ScaleOp::Reciprocal, ZeroPointOrder::AfterRounding,
                 RoundingMode::NearestAway}};
  axes.runtimeParams = {false, true};
  // 17 widths × 2 signs × 2 bounds (but 1-bit) × 2 parameter kinds ×
  // (2 qcast + dcast + scast).
  EXPECT_EQ(checkSweep(axes), (17u * 4 - 2) * 2 * 4);
}

// C = f64: every knob, integer widths up to 32, both parameter kinds.
TEST_P(AsmjitKernelTest, DoubleExpressedEveryKnob) {
  SweepAxes axes;
  axes.ops = {KernelOp::QCast, KernelOp::DCast};
  axes.widths = {8, 16, 32};
  axes.packed = false;
  axes.narrowBounds = true;
  axes.expressed = {ValueType::F64};
  axes.knobs = testing::allKnobs();
  axes.runtimeParams = {false, true};
  // 3 widths × 2 signs × 2 bounds × 2 parameter kinds × (12 qcast + dcast).
  EXPECT_EQ(
      checkSweep(axes, /*packedOnly=*/false,
                 {.lanes = 32, .largeSize = 1031, .wideZeroPoints = true}),
      3u * 2 * 2 * 2 * 13);
}

// Zero points of a type may be any int64: the after-rounding sum is exact
// however far z is from the bounds (the wide kernels' split sum).
TEST_P(AsmjitKernelTest, FarBakedZeroPoints) {
  for (const KernelSpec &spec : testing::farZeroPointSpecs()) {
    Expected<CompiledCode> code = backend_->compile(spec);
    ASSERT_TRUE(code) << code.status().message();
    KernelTester tester(spec, qjit::testing::testSeed(),
                        {.lanes = 16, .largeSize = 257});
    EXPECT_TRUE(tester.check(code->entry)) << spec.canonicalString();
  }
}

TEST_P(AsmjitKernelTest, HalfAndBfloat16) {
  SweepAxes axes;
  axes.ops = {KernelOp::QCast, KernelOp::DCast};
  axes.widths = {8, 16, 32};
  axes.packed = false;
  axes.expressed = {ValueType::F16, ValueType::BF16};
  axes.knobs = {QuantKnobs{},
                {ScaleOp::Reciprocal, ZeroPointOrder::AfterRounding,
                 RoundingMode::NearestAway}};
  axes.runtimeParams = {false, true};
  // 3 widths × 2 signs × 2 types × 2 parameter kinds × (2 qcast + dcast).
  EXPECT_EQ(checkSweep(axes), 3u * 2 * 2 * 2 * 3);
}

TEST_P(AsmjitKernelTest, EveryLayout) {
  SweepAxes axes;
  axes.ops = {KernelOp::QCast, KernelOp::DCast};
  axes.widths = {8, 32};
  axes.expressed = {ValueType::F32, ValueType::F64};
  axes.packed = false;
  axes.layouts = testing::representativeLayouts();
  axes.runtimeParams = {false, true};
  axes.knobs = {QuantKnobs{},
                {ScaleOp::Divide, ZeroPointOrder::AfterRounding,
                 RoundingMode::TowardZero}};
  // 2 widths × 2 signs × 2 types × 7 layouts × 2 parameter kinds ×
  // (2 qcast + dcast).
  EXPECT_EQ(checkSweep(axes), 2u * 2 * 2 * 7 * 2 * 3);
}

TEST_P(AsmjitKernelTest, RunsOfWholeUnrolledIterations) {
  // Static runs of 32, 64 and 128 elements (blockwise along the last axis)
  // take straight-line bodies; 40 and 160 do not; every size ends in a
  // partial run somewhere.
  SweepAxes axes;
  axes.ops = {KernelOp::QCast, KernelOp::DCast};
  axes.signedness = {true};
  axes.packed = false;
  axes.layouts = {testing::perAxis(3, 32), testing::perAxis(2, 64),
                  testing::blocked({{2, 1}, {256, 128}}),
                  testing::perAxis(2, 40), testing::perAxis(2, 160)};
  axes.runtimeParams = {false, true};
  axes.knobs = {QuantKnobs{},
                {ScaleOp::Reciprocal, ZeroPointOrder::BeforeRounding,
                 RoundingMode::NearestAway}};
  EXPECT_EQ(checkSweep(axes), 5u * 2 * (2 + 1));
}

TEST_P(AsmjitKernelTest, RuntimeParametersOfEightRunsAtOnce) {
  // Whole runs of 32 with runtime parameters, 16 and 32 per period: AVX2
  // prepares eight runs' parameters at once (the rest of a call run by
  // run); groups with a zero point far beyond the storage range take the
  // slow loads, so zero points are drawn within it, then anywhere.
  SweepAxes axes;
  axes.signedness = {true};
  axes.packed = false;
  axes.expressed = {ValueType::F32, ValueType::F16, ValueType::BF16};
  axes.layouts = {testing::perAxis(16, 32),
                  testing::blocked({{2, 1}, {512, 32}})};
  axes.runtimeParams = {true};
  axes.knobs = {QuantKnobs{},
                {ScaleOp::Reciprocal, ZeroPointOrder::BeforeRounding,
                 RoundingMode::NearestAway}};
  // 3 types × 2 layouts × (2 qcast + dcast).
  EXPECT_EQ(checkSweep(axes, false, {.lanes = 64, .largeSize = 4099}),
            3u * 2 * 3);
  EXPECT_EQ(checkSweep(axes), 3u * 2 * 3);
}

TEST_P(AsmjitKernelTest, RunsOfWholeVectors) {
  // Static runs of 8, 16 and 24 elements in periods too long for
  // per-element tables: straight-line runs of single vectors (AVX2), or a
  // vector and a partial one (AVX-512), two runs per step where periods
  // hold whole pairs (not 129 channels).
  SweepAxes axes;
  axes.signedness = {true};
  axes.packed = false;
  axes.layouts = {testing::perAxis(160, 8), testing::perAxis(80, 16),
                  testing::perAxis(48, 24), testing::perAxis(129, 16)};
  axes.runtimeParams = {false, true};
  axes.knobs = {QuantKnobs{},
                {ScaleOp::Reciprocal, ZeroPointOrder::BeforeRounding,
                 RoundingMode::NearestAway}};
  // 4 layouts × 2 parameter kinds × (2 qcast + dcast).
  EXPECT_EQ(checkSweep(axes, false, {.lanes = 64, .largeSize = 4099}),
            4u * 2 * 3);
}

TEST_P(AsmjitKernelTest, GroupsOfSymmetricAndAsymmetricRuns) {
  // Runtime zero points mostly 0: AVX2 groups of eight runs whose zero
  // points are all 0 take dcast's runs without them, the others (and
  // qcast) the usual ones. One group per period (the next group's
  // parameters are those of the period's start), three, and groups of
  // eight runs of 64 (their runs in a loop).
  SweepAxes axes;
  axes.packed = false;
  axes.expressed = {ValueType::F32, ValueType::F16};
  axes.layouts = {testing::perAxis(8, 32), testing::perAxis(24, 32),
                  testing::perAxis(16, 64)};
  axes.runtimeParams = {true};
  // 2 signs × 2 types × 3 layouts × (qcast + dcast).
  EXPECT_EQ(checkSweep(axes, false,
                       {.lanes = 64,
                        .largeSize = 4099,
                        .wideZeroPoints = true,
                        .mostlyZeroZeroPoints = true}),
            2u * 2 * 3 * 2);
}

TEST_P(AsmjitKernelTest, GroupsOfBiasedPackedRuns) {
  // Packed 4-bit dcast loads its codes as laneBias + q: symmetric groups
  // subtract the lane biases alone, the others the biased zero points, or
  // (a zero point beyond the biased range in the group) z after
  // unbiasing the runs that need it.
  SweepAxes axes;
  axes.ops = {KernelOp::DCast};
  axes.widths = {4};
  axes.layouts = {testing::perAxis(8, 32), testing::perAxis(24, 32),
                  testing::perAxis(16, 64)};
  axes.runtimeParams = {true};
  // 2 signs × 3 layouts (packed 4-bit only), zero points mostly 0 and
  // all wide (most groups out of the biased range).
  for (bool mostlyZero : {true, false})
    EXPECT_EQ(checkSweep(axes, /*packedOnly=*/true,
                         {.lanes = 64,
                          .largeSize = 4099,
                          .wideZeroPoints = true,
                          .mostlyZeroZeroPoints = mostlyZero}),
              2u * 3);
}

TEST_P(AsmjitKernelTest, SymmetricPackedInt4GroupsAtEveryScale) {
  // Signed packed 4-bit runs of groups whose zero points are all 0 load
  // their codes as q · 2^28 and scale by s · 2^-28, prepared per group:
  // groups with a scale whose shift is inexact (tiny and subnormal ones),
  // or with a zero point, take the biased loads. Scales at the ends of
  // that check, 0, inf, NaN, overflowing products, and products at ties
  // (odd significands); every code; runs of 16, 32, 48 and 64 (single
  // vectors, unrolled steps and both).
  const float inf = std::numeric_limits<float>::infinity();
  const float special[] = {0x1p-98f,
                           0x1.8p-99f, // Shifted: subnormal, still exact.
                           0x1.000002p-98f,
                           0x1.000002p-100f, // Inexact once shifted.
                           0x1p-126f,
                           0x1p-140f,
                           0.0f,
                           -0.0f,
                           inf,
                           -inf,
                           std::numeric_limits<float>::quiet_NaN(),
                           std::bit_cast<float>(0x7fa00001u), // Signaling.
                           std::bit_cast<float>(0xffc00005u),
                           0x1.fffffep127f,
                           -0x1.8p126f,
                           0x1.000002p0f,
                           -0x1.000006p-3f,
                           0x1.7ffffep-20f};
  std::mt19937_64 rng(qjit::testing::testSeed());
  for (ValueType expressed : {ValueType::F32, ValueType::BF16})
    for (int64_t inner : {16, 32, 48, 64}) {
      constexpr int64_t kChannels = 40; // Five groups of eight runs.
      Expected<TypeDescriptor> type = parseTypeOrError(
          expressed == ValueType::F32 ? "!quant.uniform<i4:f32, 1.0>"
                                      : "!quant.uniform<i4:bf16, 1.0>");
      ASSERT_TRUE(type) << type.status().message();
      Expected<KernelSpec> spec = lowerToKernelSpec(*type, KernelOp::DCast, {});
      ASSERT_TRUE(spec) << spec.status().message();
      spec->layout.kind = LayoutSpec::Kind::PerAxis;
      spec->layout.channels = kChannels;
      spec->layout.inner = inner;
      spec->params = {};
      spec->params.runtime = true;
      Expected<CompiledCode> code = backend_->compile(*spec);
      ASSERT_TRUE(code) << code.status().message();
      auto kernel =
          reinterpret_cast<ParamKernelFn>(const_cast<void *>(code->entry));
      for (int round = 0; round < 4; ++round) {
        // Round 0: special scales in every group; then fewer of them, and
        // from round 2 zero points, 0 in most groups, at the storage
        // ends in the others.
        std::vector<float> scales(kChannels);
        std::vector<uint16_t> halfScales(kChannels);
        std::vector<int64_t> zeroPoints(kChannels, 0);
        for (int64_t k = 0; k < kChannels; ++k) {
          bool pick = rng() % (round == 0 ? 2 : 8) == 0;
          scales[k] =
              pick ? special[rng() % std::size(special)]
                   : std::ldexp(1.0f + float(rng() % (1 << 23)) * 0x1p-23f,
                                int(rng() % 24) - 12);
          halfScales[k] =
              static_cast<uint16_t>(std::bit_cast<uint32_t>(scales[k]) >> 16);
          if (round >= 2 && k % 8 == 3 && rng() % 2)
            zeroPoints[k] = rng() % 2 ? -8 : 7;
        }
        KernelParams params;
        params.scales = expressed == ValueType::F32
                            ? static_cast<const void *>(scales.data())
                            : static_cast<const void *>(halfScales.data());
        params.zeroPoints = round >= 2 ? zeroPoints.data() : nullptr;
        // Two periods (ten groups of eight runs) from a byte offset of 1;
        // once past the streaming threshold (2^21 elements) into a 32-byte
        // aligned output.
        bool streamed =
            round == 1 && inner == 32 && expressed == ValueType::F32;
        size_t n = size_t((streamed ? 1640 : 2) * kChannels * inner);
        size_t inBytes = storageBytes(spec->storage, n);
        size_t outBytes = expressedBytes(expressed, n);
        std::vector<uint8_t> src(inBytes + 1);
        for (uint8_t &b : src)
          b = static_cast<uint8_t>(rng());
        std::vector<uint8_t> expected(outBytes + 64, 0xA5);
        std::vector<uint8_t> actual(outBytes + 96, 0xA5);
        uint8_t *out =
            actual.data() + (-reinterpret_cast<uintptr_t>(actual.data()) & 31);
        Status reference =
            runReference(*spec, src.data() + 1, expected.data(), n, &params);
        ASSERT_TRUE(reference) << reference.message();
        kernel(src.data() + 1, out, n, &params);
        testing::equateNaNs(expressed, expected.data(), out, n);
        ASSERT_TRUE(std::equal(expected.begin(), expected.end(), out))
            << spec->canonicalString() << " round " << round << " seed "
            << qjit::testing::testSeed();
      }
    }
}

TEST_P(AsmjitKernelTest, ShortPeriodsOnTheLastAxis) {
  // Per-axis parameters on the last axis (runs of one or two elements):
  // tables cover whole unrolled vector blocks of periods (every size ends
  // inside one, most inside a vector): baked ones, and runtime ones filled
  // on the stack per call.
  SweepAxes axes;
  axes.packed = false;
  axes.layouts = {testing::perAxis(3, 2)};
  for (int64_t channels : {1, 2, 3, 4, 5, 8, 12, 13, 16, 64})
    axes.layouts.push_back(testing::perAxis(channels, 1));
  axes.runtimeParams = {false, true};
  axes.knobs = {QuantKnobs{},
                {ScaleOp::Reciprocal, ZeroPointOrder::BeforeRounding,
                 RoundingMode::NearestAway}};
  // 11 layouts × 2 signs × 2 parameter kinds × (2 qcast + dcast); runtime
  // zero points within the checked range, then anywhere (a channel beyond
  // it sends the whole call to the division).
  EXPECT_EQ(checkSweep(axes, false, {.lanes = 64, .largeSize = 4099}),
            11u * 2 * 2 * 3);
  EXPECT_EQ(checkSweep(axes), 11u * 2 * 2 * 3);
  // Runtime tables hold the scales widened from 16-bit types.
  SweepAxes halves = axes;
  halves.signedness = {true};
  halves.expressed = {ValueType::F16, ValueType::BF16};
  halves.layouts = {testing::perAxis(5, 1), testing::perAxis(3, 2)};
  halves.runtimeParams = {true};
  // 2 types × 2 layouts × (2 qcast + dcast).
  EXPECT_EQ(checkSweep(halves), 2u * 2 * 3);
  // Packed 4-bit codes: tables of lcm(period, 8) widened alike.
  axes.widths = {4};
  axes.packed = true;
  axes.signedness = {true};
  axes.layouts = {testing::perAxis(3, 1), testing::perAxis(5, 1)};
  axes.runtimeParams = {false};
  EXPECT_EQ(checkSweep(axes, /*packedOnly=*/true), 2u * 3);
}

/// Packed 1-, 2- and 4-bit storage, every op: layouts whose runs start
/// inside a byte (per-element tables of odd periods, odd and dynamic
/// blocks) or on one (blocks of 32, the GPTQ shape), tails ending inside a
/// byte, expressed types, parameter sources and qcast knob families.
TEST_P(AsmjitKernelTest, PackedEveryLayout) {
  SweepAxes axes;
  axes.ops = {KernelOp::QCast, KernelOp::DCast, KernelOp::SCast};
  axes.widths = {1, 2, 4};
  axes.narrowBounds = true;
  axes.layouts = testing::representativeLayouts();
  for (const LayoutSpec &blocks : testing::packedBlockLayouts())
    axes.layouts.push_back(blocks);
  axes.runtimeParams = {false, true};
  axes.knobs = {QuantKnobs{},
                {ScaleOp::Reciprocal, ZeroPointOrder::AfterRounding,
                 RoundingMode::NearestAway}};
  // (3 widths × 2 signs × 2 bounds, less 1-bit narrow bounds) × 9 layouts
  // × (qcast: 2 knob sets; dcast and scast) × 2 parameter sources (runtime
  // zero points after rounding take the wide kernels).
  EXPECT_EQ(checkSweep(axes, /*packedOnly=*/true),
            (3u * 2 * 2 - 2) * 9 * (2 + 1 + 1) * 2);
}

// 4-bit dcast loads codes as laneBias + q while laneBias + z is exact
// (|z| <= 2^22); baked zero points beyond that take the widening loads.
TEST_P(AsmjitKernelTest, PackedInt4FarBakedZeroPoints) {
  for (const char *text : {"!quant.uniform<i4:f32, 0.5:4194305>",
                           "!quant.uniform<u4:f16, 0.75:-4194304>",
                           "tensor<3x40x!quant.uniform<i4:f32:0, {0.5:4194304, "
                           "0.25:-1099511627777, 3.0:-2}>>"}) {
    Expected<TypeDescriptor> type = parseTypeOrError(text);
    ASSERT_TRUE(type) << text << ": " << type.status().message();
    Expected<KernelSpec> spec = lowerToKernelSpec(*type, KernelOp::DCast, {});
    ASSERT_TRUE(spec) << text << ": " << spec.status().message();
    Expected<CompiledCode> code = backend_->compile(*spec);
    ASSERT_TRUE(code) << code.status().message();
    KernelTester tester(*spec, qjit::testing::testSeed(),
                        {.lanes = 40, .largeSize = 1000});
    EXPECT_TRUE(tester.check(code->entry)) << text;
  }
}

TEST_P(AsmjitKernelTest, RefusesF64ArithmeticOnF32Values) {
  // The pytorch preset's per-axis dcast (compute f64, expressed f32) is
  // llvm's: asmjit says so rather than computing in f32.
  LoweringOptions options = loweringForPreset(SemanticsPreset::PyTorch);
  Expected<TypeDescriptor> type =
      parseTypeOrError("tensor<8x3x!quant.uniform<i8:f32:1, {0.7771:-5, "
                       "0.1:3, 3.0}>>");
  ASSERT_TRUE(type) << type.status().message();
  Expected<KernelSpec> spec =
      lowerToKernelSpec(*type, KernelOp::DCast, options);
  ASSERT_TRUE(spec) << spec.status().message();
  ASSERT_EQ(spec->compute, ValueType::F64);
  EXPECT_EQ(backend_->fit(*spec), KernelFit::Unsupported);
  Expected<CompiledCode> code = backend_->compile(*spec);
  ASSERT_FALSE(code);
  EXPECT_EQ(code.status().code(), ErrorCode::Unsupported);
}

// Blockwise runs of whole unrolled iterations, per-axis runs (long ones,
// and periods of per-element tables) and per-tensor packed sources stream
// outputs above 8 MiB that start on a vector boundary (the other one
// stores through the caches): f32 dcast outputs, and i8 qcast ones of the
// checked division.
TEST_P(AsmjitKernelTest, BlocksAndPackedCodesStreamPastTheCache) {
  struct Case {
    const char *type;
    KernelOp op;
    size_t n; ///< 8 MiB of output and 3 blocks of 4 × 32 (blockwise).
  };
  for (Case c : {Case{"!quant.uniform<i4:f32, 0.5:1>", KernelOp::DCast,
                      (size_t(2) << 20) + 384},
                 Case{"!quant.uniform<i8:f32, 0.5:1>", KernelOp::DCast,
                      (size_t(2) << 20) + 384},
                 Case{"!quant.uniform<i8:f32, 0.5:1>", KernelOp::QCast,
                      (size_t(8) << 20) + 384}}) {
    Expected<TypeDescriptor> type = parseTypeOrError(c.type);
    ASSERT_TRUE(type) << c.type << ": " << type.status().message();
    Expected<KernelSpec> spec = lowerToKernelSpec(*type, c.op, {});
    ASSERT_TRUE(spec) << c.type << ": " << spec.status().message();
    // Per-tensor (packed only), blocks of 32 (4 of them one at a time, 16
    // in groups of 8 with and without zero points), and for dcast runs of
    // 2048 and per-axis tables of 64 elements (baked).
    struct Layout {
      int64_t inner, channels;
    };
    for (Layout layout : {Layout{0, 0}, Layout{32, 4}, Layout{32, 16},
                          Layout{2048, 4}, Layout{1, 64}}) {
      const int64_t inner = layout.inner;
      if ((inner == 0 && !spec->storage.packed) ||
          (inner != 0 && inner != 32 && c.op != KernelOp::DCast))
        continue;
      if (inner) {
        spec->layout.kind = LayoutSpec::Kind::PerAxis;
        spec->layout.channels = layout.channels;
        spec->layout.inner = inner;
        spec->params = {};
        spec->params.runtime = inner != 1; // The tester passes them.
        for (int64_t k = 0; inner == 1 && k < 64; ++k) {
          spec->params.scales.push_back(0.25 + 0.01 * double(k));
          spec->params.zeroPoints.push_back(k % 5 - 2);
        }
      }
      Expected<CompiledCode> code = backend_->compile(*spec);
      ASSERT_TRUE(code) << code.status().message();
      KernelTester::Options options;
      options.mostlyZeroZeroPoints = layout.channels == 16;
      KernelTester tester(*spec, qjit::testing::testSeed(), options);
      // Whole periods; per-tensor: an odd tail.
      size_t period = inner ? size_t(spec->layout.channels * inner) : 1;
      size_t n = inner ? (c.n + period - 1) / period * period : c.n + 5;
      // The groups' case streams only (the offset output takes the
      // regular copy, which other tests cover).
      for (size_t dstOffset : {0, 4}) {
        if (dstOffset != 0 && layout.channels == 16)
          continue;
        EXPECT_TRUE(tester.checkOnce(code->entry, n, 0, dstOffset))
            << spec->canonicalString() << " output offset " << dstOffset;
      }
    }
  }
}

TEST_P(AsmjitKernelTest, PackedExpressedTypes) {
  SweepAxes axes;
  axes.ops = {KernelOp::QCast, KernelOp::DCast};
  axes.widths = {1, 2, 4};
  axes.expressed = {ValueType::F16, ValueType::BF16, ValueType::F64};
  axes.layouts = {LayoutSpec{}, testing::representativeLayouts()[2]};
  axes.runtimeParams = {false, true};
  axes.knobs = testing::allKnobs();
  EXPECT_GT(checkSweep(axes, /*packedOnly=*/true), 0u);
}

/// Packed sources that end right before an inaccessible page: no read
/// goes past the buffer (the tester's guard bytes only see writes).
TEST_P(AsmjitKernelTest, PackedReadsStopAtTheBufferEnd) {
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  void *mapped = mmap(nullptr, 2 * page, PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(mapped, MAP_FAILED);
  uint8_t *pageEnd = static_cast<uint8_t *>(mapped) + page;
  ASSERT_EQ(mprotect(pageEnd, page, PROT_NONE), 0);
  std::mt19937_64 rng(qjit::testing::testSeed());
  SweepAxes axes;
  axes.ops = {KernelOp::DCast, KernelOp::SCast};
  axes.widths = {1, 2, 4};
  // Runs that start inside a byte: the blocks of 37.
  axes.layouts = {LayoutSpec{}, testing::representativeLayouts()[2],
                  testing::packedBlockLayouts()[1]};
  std::vector<KernelSpec> specs = testing::specSweep(axes);
  SweepAxes wide = axes; // f64 results: the wide kernels.
  wide.ops = {KernelOp::DCast};
  wide.expressed = {ValueType::F64};
  for (const KernelSpec &spec : testing::specSweep(wide))
    specs.push_back(spec);
  // Packed NF4 and f4E2M1FN: dcast only (their qcast and scast fall back).
  SweepAxes tables = axes;
  tables.ops = {KernelOp::DCast};
  tables.widths = {};
  tables.compact = testing::compactStorages();
  tables.expressed = {ValueType::F32, ValueType::F64};
  for (const KernelSpec &spec : testing::specSweep(tables))
    specs.push_back(spec);
  for (const KernelSpec &spec : specs) {
    if (!spec.storage.packed)
      continue;
    Expected<CompiledCode> code = backend_->compile(spec);
    ASSERT_TRUE(code) << code.status().message();
    auto kernel = reinterpret_cast<KernelFn>(const_cast<void *>(code->entry));
    size_t period =
        static_cast<size_t>(spec.layout.kind == LayoutSpec::Kind::PerAxis
                                ? spec.layout.channels * spec.layout.inner
                                : 1);
    for (size_t n = 0; n <= std::max<size_t>(80, 3 * period); n += period) {
      size_t inBytes = storageBytes(spec.storage, n);
      size_t outBytes = spec.op == KernelOp::DCast
                            ? expressedBytes(spec.expressed, n)
                            : inBytes;
      uint8_t *src = pageEnd - inBytes;
      for (size_t b = 0; b < inBytes; ++b)
        src[b] = static_cast<uint8_t>(rng());
      std::vector<uint8_t> expected(outBytes), actual(outBytes);
      ASSERT_TRUE(runReference(spec, src, expected.data(), n));
      kernel(src, actual.data(), n);
      ASSERT_EQ(actual, expected) << spec.canonicalString() << " n=" << n;
    }
  }
  munmap(mapped, 2 * page);
}

TEST_P(AsmjitKernelTest, OutputsBeyondTheCachesStreamExactly) {
  SweepAxes axes;
  axes.ops = {KernelOp::DCast};
  axes.signedness = {true};
  axes.packed = false;
  std::vector<KernelSpec> specs = testing::specSweep(axes);
  ASSERT_FALSE(specs.empty());
  Expected<CompiledCode> code = backend_->compile(specs[0]);
  ASSERT_TRUE(code) << code.status().message();
  KernelTester tester(specs[0], qjit::testing::testSeed());
  // 8 MiB of f32 output and more: non-temporal stores after a peel to the
  // vector boundary; an output not 4-byte aligned takes the regular path.
  const size_t n = (size_t(2) << 20) + 13;
  for (size_t dstOffset : {0u, 4u, 3u})
    EXPECT_TRUE(tester.checkOnce(code->entry, n, 1, dstOffset));

  // f64 outputs (the wide kernels) stream too.
  axes.expressed = {ValueType::F64};
  specs = testing::specSweep(axes);
  ASSERT_FALSE(specs.empty());
  code = backend_->compile(specs[0]);
  ASSERT_TRUE(code) << code.status().message();
  KernelTester wideTester(specs[0], qjit::testing::testSeed());
  const size_t wideN = (size_t(1) << 20) + 13;
  for (size_t dstOffset : {0u, 3u})
    EXPECT_TRUE(wideTester.checkOnce(code->entry, wideN, 1, dstOffset));

  // Packed codes in: the peel ends on a whole input byte (an output 8
  // bytes past a vector boundary: 6 elements, 3 bytes), then streams.
  axes.expressed = {ValueType::F32};
  axes.widths = {4};
  axes.packed = true;
  specs = testing::specSweep(axes);
  auto packed =
      std::find_if(specs.begin(), specs.end(),
                   [](const KernelSpec &s) { return s.storage.packed; });
  ASSERT_NE(packed, specs.end());
  code = backend_->compile(*packed);
  ASSERT_TRUE(code) << code.status().message();
  KernelTester packedTester(*packed, qjit::testing::testSeed());
  EXPECT_TRUE(packedTester.checkOnce(code->entry, n, 1, 8));
}

TEST_P(AsmjitKernelTest, UncoveredSpecsAreRefused) {
  SweepAxes axes;
  axes.widths = {4, 32};
  axes.expressed = {ValueType::F32, ValueType::F64};
  checkSweep(axes);
}

INSTANTIATE_TEST_SUITE_P(HostIsaLevels, AsmjitKernelTest,
                         ::testing::ValuesIn(hostLevels()),
                         [](const ::testing::TestParamInfo<IsaLevel> &info) {
                           return std::string(isaLevelName(info.param));
                         });

} // namespace
} // namespace qjit
