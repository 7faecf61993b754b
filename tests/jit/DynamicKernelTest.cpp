//===- DynamicKernelTest.cpp - Dynamic qcast kernels vs the reference -----===//
//
// Every backend that compiles dynamic qcast (docs/semantics.md 11), at
// every ISA level this host runs (and generating at the levels above and
// for AArch64), against runReferenceDynamic: codes, scales and zero points
// byte for byte over dynamicSpecSweep() (DynamicTester.h says what the
// inputs reach). Seeds: testSeed() (printed; QJIT_TEST_SEED replays).
//
//===----------------------------------------------------------------------===//
#include "DynamicTester.h"
#include "TestSeed.h"

#include "qjit/internal/Backend.h"

#include <gtest/gtest.h>

#include <ostream>
#include <string>
#include <vector>

namespace qjit::testing {
namespace {

struct DynamicCase {
  std::string backend;
  IsaLevel level;
};

std::vector<DynamicCase> dynamicCases() {
  std::vector<DynamicCase> cases;
  for (IsaLevel level : runnableIsaLevels()) {
    cases.push_back({"llvm", level});
    if (level >= IsaLevel::Avx2)
      cases.push_back({"asmjit", level});
  }
  return cases;
}

void PrintTo(const DynamicCase &c, std::ostream *os) {
  *os << c.backend << " at " << isaLevelName(c.level);
}

class DynamicKernelTest : public ::testing::TestWithParam<DynamicCase> {};

TEST_P(DynamicKernelTest, CodesAndParametersMatchTheReference) {
  const DynamicCase &c = GetParam();
  Expected<std::unique_ptr<Backend>> created =
      createBackend(c.backend, c.level);
  ASSERT_TRUE(created) << created.status().message();
  Backend &backend = **created;
  CompileOnlyTargets compileOnly(backend);
  uint64_t seed = testSeed();
  size_t checked = 0;
  for (const KernelSpec &spec : dynamicSpecSweep()) {
    SCOPED_TRACE(spec.canonicalString());
    compileOnly.generate(spec);
    // llvm computes every dynamic qcast; asmjit per tensor, per axis and
    // in rows of blocks, with runs of 256 or more or of whole vectors of
    // f32 values, writing scales in any format (X86DynamicQuantize.h).
    bool asmjitMakes = spec.layout.kind == LayoutSpec::Kind::PerTensor;
    if (backend.fit(spec) == KernelFit::Unsupported && c.backend == "asmjit" &&
        !asmjitMakes)
      continue;
    ASSERT_NE(backend.fit(spec), KernelFit::Unsupported);
    Expected<CompiledCode> code = backend.compile(spec);
    ASSERT_TRUE(code) << code.status().message();
    // Two testers: other dynamic extents, inputs and group flavours.
    for (int round = 0; round < 2; ++round) {
      DynamicTester tester(spec, seed++);
      ASSERT_TRUE(tester.check(code->entry));
    }
    ++checked;
  }
  EXPECT_GT(checked, c.backend == "llvm" ? 100u : 60u);
}

INSTANTIATE_TEST_SUITE_P(Backends, DynamicKernelTest,
                         ::testing::ValuesIn(dynamicCases()),
                         [](const ::testing::TestParamInfo<DynamicCase> &info) {
                           return info.param.backend + "_" +
                                  std::string(isaLevelName(info.param.level));
                         });

} // namespace
} // namespace qjit::testing
