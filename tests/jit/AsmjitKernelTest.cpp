//===- AsmjitKernelTest.cpp - asmjit kernels vs the reference -------------===//
//
// What only asmjit's kernels need beyond the sweeps both backends run
// (BackendSweepTest.cpp): packed int4 groups at every scale, far zero
// points of the biased loads, streaming stores, reads that stop at the
// buffer end; at every ISA level this host runs (AVX-512, and AVX2 capped
// on an AVX-512 host).
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

class AsmjitKernelTest : public ::testing::TestWithParam<IsaLevel> {
protected:
  void SetUp() override {
    Expected<std::unique_ptr<Backend>> backend =
        createAsmjitBackend(GetParam());
    ASSERT_TRUE(backend) << backend.status().message();
    backend_ = std::move(*backend);
  }

  std::unique_ptr<Backend> backend_;
};

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

// Packed i4 qcast outputs never stream; their loops prefetch the input
// (plan::kInputPrefetchBytes) whatever the call's size, here 8 MiB of
// codes and a tail, the output aligned and not.
TEST_P(AsmjitKernelTest, LargePackedQcastCallsPrefetch) {
  Expected<TypeDescriptor> type =
      parseTypeOrError("!quant.uniform<i4:f32, 0.5:1>");
  ASSERT_TRUE(type);
  Expected<KernelSpec> spec = lowerToKernelSpec(*type, KernelOp::QCast, {});
  ASSERT_TRUE(spec) << spec.status().message();
  Expected<CompiledCode> code = backend_->compile(*spec);
  ASSERT_TRUE(code) << code.status().message();
  KernelTester tester(*spec, qjit::testing::testSeed());
  for (size_t dstOffset : {0, 3})
    EXPECT_TRUE(
        tester.checkOnce(code->entry, (size_t(16) << 20) + 37, 1, dstOffset))
        << "output offset " << dstOffset;
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

INSTANTIATE_TEST_SUITE_P(HostIsaLevels, AsmjitKernelTest,
                         ::testing::ValuesIn(testing::runnableAsmjitLevels()),
                         [](const ::testing::TestParamInfo<IsaLevel> &info) {
                           return std::string(isaLevelName(info.param));
                         });

} // namespace
} // namespace qjit
