//===- ElementIo.h - Loading and storing kernel elements --------*- C++ -*-===//
//
// Reads and writes `lanes` consecutive elements of a host buffer in the
// formats of docs/semantics.md: expressed values (f16, bf16, f32, f64)
// widened to the compute type, and stored integers as i32 lanes (sign- or
// zero-extended from their low `bits` bits), unpacked or packed several to
// a byte. Packed vectors must start at a byte boundary and cover whole
// bytes; one packed lane may start anywhere (read-modify-write of its byte,
// except that the first element of a byte overwrites the whole byte, so
// padding bits come out zero without a prior memset).
//
//===----------------------------------------------------------------------===//
#ifndef QJIT_JIT_LLVM_ELEMENTIO_H
#define QJIT_JIT_LLVM_ELEMENTIO_H

#include "IrContext.h"

namespace qjit::llvmjit {

/// Elements per byte of packed storage; 1 when unpacked.
unsigned valuesPerByte(const StorageSpec &storage);

llvm::Value *loadExpressed(IrContext &ir, llvm::Value *base, llvm::Value *index,
                           Lanes lanes);
void storeExpressed(IrContext &ir, llvm::Value *base, llvm::Value *index,
                    llvm::Value *values, Lanes lanes);

llvm::Value *loadStored(IrContext &ir, llvm::Value *base, llvm::Value *index,
                        Lanes lanes);
void storeStored(IrContext &ir, llvm::Value *base, llvm::Value *index,
                 llvm::Value *values, Lanes lanes);

/// f16 / bf16 / f32 / f64 lanes (any element type of that format) widened
/// exactly to the compute type; used for runtime scales too.
llvm::Value *widenExpressed(IrContext &ir, llvm::Value *raw, unsigned lanes);

/// AVX2: four <8 x i32> into 32 bytes in element order (as <8 x i32>),
/// through saturating packs (signed or unsigned bytes) and a vpermd.
llvm::Value *packThirtyTwoBytes(IrContext &ir,
                                llvm::ArrayRef<llvm::Value *> quarters,
                                bool signedBytes);
/// 32 bytes in the packs' order (any 256-bit vector) in element order, as
/// <8 x i32>: the vpermd by kPackedDwordOrder (X86PackOrder.h).
llvm::Value *bytesInElementOrder(IrContext &ir, llvm::Value *packed);
/// packThirtyTwoBytes without the vpermd: <32 x i8> in the packs' order,
/// elements 0-3 8-11 16-19 24-27 4-7 12-15 20-23 28-31.
llvm::Value *packBytesInPackOrder(IrContext &ir,
                                  llvm::ArrayRef<llvm::Value *> quarters,
                                  bool signedBytes);
/// AVX2: 32 packed 4-bit codes (<32 x i8> in [0, 16), in the packs'
/// order) stored as the 16 bytes of elements index.. of `base`.
void storeNibblesInPackOrder(IrContext &ir, llvm::Value *base,
                             llvm::Value *index, llvm::Value *codes);
/// f32 lanes, none NaN, as bf16 bits (i16 lanes), rounded to nearest-even
/// by integer operations: exact, and no libcalls.
llvm::Value *roundToBfloat16(IrContext &ir, llvm::Value *values,
                             unsigned lanes);
/// The in-memory element type of an expressed format.
llvm::Type *expressedMemoryType(IrContext &ir);

} // namespace qjit::llvmjit

#endif
