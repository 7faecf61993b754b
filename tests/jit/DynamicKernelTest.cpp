//===- DynamicKernelTest.cpp - Dynamic qcast kernels vs the reference -----===//
//
// Every backend that compiles dynamic qcast (docs/semantics.md 11), at
// every ISA level this host runs (and generating at the levels above and
// for AArch64), against runReferenceDynamic: codes, scales and zero points
// byte for byte, for absmax and minmax with both rules, integer widths 4
// (packed too), 8 and 32, f32 and f64, the presets' knobs, over per-tensor,
// per-axis (rows and strided channels, a dynamic row length) and blocked
// layouts. Inputs are built to reach each formula's branches: all-zero groups,
// groups of only NaN or ±inf, ±0, subnormals, ranges that overflow
// hi - lo, PyTorch's small-scale adjustment, and plain random values.
// Every output (codes, scales, zero points) is poisoned and guarded, the
// input misaligned. Seeds: testSeed() (printed; QJIT_TEST_SEED replays).
//
//===----------------------------------------------------------------------===//
#include "KernelTester.h"
#include "LayoutSpecs.h"
#include "TestSeed.h"

#include "qjit/KernelCall.h"
#include "qjit/internal/Backend.h"
#include "qjit/internal/DynamicKernelAbi.h"
#include "qjit/internal/Reference.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <ostream>
#include <random>
#include <string>
#include <vector>

namespace qjit::testing {
namespace {

constexpr int64_t kDyn = LayoutSpec::kDynamic;
constexpr uint8_t kPoison = KernelTester::kPoison;
constexpr size_t kGuard = KernelTester::kGuardBytes;

std::vector<LayoutSpec> dynamicLayouts() {
  return {LayoutSpec{},
          perAxis(3, 1),    // per channel of a row-major activation
          perAxis(5, 7),    // per row
          perAxis(2, kDyn), // per token, rows of any length
          blocked({{2, 1}, {96, 32}}),
          blocked({{4, 2}, {6, 3}}),
          blocked({{3, 1}, {kDyn, kDyn}})};
}

std::vector<KernelSpec> dynamicSpecs() {
  SweepAxes axes;
  axes.ops = {KernelOp::QCast};
  axes.widths = {4, 8, 32}; // and packed 4-bit
  axes.expressed = {ValueType::F32, ValueType::F64};
  // The default, PyTorch's (x · 1/s, ties to even) and TFLite's knobs.
  axes.knobs = {QuantKnobs{},
                {ScaleOp::Reciprocal, ZeroPointOrder::AfterRounding,
                 RoundingMode::NearestEven},
                {ScaleOp::Divide, ZeroPointOrder::AfterRounding,
                 RoundingMode::NearestAway}};
  axes.layouts = dynamicLayouts();
  axes.runtimeParams = {true};
  std::vector<KernelSpec> specs;
  for (KernelSpec spec : specSweep(axes))
    for (DynamicScheme scheme : {DynamicScheme::AbsMax, DynamicScheme::MinMax})
      for (DynamicRule rule : {DynamicRule::Default, DynamicRule::PyTorch}) {
        spec.params.dynamic = scheme;
        spec.params.dynamicRule = rule;
        if (verifyKernelSpec(spec))
          specs.push_back(spec);
      }
  return specs;
}

/// Inputs and the reference's outputs of one call, and the kernel's.
class DynamicCall {
public:
  DynamicCall(const KernelSpec &spec, std::mt19937_64 &rng)
      : spec_(spec), rng_(rng) {
    valueBytes_ = spec.expressed == ValueType::F64 ? 8 : 4;
    count_ = static_cast<size_t>(spec.layout.parameterCount());
    if (spec.layout.kind == LayoutSpec::Kind::PerAxis &&
        spec.layout.inner == kDyn)
      extents_ = {1 + static_cast<int64_t>(rng_() % 70)};
    for (size_t d = 1; d < spec.layout.dims.size(); ++d)
      if (spec.layout.dims[d].extent == kDyn)
        extents_.push_back(1 + static_cast<int64_t>(rng_() % 70));
  }

  size_t period() const {
    size_t period = 1;
    if (spec_.layout.kind == LayoutSpec::Kind::PerAxis)
      period = spec_.layout.channels *
               (spec_.layout.inner == kDyn ? extents_[0] : spec_.layout.inner);
    for (size_t d = 0; d < spec_.layout.dims.size(); ++d) {
      int64_t extent = spec_.layout.dims[d].extent;
      period *= extent == kDyn ? extents_[d - 1] : extent;
    }
    return period;
  }

  KernelParams params() const {
    KernelParams params;
    params.extents = extents_.empty() ? nullptr : extents_.data();
    return params;
  }

