//===- KernelFamilyTest.cpp - Every family on every backend and level -----===//
//
// Instantiated from the tables (jit/src/plan/KernelFamilies.def and
// KernelFits.def), so that a new family or fit row is tested by
// construction: each family's example with each backend at each ISA level,
// and each fit row's example with its backend at the row's level (at least
// AVX2). A kernel's fit is
// the table's, its code matches the reference (KernelTester: every tail,
// misalignments, poisoned outputs) at the levels this host runs, and it is
// generated (compile only) at the levels above.
//
//===----------------------------------------------------------------------===//
#include "KernelTester.h"
#include "TestSeed.h"

#include "plan/KernelFits.h"

#include "qjit/TypeParser.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <string>
#include <vector>

namespace qjit::testing {
namespace {

struct FamilyCase {
  std::string name; ///< gtest's: family or row, backend, level.
  std::string type;
  KernelOp op;
  bool runtimeParameters;
  std::string backend;
  IsaLevel level;
  KernelFit fit; ///< What the table says the backend's fit is.
  /// For a fit row: its condition, which fitReason() must name.
  std::string condition;
};

std::string identifier(std::string_view text) {
  std::string out;
  for (char c : text)
    out += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  return out;
}

std::vector<FamilyCase> familyCases() {
  std::vector<FamilyCase> cases;
  for (size_t k = 0; k < plan::kKernelFamilyCount; ++k) {
    auto family = static_cast<plan::KernelFamily>(k);
    for (const char *backend : {"asmjit", "llvm"})
      for (IsaLevel level : kAllIsaLevels) {
        if (std::string_view(backend) == "asmjit" && level < IsaLevel::Avx2)
          continue; // createAsmjitBackend refuses (BackendRegistry).
        // The examples meet no fit row's condition: Specialized.
        cases.push_back({identifier(plan::kernelFamilyName(family)) + "_" +
                             backend + "_" + std::string(isaLevelName(level)),
                         std::string(plan::kernelFamilyExample(family)),
                         plan::kernelFamilyOp(family), false, backend, level,
                         KernelFit::Specialized, ""});
      }
  }
  for (const plan::KernelFitRow &row : plan::kernelFitRows()) {
    IsaLevel level = std::max(row.level, IsaLevel::Avx2);
    cases.push_back(
        {"fit_" + std::string(plan::fitConditionName(row.condition)) + "_" +
             (row.family ? identifier(plan::kernelFamilyName(*row.family))
                         : std::string("any")) +
             "_" + std::string(plan::fitBackendName(row.backend)) + "_" +
             std::string(isaLevelName(level)),
         std::string(row.exampleType), row.exampleOp,
         row.exampleRuntimeParameters,
         std::string(plan::fitBackendName(row.backend)), level, row.fit,
         std::string(plan::fitConditionText(row.condition))});
  }
  return cases;
}

class KernelFamilyTest : public ::testing::TestWithParam<FamilyCase> {};

TEST_P(KernelFamilyTest, FitsAsTheTableSaysAndMatchesTheReference) {
  const FamilyCase &c = GetParam();
  Expected<TypeDescriptor> type = parseTypeOrError(c.type);
  ASSERT_TRUE(type) << type.status().message();
  LoweringOptions lowering;
  lowering.runtimeParameters = c.runtimeParameters;
  Expected<KernelSpec> spec = lowerToKernelSpec(*type, c.op, lowering);
  ASSERT_TRUE(spec) << spec.status().message();
  Expected<std::unique_ptr<Backend>> backend =
      createBackend(c.backend, c.level);
  ASSERT_TRUE(backend) << backend.status().message();
  SCOPED_TRACE(spec->canonicalString());

  EXPECT_EQ(kernelFitName((*backend)->fit(*spec)), kernelFitName(c.fit));
  std::string reason = (*backend)->fitReason(*spec);
  if (c.condition.empty())
    EXPECT_EQ(reason, "");
  else
    EXPECT_NE(reason.find(c.condition), std::string::npos) << reason;

  if (c.level > runnableIsaLevel()) {
    Expected<std::string> listing = (*backend)->assembly(*spec, {});
    EXPECT_TRUE(listing) << "compile only: " << listing.status().message();
    return;
  }
  Expected<CompiledCode> code = (*backend)->compile(*spec);
  ASSERT_TRUE(code) << code.status().message();
  KernelTester tester(*spec, testSeed());
  EXPECT_TRUE(tester.check(code->entry));
}

INSTANTIATE_TEST_SUITE_P(Tables, KernelFamilyTest,
                         ::testing::ValuesIn(familyCases()),
                         [](const ::testing::TestParamInfo<FamilyCase> &info) {
                           return info.param.name;
                         });

/// A type with runtime scales in a format other than the expressed type's
/// (docs/semantics.md 2.3), on one backend and level.
struct ScaleFormatCase {
  std::string name;
  std::string type;
  KernelOp op;
  ScaleFormat format;
  std::string backend;
  IsaLevel level;
};

/// `count` scale:zero-point pairs (the types' own; calls pass others).
std::string scaleList(size_t count) {
  std::string list = "{";
  for (size_t k = 0; k < count; ++k)
    list += (k ? ", " : "") + std::to_string(0.25 + 0.125 * (k % 5)) + ":" +
            std::to_string(static_cast<int>(k % 3) - 1);
  return list + "}";
}
/// A sub-channel type's scales: `rows` lists of `blocks` pairs.
std::string blockScaleList(size_t rows, size_t blocks) {
  std::string list = "{";
  for (size_t r = 0; r < rows; ++r)
    list += (r ? ", " : "") + scaleList(blocks);
  return list + "}";
}

struct LayoutCase {
  const char *name;
  std::string type;
  KernelOp op;
};

/// Types whose runtime scales take each of asmjit's load paths: groups of
/// eight runs (AVX2) or sixteen (AVX-512's fixed-point bracket), the
/// per-call tables of short per-axis runs, packed MXFP4 codes, f16 values
/// and f64 lanes.
std::vector<LayoutCase> scaleLoadLayouts() {
  return {
      {"blocks_qcast",
       "tensor<16x64x!quant.uniform<i8:f32:{0:1, 1:32}, " +
           blockScaleList(16, 2) + ">>",
       KernelOp::QCast},
      {"blocks_dcast",
       "tensor<16x64x!quant.uniform<u8:f32:{0:1, 1:32}, " +
           blockScaleList(16, 2) + ">>",
       KernelOp::DCast},
      {"short_runs_qcast",
       "tensor<8x3x!quant.uniform<i8:f32:1, " + scaleList(3) + ">>",
       KernelOp::QCast},
      {"mxfp4_dcast",
       "tensor<4x64x!quant.uniform<f4E2M1FN:f32:{0:1, 1:32}, " +
           blockScaleList(4, 2) + ">>",
       KernelOp::DCast},
      {"f16_blocks_qcast",
       "tensor<16x64x!quant.uniform<i8:f16:{0:1, 1:32}, " +
           blockScaleList(16, 2) + ">>",
       KernelOp::QCast},
      {"f64_qcast", "!quant.uniform<i16:f64, 0.5:1>", KernelOp::QCast},
  };
}

/// Every family's example and every scaleLoadLayouts() type that lowers
/// with runtime parameters in a format (scast reads no scales: its format
/// is always Expressed), every format that is not the type's expressed
/// one, every backend and level.
std::vector<ScaleFormatCase> scaleFormatCases() {
  std::vector<LayoutCase> types = scaleLoadLayouts();
  for (size_t k = 0; k < plan::kKernelFamilyCount; ++k) {
    auto family = static_cast<plan::KernelFamily>(k);
    types.push_back({nullptr, std::string(plan::kernelFamilyExample(family)),
                     plan::kernelFamilyOp(family)});
  }
  std::vector<ScaleFormatCase> cases;
  for (size_t t = 0; t < types.size(); ++t) {
    const LayoutCase &layout = types[t];
    std::string name =
        layout.name
            ? layout.name
            : identifier(plan::kernelFamilyName(static_cast<plan::KernelFamily>(
                  t - scaleLoadLayouts().size())));
    Expected<TypeDescriptor> type = parseTypeOrError(layout.type);
    if (!type) {
      if (layout.name) // The test reports it (KernelFamilyTest the examples).
        cases.push_back({name + "_parses", layout.type, layout.op,
                         ScaleFormat::F32, "asmjit", IsaLevel::Avx2});
      continue;
    }
    for (ScaleFormat format : {ScaleFormat::F32, ScaleFormat::F16,
                               ScaleFormat::BF16, ScaleFormat::E8M0}) {
      LoweringOptions lowering;
      lowering.runtimeParameters = true;
      lowering.scaleFormat = format;
      Expected<KernelSpec> spec = lowerToKernelSpec(*type, layout.op, lowering);
      if (!spec || spec->params.scaleFormat == ScaleFormat::Expressed)
        continue;
      for (const char *backend : {"asmjit", "llvm"})
        for (IsaLevel level : kAllIsaLevels) {
          if (std::string_view(backend) == "asmjit" && level < IsaLevel::Avx2)
            continue;
          cases.push_back({name + "_" + std::string(scaleFormatName(format)) +
                               "_" + backend + "_" +
                               std::string(isaLevelName(level)),
                           layout.type, layout.op, format, backend, level});
        }
    }
  }
  return cases;
}

class ScaleFormatFamilyTest : public ::testing::TestWithParam<ScaleFormatCase> {
};

// Both backends read every format (asmjit's x86 loads: X86Parameters.h
// emitLoadRuntimeScale and emitLoadRuntimeScales).
TEST_P(ScaleFormatFamilyTest, MatchesTheReference) {
  const ScaleFormatCase &c = GetParam();
  Expected<TypeDescriptor> type = parseTypeOrError(c.type);
  ASSERT_TRUE(type) << type.status().message();
  LoweringOptions lowering;
  lowering.runtimeParameters = true;
  lowering.scaleFormat = c.format;
  Expected<KernelSpec> spec = lowerToKernelSpec(*type, c.op, lowering);
  ASSERT_TRUE(spec) << spec.status().message();
  Expected<std::unique_ptr<Backend>> backend =
      createBackend(c.backend, c.level);
  ASSERT_TRUE(backend) << backend.status().message();
  SCOPED_TRACE(spec->canonicalString());

  EXPECT_NE(kernelFitName((*backend)->fit(*spec)),
            kernelFitName(KernelFit::Unsupported))
      << (*backend)->fitReason(*spec);
  if (c.level > runnableIsaLevel()) {
    Expected<std::string> listing = (*backend)->assembly(*spec, {});
    EXPECT_TRUE(listing) << "compile only: " << listing.status().message();
    return;
  }
  Expected<CompiledCode> code = (*backend)->compile(*spec);
  ASSERT_TRUE(code) << code.status().message();
  KernelTester tester(*spec, testSeed());
  EXPECT_TRUE(tester.check(code->entry));
}

INSTANTIATE_TEST_SUITE_P(
    Tables, ScaleFormatFamilyTest, ::testing::ValuesIn(scaleFormatCases()),
    [](const ::testing::TestParamInfo<ScaleFormatCase> &info) {
      return info.param.name;
    });

} // namespace
} // namespace qjit::testing
