//===- TableLookup.h - Per-lane reads of a small constant table -*- C++ -*-===//
//
// entries[index] for every lane, without gathers where the target has
// register permutes: on AVX2, 8-entry slices of the table live in vector
// registers and vpermps / vpermd pick each lane's entry, and a select tree
// on the index's high bits combines the slices (16 entries: 2 permutes and
// a blend). Elsewhere a constant global is read per lane (a gather).
//
//===----------------------------------------------------------------------===//
#ifndef QJIT_JIT_LLVM_TABLELOOKUP_H
#define QJIT_JIT_LLVM_TABLELOOKUP_H

#include "IrContext.h"

#include <vector>

namespace qjit::llvmjit {

/// `entries[index]` per lane as `element` (ir.compute, or ir.i32 with
/// integer-valued entries). `index` is i32 lanes, each in [0, entries.size()).
llvm::Value *emitTableLookup(IrContext &ir, llvm::Type *element,
                             const std::vector<double> &entries,
                             llvm::Value *index, unsigned lanes);

} // namespace qjit::llvmjit

#endif
