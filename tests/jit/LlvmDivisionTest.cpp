//===- LlvmDivisionTest.cpp - The divider-free exact division, hard -------===//
//
// The llvm backend divides by baked scales with a reciprocal and two FMA
// corrections (QuantArith.cpp has the proof). These tests aim at where a
// one-ulp error would show: i32 storage with zero point 0, so that for
// quotients in [2^23, 2^31) the stored integer *is* the quotient, and
// exact ties k + 1/2 (and their float neighbours) for small quotients.
// Scales are random over the whole fast-path range 2^-60..2^60.
//
//===----------------------------------------------------------------------===//
#include "TestSeed.h"

#include "qjit/Backend.h"
#include "qjit/Reference.h"

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

TEST(LlvmDivision, MatchesIeeeDivisionNearEveryBoundary) {
  std::mt19937_64 rng(testing::testSeed());
  Expected<std::unique_ptr<Backend>> backend =
      createLlvmBackend(hostIsaLevel());
  ASSERT_TRUE(backend) << backend.status().message();
  for (RoundingMode rounding :
       {RoundingMode::NearestEven, RoundingMode::NearestAway,
        RoundingMode::TowardZero}) {
    for (int round = 0; round < 8; ++round) {
      KernelSpec spec = perAxisI32(rng, rounding);
      Expected<CompiledCode> code = (*backend)->compile(spec);
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

} // namespace
} // namespace qjit
