//===- LlvmAsmTest.cpp - Key instructions in LLVM kernels' assembly -------===//
//
// For a few golden specs, the instructions that must appear (and must
// not), not whole listings: packed converts and narrows, masked tails on
// AVX-512, no zmm when capped at AVX2, fp8 codes through binary16 words,
// NEON converts on AArch64.
//
//===----------------------------------------------------------------------===//
#include "KernelTester.h"

#include "qjit/TypeParser.h"
#include "qjit/internal/Backend.h"

#include "plan/PlanLimits.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace qjit {
namespace {

using ::testing::ContainsRegex;
using ::testing::HasSubstr;
using ::testing::Not;

KernelSpec perTensorI8(KernelOp op) {
  testing::SweepAxes axes;
  axes.ops = {op};
  axes.signedness = {true};
  return testing::specSweep(axes).at(0);
}

std::string assemblyOf(const KernelSpec &spec, IsaLevel isa,
                       const AsmOptions &options = {}) {
  Expected<std::unique_ptr<Backend>> backend = createLlvmBackend(isa);
  EXPECT_TRUE(backend) << backend.status().message();
  if (!backend)
    return "";
  Expected<std::string> text = (*backend)->assembly(spec, options);
  EXPECT_TRUE(text) << text.status().message();
  return text ? *text : "";
}

TEST(LlvmAsm, HeaderNamesSpecBackendTargetAndFeatures) {
  KernelSpec spec = perTensorI8(KernelOp::QCast);
  std::string text = assemblyOf(spec, IsaLevel::Avx2);
  EXPECT_THAT(text, HasSubstr("# spec: " + spec.canonicalString()));
  EXPECT_THAT(text, HasSubstr("# backend: llvm"));
  EXPECT_THAT(text, HasSubstr("# target: x86_64"));
  // Explicit, complete features: capped levels are switched off.
  EXPECT_THAT(text, HasSubstr("-avx512f"));
  EXPECT_THAT(text, HasSubstr("+avx2"));
}

TEST(LlvmAsm, CpuNamesItsOwnFeaturesWithinTheLevel) {
  // -mcpu takes that CPU's features, not the host's, on any host.
  KernelSpec spec = perTensorI8(KernelOp::QCast);
  AsmOptions zen1, zen4;
  zen1.cpu = "znver1";
  zen4.cpu = "znver4";
  std::string avx2Cpu = assemblyOf(spec, IsaLevel::Avx512, zen1);
  EXPECT_THAT(avx2Cpu, HasSubstr("cpu=znver1"));
  EXPECT_THAT(avx2Cpu, Not(HasSubstr("zmm")));
  EXPECT_THAT(avx2Cpu, HasSubstr("ymm"));
  EXPECT_THAT(assemblyOf(spec, IsaLevel::Avx512, zen4), HasSubstr("zmm"));
  EXPECT_THAT(assemblyOf(spec, IsaLevel::Avx2, zen4), Not(HasSubstr("zmm")));
  Expected<std::unique_ptr<Backend>> backend =
      createLlvmBackend(IsaLevel::Avx2);
  ASSERT_TRUE(backend);
  AsmOptions bogus;
  bogus.cpu = "bogus";
  Expected<std::string> text = (*backend)->assembly(spec, bogus);
  ASSERT_FALSE(text);
  EXPECT_EQ(text.status().code(), ErrorCode::InvalidArgument);
  EXPECT_THAT(text.status().message(), HasSubstr("'bogus'"));
}

TEST(LlvmAsm, Avx512QuantizeChecksConvertsNarrowsAndMasksTails) {
  std::string text = assemblyOf(perTensorI8(KernelOp::QCast), IsaLevel::Avx512);
  EXPECT_THAT(text, ContainsRegex("vcvtt?ps2dq.*zmm"));
  EXPECT_THAT(text, ContainsRegex("vpmov(s|us)?db"));
  EXPECT_THAT(text, ContainsRegex("vrndscaleps"));
  EXPECT_THAT(text, ContainsRegex("\\{%k[1-7]\\}")); // Masked tail.
  // Checked reciprocal (QuantArith.cpp): a multiply, one mask test per
  // four vectors, the divider only behind it.
  EXPECT_THAT(text, ContainsRegex("vfmadd[0-9]+ps.*zmm"));
  EXPECT_THAT(text, ContainsRegex("kortestw"));
}

TEST(LlvmAsm, RuntimeQuantizeChecksPerTensorAndPerLongRun) {
  // Runtime parameters per tensor, or in runs of at least
  // plan::kCheckedRunElements: the reciprocal and its range check once per
  // call or run, then the checked multiply (QuantArith.cpp). Runs of 32
  // divide.
  KernelSpec spec = perTensorI8(KernelOp::QCast);
  spec.params.runtime = true;
  spec.params.scales.clear();
  spec.params.zeroPoints.clear();
  KernelSpec longRuns = spec;
  longRuns.layout.kind = LayoutSpec::Kind::PerAxis;
  longRuns.layout.channels = 4;
  longRuns.layout.inner = plan::kCheckedRunElements;
  for (const KernelSpec &checked : {spec, longRuns})
    for (IsaLevel isa : {IsaLevel::Avx2, IsaLevel::Avx512}) {
      std::string text = assemblyOf(checked, isa);
      SCOPED_TRACE(checked.canonicalString());
      EXPECT_THAT(text, ContainsRegex("vfmadd[0-9]+ps")) << isaLevelName(isa);
      EXPECT_THAT(text, ContainsRegex(isa == IsaLevel::Avx512
                                          ? "kortestw"
                                          : "vmovmskps|vtestps|vptest"))
          << isaLevelName(isa);
    }
  KernelSpec shortRuns = longRuns;
  shortRuns.layout.inner = 32;
  EXPECT_THAT(assemblyOf(shortRuns, IsaLevel::Avx512),
              Not(ContainsRegex("vfmadd[0-9]+ps")));
}

TEST(LlvmAsm, Avx512DequantizeWidensAndConverts) {
  std::string text = assemblyOf(perTensorI8(KernelOp::DCast), IsaLevel::Avx512);
  EXPECT_THAT(text, ContainsRegex("vpmovsxbd"));
  EXPECT_THAT(text, ContainsRegex("vcvtdq2ps.*zmm"));
}

TEST(LlvmAsm, Avx2CapUsesNoZmm) {
  std::string text = assemblyOf(perTensorI8(KernelOp::QCast), IsaLevel::Avx2);
  EXPECT_THAT(text, ContainsRegex("vcvttps2dq.*ymm"));
  EXPECT_THAT(text, ContainsRegex("vroundps"));
  EXPECT_THAT(text, Not(HasSubstr("zmm")));
}

TEST(LlvmAsm, Fp8DequantizeThroughHalfWords) {
  // f8E4M3FN codes: one pmaddubsw per 8 codes makes the binary16 words.
  KernelSpec spec;
  spec.op = KernelOp::DCast;
  spec.storage = testing::compactStorages().at(0);
  ASSERT_EQ(spec.storage.floatFormat, FloatType::F8E4M3FN);
  spec.params.scales = {0.0137};
  spec.params.zeroPoints = {0};
  for (IsaLevel isa : {IsaLevel::Avx2, IsaLevel::Avx512}) {
    std::string text = assemblyOf(spec, isa);
    EXPECT_THAT(text, HasSubstr("vpmaddubsw"));
    EXPECT_THAT(text, HasSubstr("vcvtph2ps"));
    EXPECT_THAT(text, Not(HasSubstr("gather")));
    if (isa == IsaLevel::Avx2) {
      EXPECT_THAT(text, Not(HasSubstr("zmm")));
    }
  }
}

TEST(LlvmAsm, Mxfp4DequantizeLooksCodesUpWithPermutes) {
  // f4E2M1FN codes with E8M0 block scales at run time: each code's value
  // from a 16-entry table in registers, no gather, no bit assembly.
  Expected<TypeDescriptor> type = parseTypeOrError(
      "tensor<4x64x!quant.uniform<f4E2M1FN:f32:{0:1, 1:32}, ?>>");
  ASSERT_TRUE(type) << type.status().message();
  LoweringOptions options;
  options.runtimeParameters = true;
  options.scaleFormat = ScaleFormat::E8M0;
  Expected<KernelSpec> spec =
      lowerToKernelSpec(*type, KernelOp::DCast, options);
  ASSERT_TRUE(spec) << spec.status().message();
  for (IsaLevel isa : {IsaLevel::Avx2, IsaLevel::Avx512}) {
    std::string text = assemblyOf(*spec, isa);
    EXPECT_THAT(text, ContainsRegex("vperm(i2|t2)?(ps|d)"))
        << isaLevelName(isa);
    EXPECT_THAT(text, Not(HasSubstr("gather"))) << isaLevelName(isa);
  }
}

TEST(LlvmAsm, IntelSyntax) {
  AsmOptions options;
  options.syntax = AsmSyntax::Intel;
  std::string text =
      assemblyOf(perTensorI8(KernelOp::QCast), IsaLevel::Avx512, options);
  EXPECT_THAT(text, ContainsRegex("vcvttps2dq\\s+zmm[0-9]+, zmm[0-9]+"));
}

TEST(LlvmAsm, PackedNf4QuantizeSearchesWithBlendsAndPermutes) {
  // The binary search over input-side thresholds: the second step blends
  // by the first's mask, later ones permute by the prefix; the last step
  // and the nibble pairs are joined in bytes.
  testing::SweepAxes axes;
  axes.widths = {};
  axes.compact = {testing::compactStorages().at(5)};
  ASSERT_TRUE(axes.compact[0].packed && axes.compact[0].table.size() == 16);
  std::string text = assemblyOf(testing::specSweep(axes).at(0), IsaLevel::Avx2);
  EXPECT_THAT(text, ContainsRegex("vblendvps.*ymm"));
  EXPECT_THAT(text, ContainsRegex("vpermilps.*ymm"));
  EXPECT_THAT(text, ContainsRegex("vperm(d|ps).*ymm"));
  EXPECT_THAT(text, ContainsRegex("vpsubb.*ymm"));
  EXPECT_THAT(text, ContainsRegex("vpmaddubsw.*ymm"));
  EXPECT_THAT(text, ContainsRegex("vpshufb.*xmm"));
  EXPECT_THAT(text, Not(ContainsRegex("vdivps|vgather|vpsrld")));
}

TEST(LlvmAsm, AArch64NeonCrossTarget) {
  AsmOptions options;
  options.triple = "aarch64-linux-gnu";
  std::string quantize =
      assemblyOf(perTensorI8(KernelOp::QCast), IsaLevel::Avx2, options);
  EXPECT_THAT(quantize, HasSubstr("# target: aarch64"));
  EXPECT_THAT(quantize, ContainsRegex("fcvt(ns|zs)\tv[0-9]+\\.4s"));
  std::string dequantize =
      assemblyOf(perTensorI8(KernelOp::DCast), IsaLevel::Avx2, options);
  EXPECT_THAT(dequantize, ContainsRegex("scvtf\tv[0-9]+\\.4s"));
}

TEST(LlvmAsm, UnknownTripleIsAnError) {
  Expected<std::unique_ptr<Backend>> backend =
      createLlvmBackend(IsaLevel::Avx2);
  ASSERT_TRUE(backend);
  AsmOptions options;
  options.triple = "nonsense-unknown-none";
  Expected<std::string> text =
      (*backend)->assembly(perTensorI8(KernelOp::QCast), options);
  ASSERT_FALSE(text);
  EXPECT_EQ(text.status().code(), ErrorCode::InvalidArgument);
}

} // namespace
} // namespace qjit
