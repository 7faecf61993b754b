//===- LlvmDivisionTest.cpp - The divider-free exact division, hard -------===//
//
// Where the target prefers it, the llvm backend divides by baked scales
// with a reciprocal and two FMA corrections (QuantArith.cpp has the
// proof); this white-box test forces that path on any host (and checks
// the divider path too). The inputs aim at where a one-ulp error would
// show: i32 storage with zero point 0, so that for
// quotients in [2^23, 2^31) the stored integer *is* the quotient, and
// exact ties k + 1/2 (and their float neighbours) for small quotients.
// Scales are random over the whole fast-path range 2^-60..2^60.
//
//===----------------------------------------------------------------------===//
#include "TestSeed.h"

#include "llvm/JitSession.h"
#include "llvm/KernelIr.h"
#include "llvm/Optimizer.h"
#include "llvm/TargetObject.h"

#include "qjit/internal/LlvmBackend.h"
#include "qjit/internal/Reference.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>

namespace qjit {
namespace {

constexpr int64_t kChannels = 256;
constexpr size_t kRows = 64;

KernelSpec perAxisI32(std::mt19937_64 &rng, RoundingMode rounding) {
  KernelSpec spec;
  spec.storage.bits = 32;
  spec.storage.min = INT32_MIN;
  spec.storage.max = INT32_MAX;
  spec.layout.kind = LayoutSpec::Kind::PerAxis;
  spec.layout.channels = kChannels;
  spec.knobs.rounding = rounding;
  std::uniform_real_distribution<double> mantissa(1.0, 2.0);
  for (int64_t c = 0; c < kChannels; ++c) {
    int exponent = static_cast<int>(rng() % 121) - 60;
    if (exponent == 60)
      exponent = 59; // Keep the scale itself <= 2^60.
    spec.params.scales.push_back(
        static_cast<float>(std::ldexp(mantissa(rng), exponent)));
    spec.params.zeroPoints.push_back(0);
  }
  return spec;
}

/// x near s·t for quotients t where the stored result shows every ulp.
float boundaryInput(std::mt19937_64 &rng, float scale) {
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  double target;
  switch (rng() % 4) {
  case 0: // Quotients the i32 result holds exactly.
    target = std::ldexp(1.0 + unit(rng), 23 + static_cast<int>(rng() % 7));
    break;
  case 1: // Ties.
    target = std::floor(unit(rng) * 1000) + 0.5;
    break;
  case 2:
    target = std::floor(unit(rng) * 8e6) + 0.5;
    break;
  default: // Tiny and huge quotients (flush and saturation paths).
    target = std::ldexp(unit(rng), static_cast<int>(rng() % 100) - 60);
    break;
  }
  if (rng() % 2)
    target = -target;
  float x = static_cast<float>(target * scale);
  int steps = static_cast<int>(rng() % 5) - 2;
  for (; steps > 0; --steps)
    x = std::nextafter(x, INFINITY);
  for (; steps < 0; ++steps)
    x = std::nextafter(x, -INFINITY);
  return x;
}

class LlvmDivision : public ::testing::TestWithParam<bool> {
protected:
  /// The kernel of `spec` for this host, with or without FMA division.
  Expected<llvmjit::JitKernel> compile(const KernelSpec &spec) {
    using namespace llvmjit;
    TargetConfig config = hostTargetConfig(hostIsaLevel());
    config.vector.fmaDivision = GetParam();
    if (!session_) {
      Expected<std::shared_ptr<JitSession>> session =
          JitSession::create(config);
      if (!session)
        return session.status();
      session_ = *session;
    }
    std::string name = "division_" + std::to_string(counter_++);
    auto context = std::make_unique<llvm::LLVMContext>();
    Expected<std::unique_ptr<llvm::Module>> module =
        buildKernelModule(*context, spec, config.vector, name);
    if (!module)
      return module.status();
    Expected<std::unique_ptr<llvm::TargetMachine>> machine =
        createTargetMachine(config);
    if (!machine)
      return machine.status();
    optimizeModule(**module, **machine, kLlvmJitOptLevel);
    Expected<std::unique_ptr<llvm::MemoryBuffer>> object =
        emitObject(**module, **machine);
    if (!object)
      return object.status();
    return session_->add(std::move(*object), name);
  }

  std::shared_ptr<llvmjit::JitSession> session_;
  int counter_ = 0;
};

TEST_P(LlvmDivision, MatchesIeeeDivisionNearEveryBoundary) {
  std::mt19937_64 rng(testing::testSeed());
  for (RoundingMode rounding :
       {RoundingMode::NearestEven, RoundingMode::NearestAway,
        RoundingMode::TowardZero}) {
    for (int round = 0; round < 8; ++round) {
      KernelSpec spec = perAxisI32(rng, rounding);
      Expected<llvmjit::JitKernel> code = compile(spec);
      ASSERT_TRUE(code) << code.status().message();
      size_t n = kChannels * kRows;
      std::vector<float> input(n);
      for (size_t i = 0; i < n; ++i)
        input[i] = boundaryInput(
            rng, static_cast<float>(spec.params.scales[i % kChannels]));
      std::vector<int32_t> expected(n), actual(n);
      ASSERT_TRUE(runReference(spec, input.data(), expected.data(), n));
      reinterpret_cast<KernelFn>(const_cast<void *>(code->entry))(
          input.data(), actual.data(), n);
      for (size_t i = 0; i < n; ++i)
        ASSERT_EQ(expected[i], actual[i])
            << "x=" << input[i] << " (" << std::hexfloat << input[i]
            << ") s=" << spec.params.scales[i % kChannels] << std::defaultfloat
            << " rounding " << roundingModeName(rounding);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Path, LlvmDivision, ::testing::Bool(),
                         [](const ::testing::TestParamInfo<bool> &info) {
                           return info.param ? "Fma" : "Divider";
                         });

} // namespace
} // namespace qjit
