//===- X86QuantizeFormTest.cpp - Each main-loop form of asmjit's qcast ----===//
//
// asmjit's f32 qcast has one body per main-loop form
// (jit/src/asmjit/X86QuantizeForms.h). Each form here has a spec that takes
// it at a stated level, on any host: Backend::mainLoop (what `qjit spec
// --plan` prints) names it, and where the host runs the level the kernel
// matches the reference (KernelTester: every tail, misalignments,
// poisoned outputs).
//
//===----------------------------------------------------------------------===//
#include "KernelTester.h"
#include "Nf4Table.h"
#include "TestSeed.h"

#include "qjit/TypeParser.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace qjit::testing {
namespace {

struct FormCase {
  std::string name; ///< gtest's.
  std::string type;
  QuantKnobs knobs;
  bool unpacked;
  IsaLevel level;
  std::string form; ///< How Backend::mainLoop begins.
};

std::ostream &operator<<(std::ostream &os, const FormCase &c) {
  return os << c.name;
}

std::vector<FormCase> formCases() {
  const QuantKnobs defaults;
  QuantKnobs away;
  away.rounding = RoundingMode::NearestAway;
  QuantKnobs noSaturate;
  noSaturate.saturate = false;
  const std::string nf4(kNf4Quantile);
  return {
      {"FixedPointBracket", "!quant.uniform<i8:f32, 0.0173:3>", defaults, false,
       IsaLevel::Avx512, "fixed-point bracket ("},
      {"BracketedReciprocalAvx2", "!quant.uniform<i8:f32, 0.0173:3>", defaults,
       false, IsaLevel::Avx2, "bracketed reciprocal ("},
      {"CheckedReciprocal", "!quant.uniform<u8:f32, 0.0173:3>", away, false,
       IsaLevel::Avx2, "checked reciprocal ("},
      {"ExactAvx512", "!quant.uniform<u8:f32, 0.0173:3>", away, false,
       IsaLevel::Avx512, "exact ("},
      {"Exact", "!quant.uniform<i16:f32, 0.0173:3>", defaults, false,
       IsaLevel::Avx2, "exact ("},
      {"FloatEncoder", "!quant.uniform<f8E5M2:f32, 0.5>", defaults, false,
       IsaLevel::Avx2,
       "float encoder (the scaling, then the format's "
       "encoder)"},
      {"FloatEncoderMarkstein", "!quant.uniform<f8E4M3FN:f32, 0.3>", noSaturate,
       false, IsaLevel::Avx2,
       "float encoder (the scaling, then the format's encoder, Markstein"},
      {"ClampedFloatEncoder", "!quant.uniform<f8E4M3FN:f32, 0.3>", defaults,
       false, IsaLevel::Avx2,
       "clamped float encoder (|x| clamped before the "
       "scaling, Markstein"},
      {"QuantileSearch", nf4, defaults, true, IsaLevel::Avx2,
       "quantile search ("},
      {"PackedTableSearch", nf4, defaults, false, IsaLevel::Avx2,
       "packed table search ("},
  };
}

class X86QuantizeFormTest : public ::testing::TestWithParam<FormCase> {};

TEST_P(X86QuantizeFormTest, TakesItsFormAndMatchesTheReference) {
  const FormCase &c = GetParam();
  Expected<TypeDescriptor> type = parseTypeOrError(c.type);
  ASSERT_TRUE(type) << type.status().message();
  LoweringOptions lowering;
  lowering.knobs = c.knobs;
  lowering.unpacked = c.unpacked;
  Expected<KernelSpec> spec =
      lowerToKernelSpec(*type, KernelOp::QCast, lowering);
  ASSERT_TRUE(spec) << spec.status().message();
  SCOPED_TRACE(spec->canonicalString());
  Expected<std::unique_ptr<Backend>> backend = createBackend("asmjit", c.level);
  ASSERT_TRUE(backend) << backend.status().message();
  std::string loop = (*backend)->mainLoop(*spec);
  EXPECT_EQ(loop.rfind(c.form, 0), 0u) << loop;
  if (c.level > runnableIsaLevel())
    return;
  Expected<CompiledCode> code = (*backend)->compile(*spec);
  ASSERT_TRUE(code) << code.status().message();
  KernelTester tester(*spec, testSeed());
  EXPECT_TRUE(tester.check(code->entry));
}

INSTANTIATE_TEST_SUITE_P(Forms, X86QuantizeFormTest,
                         ::testing::ValuesIn(formCases()),
                         [](const auto &info) { return info.param.name; });

TEST(X86QuantizeForm, OnlyQcastWithF32ArithmeticHasOne) {
  Expected<std::unique_ptr<Backend>> backend =
      createBackend("asmjit", IsaLevel::Avx2);
  ASSERT_TRUE(backend) << backend.status().message();
  for (const char *text :
       {"!quant.uniform<i8:f32, 0.0173:3>", "!quant.uniform<i8:f64, 0.5:1>"}) {
    Expected<TypeDescriptor> type = parseTypeOrError(text);
    ASSERT_TRUE(type) << type.status().message();
    for (KernelOp op : {KernelOp::DCast, KernelOp::SCast}) {
      Expected<KernelSpec> spec = lowerToKernelSpec(*type, op, {});
      ASSERT_TRUE(spec) << spec.status().message();
      EXPECT_EQ((*backend)->mainLoop(*spec), "") << spec->canonicalString();
    }
  }
  Expected<KernelSpec> wide = lowerToKernelSpec(
      *parseTypeOrError("!quant.uniform<i8:f64, 0.5:1>"), KernelOp::QCast, {});
  ASSERT_TRUE(wide) << wide.status().message();
  EXPECT_EQ((*backend)->mainLoop(*wide), "") << wide->canonicalString();
}

} // namespace
} // namespace qjit::testing
