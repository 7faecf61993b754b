//===- X86Conversions.h - Vector loads and stores of host formats -*- C++ -*-=//
//
// The buffer side of every x86 kernel: expressed values (f16, bf16, f32)
// to and from f32 lanes (the f64 ones X86WideGenerators reads itself),
// stored integers to and from i32 lanes, exactly as docs/semantics.md's
// "Host buffer formats" define them. `masked` selects
// the AVX-512 tail form (reg::tailMask; zeroing loads, merging stores).
//
//===----------------------------------------------------------------------===//
#ifndef QJIT_JIT_ASMJIT_X86CONVERSIONS_H
#define QJIT_JIT_ASMJIT_X86CONVERSIONS_H

#include "X86Isa.h"

#include "qjit/KernelSpec.h"

namespace qjit::asmjit_backend {

/// True when the x86 generators handle this storage: integers (packed ones
/// through X86PackedCodes) and float storage (X86FloatStorage.h).
bool x86SupportsStorage(const StorageSpec &storage);

/// Loads f32 lanes from expressed values (exact widening).
void emitLoadExpressed(x86::Assembler &a, const X86Isa &isa, ValueType type,
                       const x86::Vec &v, const x86::Mem &src, bool masked);
/// Stores f32 lanes as expressed values, rounding once to nearest-even.
void emitStoreExpressed(x86::Assembler &a, const X86Isa &isa, ValueType type,
                        const x86::Mem &dst, const x86::Vec &v, bool masked);

/// Stores the 8 f64 lanes of `low` and `high` (AVX2) to the 64 bytes at
/// `dst`, with non-temporal stores when `streaming` (the wide kernels).
void emitStoreF64Pair(x86::Assembler &a, const x86::Mem &dst,
                      const x86::Ymm &low, const x86::Ymm &high,
                      bool streaming);

/// Loads i32 lanes: the low `bits` bits of each container, sign- or
/// zero-extended per the storage's signedness.
void emitLoadStored(x86::Assembler &a, const X86Isa &isa,
                    const StorageSpec &storage, const x86::Vec &v,
                    const x86::Mem &src, bool masked);

/// How an AVX-512 store narrows i32 lanes to the container.
enum class Narrowing {
  Truncate, ///< Lanes already fit the container (vpmovdb, vpmovdw).
  Saturate, ///< Saturate per signedness (vpmovsdb / vpmovusdb, ...).
};
/// Stores i32 lanes into containers. On AVX2 (packs) every lane must
/// already fit the container; `temp` is clobbered.
void emitStoreStored(x86::Assembler &a, const X86Isa &isa,
                     const StorageSpec &storage, const x86::Mem &dst,
                     const x86::Vec &v, const x86::Vec &temp, bool masked,
                     Narrowing narrowing);

/// Emits `value` broadcast to every 32-bit lane of `v`.
void emitBroadcastImmediate(x86::Assembler &a, const X86Isa &isa,
                            const x86::Vec &v, uint32_t value);

} // namespace qjit::asmjit_backend

#endif // QJIT_JIT_ASMJIT_X86CONVERSIONS_H
