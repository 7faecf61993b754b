//===- X86RangeGenerator.h - Each run's range of finite values --*- C++ -*-===//
//
// The first pass of asmjit's dynamic qcast (docs/semantics.md 11.1): the
// range of the finite values of consecutive runs, each run's range merged
// into its group's entry.
//
//===----------------------------------------------------------------------===//
#ifndef QJIT_JIT_ASMJIT_X86RANGEGENERATOR_H
#define QJIT_JIT_ASMJIT_X86RANGEGENERATOR_H

#include "X86Isa.h"

#include "qjit/KernelSpec.h"

#include <cstddef>

namespace qjit::asmjit_backend {

/// For r < runs: run r is src[r * runLength, (r + 1) * runLength), values
/// of C (float or double); lo[r] becomes min(lo[r], its finite values) and
/// hi[r] max(hi[r], its finite values), by the strict comparisons of
/// GroupRange::add (qjit/internal/DynamicParameters.h). lo and hi hold
/// ranges of that kind: never -0, NaN or ±inf.
using RangeRunsFn = void (*)(const void *src, size_t runLength, size_t runs,
                             void *lo, void *hi);

/// Emits a RangeRunsFn for C = `compute` (F32 or F64) at `isa`. For
/// `magnitudes` only (absmax schemes) it may range a run's largest finite
/// magnitude instead: hi[r] takes it and lo[r] the rest of the run's range
/// (or stays); max(hi, -lo), all that 11.2 reads, is the same.
void generateX86RangeRuns(x86::Assembler &a, const X86Isa &isa,
                          ValueType compute, bool magnitudes);

} // namespace qjit::asmjit_backend

#endif // QJIT_JIT_ASMJIT_X86RANGEGENERATOR_H
