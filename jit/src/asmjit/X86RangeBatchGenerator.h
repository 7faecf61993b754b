//===- X86RangeBatchGenerator.h - Short runs' ranges in batches -*- C++ -*-===//
//
// The range pass of asmjit's dynamic qcast for short runs (blocks of 32,
// short rows): one run per group, a vector's lanes of runs at a time, each
// run's bounds reduced across its lanes by shuffles that put the batch's
// bounds side by side in one vector, merged into lo[] and hi[] with one
// load and store each.
//
//===----------------------------------------------------------------------===//
#ifndef QJIT_JIT_ASMJIT_X86RANGEBATCHGENERATOR_H
#define QJIT_JIT_ASMJIT_X86RANGEBATCHGENERATOR_H

#include "X86Isa.h"

#include "qjit/KernelSpec.h"

#include <cstddef>
#include <cstdint>

namespace qjit::asmjit_backend {

/// RangeRunsFn's contract (X86RangeGenerator.h) for f32 runs of the
/// generated length, in batches of x86RangeBatchRuns runs while `runs`
/// holds one; returns the runs it ranged. It stops before a batch with a
/// value that is ±inf or NaN, which the caller ranges by RangeRunsFn.
/// Generated for magnitudes only (absmax schemes), hi[r] takes the run's
/// largest finite magnitude instead and lo[r] stays: max(hi, -lo), all
/// that 11.2 reads, is the same.
using RangeBatchesFn = size_t (*)(const void *src, size_t runLength,
                                  size_t runs, void *lo, void *hi);

/// Runs per batch at `isa`: the f32 lanes of a vector.
unsigned x86RangeBatchRuns(const X86Isa &isa);
/// Whether runs of `runLength` f32 values are ranged in batches: whole
/// vectors, shorter than plan::kCheckedRunElements.
bool x86RangesInBatches(const X86Isa &isa, int64_t runLength);

/// Emits a RangeBatchesFn for runs of `runLength` f32 values at `isa`
/// (x86RangesInBatches holds), for magnitudes only if `magnitudes`.
void generateX86RangeBatches(x86::Assembler &a, const X86Isa &isa,
                             int64_t runLength, bool magnitudes);

/// RangeBatchesFn's batches carried on to each run's parameters: its scale
/// s[r] (absmax, docs/semantics.md 11.2 and 11.10: an f32; mx, 11.8: an
/// E8M0 byte) and zero point z[r] = 0. Like RangeBatchesFn it returns the
/// runs it chose, stopping before a batch with ±inf or NaN; the caller
/// ranges and chooses those.
using ChooseBatchesFn = size_t (*)(const void *src, size_t runLength,
                                   size_t runs, int64_t *z, void *s);

/// Whether `spec`'s runs of `runLength` (a dynamic qcast's groups) are
/// chosen in batches at `isa`: f32 values ranged in batches, absmax by the
/// default, pytorch or vllm rule with f32 scales, or mx.
bool x86ChoosesInBatches(const KernelSpec &spec, const X86Isa &isa,
                         int64_t runLength);

/// Emits a ChooseBatchesFn for `spec` (x86ChoosesInBatches holds).
void generateX86ChooseBatches(x86::Assembler &a, const X86Isa &isa,
                              const KernelSpec &spec, int64_t runLength);

} // namespace qjit::asmjit_backend

#endif // QJIT_JIT_ASMJIT_X86RANGEBATCHGENERATOR_H
