//===- DynamicTester.h - Dynamic qcast kernels vs the reference -*- C++ -*-===//
//
// KernelTester's counterpart for dynamic qcast (docs/semantics.md 11),
// whose code takes DynamicKernelBuffers and writes parameters besides the
// codes. Inputs are built to reach each formula's branches: all-zero
// groups, groups of only NaN (quiet and signalling) or ±inf, finite values
// with infinities but no NaN, ±0, subnormals, ranges that overflow hi - lo,
// PyTorch's small-scale adjustment, the mx roundings' edges (M * 2^k times
// 1, 1.5 and their neighbours), magnitudes falling along the period with
// signalling NaNs among them, plain random values; each group draws one such
// flavour per call. Every output (codes, scales, zero points) is poisoned and
// guarded, the input misaligned. The prepared calls also run elsewhere
// (tests/aarch64 runs them under qemu).
//
//===----------------------------------------------------------------------===//
#ifndef QJIT_TESTS_JIT_DYNAMICTESTER_H
#define QJIT_TESTS_JIT_DYNAMICTESTER_H

#include "KernelTester.h"

#include <random>
#include <vector>

namespace qjit::testing {

/// The dynamic specs the backends are swept over: absmax and minmax, every
/// rule where it applies, scales in the values' format and another, integer
/// widths 4 (packed too), 8 and 32, f32 and f64, the presets' knobs, over
/// per-tensor, per-axis (rows, strided channels, a dynamic row length) and
/// blocked layouts; and the mx scheme for f32 values to f8E4M3FN, f8E5M2,
/// f4E2M1FN, i4 and i8 per tensor, channel, row and block, its roundings by
/// turns, with absmax (default and vllm rules) to the float storages.
std::vector<KernelSpec> dynamicSpecSweep();

class DynamicTester {
public:
  /// Picks the call's dynamic extents (fixed per tester).
  DynamicTester(KernelSpec spec, uint64_t seed);

  const KernelSpec &spec() const { return spec_; }
  /// The extents every call passes (the scales and zero points are the
  /// kernel's outputs).
  const KernelTester::CallParams &callParams() const { return call_; }
  size_t parameterCount() const { return count_; }
  size_t valueBytes() const { return valueBytes_; }
  /// Bytes of one written scale (the spec's scale format).
  size_t scaleBytes() const { return scaleBytes_; }
  /// Every size up to 2 × 64 lanes + 1 per tensor; 0-3 periods and a long
  /// call otherwise.
  std::vector<size_t> sizes() const;

  /// One call's input and the reference's outputs, each with
  /// KernelTester::kGuardBytes of poison on both sides (the layout the
  /// kernel's guarded outputs must equal).
  struct PreparedCall {
    KernelTester::PreparedCall codes; ///< n, the input, the codes.
    std::vector<uint8_t> scales;
    std::vector<uint8_t> zeroPoints;
  };
  ::testing::AssertionResult prepareCall(size_t n, PreparedCall &call);
  ::testing::AssertionResult prepareCalls(std::vector<PreparedCall> &calls);
  /// Compares a kernel's guarded outputs with the reference's.
  ::testing::AssertionResult
  compareOutputs(const PreparedCall &call, const std::vector<uint8_t> &codes,
                 const std::vector<uint8_t> &scales,
                 const std::vector<uint8_t> &zeroPoints,
                 bool inputUnchanged) const;
  /// Runs `entry` (a DynamicKernelFn) on every size; stops at the first
  /// mismatch.
  ::testing::AssertionResult check(const void *entry);

private:
  size_t period() const;
  /// Blocked dim d's extent in this tester's calls.
  size_t extentOf(size_t d) const;
  size_t groupOf(size_t i) const;
  /// A value of group flavour `flavour` at `position` in the period.
  double value(unsigned flavour, size_t position);
  void fill(uint8_t *src, size_t n);

  KernelSpec spec_;
  std::mt19937_64 rng_;
  size_t valueBytes_ = 4;
  size_t scaleBytes_ = 4;
  size_t count_ = 1;
  KernelTester::CallParams call_;
};

} // namespace qjit::testing

#endif
