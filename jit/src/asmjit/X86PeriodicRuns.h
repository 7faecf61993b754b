//===- X86PeriodicRuns.h - Tables over whole vectors ------------*- C++ -*-===//
//
// Per-element parameter tables (X86Parameters, X86KernelFrame::emitPeriods)
// cover one layout period and the frame runs one period per run. Short
// periods (per-axis parameters on the last axis with few channels: every
// run one element long) would make every run shorter than a vector, all
// tail. The lane pattern repeats every lcm(period, vector) elements, so
// the tables cover a whole number of unrolled vector blocks of periods
// instead, and the frame runs that many elements per run. Runtime
// parameters get such tables on the stack, filled once per call.
//
//===----------------------------------------------------------------------===//
#ifndef QJIT_JIT_ASMJIT_X86PERIODICRUNS_H
#define QJIT_JIT_ASMJIT_X86PERIODICRUNS_H

#include "X86Isa.h"
#include "X86Parameters.h"

#include "qjit/KernelSpec.h"

#include <cstdint>

namespace qjit::asmjit_backend {

/// The elements per-element tables cover for a layout `period` with
/// vectors of `lanes` elements: a multiple of the period (and of 8 for
/// packed codes, so runs start on a byte), widened to whole unrolled
/// vector blocks when that stays small.
int64_t periodicTableElements(int64_t period, int64_t lanes, bool packed);

/// Runtime per-axis parameters have no baked tables: the frame loads them
/// once per run of `inner` elements, and runs that end mid-vector go
/// through the tail. With such runs shorter than 64, llvm is up to ten
/// times faster (its vectors gather the runs' parameters), so asmjit fits
/// them Generic unless X86RuntimeTables takes them (vectors of `lanes`).
bool hasShortRuntimeRuns(const KernelSpec &spec, unsigned lanes);

/// Unpacked integers with runtime per-axis parameters in short runs:
/// per-element tables of one widened period (periodicTableElements) on the
/// stack, filled once per call through X86Parameters' own per-run load (so
/// every entry is the value a run would use), then run like baked tables.
/// Tables: what the load leaves in vec(reg::kScale), in vec(reg::kZeroPoint)
/// and, for qcast, the divisor s (the checked mode's exact fallback). At
/// most two pages of stack, probed top down.
class X86RuntimeTables {
public:
  static bool applies(const KernelSpec &spec, unsigned lanes);
  X86RuntimeTables(const KernelSpec &spec, unsigned lanes);

  /// Bytes the tables take at rsp (the frame reserves them).
  int32_t stackBytes() const { return tables_ * tableBytes_; }
  /// Fills the tables, once per call (clobbers reg::paramIndex,
  /// reg::runCount, the scratch registers, vec(reg::kWork) and `params`'
  /// registers). A valid `threshold` (the checked mode's, set per run by
  /// the load) ends as the lowest of every channel's, so that a channel
  /// outside the checked range sends the whole call to the division.
  void emitFill(x86::Assembler &a, X86Parameters &params,
                const x86::Vec &threshold = {}) const;
  /// Points reg::paramIndex at the tables (each run of the frame).
  void emitLoad(x86::Assembler &a) const { a.mov(reg::paramIndex, x86::rsp); }
  x86::Mem scale(unsigned slot) const { return table(0, slot); }
  x86::Mem zeroPoint(unsigned slot) const { return table(1, slot); }
  x86::Mem divisor(unsigned slot) const { return table(2, slot); }

private:
  x86::Mem table(int32_t index, unsigned slot) const;

  int64_t channels_, inner_, covered_;
  int32_t vectorBytes_;
  int32_t tables_;
  int32_t tableBytes_; ///< Bytes of one table (padded).
};

} // namespace qjit::asmjit_backend

#endif // QJIT_JIT_ASMJIT_X86PERIODICRUNS_H
