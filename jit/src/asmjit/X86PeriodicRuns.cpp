//===- X86PeriodicRuns.cpp - Per-element tables over whole vectors --------===//
#include "X86PeriodicRuns.h"

#include "X86Isa.h"

#include <numeric>

namespace qjit::asmjit_backend {

namespace {
/// Widened tables stay this small (three of them: scale, zero point,
/// reciprocal), so they stay in L1 next to the streamed data.
constexpr int64_t kMaxWidenedElements = 1024;
/// Runs at least this long amortize the per-run loop setup.
constexpr int64_t kMinRunElements = 256;
/// Runtime per-axis runs from this length on measured at least as fast as
/// llvm on AVX2 even with a tail each (shorter ones: 0.1-0.4x llvm).
constexpr int64_t kMinRuntimeRun = 64;
} // namespace

int64_t periodicTableElements(int64_t period, int64_t lanes, bool packed) {
  int64_t base = packed ? std::lcm(period, int64_t(8)) : period;
  int64_t block = std::lcm(base, lanes * int64_t(reg::kUnroll));
  if (base >= kMinRunElements || block > kMaxWidenedElements)
    return base;
  return block * ((kMinRunElements + block - 1) / block);
}

bool hasShortRuntimeRuns(const KernelSpec &spec) {
  const LayoutSpec &layout = spec.layout;
  if (!spec.params.runtime || layout.kind != LayoutSpec::Kind::PerAxis ||
      layout.inner == LayoutSpec::kDynamic || layout.channels == 1)
    return false;
  // Runs of whole vectors (8 f32 lanes) have no tail.
  return layout.inner < kMinRuntimeRun && layout.inner % 8 != 0;
}

} // namespace qjit::asmjit_backend
