//===- DynamicIr.h - The parameters of a dynamic qcast in IR ----*- C++ -*-===//
//
// A dynamic qcast (docs/semantics.md 11) in three passes over the call:
// every group's range (11.1), read once from the input by the layout's loop
// nest; every group's scale and zero point from its range (11.2-11.4); then
// the runtime-parameter qcast with them (KernelIr). This file emits the
// first two; each formula follows frontend/src/DynamicParameters.cpp
// operation for operation, so the kernels match the reference bit for bit.
//
//===----------------------------------------------------------------------===//
#ifndef QJIT_JIT_LLVM_DYNAMICIR_H
#define QJIT_JIT_LLVM_DYNAMICIR_H

#include "LayoutLoops.h"

namespace qjit::llvmjit {

/// Pointers to the kernel's arrays of one entry per parameter
/// (DynamicKernelBuffers): what it writes, and its scratch.
struct DynamicArrays {
  llvm::Value *scales = nullptr;     ///< In the spec's scale format.
  llvm::Value *zeroPoints = nullptr; ///< i64.
  llvm::Value *low = nullptr;        ///< Compute values: each group's lo.
  llvm::Value *high = nullptr;       ///< Compute values: each group's hi.
};

/// Emits, at the builder's position, the ranges of the groups of
/// `dynamicSpec` over the input `src` walked by `levels`, then each
/// group's parameters into arrays.scales and arrays.zeroPoints. `ir` may be
/// for the spec's runtime-parameter twin (the same but for params.dynamic).
void emitDynamicParameters(IrContext &ir, const KernelSpec &dynamicSpec,
                           llvm::Value *src,
                           const std::vector<LoopLevel> &levels,
                           const DynamicArrays &arrays);

} // namespace qjit::llvmjit

#endif
