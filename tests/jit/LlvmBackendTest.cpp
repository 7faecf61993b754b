//===- LlvmBackendTest.cpp - LLVM kernels vs the reference ----------------===//
//
// What only the LLVM backend's kernels need beyond the sweeps both
// backends run (BackendSweepTest.cpp): their description, streaming
// stores, the pytorch preset's f64 dcast, code lifetime; at every ISA
// level this host can run (lower levels capped).
//
//===----------------------------------------------------------------------===//
#include "KernelTester.h"
#include "LayoutSpecs.h"

#include "TestSeed.h"

#include "qjit/Isa.h"
#include "qjit/TypeParser.h"
#include "qjit/internal/Backend.h"

#include <gtest/gtest.h>

namespace qjit {
namespace {

using testing::SweepAxes;

class LlvmKernelTest : public ::testing::TestWithParam<IsaLevel> {
protected:
  void SetUp() override {
    Expected<std::unique_ptr<Backend>> backend = createLlvmBackend(GetParam());
    ASSERT_TRUE(backend) << backend.status().message();
    backend_ = std::move(*backend);
  }

  std::unique_ptr<Backend> backend_;
};

TEST_P(LlvmKernelTest, CompiledCodeDescribesItself) {
  KernelSpec spec = testing::specSweep(SweepAxes{})[0];
  Expected<CompiledCode> code = backend_->compile(spec);
  ASSERT_TRUE(code) << code.status().message();
  EXPECT_EQ(code->backend, "llvm");
  EXPECT_EQ(code->isa, GetParam());
  EXPECT_GT(code->codeBytes, 0u);
  EXPECT_NE(code->owner, nullptr);
}

TEST_P(LlvmKernelTest, LargeOutputsStreamPastTheCache) {
  // Above 8 MiB of output the kernel aligns the output element by element,
  // then uses non-temporal stores; the odd size and offsets exercise both.
  KernelSpec spec = testing::specSweep(SweepAxes{})[0];
  Expected<CompiledCode> code = backend_->compile(spec);
  ASSERT_TRUE(code) << code.status().message();
  testing::KernelTester tester(spec, testing::testSeed());
  EXPECT_TRUE(tester.checkOnce(code->entry, (size_t(8) << 20) + 37, 4, 1));
}

TEST_P(LlvmKernelTest, LargeOutputsOfManyRunsStreamPastTheCache) {
  // Per-axis and blockwise calls writing 8 MiB or more stream every run
  // (each aligning its output first) and fence once; an output that is
  // not element-aligned stores through the caches.
  if (GetParam() == IsaLevel::Scalar)
    GTEST_SKIP() << "scalar kernels never stream";
  SweepAxes axes;
  axes.ops = {KernelOp::DCast};
  axes.signedness = {true};
  axes.packed = false;
  axes.layouts = {testing::perAxis(4, 32), testing::perAxis(64, 1),
                  testing::perAxis(4, 2048)};
  for (const KernelSpec &spec : testing::specSweep(axes)) {
    Expected<CompiledCode> code = backend_->compile(spec);
    ASSERT_TRUE(code) << code.status().message();
    testing::KernelTester tester(spec, qjit::testing::testSeed());
    for (size_t dstOffset : {0, 4, 1})
      EXPECT_TRUE(tester.checkOnce(code->entry, size_t(2) << 20, 0, dstOffset))
          << spec.canonicalString() << " output offset " << dstOffset;
  }
}

TEST_P(LlvmKernelTest, PyTorchPerAxisDequantizeInF64) {
  // f64 arithmetic on f32 values (LoweringOptions::perAxisDequantizeInF64):
  // last and first axis, 8 and 16 bits, scales f32 does not hold.
  LoweringOptions options = loweringForPreset(SemanticsPreset::PyTorch);
  for (const char *text :
       {"tensor<8x3x!quant.uniform<i8:f32:1, {0.7771:-5, 0.1:3, 1.0e-40:0}>>",
        "tensor<3x40x!quant.uniform<u8:f32:0, {0.123456789:128, 3.0:0, "
        "0.3:255}>>",
        "tensor<5x!quant.uniform<i16:f32:0, {1.1, 2.2:-7, 0.0001:30000, "
        "7.0e10:1, 0.5:-32768}>>"}) {
    Expected<TypeDescriptor> type = parseTypeOrError(text);
    ASSERT_TRUE(type) << text << ": " << type.status().message();
    Expected<KernelSpec> spec =
        lowerToKernelSpec(*type, KernelOp::DCast, options);
    ASSERT_TRUE(spec) << text << ": " << spec.status().message();
    ASSERT_EQ(spec->compute, ValueType::F64) << text;
    Expected<CompiledCode> code = backend_->compile(*spec);
    ASSERT_TRUE(code) << code.status().message();
    testing::KernelTester tester(*spec, testing::testSeed(),
                                 {.lanes = 64, .largeSize = 4099});
    EXPECT_TRUE(tester.check(code->entry)) << text;
  }
}

TEST_P(LlvmKernelTest, DroppingTheCodeIsSafe) {
  KernelSpec spec = testing::specSweep(SweepAxes{})[0];
  for (int round = 0; round < 3; ++round) {
    Expected<CompiledCode> code = backend_->compile(spec);
    ASSERT_TRUE(code) << code.status().message();
    testing::KernelTester tester(spec, round);
    EXPECT_TRUE(tester.checkOnce(code->entry, 100, 0, 0));
  }
}

INSTANTIATE_TEST_SUITE_P(Isa, LlvmKernelTest,
                         ::testing::ValuesIn(testing::runnableIsaLevels()),
                         [](const ::testing::TestParamInfo<IsaLevel> &info) {
                           return std::string(isaLevelName(info.param));
                         });

} // namespace
} // namespace qjit