  /// Runs `entry` on n fresh elements and compares every output with the
  /// reference's.
  ::testing::AssertionResult check(const void *entry, size_t n) {
    size_t srcOffset = rng_() % 64;
    std::vector<uint8_t> src(srcOffset + n * valueBytes_);
    fill(src.data() + srcOffset, n);
    size_t codeBytes = *bufferBytes(spec_, BufferSide::Storage, n);

    std::vector<uint8_t> codes(codeBytes), scales(count_ * valueBytes_);
    std::vector<int64_t> zeroPoints(count_);
    KernelParams params = this->params();
    Status ran = runReferenceDynamic(
        spec_, src.data() + srcOffset, codes.data(), n, &params,
        ParameterOutputs{scales.data(), zeroPoints.data()});
    if (!ran)
      return ::testing::AssertionFailure() << "reference: " << ran.message();

    std::vector<uint8_t> kernelCodes(codeBytes + 2 * kGuard, kPoison);
    std::vector<uint8_t> kernelScales(scales.size() + 2 * kGuard, kPoison);
    std::vector<uint8_t> kernelZeros(zeroPoints.size() * 8 + 2 * kGuard,
                                     kPoison);
    std::vector<uint8_t> low(count_ * valueBytes_, kPoison);
    std::vector<uint8_t> high(count_ * valueBytes_, kPoison);
    DynamicKernelBuffers buffers{
        kernelScales.data() + kGuard,
        reinterpret_cast<int64_t *>(kernelZeros.data() + kGuard), low.data(),
        high.data()};
    std::vector<uint8_t> input = src;
    reinterpret_cast<DynamicKernelFn>(const_cast<void *>(entry))(
        src.data() + srcOffset, kernelCodes.data() + kGuard, n, &params,
        &buffers);
    std::string where =
        "n=" + std::to_string(n) + " srcOffset=" + std::to_string(srcOffset);
    if (src != input)
      return ::testing::AssertionFailure() << where << ": input changed";
    if (auto r = compare("codes", codes.data(), kernelCodes, codeBytes, 1); !r)
      return r << " (" << where << ")";
    if (auto r = compare("scales", scales.data(), kernelScales, scales.size(),
                         valueBytes_);
        !r)
      return r << " (" << where << ")";
    if (auto r = compare("zero points", zeroPoints.data(), kernelZeros,
                         zeroPoints.size() * 8, 8);
        !r)
      return r << " (" << where << ")";
    return ::testing::AssertionSuccess();
  }

private:
  /// A value of the group's flavour (chosen per group and call).
  double value(unsigned flavour) {
    std::uniform_real_distribution<double> unit(-1.0, 1.0);
    double inf = std::numeric_limits<double>::infinity();
    double big = spec_.expressed == ValueType::F64
                     ? std::numeric_limits<double>::max()
                     : static_cast<double>(std::numeric_limits<float>::max());
    double tiny =
        spec_.expressed == ValueType::F64
            ? std::numeric_limits<double>::denorm_min()
            : static_cast<double>(std::numeric_limits<float>::denorm_min());
    switch (flavour) {
    case 0: // Plain values of one magnitude.
      return unit(rng_) * 10.0;
    case 1: // All zero, of both signs.
      return rng_() % 2 ? 0.0 : -0.0;
    case 2: { // No finite value at all.
      double special[] = {std::nan(""), inf, -inf};
      return special[rng_() % 3];
    }
    case 3: // One sign only, with some zeros.
      return rng_() % 4 ? std::fabs(unit(rng_)) * 3.0 : 0.0;
    case 4: // Subnormals and tiny values: underflowing scales.
      return (unit(rng_) > 0 ? 1 : -1) * tiny * static_cast<double>(rng_() % 9);
    case 5: // Around PyTorch's small-scale threshold.
      return unit(rng_) * 6.1e-5 * std::ldexp(1.0, int(rng_() % 16) - 4);
    case 6: // Both ends of the range: hi - lo overflows.
      return rng_() % 2 ? big : -big;
    default: { // Mixed: magnitudes from 2^-30 to 2^30, and specials.
      if (rng_() % 16 == 0) {
        double special[] = {std::nan(""), inf, -inf, 0.0, -0.0, big};
        return special[rng_() % 6];
      }
      return unit(rng_) * std::ldexp(1.0, int(rng_() % 61) - 30);
    }
    }
  }

  void fill(uint8_t *src, size_t n) {
    // A flavour per group and one spare for the rest of the call.
    std::vector<unsigned> flavours(count_);
    for (unsigned &flavour : flavours)
      flavour = rng_() % 8;
    size_t p = period();
    for (size_t i = 0; i < n; ++i) {
      size_t group = groupOf(i % p);
      double x = value(flavours[group]);
      if (valueBytes_ == 8) {
        std::memcpy(src + 8 * i, &x, 8);
      } else {
        float f = static_cast<float>(x);
        std::memcpy(src + 4 * i, &f, 4);
      }
    }
  }

