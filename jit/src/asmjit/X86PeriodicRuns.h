//===- X86PeriodicRuns.h - Per-element tables over whole vectors -*- C++
//-*-===//
//
// Per-element parameter tables (X86Parameters, X86KernelFrame::emitPeriods)
// cover one layout period and the frame runs one period per run. Short
// periods (per-axis parameters on the last axis with few channels: every
// run one element long) would make every run shorter than a vector, all
// tail. The lane pattern repeats every lcm(period, vector) elements, so
// the tables cover a whole number of unrolled vector blocks of periods
// instead, and the frame runs that many elements per run.
//
//===----------------------------------------------------------------------===//
#ifndef QJIT_JIT_ASMJIT_X86PERIODICRUNS_H
#define QJIT_JIT_ASMJIT_X86PERIODICRUNS_H

#include "qjit/KernelSpec.h"

#include <cstdint>

namespace qjit::asmjit_backend {

/// The elements per-element tables cover for a layout `period` with
/// vectors of `lanes` elements: a multiple of the period (and of 8 for
/// packed codes, so runs start on a byte), widened to whole unrolled
/// vector blocks when that stays small.
int64_t periodicTableElements(int64_t period, int64_t lanes, bool packed);

/// Runtime per-axis parameters have no tables: the frame loads them once
/// per run of `inner` elements, and runs that end mid-vector go through
/// the tail. With short such runs llvm is several times faster (its
/// vectors gather the runs' parameters), so asmjit fits them Generic.
bool hasShortRuntimeRuns(const KernelSpec &spec);

} // namespace qjit::asmjit_backend

#endif // QJIT_JIT_ASMJIT_X86PERIODICRUNS_H
