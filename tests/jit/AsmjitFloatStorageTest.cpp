//===- AsmjitFloatStorageTest.cpp - asmjit fp8 / fp4 kernels --------------===//
//
// What the shared sweep (CompactKernelTest) draws only at random, checked
// on purpose for asmjit's float storage kernels: the overflow edges (448,
// 464, 465, 57344, 61439, 61440), ±inf, NaN, ±0 and subnormals of f32 and
// of the formats; bounds of one sign with saturation
// off; unpacked f4E2M1FN in every layout; at every level the host runs
// (AVX2, and AVX-512 where the encoder takes zmm lanes). Listings must show
// zmm code for unpacked qcast at the AVX-512 level and AVX2 code for the
// rest, no gathers and no MXCSR access.
//
//===----------------------------------------------------------------------===//
#include "KernelTester.h"
#include "LayoutSpecs.h"
#include "TestSeed.h"

#include "qjit/QuantType.h"
#include "qjit/internal/Backend.h"
#include "qjit/internal/FloatStorage.h"
#include "qjit/internal/Reference.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <limits>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

namespace qjit {
namespace {

using ::testing::AnyOf;
using ::testing::HasSubstr;
using ::testing::Not;

StorageSpec floatStorage(FloatType format, int64_t min, int64_t max) {
  StorageSpec storage;
  storage.kind = StorageType::Kind::Float;
  storage.floatFormat = format;
  storage.bits = floatTypeBits(format);
  storage.isSigned = false;
  storage.min = min;
  storage.max = max;
  return storage;
}

StorageSpec fullRange(FloatType format) {
  int64_t largest = floatStorageLargest(format);
  return floatStorage(format, -largest, largest);
}

/// f32 values at the formats' edges, both signs, as u = x (scale 1, z 0).
std::vector<float> edgeInputs() {
  const float inf = std::numeric_limits<float>::infinity();
  std::vector<float> magnitudes = {
      0.0f,       1e-45f,     1e-40f,
      0x1p-126f, // f32 subnormals, smallest normal
      0x1p-17f,   0x1p-16f,   0x3p-17f,
      0x1p-15f,   0x1.8p-15f, // E5M2 subnormals
      0x1p-11f,   0x1p-10f,   0x3p-10f,
      0x1p-9f,    0x1.8p-9f,  0x7p-9f,
      0x1p-6f,    0.25f,      0.5f,
      0.75f,      1.25f,      1.75f,
      2.5f,       3.5f,       5.0f,
      5.5f,       6.0f,       7.0f,
      100.0f,     96.0f,      104.0f,
      288.0f,     300.0f,     416.0f,
      432.0f,     440.0f,     448.0f,
      456.0f,     463.99997f, 464.0f,
      464.00003f, 465.0f,     480.0f,
      57344.0f,   59392.0f,   61439.0f,
      61439.996f, 61440.0f,   61440.004f,
      65536.0f,   1e30f,      std::numeric_limits<float>::max(),
      inf};
  std::vector<float> inputs;
  for (float m : magnitudes) {
    inputs.push_back(m);
    inputs.push_back(-m);
  }
  for (uint32_t nan : {0x7fc00000u, 0xffc00000u, 0x7f800001u, 0xff812345u})
    inputs.push_back(std::bit_cast<float>(nan));
  return inputs;
}

class AsmjitFloatStorageTest : public ::testing::TestWithParam<IsaLevel> {
protected:
  void SetUp() override {
    Expected<std::unique_ptr<Backend>> backend =
        createAsmjitBackend(GetParam());
    if (!backend)
      GTEST_SKIP() << backend.status().message();
    backend_ = std::move(*backend);
  }

