//===- AsmjitKernelTest.cpp - asmjit kernels vs the reference -------------===//
//
// Every asmjit kernel the backend generates, at every ISA level this host
// supports (AVX-512, and AVX2 capped on an AVX-512 host), through the
// shared differential tester. Specs the backend does not cover yet must be
// refused with ErrorCode::Unsupported, never miscompiled.
//
//===----------------------------------------------------------------------===//
#include "KernelTester.h"
#include "LayoutSpecs.h"
#include "TestSeed.h"

#include "qjit/Backend.h"
#include "qjit/Isa.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

namespace qjit {
namespace {

using testing::KernelTester;
using testing::SweepAxes;

std::vector<IsaLevel> hostLevels() {
  std::vector<IsaLevel> levels;
  for (IsaLevel level : {IsaLevel::Avx2, IsaLevel::Avx512})
    if (hostIsaLevel() >= level)
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

  /// Checks every spec of the sweep the backend compiles; returns how
  /// many it compiled. Unsupported specs must say so.
  size_t checkSweep(const SweepAxes &axes) {
    size_t compiled = 0;
    for (const KernelSpec &spec : testing::specSweep(axes)) {
      Expected<CompiledCode> code = backend_->compile(spec);
      if (!code) {
        EXPECT_EQ(code.status().code(), ErrorCode::Unsupported)
            << spec.canonicalString() << ": " << code.status().message();
        continue;
      }
      EXPECT_EQ(code->isa, GetParam());
      ++compiled;
      KernelTester tester(spec, qjit::testing::testSeed(),
                          {.lanes = 64, .largeSize = 4099});
      EXPECT_TRUE(tester.check(code->entry)) << spec.canonicalString();
      if (HasFailure())
        break;
    }
    return compiled;
  }

  std::unique_ptr<Backend> backend_;
};

TEST_P(AsmjitKernelTest, PerTensorEveryKnob) {
  SweepAxes axes;
  axes.ops = {KernelOp::QCast};
  axes.widths = {8, 16};
  axes.packed = false;
  axes.narrowBounds = true;
  axes.knobs = testing::allKnobs();
  axes.runtimeParams = {false, true};
  // Runtime zero points with the 6 after-rounding knob sets are refused
  // (the exact int64 sum is llvm's).
  EXPECT_EQ(checkSweep(axes), 2u * 2 * 2 * (12 * 2 - 6));
}

TEST_P(AsmjitKernelTest, EveryWidthAndOp) {
  SweepAxes axes;
  axes.ops = {KernelOp::QCast, KernelOp::DCast, KernelOp::SCast};
  axes.widths = {1, 2, 3, 4, 7, 8, 9, 12, 15, 16, 17, 24};
  axes.packed = false;
  axes.narrowBounds = true;
  EXPECT_GT(checkSweep(axes), 0u);
}

TEST_P(AsmjitKernelTest, HalfAndBfloat16) {
  SweepAxes axes;
  axes.ops = {KernelOp::QCast, KernelOp::DCast};
  axes.widths = {8, 16};
  axes.packed = false;
  axes.expressed = {ValueType::F16, ValueType::BF16};
  axes.knobs = {QuantKnobs{},
                {ScaleOp::Reciprocal, ZeroPointOrder::AfterRounding,
                 RoundingMode::NearestAway}};
  axes.runtimeParams = {false, true};
  EXPECT_GT(checkSweep(axes), 0u);
}

TEST_P(AsmjitKernelTest, EveryLayout) {
  SweepAxes axes;
  axes.ops = {KernelOp::QCast, KernelOp::DCast};
  axes.widths = {8};
  axes.packed = false;
  axes.layouts = testing::representativeLayouts();
  axes.runtimeParams = {false, true};
  axes.knobs = {QuantKnobs{},
                {ScaleOp::Divide, ZeroPointOrder::AfterRounding,
                 RoundingMode::TowardZero}};
  EXPECT_GT(checkSweep(axes), 0u);
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
