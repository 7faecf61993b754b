//===- KernelTester.h - Kernels vs the reference ----------------*- C++ -*-===//
//
// One tester for every backend: it runs a compiled kernel and
// runReference on the same inputs and compares the outputs byte for byte.
// Inputs mix random values with the ones kernels get wrong (NaN, ±inf, ±0,
// subnormals, exact ties after scaling, huge values, storage bounds ±0.5);
// sizes cover 0..2×vector width, multiples, primes and a large size;
// buffers are misaligned, the output is poisoned and guarded on both sides.
// specSweep() enumerates the specs (layout × width × signedness × expressed
// type × knob × op) that backends are swept over.
//
//===----------------------------------------------------------------------===//
#ifndef QJIT_TESTS_JIT_KERNELTESTER_H
#define QJIT_TESTS_JIT_KERNELTESTER_H

#include "qjit/Isa.h"
#include "qjit/KernelSpec.h"
#include "qjit/internal/Backend.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <ostream>
#include <random>
#include <string>
#include <vector>

namespace qjit::testing {

class KernelTester {
public:
  struct Options {
    /// Sizes 0..2×lanes+1 are all tried (per-tensor layouts).
    size_t lanes = 64;
    /// The largest size tried (rounded to whole layout periods).
    size_t largeSize = 70001;
    /// Runtime zero points anywhere in int64 (half of them), not only
    /// within the storage bounds: docs/semantics.md allows any value.
    bool wideZeroPoints = false;
    /// Runtime zero points 0 for 15 parameters in 16 (after the above):
    /// runs of symmetric parameters next to asymmetric ones.
    bool mostlyZeroZeroPoints = false;
  };

  KernelTester(KernelSpec spec, uint64_t seed);
  KernelTester(KernelSpec spec, uint64_t seed, Options options);

  /// Every size of sizes(), each with fresh inputs and another pair of
  /// (src, dst) misalignments. `entry` is a KernelFn or ParamKernelFn as
  /// spec.takesParams() says. Stops at the first mismatch.
  ::testing::AssertionResult check(const void *entry);

  /// One call on n elements with the buffers offset by the given bytes
  /// from a 64-byte boundary.
  ::testing::AssertionResult checkOnce(const void *entry, size_t n,
                                       size_t srcOffset, size_t dstOffset);

  /// The element counts check() uses (whole layout periods).
  std::vector<size_t> sizes() const;

  const KernelSpec &spec() const { return spec_; }

  /// Call-time parameters for specs that take them (fixed per tester).
  struct CallParams {
    std::vector<int64_t> extents;
    std::vector<uint8_t> scales; ///< In the spec's ScaleFormat.
    std::vector<int64_t> zeroPoints;
    bool nullZeroPoints = false;
    KernelParams view() const;
  };
  const CallParams &callParams() const { return call_; }

  /// Bytes of poison (kPoison) on each side of every output buffer.
  static constexpr size_t kGuardBytes = 64;
  static constexpr uint8_t kPoison = 0xA5;

  /// One call, prepared for a kernel that runs elsewhere (tests/aarch64
  /// runs it under qemu): fresh inputs and the reference's output.
  struct PreparedCall {
    size_t n = 0, srcOffset = 0, dstOffset = 0;
    std::vector<uint8_t> src; ///< The input bytes (no guards).
    /// The reference's output with kGuardBytes of kPoison on both sides:
    /// what the kernel's poisoned, guarded output must become.
    std::vector<uint8_t> expected;
  };
  /// Inputs for n elements (buffers `srcOffset` / `dstOffset` bytes past a
  /// 64-byte boundary) and the reference's output; fails when the
  /// reference rejects the call.
  ::testing::AssertionResult prepareCall(size_t n, size_t srcOffset,
                                         size_t dstOffset, PreparedCall &call);
  /// The calls check() makes: every size of sizes() with its misalignment.
  ::testing::AssertionResult prepareCalls(std::vector<PreparedCall> &calls);
  /// Compares a kernel's guarded output (same layout as `expected`) with
  /// the reference, describing the first mismatch.
  ::testing::AssertionResult compareOutput(const PreparedCall &call,
                                           const std::vector<uint8_t> &actual,
                                           bool inputUnchanged) const;

private:
  void inventCallParams();
  /// Runtime scale k in the spec's ScaleFormat, near `scale`.
  void storeScale(size_t k, double scale);
  size_t period() const;
  /// The scale (in C) and zero point that element i uses.
  double elementScale(size_t i) const;
  int64_t elementZeroPoint(size_t i) const;
  size_t parameterIndex(size_t i) const;
  void fillInput(uint8_t *src, size_t n);
  /// An expressed value that quantizes plainly to integer storage for
  /// element i: s·(k + f) with k + z within (or just beyond) the bounds
  /// and |f| <= 0.4, so the fast paths that check each lane
  /// (CheckedReciprocal.h) pass it.
  double plainExpressedValue(size_t i);
  double interestingExpressedValue(size_t i);
  /// Values next to the codes / table entries of float and quantile
  /// storage: exact values, ties between neighbours, overflow edges.
  double interestingCompactValue(size_t i);
  std::string describeElement(size_t element, const uint8_t *src,
                              const uint8_t *expected,
                              const uint8_t *actual) const;