  /// Runs `spec` (baked, or runtime with the same parameters) on `src`
  /// and returns the kernel's and the reference's outputs.
  void run(const KernelSpec &spec, const void *src, size_t n,
           std::vector<uint8_t> &got, std::vector<uint8_t> &want) {
    Expected<CompiledCode> code = backend_->compile(spec);
    ASSERT_TRUE(code) << spec.canonicalString() << ": "
                      << code.status().message();
    size_t bytes = spec.op == KernelOp::QCast
                       ? storageBytes(spec.storage, n)
                       : expressedBytes(spec.expressed, n);
    got.assign(bytes, 0xA5);
    want.assign(bytes, 0x5A);
    KernelParams params;
    float scale = 1;
    double wideScale = 1;
    int64_t zero = 0;
    if (spec.params.runtime) {
      params.scales = spec.expressed == ValueType::F64
                          ? static_cast<const void *>(&wideScale)
                          : &scale;
      params.zeroPoints = &zero;
      reinterpret_cast<ParamKernelFn>(const_cast<void *>(code->entry))(
          src, got.data(), n, &params);
    } else {
      reinterpret_cast<KernelFn>(const_cast<void *>(code->entry))(
          src, got.data(), n);
    }
    ASSERT_TRUE(runReference(spec, src, want.data(), n,
                             spec.params.runtime ? &params : nullptr));
  }

  /// qcast of `inputs` (f32 or f64, one-byte codes): every code the
  /// reference's.
  template <typename T>
  void expectQcastMatches(const KernelSpec &spec,
                          const std::vector<T> &inputs) {
    using Bits = std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>;
    std::vector<uint8_t> got, want;
    run(spec, inputs.data(), inputs.size(), got, want);
    for (size_t i = 0; i < inputs.size(); ++i)
      EXPECT_EQ(int(got[i]), int(want[i]))
          << spec.canonicalString() << " x = " << inputs[i] << " (0x"
          << std::hex << std::bit_cast<Bits>(inputs[i]) << ")";
  }

