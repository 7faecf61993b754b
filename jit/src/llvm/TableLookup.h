//===- TableLookup.h - Per-lane reads of a small constant table -*- C++ -*-===//
//
// entries[index] for every lane, without gathers where the target has
// register permutes: on AVX2, 8-entry slices of the table live in vector
// registers and vpermps / vpermd pick each lane's entry, and a select tree
// on the index's high bits combines the slices (16 entries: 2 permutes and
// a blend); on AVX-512, 16-entry slices in zmm registers (up to 32 entries
// in one vpermi2ps). Two entries are a select. Elsewhere a constant
// global is read per lane (a gather).
// Packed 4-bit elements with 16 entries have a byte-shuffle variant.
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

/// Whether emitNibbleLookup applies: AVX2, packed 4-bit storage, 16
/// compute-type (f32) entries, a full vector of 32 lanes.
bool nibbleLookupApplies(IrContext &ir, Lanes lanes,
                         const std::vector<double> &entries);
/// entries[nibble] for the 32 packed 4-bit elements index.. of `src`, by
/// byte shuffles (vpshufb, cheap everywhere, unlike 32-bit permutes on
/// some x86): byte k of every entry forms a 16-byte plane one vpshufb
/// indexes by the nibbles; in-lane unpacks of the four planes' results
/// rebuild the f32 bits in element order.
llvm::Value *emitNibbleLookup(IrContext &ir, llvm::Value *src,
                              llvm::Value *index,
                              const std::vector<double> &entries);

} // namespace qjit::llvmjit

#endif
