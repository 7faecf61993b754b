//===- AsmjitAssemblyTest.cpp - Key instructions of asmjit listings -------===//
//
// Golden specs whose listings must show the instructions that make the
// kernels fast and exact: AVX-512 saturating narrows, k-masked tails and
// embedded rounding; no zmm or k-register at all under an AVX2 cap; and
// NEON's rounding converts, saturating narrows and structure loads.
//
//===----------------------------------------------------------------------===//
#include "Nf4Table.h"
#include "ScopedEnv.h"
#include "asmjit/X86ListingSyntax.h"
#include "qjit/TypeParser.h"
#include "qjit/internal/Backend.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

namespace qjit {
namespace {

using qjit::testing::ScopedEnv;
using ::testing::HasSubstr;
using ::testing::Not;

KernelSpec specOf(const std::string &type, KernelOp op,
                  LoweringOptions options = {}) {
  Expected<TypeDescriptor> parsed = parseTypeOrError(type);
  EXPECT_TRUE(parsed) << parsed.status().message();
  Expected<KernelSpec> spec = lowerToKernelSpec(*parsed, op, options);
  EXPECT_TRUE(spec) << spec.status().message();
  return *spec;
}

AsmOptions withFeatures(std::string features) {
  AsmOptions options;
  options.features = std::move(features);
  return options;
}
AsmOptions withTriple(std::string triple) {
  AsmOptions options;
  options.triple = std::move(triple);
  return options;
}
LoweringOptions withShape(std::vector<int64_t> shape) {
  LoweringOptions options;
  options.shape = std::move(shape);
  return options;
}

class AsmjitAssemblyTest : public ::testing::Test {
protected:
  void SetUp() override {
    Expected<std::unique_ptr<Backend>> backend =
        createAsmjitBackend(IsaLevel::Avx512);
    if (!backend)
      GTEST_SKIP() << backend.status().message();
    backend_ = std::move(*backend);
  }

  std::string listing(const KernelSpec &spec, AsmOptions options) {
    Expected<std::string> text = backend_->assembly(spec, options);
    EXPECT_TRUE(text) << text.status().message();
    return text ? *text : std::string();
  }
  std::string avx512(const KernelSpec &spec) {
    return listing(spec, withFeatures("+avx512f"));
  }
  std::string avx2(const KernelSpec &spec) {
    return listing(spec, withFeatures("-avx512f"));
  }
  std::string aarch64(const KernelSpec &spec) {
    return listing(spec, withTriple("aarch64-linux-gnu"));
  }

