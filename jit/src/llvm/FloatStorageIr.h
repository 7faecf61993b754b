//===- FloatStorageIr.h - fp8 / fp4 codes on lanes --------------*- C++ -*-===//
//
// docs/semantics.md 8.2 and 8.3 on lanes, by integer operations on the
// compute type's bits (no fp8 instructions exist on the targets).
//
//===----------------------------------------------------------------------===//
#ifndef QJIT_JIT_LLVM_FLOATSTORAGEIR_H
#define QJIT_JIT_LLVM_FLOATSTORAGEIR_H

#include "QuantArith.h"

namespace qjit::llvmjit {

/// Codes (i32 lanes; 8-bit codes sign-extended, which stores truncate) of
/// v = u + z (compute lanes). `zero` (C(z)) replaces NaN for formats
/// without a NaN.
llvm::Value *emitFloatEncode(IrContext &ir, llvm::Value *v, llvm::Value *zero,
                             unsigned lanes);
/// Exact values (compute lanes) of codes (i32 lanes).
llvm::Value *emitFloatDecode(IrContext &ir, llvm::Value *q, unsigned lanes);
/// The whole fp8 dcast of elements index.. of `src` through binary16
/// conversions (F16C, AArch64); null where the target or lanes do not
/// allow it.
llvm::Value *emitFp8DequantizeThroughHalf(IrContext &ir, llvm::Value *src,
                                          llvm::Value *index, Lanes lanes,
                                          const ParamValues &params);

} // namespace qjit::llvmjit

#endif
