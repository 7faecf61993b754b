//===- AArch64KernelTest.cpp - AArch64 kernels, bit-exact under qemu ------===//
//
// Both backends emit AArch64 code (Backend::emitForTarget) for a sweep of
// specs; each kernel runs on the KernelTester's inputs (special values,
// ties, every tail, misaligned buffers, poisoned and guarded outputs)
// inside one qemu-aarch64-static process per sweep, and its output must
// equal the scalar reference byte for byte. Every spec of the sweeps is in
// both backends' coverage: a refusal fails the test. Dynamic qcast
// (llvm's) is checked the same way, its parameters too.
//
//===----------------------------------------------------------------------===//
#include "DynamicTester.h"
#include "KernelTester.h"
#include "QemuRunner.h"
#include "TestSeed.h"

#include "qjit/internal/Backend.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <tuple>

namespace qjit::testing {
namespace {

using ::testing::HasSubstr;

AsmOptions aarch64() {
  AsmOptions options;
  options.triple = "aarch64-linux-gnu";
  return options;
}

/// Knob sets for the layout sweeps. asmjit: the five presets plus the two
/// combinations they leave out (reciprocal and nearest-away before
/// rounding, toward-zero after rounding). LLVM compiles ~50× slower and
/// lowers knobs independently of the layout (every knob × layout runs on
/// x86 in tests/jit), so it takes one knob set per zero-point order and
/// scale op.
std::vector<QuantKnobs> layoutKnobs(const std::string &backend) {
  if (backend == "llvm")
    return {knobsForPreset(SemanticsPreset::Default),
            knobsForPreset(SemanticsPreset::PyTorch),
            knobsForPreset(SemanticsPreset::TfLite)};
  std::vector<QuantKnobs> knobs;
  for (SemanticsPreset preset :
       {SemanticsPreset::Default, SemanticsPreset::Mlir, SemanticsPreset::Onnx,
        SemanticsPreset::PyTorch, SemanticsPreset::TfLite})
    knobs.push_back(knobsForPreset(preset));
  knobs.push_back({ScaleOp::Reciprocal, ZeroPointOrder::BeforeRounding,
                   RoundingMode::NearestAway});
  knobs.push_back({ScaleOp::Divide, ZeroPointOrder::AfterRounding,
                   RoundingMode::TowardZero});
  return knobs;
}

struct Sweep {
  const char *name;
  SweepAxes axes;
};

Sweep perTensorSweep(bool runtime) {
  SweepAxes axes;
  axes.widths = {8, 16};
  axes.narrowBounds = true;
  axes.expressed = {ValueType::F32, ValueType::F16};
  axes.knobs = allKnobs();
  axes.runtimeParams = {runtime};
  return {runtime ? "PerTensorRuntime" : "PerTensorBaked", axes};
}

Sweep layoutSweep(bool runtime, const std::string &backend) {
  SweepAxes axes;
  axes.widths = {8, 16};
  axes.expressed = {ValueType::F32, ValueType::F16};
  axes.knobs = layoutKnobs(backend);
  std::vector<LayoutSpec> layouts = representativeLayouts();
  axes.layouts.assign(layouts.begin() + 1, layouts.end()); // Not per-tensor.
  // Dynamic whole-extent dims before the innermost one, too.
  constexpr int64_t kDyn = LayoutSpec::kDynamic;
  for (std::vector<LayoutSpec::Dim> dims :
       {std::vector<LayoutSpec::Dim>{{4, 1}, {kDyn, kDyn}, {6, 3}},
        std::vector<LayoutSpec::Dim>{
            {2, 1}, {kDyn, kDyn}, {3, 1}, {kDyn, kDyn}}}) {
    LayoutSpec layout;
    layout.kind = LayoutSpec::Kind::Blocked;
    layout.dims = dims;
    axes.layouts.push_back(layout);
  }
  axes.runtimeParams = {runtime};
  return {runtime ? "LayoutsRuntime" : "LayoutsBaked", axes};
}

Sweep sweepNamed(const std::string &name, const std::string &backend) {
  if (name == "PerTensorBaked")
    return perTensorSweep(false);
  if (name == "PerTensorRuntime")
    return perTensorSweep(true);
  if (name == "LayoutsBaked")
    return layoutSweep(false, backend);
  return layoutSweep(true, backend);
}

/// Sizes: every tail of the 16-element main loop, primes, a few thousand.
/// Runtime zero points span all of int64.
KernelTester::Options testerOptions() {
  KernelTester::Options options;
  options.lanes = 16;
  options.largeSize = 1500;
  options.wideZeroPoints = true;
  return options;
}

class AArch64UnderQemu
    : public ::testing::TestWithParam<std::tuple<std::string, std::string>> {};

TEST_P(AArch64UnderQemu, BitExactAgainstReference) {
  if (std::optional<std::string> missing = missingAArch64Tools())
    GTEST_SKIP() << "AArch64 kernels cannot run here: " << *missing;
  const auto &[backendName, sweepName] = GetParam();
  Expected<std::unique_ptr<Backend>> backend =
      createBackend(backendName, IsaLevel::Avx2);
  if (!backend)
    GTEST_SKIP() << backendName << " is unavailable on this host: "
                 << backend.status().message();
  auto start = std::chrono::steady_clock::now();

  Sweep sweep = sweepNamed(sweepName, backendName);
  std::vector<KernelSpec> specs = specSweep(sweep.axes);
  std::vector<TargetCode> codes;
  std::vector<std::unique_ptr<KernelTester>> testers;
  std::vector<std::vector<KernelTester::PreparedCall>> calls(specs.size());
  codes.reserve(specs.size());
  uint64_t seed = testSeed();
  for (size_t k = 0; k < specs.size(); ++k) {
    Expected<TargetCode> code = (*backend)->emitForTarget(specs[k], aarch64());
    ASSERT_TRUE(code) << backendName << ": " << specs[k].canonicalString()
                      << ": " << code.status().message();
    codes.push_back(std::move(*code));
    testers.push_back(
        std::make_unique<KernelTester>(specs[k], seed++, testerOptions()));
    ASSERT_TRUE(testers.back()->prepareCalls(calls[k]));
  }
  std::vector<QemuKernel> kernels;
  size_t callCount = 0;
  for (size_t k = 0; k < specs.size(); ++k) {
    kernels.push_back(
        {&codes[k], &testers[k]->spec(), &testers[k]->callParams(), &calls[k]});
    callCount += calls[k].size();
  }
  auto emitted = std::chrono::steady_clock::now();

  std::vector<std::vector<QemuCallResult>> results;
  ASSERT_TRUE(runUnderQemu(kernels, results));
  size_t failures = 0;
  for (size_t k = 0; k < kernels.size() && failures < 5; ++k)
    for (size_t c = 0; c < calls[k].size(); ++c) {
      ::testing::AssertionResult same = testers[k]->compareOutput(
          calls[k][c], results[k][c].output, results[k][c].inputUnchanged);
      if (!same) {
        ADD_FAILURE() << backendName << " on AArch64: " << same.message();
        ++failures;
        break;
      }
    }
  auto done = std::chrono::steady_clock::now();
  auto ms = [](auto duration) {
    return std::chrono::duration_cast<std::chrono::milliseconds>(duration)
        .count();
  };
  std::printf("%s %s: %zu kernels, %zu calls; emit+prepare %lld ms, qemu "
              "%lld ms\n",
              backendName.c_str(), sweep.name, specs.size(), callCount,
              static_cast<long long>(ms(emitted - start)),
              static_cast<long long>(ms(done - emitted)));
}

INSTANTIATE_TEST_SUITE_P(
    Sweeps, AArch64UnderQemu,
    ::testing::Combine(::testing::Values("llvm", "asmjit"),
                       ::testing::Values("PerTensorBaked", "PerTensorRuntime",
                                         "LayoutsBaked", "LayoutsRuntime")),
    [](const auto &info) {
      return std::get<0>(info.param) + "_" + std::get<1>(info.param);
    });

/// Dynamic qcast from llvm (asmjit does not generate it): codes, scales
/// and zero points of every spec of dynamicSpecSweep(), as on x86.
TEST(AArch64UnderQemuDynamic, LlvmBitExactAgainstReference) {
  if (std::optional<std::string> missing = missingAArch64Tools())
    GTEST_SKIP() << "AArch64 kernels cannot run here: " << *missing;
  Expected<std::unique_ptr<Backend>> backend =
      createBackend("llvm", IsaLevel::Avx2);
  ASSERT_TRUE(backend) << backend.status().message();
  std::vector<KernelSpec> specs = dynamicSpecSweep();
  std::vector<TargetCode> codes;
  std::vector<std::unique_ptr<DynamicTester>> testers;
  std::vector<std::vector<DynamicTester::PreparedCall>> prepared(specs.size());
  std::vector<std::vector<KernelTester::PreparedCall>> calls(specs.size());
  uint64_t seed = testSeed();
  for (size_t k = 0; k < specs.size(); ++k) {
    Expected<TargetCode> code = (*backend)->emitForTarget(specs[k], aarch64());
    ASSERT_TRUE(code) << specs[k].canonicalString() << ": "
                      << code.status().message();
    codes.push_back(std::move(*code));
    testers.push_back(std::make_unique<DynamicTester>(specs[k], seed++));
    ASSERT_TRUE(testers.back()->prepareCalls(prepared[k]));
    for (const DynamicTester::PreparedCall &call : prepared[k])
      calls[k].push_back(call.codes);
  }
  std::vector<QemuKernel> kernels;
  for (size_t k = 0; k < specs.size(); ++k)
    kernels.push_back({&codes[k], &specs[k], &testers[k]->callParams(),
                       &calls[k], testers[k]->parameterCount(),
                       testers[k]->valueBytes(), testers[k]->scaleBytes()});
  std::vector<std::vector<QemuCallResult>> results;
  ASSERT_TRUE(runUnderQemu(kernels, results));
  size_t failures = 0;
  for (size_t k = 0; k < kernels.size() && failures < 5; ++k)
    for (size_t c = 0; c < calls[k].size(); ++c) {
      const QemuCallResult &result = results[k][c];
      ::testing::AssertionResult same = testers[k]->compareOutputs(
          prepared[k][c], result.output, result.scales, result.zeroPoints,
          result.inputUnchanged);
      if (!same) {
        ADD_FAILURE() << "llvm on AArch64: " << same.message();
        ++failures;
        break;
      }
    }
}

/// `qjit asm -mtriple=aarch64-linux-gnu` prints the listing of the very
/// bytes emitForTarget returns (and the tests above execute).
class AArch64Listing : public ::testing::TestWithParam<std::string> {};

TEST_P(AArch64Listing, AssemblyIsTheListingOfTheExecutedBytes) {
  Expected<std::unique_ptr<Backend>> backend =
      createBackend(GetParam(), IsaLevel::Avx2);
  if (!backend)
    GTEST_SKIP() << backend.status().message();
  SweepAxes axes;
  axes.signedness = {true};
  axes.expressed = {ValueType::F16};
  axes.layouts = representativeLayouts();
  axes.runtimeParams = {false, true};
  for (const KernelSpec &spec : specSweep(axes)) {
    Expected<TargetCode> code = (*backend)->emitForTarget(spec, aarch64());
    ASSERT_TRUE(code) << code.status().message();
    Expected<std::string> text = (*backend)->assembly(spec, aarch64());
    ASSERT_TRUE(text) << text.status().message();
    EXPECT_EQ(*text, code->listing);
    EXPECT_THAT(
        *text, HasSubstr("# flat image: " + std::to_string(code->bytes.size()) +
                         " bytes"));
    EXPECT_FALSE(code->bytes.empty());
    EXPECT_LT(code->entryOffset, code->bytes.size());
  }
}

TEST_P(AArch64Listing, HostTargetIsNotACrossTarget) {
  Expected<std::unique_ptr<Backend>> backend =
      createBackend(GetParam(), IsaLevel::Avx2);
  if (!backend)
    GTEST_SKIP() << backend.status().message();
  Expected<TargetCode> code =
      (*backend)->emitForTarget(specSweep({}).front(), AsmOptions{});
  ASSERT_FALSE(code);
  EXPECT_EQ(code.status().code(), ErrorCode::Unsupported);
}

INSTANTIATE_TEST_SUITE_P(Backends, AArch64Listing,
                         ::testing::Values("llvm", "asmjit"));

} // namespace
} // namespace qjit::testing