  std::unique_ptr<Backend> backend_;
};

KernelSpec unitSpec(KernelOp op, const StorageSpec &storage, bool saturate,
                    bool runtime) {
  KernelSpec spec;
  spec.op = op;
  spec.storage = storage;
  spec.knobs.saturate = saturate;
  if (runtime) {
    spec.params.runtime = true;
  } else {
    spec.params.scales = {1.0};
    spec.params.zeroPoints = {0};
  }
  EXPECT_TRUE(verifyKernelSpec(spec)) << spec.canonicalString();
  return spec;
}

/// Scale 1, zero point 0 qcasts of `expressed` values (computed in it) to
/// each storage, saturating and not, baked and at run time.
std::vector<KernelSpec> qcastSpecs(const std::vector<StorageSpec> &storages,
                                   ValueType expressed) {
  std::vector<KernelSpec> specs;
  for (const StorageSpec &storage : storages)
    for (bool saturate : {true, false})
      for (bool runtime : {false, true}) {
        if (!saturate && storage.floatFormat == FloatType::F4E2M1FN)
          continue; // Lowering keeps f4 saturating.
        KernelSpec spec = unitSpec(KernelOp::QCast, storage, saturate, runtime);
        spec.expressed = expressed;
        spec.compute = expressed;
        EXPECT_TRUE(verifyKernelSpec(spec)) << spec.canonicalString();
        specs.push_back(spec);
      }
  return specs;
}

TEST_P(AsmjitFloatStorageTest, QcastEdgesMatchTheReference) {
  std::vector<float> inputs = edgeInputs();
  std::vector<StorageSpec> storages = {
      fullRange(FloatType::F8E4M3FN), fullRange(FloatType::F8E5M2),
      fullRange(FloatType::F4E2M1FN),
      floatStorage(FloatType::F8E4M3FN, -100, 300),
      // Bounds of one sign: an overflowing lane keeps v's sign.
      floatStorage(FloatType::F8E4M3FN, 0, 300),
      floatStorage(FloatType::F8E4M3FN, 10, 448),
      floatStorage(FloatType::F8E4M3FN, -300, -10),
      floatStorage(FloatType::F8E4M3FN, 0, 0),
      floatStorage(FloatType::F8E5M2, -57344, 0)};
  for (const KernelSpec &spec : qcastSpecs(storages, ValueType::F32))
    expectQcastMatches(spec, inputs);
}

/// f64 inputs narrow to f32 lanes (X86WideCompactGenerators.cpp): ±0
/// keeps its sign through the narrowing, and nonzero values far below the
/// f32 range stay nonzero (−0 clamps to itself against a min of 0, a tiny
/// negative value to +0). A fuzzer found −0 stored as +0 there.
TEST_P(AsmjitFloatStorageTest, QcastF64TinyAndZeroMatchTheReference) {
  std::vector<double> inputs;
  for (float x : edgeInputs())
    inputs.push_back(x);
  for (double m :
       {0x1p-1074, 1e-300, 0x1p-150, 0x1p-149, 0x1.8p-149, 0x1p-101, 0x1p-100,
        0x1.0000000000001p-100, 0x1p-99, 1e-40, 0x1p-17 - 0x1p-60, 1e300,
        std::numeric_limits<double>::infinity()}) {
    inputs.push_back(m);
    inputs.push_back(-m);
  }
  std::vector<StorageSpec> storages = {
      fullRange(FloatType::F8E4M3FN),
      fullRange(FloatType::F8E5M2),
      fullRange(FloatType::F4E2M1FN),
      floatStorage(FloatType::F8E5M2, 0, 28655),
      floatStorage(FloatType::F8E4M3FN, 0, 300),
      floatStorage(FloatType::F8E4M3FN, -300, 0),
      floatStorage(FloatType::F8E4M3FN, 0, 0)};
  for (const KernelSpec &spec : qcastSpecs(storages, ValueType::F64))
    expectQcastMatches(spec, inputs);
}

TEST_P(AsmjitFloatStorageTest, CheckedReciprocalQcastOnBothSidesOfTheCheck) {
  // Baked scales whose fl(1/s) is inexact (where a kernel multiplying by
  // it would need a check): inputs a few ulps around every code and every
  // midpoint, quotients around ±2^-150 (x · fl(1/s) and x / s may round
  // to zero differently), zeros of both signs and the edge inputs. Scales
  // in [2^-32, 1] take the clamped input with Markstein's correction in
  // half the main loop's vectors (X86FloatQuantizeBody.cpp): quotients
  // also around the clamp (a quarter-quantum below the largest code),
  // beyond the format and around 2^-30, where the correction's residual
  // may stop being exact; every input once in each kind of vector.
  for (FloatType format :
       {FloatType::F8E4M3FN, FloatType::F8E5M2, FloatType::F4E2M1FN})
    for (float scale : {3.0f, 0.0137f, 1.1f, 0x1.8p-60f, 0x1.3p59f,
                        0x1.fffffep-1f, 0.75f, 0x1.8p-32f}) {
      KernelSpec spec =
          unitSpec(KernelOp::QCast, fullRange(format), true, false);
      spec.params.scales = {scale};
      FloatStorageFormat f = floatStorageFormat(format);
      std::vector<float> inputs = edgeInputs();
      auto around = [&](double quotient, int ulps) {
        float x = static_cast<float>(quotient * scale);
        for (int step = 0; step < ulps; ++step)
          x = std::nextafter(x, -1e30f);
        for (int step = 0; step <= 2 * ulps; ++step) {
          inputs.push_back(x);
          x = std::nextafter(x, 1e30f);
        }
      };
      for (uint32_t code = 0; code + 1 < f.signBit(); ++code) {
        double value = decodeFloatStorage(f, code);
        double next = decodeFloatStorage(f, code + 1);
        if (std::isnan(value) || std::isnan(next))
          continue;
        for (double sign : {1.0, -1.0}) {
          around(sign * value, 3);
          around(sign * (value + next) / 2, 3);
        }
      }
      int top = std::ilogb(f.largest);
      double quarter = std::ldexp(1.0, top - int(f.mantissaBits) - 2);
      for (double sign : {1.0, -1.0}) {
        around(sign * 0x1p-150, 4);
        around(sign * 0x1p-149, 4);
        around(sign * 0x1p-30, 4);
        around(sign * 0x1p-31, 4);
        for (double beyond :
             {-quarter, 2 * quarter, 4 * quarter, 8 * quarter, f.largest, 1e6})
          around(sign * (f.largest + beyond), 4);
        for (int k = 0; k < 8; ++k)
          inputs.push_back(static_cast<float>(sign * k * 0x1p-149));
      }
      expectQcastMatches(spec, inputs);
      inputs.insert(inputs.begin(), 8, 0.0f); // The next vector's slot.
      expectQcastMatches(spec, inputs);
    }
}

TEST_P(AsmjitFloatStorageTest, KnownCodes) {
  // semantics.md 8.2's examples.
  std::vector<float> inputs = {
      464,   465,   -0x1p-11f,
      61439, 61440, std::numeric_limits<float>::infinity()};
  std::vector<uint8_t> got, want;
  run(unitSpec(KernelOp::QCast, fullRange(FloatType::F8E4M3FN), true, false),
      inputs.data(), 3, got, want);
  EXPECT_EQ(got, (std::vector<uint8_t>{0x7E, 0x7E, 0x80}));
  run(unitSpec(KernelOp::QCast, fullRange(FloatType::F8E4M3FN), false, false),
      inputs.data(), 2, got, want);
  EXPECT_EQ(got, (std::vector<uint8_t>{0x7E, 0x7F}));
  run(unitSpec(KernelOp::QCast, fullRange(FloatType::F8E5M2), false, false),
      inputs.data() + 3, 3, got, want);
  EXPECT_EQ(got, (std::vector<uint8_t>{0x7B, 0x7C, 0x7C}));
}

TEST_P(AsmjitFloatStorageTest, Fp4AndNarrowBoundsEverywhere) {
  // The shared sweep's smaller axes leave unpacked f4E2M1FN and narrow
  // bounds to per-tensor f32; here every layout, type and parameter kind.
  testing::SweepAxes axes;
  axes.widths = {};
  axes.compact = {fullRange(FloatType::F4E2M1FN),
                  floatStorage(FloatType::F8E4M3FN, -100, 300),
                  floatStorage(FloatType::F8E5M2, 0, 57344)};
  axes.expressed = {ValueType::F16, ValueType::BF16, ValueType::F32};
  axes.layouts = testing::representativeLayouts();
  axes.runtimeParams = {false, true};
  size_t checked =
      testing::checkSweep(*backend_, axes, {.lanes = 16, .largeSize = 1031});
  // (qcast + dcast) for 3 storages, the two f8 ones also without
  // saturation; 3 types, 7 layouts, 2 parameter kinds.
  EXPECT_EQ(checked, size_t(3 * 2 + 2) * 3 * 7 * 2);
}

INSTANTIATE_TEST_SUITE_P(HostIsaLevels, AsmjitFloatStorageTest,
                         ::testing::ValuesIn(testing::runnableAsmjitLevels()),
                         [](const ::testing::TestParamInfo<IsaLevel> &info) {
                           return std::string(isaLevelName(info.param));
                         });

std::string listing(const KernelSpec &spec, const char *features) {
  Expected<std::unique_ptr<Backend>> backend =
      createAsmjitBackend(IsaLevel::Avx512);
  EXPECT_TRUE(backend) << backend.status().message();
  AsmOptions options;
  options.features = features;
  Expected<std::string> text = (*backend)->assembly(spec, options);
  EXPECT_TRUE(text) << text.status().message();
  return text ? *text : std::string();
}

TEST(AsmjitFloatStorageAssembly, VectorCodeWithoutGathersOrMxcsr) {
  for (FloatType format :
       {FloatType::F8E4M3FN, FloatType::F8E5M2, FloatType::F4E2M1FN})
    for (KernelOp op : {KernelOp::QCast, KernelOp::DCast, KernelOp::SCast})
      for (bool runtime : {false, true})
        for (const char *features : {"+avx512f", "-avx512f"}) {
          KernelSpec spec = unitSpec(op, fullRange(format), true, runtime);
          if (!runtime)
            spec.params.scales = {0.0137};
          std::string text = listing(spec, features);
          SCOPED_TRACE(spec.canonicalString() + " " + features);
          bool zmm = op == KernelOp::QCast && features[0] == '+';
          EXPECT_THAT(text, HasSubstr(zmm ? "zmm" : "ymm"));
          if (zmm) {
            // Sign lanes in a k-register, added under it.
            EXPECT_THAT(text, HasSubstr("vpcmpd k"));
            EXPECT_THAT(text, HasSubstr("vpsubusw zmm"));
            EXPECT_THAT(text, Not(HasSubstr("vblendvps")));
            EXPECT_THAT(text, Not(HasSubstr("ymm")));
          } else {
            EXPECT_THAT(text, Not(HasSubstr("zmm")));
            EXPECT_THAT(text, Not(HasSubstr("{k")));
          }
          EXPECT_THAT(text, Not(HasSubstr("gather")));
          EXPECT_THAT(text, Not(HasSubstr("mxcsr")));
        }
  KernelSpec qcast =
      unitSpec(KernelOp::QCast, fullRange(FloatType::F8E4M3FN), true, false);
  qcast.params.scales = {0.0137};
  std::string text = listing(qcast, "+avx512f");
  // The exact `divide`: vdivps, and for s <= 1 also fl(1/s) and its
  // residual; with saturation one vminps clamps |x| for both (no bounds
  // on the quotient), without it the quotient is bounded.
  EXPECT_THAT(text, HasSubstr("vdivps"));
  EXPECT_THAT(text, HasSubstr("vfnmadd231ps"));
  EXPECT_THAT(text, Not(HasSubstr("vmaxps")));
  KernelSpec unsaturated = qcast;
  unsaturated.knobs.saturate = false;
  std::string bounded = listing(unsaturated, "+avx512f");
  // The bounded quotient's residual is negated (q·s - x), so that x = -0
  // keeps its sign.
  EXPECT_THAT(bounded, HasSubstr("vfmsub231ps"));
  EXPECT_THAT(bounded, HasSubstr("vfnmadd132ps"));
  EXPECT_THAT(bounded, HasSubstr("vmaxps"));
  // Overflowing lanes take the special code under their k-mask.
  EXPECT_THAT(bounded, HasSubstr("vpmaxud zmm"));
  EXPECT_THAT(bounded, Not(HasSubstr("vblendvps")));
  KernelSpec large = qcast;
  large.params.scales = {3.7};
  EXPECT_THAT(listing(large, "+avx512f"),
              Not(AnyOf(HasSubstr("vfnmadd231ps"), HasSubstr("vfmsub231ps"))));
  // MXFP4 (packed f4E2M1FN, E8M0 runtime scales): zmm lanes, the nibbles
  // merged by EVEX stores, and x · fl(1/s) for the exact division by a
  // power of two, one vdivss per run (plan::divisionIsMultiplication).
  StorageSpec packedFp4 = fullRange(FloatType::F4E2M1FN);
  packedFp4.packed = true;
  KernelSpec mxfp4 = unitSpec(KernelOp::QCast, packedFp4, true, true);
  mxfp4.params.scaleFormat = ScaleFormat::E8M0;
  ASSERT_TRUE(verifyKernelSpec(mxfp4)) << mxfp4.canonicalString();
  std::string mx = listing(mxfp4, "+avx512f");
  EXPECT_THAT(mx, HasSubstr("vpmaddubsw zmm"));
  EXPECT_THAT(mx, HasSubstr("vpmovwb"));
  EXPECT_THAT(mx, HasSubstr("vdivss"));
  EXPECT_THAT(mx, Not(HasSubstr("vdivps")));
  EXPECT_THAT(listing(mxfp4, "-avx512f"), Not(HasSubstr("vdivps")));
  // Its blocks of 32: a run's two vectors narrow together into one 16-byte
  // store, and NaN lanes of x · fl(1/s) become 0 by one vfixupimmps.
  KernelSpec blocks = mxfp4;
  blocks.layout = testing::blocked({{2, 1}, {64, 32}});
  ASSERT_TRUE(verifyKernelSpec(blocks)) << blocks.canonicalString();
  std::string blockListing = listing(blocks, "+avx512f");
  EXPECT_THAT(blockListing, HasSubstr("vpmovwb xmmword ptr"));
  EXPECT_THAT(blockListing, HasSubstr("vfixupimmps"));
  // RNE to the format by one addition of K (X86FloatStorage.cpp).
  EXPECT_THAT(text, HasSubstr("vaddps"));
  KernelSpec dcast = qcast;
  dcast.op = KernelOp::DCast;
  for (const char *features : {"+avx512f", "-avx512f"}) {
    // f8E4M3FN's binary16 words: one vpmaddubsw per 8 codes.
    text = listing(dcast, features);
    EXPECT_THAT(text, HasSubstr("vpmaddubsw"));
    EXPECT_THAT(text, HasSubstr("vcvtph2ps"));
    EXPECT_THAT(text, Not(HasSubstr("vpmovsx")));
    // y + 1 of an unrolled block in two 128-bit halves, no lane extract
    // (a shuffle-pipe µop on Zen 1).
    EXPECT_THAT(text, Not(HasSubstr("vextracti")));
  }
}

} // namespace
} // namespace qjit
