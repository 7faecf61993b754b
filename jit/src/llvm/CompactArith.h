//===- CompactArith.h - Float and quantile storage --------------*- C++ -*-===//
//
// docs/semantics.md section 8 on lanes, bit-exact to the reference: fp8 /
// fp4 codes are built and taken apart with integer operations on the
// compute type's bits (no fp8 instructions), quantile tables are read with
// register permutes (TableLookup) and searched by counting thresholds.
// Stored values travel as i32 lanes, as for integer storage, so loads,
// stores, packing and layouts are shared with integer kernels.
//
//===----------------------------------------------------------------------===//
#ifndef QJIT_JIT_LLVM_COMPACTARITH_H
#define QJIT_JIT_LLVM_COMPACTARITH_H

#include "QuantArith.h"

namespace qjit::llvmjit {

/// Float or quantile storage.
bool isCompactStorage(const StorageSpec &storage);

/// The plan's scaling must divide exactly for every input: the FMA division
/// is proven only where integer rounding hides tiny and huge quotients.
void adaptPlanToCompactStorage(QuantPlan &plan, const KernelSpec &spec);

/// Codes (float storage) or stored values (quantile), i32 lanes.
llvm::Value *emitCompactQuantize(IrContext &ir, const QuantPlan &plan,
                                 llvm::Value *x, const ParamValues &params,
                                 unsigned lanes);
/// Compute-type lanes of elements index.. of `src` (loaded here: fp8
/// codes convert on 16-bit lanes).
llvm::Value *emitCompactDequantize(IrContext &ir, llvm::Value *src,
                                   llvm::Value *index, Lanes lanes,
                                   const ParamValues &params);

} // namespace qjit::llvmjit

#endif