  /// The parameter of element i of a period (docs/semantics.md 6.2).
  size_t groupOf(size_t i) const {
    const LayoutSpec &layout = spec_.layout;
    if (layout.kind == LayoutSpec::Kind::PerTensor)
      return 0;
    if (layout.kind == LayoutSpec::Kind::PerAxis) {
      size_t inner = layout.inner == kDyn ? extents_[0] : layout.inner;
      return (i / inner) % layout.channels;
    }
    size_t group = 0;
    size_t rest = i;
    std::vector<size_t> index(layout.dims.size());
    for (size_t d = layout.dims.size(); d-- > 0;) {
      int64_t extent = layout.dims[d].extent;
      size_t e = extent == kDyn ? extents_[d - 1] : extent;
      index[d] = rest % e;
      rest /= e;
    }
    for (size_t d = 0; d < layout.dims.size(); ++d) {
      const LayoutSpec::Dim &dim = layout.dims[d];
      size_t grid = dim.extent == kDyn ? 1 : dim.extent / dim.block;
      size_t block = dim.extent == kDyn ? 1 : index[d] / dim.block;
      group = group * grid + block;
    }
    return group;
  }

  ::testing::AssertionResult compare(const char *what, const void *expected,
                                     const std::vector<uint8_t> &actual,
                                     size_t bytes, size_t unit) const {
    for (size_t g = 0; g < kGuard; ++g)
      if (actual[g] != kPoison || actual[kGuard + bytes + g] != kPoison)
        return ::testing::AssertionFailure()
               << what << ": a write outside the buffer";
    const auto *want = static_cast<const uint8_t *>(expected);
    for (size_t b = 0; b < bytes; ++b)
      if (want[b] != actual[kGuard + b]) {
        size_t entry = b / unit;
        std::string wantHex, gotHex;
        char digits[4];
        for (size_t k = entry * unit; k < (entry + 1) * unit && k < bytes;
             ++k) {
          std::snprintf(digits, sizeof digits, "%02x", want[k]);
          wantHex = digits + wantHex;
          std::snprintf(digits, sizeof digits, "%02x", actual[kGuard + k]);
          gotHex = digits + gotHex;
        }
        return ::testing::AssertionFailure()
               << what << "[" << entry << "]: expected 0x" << wantHex
               << ", got 0x" << gotHex;
      }
    return ::testing::AssertionSuccess();
  }

  const KernelSpec &spec_;
  std::mt19937_64 &rng_;
  size_t valueBytes_ = 4;
  size_t count_ = 1;
  std::vector<int64_t> extents_;
};

/// Element counts of a call: every size up to 2 × 64 lanes + 1 per tensor,
/// 0-3 periods and a long call otherwise.
std::vector<size_t> callSizes(const KernelSpec &spec, size_t period) {
  std::vector<size_t> sizes;
  if (spec.layout.kind == LayoutSpec::Kind::PerTensor) {
    for (size_t n = 0; n <= 129; ++n)
      sizes.push_back(n);
    sizes.push_back(4099);
    return sizes;
  }
  for (size_t periods : {0, 1, 2, 3})
    sizes.push_back(periods * period);
  sizes.push_back((4099 / period + 1) * period);
  return sizes;
}

struct DynamicCase {
  std::string backend;
  IsaLevel level;
};

std::vector<DynamicCase> dynamicCases() {
  std::vector<DynamicCase> cases;
  for (IsaLevel level : runnableIsaLevels())
    cases.push_back({"llvm", level});
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
  std::mt19937_64 rng(testSeed());
  size_t checked = 0;
  for (const KernelSpec &spec : dynamicSpecs()) {
    SCOPED_TRACE(spec.canonicalString());
    compileOnly.generate(spec);
    ASSERT_NE(backend.fit(spec), KernelFit::Unsupported);
    Expected<CompiledCode> code = backend.compile(spec);
    ASSERT_TRUE(code) << code.status().message();
    // Fresh extents, inputs and flavours for each call.
    for (int round = 0; round < 2; ++round) {
      DynamicCall call(spec, rng);
      for (size_t n : callSizes(spec, call.period()))
        ASSERT_TRUE(call.check(code->entry, n));
    }
    ++checked;
  }
  EXPECT_GT(checked, 100u);
}

INSTANTIATE_TEST_SUITE_P(Backends, DynamicKernelTest,
                         ::testing::ValuesIn(dynamicCases()),
                         [](const ::testing::TestParamInfo<DynamicCase> &info) {
                           return info.param.backend + "_" +
                                  std::string(isaLevelName(info.param.level));
                         });

} // namespace
} // namespace qjit::testing