  KernelSpec spec_;
  Options options_;
  std::mt19937_64 rng_;
  size_t fills_ = 0; ///< Every other qcast input is plain values mostly.
  CallParams call_;
  std::vector<int64_t> resolvedExtents_; ///< Every dim of one period.
  std::vector<int64_t> resolvedBlocks_;
};

/// A buffer whose data starts `offset` bytes past a 64-byte boundary, with
/// KernelTester::kGuardBytes of KernelTester::kPoison on both sides.
class GuardedBuffer {
public:
  GuardedBuffer(size_t bytes, size_t offset);
  uint8_t *data() { return data_; }
  /// The data with its guards; the same layout for every buffer of one
  /// size, whatever the allocation's own alignment.
  std::vector<uint8_t> all() const;

private:
  std::vector<uint8_t> storage_;
  size_t bytes_;
  uint8_t *data_;
};

/// The axes specSweep() multiplies out; every list but `widths` and
/// `compact` must be non-empty.
struct SweepAxes {
  std::vector<KernelOp> ops = {KernelOp::QCast, KernelOp::DCast};
  /// Integer widths; `packed` adds a packed variant of widths 1, 2, 4.
  std::vector<unsigned> widths = {8};
  /// Float and quantile storages (compactStorages()), swept besides the
  /// integer widths; qcast knobs are normalized for them, and f8 formats
  /// are swept with saturation on and off.
  std::vector<StorageSpec> compact = {};
  std::vector<bool> signedness = {true, false};
  bool packed = true;
  /// Only the packed variants (of widths 1, 2, 4).
  bool packedOnly = false;
  /// Narrow explicit bounds (one step inside the type's range) too.
  bool narrowBounds = false;
  std::vector<ValueType> expressed = {ValueType::F32};
  std::vector<QuantKnobs> knobs = {QuantKnobs{}};
  std::vector<LayoutSpec> layouts = {LayoutSpec{}};
  std::vector<bool> runtimeParams = {false};
};

/// Every combination of the axes as a verified KernelSpec (qcast knobs only
/// vary for qcast). Baked parameters are deterministic functions of the
/// layout: scales of mixed exponents (some powers of two, some not) and
/// zero points spread over the storage range.
std::vector<KernelSpec> specSweep(const SweepAxes &axes);

/// f8E4M3FN, f8E5M2, f4E2M1FN (packed and not), one with narrow bounds,
/// and quantile tables: NF4 (u4, packed and not), an unsorted i3 table with
/// duplicates and narrow bounds, a 64-entry u6 table.
std::vector<StorageSpec> compactStorages();

constexpr IsaLevel kAllIsaLevels[] = {IsaLevel::Scalar, IsaLevel::Sse4,
                                      IsaLevel::Avx2, IsaLevel::Avx512};

/// The highest ISA level kernels under test run at: the host's, capped by
/// QJIT_MAX_ISA (with QJIT_MAX_ISA=avx2 an AVX-512 host tests as an AVX2
/// one would, the AVX-512 generators compile-only).
IsaLevel runnableIsaLevel();
/// Every ISA level up to runnableIsaLevel(), lowest first (a level below
/// the host's is reached through the cap, as on an AVX-512 host testing
/// AVX2 code).
std::vector<IsaLevel> runnableIsaLevels();
/// Those of them asmjit's x86 kernels run at: AVX2 and up.
std::vector<IsaLevel> runnableAsmjitLevels();

/// All 12 qcast knob combinations.
std::vector<QuantKnobs> allKnobs();
/// Per-tensor, per-axis (inner 1, inner 7, dynamic inner) and blocked
/// (static, and with a dynamic whole-extent dim) layouts.
std::vector<LayoutSpec> representativeLayouts();
/// qcast (every knob) and dcast of signed and unsigned 8-bit storage in
/// per-axis runs long enough for the unrolled main loops (inner 64 and 200
/// with 3 and 2 channels), whose baked zero points differ per channel:
/// 2 layouts × 2 signs × (12 + 1) specs.
SweepAxes longPerAxisRunSweep();
/// Blocks of 32 along the last axis (whole unrolled iterations, parameters
/// per block; 6 channels) and of 37 (packed runs starting mid-byte; 3).
std::vector<LayoutSpec> packedBlockLayouts();

/// qcast of types whose baked zero points lie far outside the storage
/// range (up to the ends of int64; MLIR accepts them), every knob: the
/// after-rounding sum round(u) + z must stay exact.
std::vector<KernelSpec> farZeroPointSpecs();

/// Every spec of a sweep is also generated (compile only) for the levels
/// the host cannot run and for AArch64, so that an instruction-selection
/// failure, an assertion or a bad encoding in their generators shows on
/// any host: by backends of `backend`'s kind at each x86 level above it
/// and by `backend` itself for aarch64-linux-gnu, when `backend` is at
/// runnableIsaLevel() (once per sweep); otherwise it does nothing.
class CompileOnlyTargets {
public:
  explicit CompileOnlyTargets(Backend &backend);
  ~CompileOnlyTargets();
  /// Generates `spec` for each target; only Unsupported may refuse it.
  void generate(const KernelSpec &spec);

private:
  Backend &backend_;
  std::vector<std::unique_ptr<Backend>> above_;
  bool aarch64_ = false;
};

/// Compiles every spec of the sweep with `backend` and checks it with a
/// KernelTester; specs the backend refuses with ErrorCode::Unsupported are
/// skipped (any other refusal fails). Returns how many were checked.
/// Every spec also goes through CompileOnlyTargets.
size_t checkSweep(Backend &backend, const SweepAxes &axes,
                  KernelTester::Options options = {});

} // namespace qjit::testing

namespace qjit {
/// Names an ISA level in gtest output; without it gtest prints the enum's
/// raw byte into the parameterized tests' listed names.
inline void PrintTo(IsaLevel level, std::ostream *os) {
  *os << isaLevelName(level);
}
} // namespace qjit

#endif