  std::unique_ptr<Backend> backend_;
};

const char *const kI8 = "!quant.uniform<i8:f32, 0.05:-3>";
const char *const kU8 = "!quant.uniform<u8:f32, 0.05:128>";

TEST_F(AsmjitAssemblyTest, HeaderNamesSpecBackendTargetFeatures) {
  KernelSpec spec = specOf(kI8, KernelOp::QCast);
  std::string text = avx512(spec);
  EXPECT_THAT(text, HasSubstr("# spec: " + spec.canonicalString()));
  EXPECT_THAT(text, HasSubstr("# backend: asmjit"));
  EXPECT_THAT(text, HasSubstr("# target: x86_64"));
  EXPECT_THAT(text, HasSubstr("# features: "));
}

TEST(AsmjitListingSyntax, RewritesAsmjitDialectForGnuAs) {
  // Every construct of asmjit's formatter that GNU as and llvm-mc spell
  // differently; tests/tools/AsmReassemblyTest.cpp assembles whole
  // listings.
  EXPECT_EQ(asmjit_backend::gasIntelListing("  align 32\n"
                                            "L1:\n"
                                            "  short jae L1\n"
                                            "  rex mov byte ptr [rsi], r11b\n"
                                            "  vpand zmm1, zmm2, zmm3\n"
                                            "  vpor ymm1, ymm2, ymm3\n"
                                            "  lea r9, [L2]\n"
                                            "  vpshufb ymm3, ymm4, [L2+0x20]\n"
                                            "  vmovups zmm0, [rdi+r8*4]\n"
                                            "  short jmp L1    ; a comment\n"
                                            "\n"
                                            "L2:\n"
                                            "  .db 0x01, 0x02\n"
                                            "  .dw 0x0102\n"
                                            "  .dd 0x3EFFFFFF\n"
                                            "  .dq 0x0000000000000004\n"
                                            "  .repeat 8 .dd 0x80000000\n"),
            ".intel_syntax noprefix\n"
            "  .balign 32\n"
            "L1:\n"
            "  jae L1\n"
            "  mov byte ptr [rsi], r11b\n"
            "  vpandd zmm1, zmm2, zmm3\n"
            "  vpor ymm1, ymm2, ymm3\n"
            "  lea r9, [rip+L2]\n"
            "  vpshufb ymm3, ymm4, [rip+L2+0x20]\n"
            "  vmovups zmm0, [rdi+r8*4]\n"
            "  jmp L1    # a comment\n"
            "\n"
            "L2:\n"
            "  .byte 0x01, 0x02\n"
            "  .short 0x0102\n"
            "  .long 0x3EFFFFFF\n"
            "  .quad 0x0000000000000004\n"
            "  .rept 8\n"
            "  .long 0x80000000\n"
            "  .endr\n");
}

TEST_F(AsmjitAssemblyTest, ListingIsAssemblerInputAfterTheHeader) {
  std::string text = avx512(specOf(kI8, KernelOp::QCast));
  size_t body = text.find("\n.intel_syntax noprefix\n");
  ASSERT_NE(body, std::string::npos) << text;
  for (size_t line = 0; line < body; line = text.find('\n', line) + 1)
    EXPECT_EQ(text[line], '#') << text.substr(line, 80);
  EXPECT_THAT(text, HasSubstr(".balign 32"));
  EXPECT_THAT(text, Not(HasSubstr("short ")));
}

TEST_F(AsmjitAssemblyTest, Avx512QuantizeNarrowsSaturatingWithMaskedTail) {
  std::string text = avx512(specOf(kI8, KernelOp::QCast));
  EXPECT_THAT(text, HasSubstr("vdivps zmm"));
  EXPECT_THAT(text, HasSubstr("vpmovsdb"));
  EXPECT_THAT(text, HasSubstr("{k1}"));
  EXPECT_THAT(text, HasSubstr("bzhi"));
  EXPECT_THAT(text, HasSubstr("rn-sae"));
  EXPECT_THAT(text, Not(HasSubstr("mxcsr")));
  EXPECT_THAT(avx512(specOf(kU8, KernelOp::QCast)), HasSubstr("vpmovusdb"));
}

// XNNPACK's formula (x · fl(1/s), the zero point after rounding) takes the
// 16.16 fixed-point bracket: one FMA and one conversion per vector, packs,
// one verdict per 64 lanes; failing lanes round, then add z.
TEST_F(AsmjitAssemblyTest, Avx512XnnpackFormulaBracketsInFixedPoint) {
  LoweringOptions xnnpack;
  xnnpack.knobs = knobsForPreset(SemanticsPreset::Xnnpack);
  for (const char *type : {kI8, kU8}) {
    std::string text = avx512(specOf(type, KernelOp::QCast, xnnpack));
    EXPECT_THAT(text, HasSubstr("vfmadd132ps zmm0"));
    EXPECT_THAT(text, HasSubstr("vpacksswb zmm"));
    EXPECT_THAT(text, HasSubstr("kortestq"));
    EXPECT_THAT(text, HasSubstr("vrndscaleps zmm15, zmm15, 8"));
    // One byte gather with VBMI (the host's), otherwise shifts and packs.
    EXPECT_THAT(text, ::testing::AnyOf(HasSubstr("vpermt2b zmm4"),
                                       HasSubstr("vpackuswb zmm4")));
  }
}

// QJIT_X86_FEATURES=-avx512vbmi: the code of an AVX-512 host without VBMI
// (Skylake-X), whatever this host has: scripts/test-capped.sh runs the
// AVX-512 suites so on VBMI hosts.
TEST_F(AsmjitAssemblyTest, MaskedVbmiGathersWithShiftsAndPacks) {
  ScopedEnv noVbmi("QJIT_X86_FEATURES", "-avx512vbmi");
  std::string text = avx512(specOf(kI8, KernelOp::QCast));
  EXPECT_THAT(text, Not(HasSubstr("vpermt2b")));
  EXPECT_THAT(text, HasSubstr("vpackuswb zmm4"));
  EXPECT_THAT(avx512(specOf(kI8, KernelOp::DCast)), Not(HasSubstr("vpermb")));
}

TEST_F(AsmjitAssemblyTest, DivideByAPowerOfTwoMultipliesExactly) {
  std::string text =
      avx512(specOf("!quant.uniform<i8:f32, 0.25:1>", KernelOp::QCast));
  EXPECT_THAT(text, HasSubstr("vmulps zmm"));
  EXPECT_THAT(text, Not(HasSubstr("vdivps")));
}

TEST_F(AsmjitAssemblyTest, Avx512DequantizeExtendsAndConverts) {
  std::string text = avx512(specOf(kI8, KernelOp::DCast));
  EXPECT_THAT(text, HasSubstr("vpmovsxbd zmm"));
  EXPECT_THAT(text, HasSubstr("vcvtdq2ps zmm"));
  EXPECT_THAT(text, HasSubstr("{k1}{z}"));
  // Outputs far beyond the caches stream past them.
  EXPECT_THAT(text, HasSubstr("vmovntps"));
  EXPECT_THAT(text, HasSubstr("sfence"));
}

TEST_F(AsmjitAssemblyTest, Avx2CapUsesNoZmmAndNoMasks) {
  for (KernelOp op : {KernelOp::QCast, KernelOp::DCast}) {
    std::string text = avx2(specOf(kI8, op));
    EXPECT_THAT(text, HasSubstr("ymm"));
    EXPECT_THAT(text, Not(HasSubstr("zmm")));
    EXPECT_THAT(text, Not(HasSubstr("{k")));
  }
  EXPECT_THAT(avx2(specOf(kI8, KernelOp::QCast)), HasSubstr("vpacksswb"));
}

// f64 values, storage beyond 24 bits and the exact after-rounding sum are
// AVX2 code at the AVX-512 level too (X86WideGenerators.cpp): f64 lanes,
// the split zero point, no zmm and no k-masks.
TEST_F(AsmjitAssemblyTest, WideKernelsAreAvx2AtEveryLevel) {
  LoweringOptions runtimeOnnx;
  runtimeOnnx.runtimeParameters = true;
  runtimeOnnx.knobs = knobsForPreset(SemanticsPreset::Onnx);
  LoweringOptions tflite;
  tflite.knobs = knobsForPreset(SemanticsPreset::TfLite);
  std::vector<std::pair<KernelSpec, const char *>> kernels = {
      {specOf("!quant.uniform<i8:f64, 0.05:-3>", KernelOp::QCast),
       "vdivpd ymm"},
      {specOf("!quant.uniform<i16:f64, 0.05:-3>", KernelOp::DCast), "vmovntpd"},
      {specOf("!quant.uniform<u32:f32, 0.05:7>", KernelOp::QCast), "vblendvps"},
      {specOf("!quant.uniform<u32:f32, 0.05:7>", KernelOp::QCast, tflite),
       "vcvttpd2dq"},
      {specOf(kI8, KernelOp::QCast, runtimeOnnx), "vblendvpd"},
  };
  for (const auto &[spec, instruction] : kernels) {
    std::string text = avx512(spec);
    EXPECT_THAT(text, HasSubstr(instruction)) << spec.canonicalString();
    EXPECT_THAT(text, Not(HasSubstr("zmm"))) << spec.canonicalString();
    EXPECT_THAT(text, Not(HasSubstr("{k"))) << spec.canonicalString();
  }
  EXPECT_THAT(
      avx512(specOf("!quant.uniform<u32:f32, 0.05:7>", KernelOp::DCast)),
      Not(HasSubstr("zmm")));
}

TEST_F(AsmjitAssemblyTest, BackendCappedAtAvx2ListsAvx2) {
  Expected<std::unique_ptr<Backend>> capped =
      createAsmjitBackend(IsaLevel::Avx2);
  ASSERT_TRUE(capped) << capped.status().message();
  Expected<std::string> text =
      (*capped)->assembly(specOf(kI8, KernelOp::QCast), {});
  ASSERT_TRUE(text) << text.status().message();
  EXPECT_THAT(*text, Not(HasSubstr("zmm")));
  Expected<CompiledCode> code =
      (*capped)->compile(specOf(kI8, KernelOp::QCast));
  ASSERT_TRUE(code) << code.status().message();
  EXPECT_EQ(code->isa, IsaLevel::Avx2);
  EXPECT_EQ(code->backend, "asmjit");
}

TEST_F(AsmjitAssemblyTest, BelowAvx2IsRefusedWithAFallbackHint) {
  Expected<std::unique_ptr<Backend>> backend =
      createAsmjitBackend(IsaLevel::Sse4);
  ASSERT_FALSE(backend);
  EXPECT_EQ(backend.status().code(), ErrorCode::Unsupported);
  EXPECT_THAT(backend.status().message(), HasSubstr("fall back"));
}

TEST_F(AsmjitAssemblyTest, PerAxisLoadsBroadcastParametersPerRun) {
  std::string text = avx512(specOf("!quant.uniform<i8:f32:0, {0.5:1, 0.25:2}>",
                                   KernelOp::QCast, withShape({2, 64})));
  EXPECT_THAT(text, HasSubstr("vbroadcastss zmm8"));
}

TEST_F(AsmjitAssemblyTest, DynamicQcastReducesRangesThenQuantizes) {
  LoweringOptions options;
  options.dynamicScheme = DynamicScheme::MinMax;
  KernelSpec spec =
      specOf("!quant.uniform<i8:f32, ?>", KernelOp::QCast, options);
  // The stub's addresses are 0 in a listing. The range pass takes hi from
  // the values' bits as signed integers, lo by vminps at AVX-512 (value
  // first: NaN never enters) and from unsigned maxima at AVX2, masks the
  // non-finite lanes on its careful path (floating point), and the
  // quantize pass narrows.
  std::string text = avx512(spec);
  EXPECT_THAT(text, HasSubstr("mov r9, 0"));
  EXPECT_THAT(text, HasSubstr("vpmaxsd zmm4, zmm4, zmm8"));
  EXPECT_THAT(text, HasSubstr("vminps zmm0, zmm8, zmm0"));
  EXPECT_THAT(text, Not(HasSubstr("vpmaxud zmm")));
  EXPECT_THAT(text, HasSubstr("vminps zmm0 {k2}, zmm8, zmm0"));
  EXPECT_THAT(text, HasSubstr("vpacksswb"));
  std::string ymm = avx2(spec);
  EXPECT_THAT(ymm, HasSubstr("vpmaxsd ymm4, ymm4, ymm8"));
  EXPECT_THAT(ymm, HasSubstr("vpmaxud ymm0, ymm0, ymm8"));
  EXPECT_THAT(ymm, HasSubstr("vandps ymm8, ymm8, ymm12"));
  EXPECT_THAT(ymm, Not(HasSubstr("zmm")));
  // f64 values at AVX2 (no 64-bit maxima): min and max, value first.
  std::string f64 =
      avx2(specOf("!quant.uniform<i8:f64, ?>", KernelOp::QCast, options));
  EXPECT_THAT(f64, HasSubstr("vminpd ymm0, ymm8, ymm0"));
}

TEST_F(AsmjitAssemblyTest, DynamicAbsMaxRowsRangeMagnitudesAndPrefetch) {
  // absmax per row: at AVX-512 pairs of loaded vectors meet in vrangeps
  // (the larger magnitude), pairs in an unsigned maximum; the quantizing
  // pass of each 16 KiB chunk prefetches the next chunk, which the range
  // pass then reads from L1 (KernelPlan::loopPrefetchBytes). A static
  // kernel prefetches 8 KiB ahead, as every qcast does.
  LoweringOptions options = withShape({4, 4096});
  options.dynamicScheme = DynamicScheme::AbsMax;
  KernelSpec spec =
      specOf("!quant.uniform<i8:f32:0, ?>", KernelOp::QCast, options);
  std::string text = avx512(spec);
  EXPECT_THAT(text, HasSubstr("vrangeps zmm8, zmm8, [r10+0x40], 0xB"));
  EXPECT_THAT(text, HasSubstr("vpmaxud zmm4, zmm4, zmm8"));
  EXPECT_THAT(text, HasSubstr("prefetcht0 [rdi+0x4000]"));
  EXPECT_THAT(text, HasSubstr("prefetcht0 [rdi+0x40C0]"));
  std::string ymm = avx2(spec);
  EXPECT_THAT(ymm, Not(HasSubstr("vrange")));
  EXPECT_THAT(ymm, HasSubstr("prefetcht0 [rdi+0x4000]"));
  LoweringOptions fixed = withShape({4, 4096});
  fixed.runtimeParameters = true;
  std::string fixedText =
      avx512(specOf("!quant.uniform<i8:f32:0, ?>", KernelOp::QCast, fixed));
  EXPECT_THAT(fixedText, HasSubstr("prefetcht0 [rdi+0x2000]"));
  EXPECT_THAT(fixedText, Not(HasSubstr("prefetcht0 [rdi+0x4000]")));
}

TEST_F(AsmjitAssemblyTest, QcastLoopsPrefetchTheirInput) {
  // Every qcast loop prefetches its input 8 KiB ahead (KernelPlan::
  // loopPrefetchBytes), in every layout's loops and in both copies of
  // i8's (streaming for calls of 8 MiB of output or more, and regular);
  // packed i4 needs no copy for large calls then.
  for (const char *type :
       {"!quant.uniform<i8:f32, 0.0137:3>", "!quant.uniform<i4:f32, 0.5:1>",
        "tensor<2x64x!quant.uniform<i4:f32:{0:1, 1:32}, "
        "{{0.5:1, 0.25:1}, {0.125:1, 0.75:1}}>>"}) {
    for (const std::string &text : {avx512(specOf(type, KernelOp::QCast, {})),
                                    avx2(specOf(type, KernelOp::QCast, {}))}) {
      size_t prefetch = text.find("prefetcht0 [rdi+0x2000]");
      ASSERT_NE(prefetch, std::string::npos) << text;
      size_t fence = text.find("sfence");
      if (fence != std::string::npos) {
        EXPECT_NE(text.find("prefetcht0 [rdi+0x2000]", fence),
                  std::string::npos)
            << text;
      }
    }
  }
  // The i4 per-tensor kernel: one run loop, no second copy.
  std::string packed =
      avx512(specOf("!quant.uniform<i4:f32, 0.5:1>", KernelOp::QCast, {}));
  EXPECT_THAT(packed, Not(HasSubstr("sfence")));
}

TEST_F(AsmjitAssemblyTest, DcastPrefetchesOnlyInLargeCalls) {
  // dcast reads a quarter of what it writes: its regular loops prefetch
  // nothing; the streaming copy for calls of 8 MiB of output does.
  std::string text =
      avx512(specOf("!quant.uniform<i8:f32, 0.0137:3>", KernelOp::DCast, {}));
  size_t prefetch = text.find("prefetcht0 [rdi+0x");
  ASSERT_NE(prefetch, std::string::npos) << text;
  size_t fence = text.find("sfence", prefetch);
  ASSERT_NE(fence, std::string::npos) << text;
  EXPECT_EQ(text.find("prefetch", fence), std::string::npos) << text;
}

TEST_F(AsmjitAssemblyTest, DynamicQcastRangesBlocksInBatchesOfRuns) {
  // Rows of blocks of 32: a vector's lanes of blocks at a time, their
  // bounds folded across lanes by shuffles (X86RangeBatchGenerator.cpp),
  // a batch with ±inf or NaN left to the run-by-run pass.
  LoweringOptions options = withShape({4, 64});
  options.dynamicScheme = DynamicScheme::AbsMax;
  KernelSpec spec =
      specOf("!quant.uniform<i8:f32:{0:1, 1:32}, ?>", KernelOp::QCast, options);
  std::string text = avx512(spec);
  EXPECT_THAT(text, HasSubstr("vshufi64x2"));
  EXPECT_THAT(text, HasSubstr("vshufi32x4"));
  EXPECT_THAT(text, HasSubstr("vpunpckhqdq"));
  EXPECT_THAT(text, HasSubstr("vshufps"));
  // absmax folds magnitudes only (vrangeps: the larger, sign cleared,
  // a signalling NaN's kept, so compared unsigned); minmax both bounds.
  EXPECT_THAT(text, HasSubstr("vrangeps"));
  EXPECT_THAT(text, HasSubstr("vpcmpud k1"));
  EXPECT_THAT(text, HasSubstr("kortestw k1, k1"));
  std::string ymm = avx2(spec);
  EXPECT_THAT(ymm, HasSubstr("vpand ymm"));
  EXPECT_THAT(ymm, HasSubstr("vperm2i128"));
  EXPECT_THAT(ymm, HasSubstr("vptest"));
  EXPECT_THAT(ymm, Not(HasSubstr("zmm")));
  spec.params.dynamic = DynamicScheme::MinMax;
  EXPECT_THAT(avx512(spec), HasSubstr("kortestw k1, k2"));
}

TEST_F(AsmjitAssemblyTest, DynamicQcastRefusesBlocksAcrossRowsAndRaggedRuns) {
  // Blocks spanning rows, runs of part of a vector, short f64 runs: each
  // group's parameters would be chosen on the host for a handful of
  // elements (llvm makes these).
  LoweringOptions options = withShape({4, 36});
  options.dynamicScheme = DynamicScheme::AbsMax;
  for (const char *type :
       {"!quant.uniform<i8:f32:{0:2, 1:12}, ?>", "!quant.uniform<i8:f32:0, ?>",
        "!quant.uniform<i8:f64:{0:1, 1:12}, ?>"}) {
    SCOPED_TRACE(type);
    KernelSpec spec = specOf(type, KernelOp::QCast, options);
    EXPECT_EQ(backend_->fit(spec), KernelFit::Unsupported);
    Expected<std::string> text = backend_->assembly(spec, {});
    ASSERT_FALSE(text);
    EXPECT_EQ(text.status().code(), ErrorCode::Unsupported);
    EXPECT_THAT(text.status().message(), HasSubstr("dynamic qcast"));
  }
}

TEST_F(AsmjitAssemblyTest, ShortRunsReadPerElementParameterTables) {
  // Last-axis per-axis: every element has the next channel's parameters,
  // so the kernel walks per-element tables instead of one run per element.
  std::string text = avx2(specOf("!quant.uniform<i8:f32:1, {0.5:1, 0.3:2}>",
                                 KernelOp::QCast, withShape({64, 2})));
  EXPECT_THAT(text, HasSubstr("lea r9"));
  EXPECT_THAT(text, HasSubstr("vdivps ymm0, ymm0, [r9]"));
}

TEST_F(AsmjitAssemblyTest, Nf4ReadsTablesWithPermutes) {
  // Unpacked NF4 as the storage of a uniform type: vpermps table reads
  // and blends (dcast main loops: vpshufb byte planes), never a gather;
  // AVX2 code also at the AVX-512 level, except qcast: one zmm vpermps of
  // a 16-entry table per search step, comparisons into k-registers.
  LoweringOptions unpacked;
  unpacked.unpacked = true;
  const std::string nf4 =
      "!quant.uniform<" + std::string(testing::kNf4Quantile) + ":f32, 0.0137>";
  for (KernelOp op : {KernelOp::QCast, KernelOp::DCast}) {
    bool zmm = op == KernelOp::QCast;
    std::string text = avx512(specOf(nf4, op, unpacked));
    EXPECT_THAT(text, HasSubstr(zmm ? "vpermps zmm" : "vpermps ymm"));
    EXPECT_THAT(text, Not(HasSubstr("vgather")));
    EXPECT_THAT(text, Not(HasSubstr(zmm ? "ymm" : "zmm")));
    EXPECT_THAT(text, HasSubstr(zmm ? "# backend: asmjit (isa avx512)"
                                    : "# backend: asmjit (isa avx2)"));
    EXPECT_THAT(text, Not(HasSubstr("vdivps"))); // Thresholds moved to x.
    if (zmm) {
      EXPECT_THAT(text, HasSubstr("vcmpps k"));
      EXPECT_THAT(text, Not(HasSubstr("vblendv")));
    }
    // dcast: whole unrolled blocks through byte shuffles.
    if (op == KernelOp::DCast) {
      EXPECT_THAT(text, HasSubstr("vpshufb ymm"));
    }
  }
  EXPECT_THAT(avx512(specOf(nf4, KernelOp::DCast, unpacked)),
              HasSubstr("vblendvps"));
}

TEST_F(AsmjitAssemblyTest, PackedNf4DcastShufflesBytePlanes) {
  // Packed NF4 (and f4E2M1FN, a 16-code table too) dcast at AVX2: 16
  // bytes split into nibbles, four vpshufb byte planes and unpacks; never
  // a gather. f32 blocks run in 128-bit registers: baked per-tensor
  // results come straight from the table (f16 / bf16 ones from two
  // planes, at the AVX-512 level too), streamed beyond the caches, other
  // parameters are applied per 4 lanes; 16-bit outputs of those take
  // 256-bit lanes.
  const std::string nf4(testing::kNf4Quantile);
  KernelSpec perTensor = specOf(nf4, KernelOp::DCast);
  ASSERT_TRUE(perTensor.storage.packed);
  KernelSpec perAxis =
      specOf(std::string("!quant.uniform<") + nf4 + ":f32:0, {0.5:1, 0.25}>",
             KernelOp::DCast, withShape({2, 64}));
  KernelSpec fp4 = specOf("!quant.uniform<f4E2M1FN:f32, 0.5>", KernelOp::DCast);
  ASSERT_TRUE(fp4.storage.packed);
  for (const KernelSpec &spec : {perTensor, perAxis, fp4}) {
    std::string text = avx2(spec);
    EXPECT_THAT(text, HasSubstr("vpshufb"));
    EXPECT_THAT(text, HasSubstr("vpunpcklwd"));
    EXPECT_THAT(text, Not(HasSubstr("vgather")));
  }
  std::string baked = avx2(perTensor);
  EXPECT_THAT(baked, HasSubstr("vpshufb xmm"));
  EXPECT_THAT(baked, HasSubstr("vmovntps"));
  EXPECT_THAT(baked, Not(HasSubstr("vmulps"))); // The table holds results.
  std::string applied = avx2(perAxis);
  EXPECT_THAT(applied, HasSubstr("vpshufb xmm"));
  EXPECT_THAT(applied, HasSubstr("vsubps xmm"));
  EXPECT_THAT(applied, HasSubstr("vmulps xmm"));
  perTensor.expressed = ValueType::BF16; // Two planes of final bf16 bits.
  std::string bf16 = avx512(perTensor);
  EXPECT_THAT(bf16, HasSubstr("# backend: asmjit (isa avx2)"));
  EXPECT_THAT(bf16, HasSubstr("vpshufb xmm"));
  perAxis.expressed = ValueType::F16; // Parameters on 256-bit lanes.
  EXPECT_THAT(avx2(perAxis), HasSubstr("vpshufb ymm"));
}

TEST_F(AsmjitAssemblyTest, PackedNibbleTablesLookUpInZmmAtAvx512) {
  // f32 dcast of packed 4-bit tables at AVX-512: each vector's 8 code
  // bytes broadcast, their nibbles placed in the dwords' low bits (one
  // vpmultishiftqb with VBMI, the host's; vpshufb and vpsrlvd without)
  // and replaced by their entries (vpermps); baked per-tensor entries are
  // the results; MXFP4's runtime E8M0 scales are prepared in groups.
  const std::string nf4(testing::kNf4Quantile);
  KernelSpec perTensor = specOf(nf4, KernelOp::DCast);
  LoweringOptions e8m0;
  e8m0.runtimeParameters = true;
  e8m0.scaleFormat = ScaleFormat::E8M0;
  KernelSpec mxfp4 =
      specOf("tensor<2x64x!quant.uniform<f4E2M1FN:f32:{0:1, 1:32}, "
             "{{1.0, 2.0}, {0.5, 4.0}}>>",
             KernelOp::DCast, e8m0);
  for (const KernelSpec &spec : {perTensor, mxfp4}) {
    std::string text = avx512(spec);
    EXPECT_THAT(text, HasSubstr("# backend: asmjit (isa avx512)"));
    EXPECT_THAT(text, HasSubstr("vpbroadcastq zmm0, qword ptr"));
    EXPECT_THAT(text, ::testing::AnyOf(HasSubstr("vpmultishiftqb zmm0"),
                                       HasSubstr("vpsrlvd zmm0")));
    EXPECT_THAT(text, HasSubstr("vpermps zmm0, zmm0, zmm24"));
    EXPECT_THAT(text, Not(HasSubstr("vpunpcklwd")));
  }
  EXPECT_THAT(avx512(perTensor), Not(HasSubstr("vmulps")));
  EXPECT_THAT(avx512(mxfp4), HasSubstr("vmulps zmm0, zmm0, zmm8"));
  ScopedEnv noVbmi("QJIT_X86_FEATURES", "-avx512vbmi");
  std::string masked = avx512(mxfp4);
  EXPECT_THAT(masked, HasSubstr("vpshufb zmm0, zmm0, zmm25"));
  EXPECT_THAT(masked, HasSubstr("vpsrlvd zmm0, zmm0, zmm26"));
  EXPECT_THAT(masked, Not(HasSubstr("vpmultishiftqb")));
}

/// The main loop of `text`: from the code alignment before the first
/// `marker` to the backward branch after it.
std::string loopAround(const std::string &text, const std::string &marker) {
  size_t at = text.find(marker);
  if (at == std::string::npos)
    return {};
  size_t start = text.rfind("align 32", at);
  size_t end = text.find("jae ", at);
  if (start == std::string::npos || end == std::string::npos)
    return {};
  return text.substr(start, end - start);
}

TEST_F(AsmjitAssemblyTest, PackedNf4QcastPairsNibblesOfPackedBytes) {
  // Packed NF4 qcast with one baked scale: its main loop looks thresholds
  // up by vpshufb of byte planes, never a variable vpermilps / vpermps
  // (one per 4 cycles on Zen 1): byte adds build the controls, the group's
  // thresholds are compared at once; the nibbles pair by vpmaddubsw, one
  // pack and one vpshufb order them, 16 bytes stored. The input is
  // compared itself; never a gather nor zmm. Runtime parameters and
  // per-axis blocks search per vector, then four vectors' bytes pack
  // through X86PackedCodes. At AVX-512 the zmm search takes them all, its
  // 64 codes merged into 32 bytes by EVEX forms.
  const std::string nf4(testing::kNf4Quantile);
  std::string uniform = std::string("!quant.uniform<") + nf4 + ":f32, 0.0137>";
  KernelSpec baked = specOf(uniform, KernelOp::QCast);
  ASSERT_TRUE(baked.storage.packed);
  std::string evex = avx512(baked);
  EXPECT_THAT(evex, HasSubstr("# backend: asmjit (isa avx512)"));
  std::string evexLoop = loopAround(evex, "vpmovwb ymmword ptr");
  ASSERT_FALSE(evexLoop.empty()) << evex;
  EXPECT_THAT(evexLoop, HasSubstr("vpermps zmm"));
  EXPECT_THAT(evexLoop, HasSubstr("vcmpps k"));
  EXPECT_THAT(evexLoop, HasSubstr("vpmaddubsw zmm"));
  EXPECT_THAT(evex, Not(HasSubstr("vdivps")));
  EXPECT_THAT(evex, Not(HasSubstr("vgather")));
  {
    std::string text = avx2(baked);
    EXPECT_THAT(text, HasSubstr("# backend: asmjit (isa avx2)"));
    std::string loop = loopAround(text, "vpmaddubsw ymm");
    ASSERT_FALSE(loop.empty()) << text;
    EXPECT_THAT(loop, HasSubstr("vpshufb ymm"));
    EXPECT_THAT(loop, HasSubstr("vpsubb ymm"));
    EXPECT_THAT(loop, HasSubstr("vpsrld ymm"));
    EXPECT_THAT(loop, HasSubstr("vpacksswb ymm"));
    EXPECT_THAT(loop, HasSubstr("vpshufb xmm"));
    EXPECT_THAT(loop, HasSubstr("vmovdqu xmmword ptr"));
    EXPECT_THAT(loop, Not(HasSubstr("vperm")));
    EXPECT_THAT(loop, Not(HasSubstr("vblendv")));
    EXPECT_THAT(text, Not(HasSubstr("vdivps"))); // Thresholds moved to x.
    EXPECT_THAT(text, Not(HasSubstr("vgather")));
    EXPECT_THAT(text, Not(HasSubstr("zmm")));
  }
  // A signed table: the same search, positions mapped to codes by a
  // byte shuffle before the nibbles pair.
  std::string signedNf4 = "!quant.uniform<!quant.quantile<i4" +
                          nf4.substr(nf4.find(':')) + ":f32, 0.0137>";
  std::string loop =
      loopAround(avx2(specOf(signedNf4, KernelOp::QCast)), "vpmaddubsw ymm");
  EXPECT_THAT(loop, HasSubstr("vpshufb ymm"));
  EXPECT_THAT(loop, Not(HasSubstr("vperm")));
  LoweringOptions runtime;
  runtime.runtimeParameters = true;
  for (const KernelSpec &spec :
       {specOf(uniform, KernelOp::QCast, runtime),
        specOf(std::string("!quant.uniform<") + nf4 + ":f32:0, {0.5, 0.25}>",
               KernelOp::QCast, withShape({2, 64}))}) {
    std::string composed = avx2(spec);
    EXPECT_THAT(composed, HasSubstr("vpermd ymm")); // Four vectors' bytes.
    EXPECT_THAT(composed, Not(HasSubstr("vblendvps")));
    EXPECT_THAT(composed, Not(HasSubstr("vgather")));
  }
}

size_t occurrences(const std::string &text, const std::string &word) {
  size_t count = 0;
  for (size_t at = text.find(word); at != std::string::npos;
       at = text.find(word, at + word.size()))
    ++count;
  return count;
}

/// Packed i4 in blocks of 32 along the last axis (the GPTQ / AWQ shape).
KernelSpec packedInt4Blocks32(KernelOp op) {
  KernelSpec spec = specOf("!quant.uniform<i4:f32, 0.5:1>", op);
  EXPECT_TRUE(spec.storage.packed);
  spec.layout.kind = LayoutSpec::Kind::PerAxis;
  spec.layout.channels = 4;
  spec.layout.inner = 32;
  spec.params.scales = {0.5, 0.25, 0.75, 1.5};
  spec.params.zeroPoints = {1, 0, -2, 3};
  return spec;
}

TEST_F(AsmjitAssemblyTest, PackedInt4Blocks32RunsAvx2CodeWithGroupedNibbles) {
  // dcast: AVX2 code at both levels; a block is one 16-byte load whose
  // nibbles byte shuffles place into float lanes (no int → float
  // conversion). qcast at AVX2: stores merge nibble pairs (at AVX-512 it
  // takes the fixed-point bracket, PackedQcastTakesTheBracketAtAvx512).
  KernelSpec dcast = packedInt4Blocks32(KernelOp::DCast);
  KernelSpec qcast = packedInt4Blocks32(KernelOp::QCast);
  for (const std::string &text : {avx512(dcast), avx2(dcast)}) {
    EXPECT_THAT(text, HasSubstr("asmjit (isa avx2)"));
    EXPECT_THAT(text, Not(HasSubstr("zmm")));
    EXPECT_THAT(text, Not(HasSubstr("{k")));
    EXPECT_THAT(text, HasSubstr("vbroadcastss ymm8"));
    EXPECT_THAT(text, HasSubstr("vbroadcasti128 ymm4, xmmword ptr [rdi]"));
    EXPECT_THAT(text, HasSubstr("vpshufb ymm3, ymm4"));
    EXPECT_THAT(text, Not(HasSubstr("vcvtdq2ps")));
    // The streamed copy fences once, then its leftover runs join the
    // regular copy's.
    EXPECT_EQ(occurrences(text, "sfence"), 1u);
  }
  // Zero points beyond the biased range: the widening loads.
  dcast.params.zeroPoints[3] = int64_t(1) << 23;
  std::string wide = avx2(dcast);
  EXPECT_THAT(wide, HasSubstr("vpmovsxbd ymm3, xmm3"));
  EXPECT_THAT(wide, HasSubstr("vcvtdq2ps"));
  std::string text = avx2(qcast);
  EXPECT_THAT(text, Not(HasSubstr("zmm")));
  EXPECT_THAT(text, HasSubstr("vpmaddubsw"));
  EXPECT_THAT(text, HasSubstr("vpermq"));
}

TEST_F(AsmjitAssemblyTest, PackedQcastTakesTheBracketAtAvx512) {
  // The fixed-point bracket's 64 bytes a step, clamped to [-8, 7], merged
  // by nibble pairs into 32 bytes (vpmovwb); single vectors 8 bytes. No
  // division in the main loop.
  std::string text = avx512(packedInt4Blocks32(KernelOp::QCast));
  EXPECT_THAT(text, HasSubstr("asmjit (isa avx512)"));
  EXPECT_THAT(text, HasSubstr("vpmaxsb zmm4, zmm4, zmm28"));
  EXPECT_THAT(text, HasSubstr("vpminsb zmm4, zmm4, zmm29"));
  EXPECT_THAT(text, HasSubstr("vpmaddubsw zmm4, zmm4, zmm31"));
  EXPECT_THAT(text, HasSubstr("vpmovwb ymmword ptr [rsi"));
  EXPECT_THAT(text, HasSubstr("vpmovwb qword ptr"));
  // 1-bit codes: the bytes' low bits collected by a mask register.
  std::string bits =
      avx512(specOf("!quant.uniform<u1:f32, 0.0137:0>", KernelOp::QCast, {}));
  EXPECT_THAT(bits, HasSubstr("vpmovb2m k3, zmm4"));
  EXPECT_THAT(bits, HasSubstr("vpminub zmm4, zmm4, zmm29"));
}

TEST_F(AsmjitAssemblyTest, NarrowInt8RangesTakeTheBracketAtAvx512) {
  // i8<-127:127> (symmetric weights): the bracket's bytes clamped below,
  // instead of a division a vector.
  std::string text = avx512(
      specOf("!quant.uniform<i8<-127:127>:f32, 0.0137>", KernelOp::QCast, {}));
  EXPECT_THAT(text, HasSubstr("vpmaxsb zmm4, zmm4, zmm28"));
  EXPECT_THAT(text, Not(HasSubstr("vpminsb")));
  EXPECT_THAT(text, HasSubstr("vmovdqu8 [rsi], zmm4"));
}

TEST_F(AsmjitAssemblyTest, SymmetricPackedInt4GroupsLoadNibblesAhead) {
  // Runtime blocks of 32 in groups of eight runs: groups whose zero points
  // are all 0 (and whose scales shift exactly) place each code's nibble on
  // top of an i32 lane and convert it, loading the next run's nibbles
  // before this run's arithmetic; the group's last run is apart.
  KernelSpec spec = packedInt4Blocks32(KernelOp::DCast);
  spec.layout.channels = 8;
  spec.params = {};
  spec.params.runtime = true;
  for (const std::string &text : {avx512(spec), avx2(spec)}) {
    EXPECT_THAT(text, HasSubstr("vpmullw ymm4, ymm4"));
    EXPECT_THAT(text, HasSubstr("vbroadcasti128 ymm4, xmmword ptr [rdi+0x10]"));
    EXPECT_THAT(text, HasSubstr("vcvtdq2ps ymm3, ymm3"));
    EXPECT_THAT(text, HasSubstr("cmp r8, 7"));
    // The other groups keep the biased loads.
    EXPECT_THAT(text, HasSubstr("vsubps ymm3, ymm3, ymm9"));
  }
  // Unsigned codes: biased loads only.
  spec.storage.isSigned = false;
  spec.storage.min = 0;
  spec.storage.max = 15;
  EXPECT_THAT(avx2(spec), Not(HasSubstr("vpmullw")));
}

TEST_F(AsmjitAssemblyTest, AArch64QuantizeUsesNeonConvertsAndNarrows) {
  std::string text = aarch64(specOf(kI8, KernelOp::QCast));
  EXPECT_THAT(text, HasSubstr("# target: aarch64-linux-gnu"));
  EXPECT_THAT(text, HasSubstr("ld1"));
  EXPECT_THAT(text, HasSubstr("st1"));
  EXPECT_THAT(text, HasSubstr("fdiv"));
  EXPECT_THAT(text, HasSubstr("fcvtns"));
  EXPECT_THAT(text, HasSubstr("sqxtn"));
  EXPECT_THAT(text, HasSubstr("sqxtn2"));

  std::string unsignedText = aarch64(specOf(kU8, KernelOp::QCast));
  EXPECT_THAT(unsignedText, HasSubstr("sqxtun"));
  EXPECT_THAT(unsignedText, HasSubstr("uqxtn"));

  LoweringOptions mlir;
  mlir.knobs = knobsForPreset(SemanticsPreset::Mlir);
  EXPECT_THAT(aarch64(specOf(kI8, KernelOp::QCast, mlir)), HasSubstr("fcvtzs"));
}

TEST_F(AsmjitAssemblyTest, AArch64DequantizeWidensAndConverts) {
  std::string text = aarch64(specOf(kU8, KernelOp::DCast));
  EXPECT_THAT(text, HasSubstr("uxtl"));
  EXPECT_THAT(text, HasSubstr("scvtf"));
  EXPECT_THAT(text, HasSubstr("fmul"));
  EXPECT_THAT(text, HasSubstr("st1"));
}

TEST_F(AsmjitAssemblyTest, AArch64RefusesWhatItDoesNotGenerate) {
  Expected<std::string> text = backend_->assembly(
      specOf("!quant.uniform<i32:f32, 0.5:1>", KernelOp::QCast),
      withTriple("aarch64-linux-gnu"));
  ASSERT_FALSE(text);
  EXPECT_EQ(text.status().code(), ErrorCode::Unsupported);
}

} // namespace
} // namespace qjit
