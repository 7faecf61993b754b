//===- X86WideCompact.h - f64 lanes with compact storage --------*- C++ -*-===//
//
// The wide kernels (x86NeedsWideLanes) of float and quantile storage:
// C = f64 qcast and dcast, unpacked and packed (X86WideCompactGenerators.cpp).
//
//===----------------------------------------------------------------------===//
#ifndef QJIT_JIT_ASMJIT_X86WIDECOMPACT_H
#define QJIT_JIT_ASMJIT_X86WIDECOMPACT_H

#include "X86Isa.h"

#include "qjit/KernelSpec.h"

namespace qjit::asmjit_backend {

/// True for the float and quantile storages generateX86WideCompact handles:
/// every float format, the quantile tables of x86SupportsQuantile; unpacked
/// or packed.
bool x86WideSupportsCompact(const StorageSpec &storage);

/// Emits the qcast or dcast kernel of `spec` (C = f64, float or quantile
/// storage that x86WideSupportsCompact accepts). AVX2 code.
void generateX86WideCompact(x86::Assembler &a, const KernelSpec &spec);

} // namespace qjit::asmjit_backend

#endif // QJIT_JIT_ASMJIT_X86WIDECOMPACT_H
