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
} // namespace

int64_t periodicTableElements(int64_t period, int64_t lanes, bool packed) {
  int64_t base = packed ? std::lcm(period, int64_t(8)) : period;
  int64_t block = std::lcm(base, lanes * int64_t(reg::kUnroll));
  if (base >= kMinRunElements || block > kMaxWidenedElements)
    return base;
  return block * ((kMinRunElements + block - 1) / block);
}

} // namespace qjit::asmjit_backend
