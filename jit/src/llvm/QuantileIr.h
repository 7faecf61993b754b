//===- QuantileIr.h - Quantile tables on lanes ------------------*- C++ -*-===//
//
// docs/semantics.md 8.4 on lanes: entries are read with register permutes
// (TableLookup) and the nearest entry is found by a binary search over the
// exact thresholds of QuantileSearch (or by counting them).
//
//===----------------------------------------------------------------------===//
#ifndef QJIT_JIT_LLVM_QUANTILEIR_H
#define QJIT_JIT_LLVM_QUANTILEIR_H

#include "IrContext.h"

#include <vector>

namespace qjit::llvmjit {

/// Storage this narrow is read through a table with an entry for every
/// possible stored value (out-of-bounds ones hold the nearest bound's).
constexpr unsigned kMaxDirectBits = 6;

/// The smallest stored value the storage's `bits` can hold.
int64_t lowestStored(const StorageSpec &storage);

/// Stored values (i32 lanes) of the entries nearest v = u + z (compute
/// lanes); NaN lanes use `zero` (C(z)).
llvm::Value *emitQuantileEncode(IrContext &ir, llvm::Value *v,
                                llvm::Value *zero, unsigned lanes);
/// As emitQuantileEncode, straight from the expressed values x (compute
/// lanes) for one baked scale and zero point: the thresholds are moved to
/// the input at compile time, so no lane divides. Null otherwise.
llvm::Value *emitQuantileEncodeFromInput(IrContext &ir, llvm::Value *x,
                                         unsigned lanes);
/// For packed 4-bit storage whose stored values are the positions (16
/// distinct entries) on AVX2, as emitQuantileEncodeFromInput for whole
/// groups of 32 lanes: each group's codes as <32 x i8> in the packs' order
/// (storeNibblesInPackOrder stores them). Empty otherwise.
std::vector<llvm::Value *>
emitQuantileNibblesFromInput(IrContext &ir, llvm::Value *x, Lanes lanes);

/// The table entries (compute lanes) of stored values q (i32 lanes).
llvm::Value *emitQuantileDecode(IrContext &ir, llvm::Value *q, unsigned lanes);

} // namespace qjit::llvmjit

#endif
