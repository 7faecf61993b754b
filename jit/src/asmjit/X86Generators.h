//===- X86Generators.h - KernelSpec → x86 machine code -----------*- C++
//-*-===//
//
// One generator per kernel family (quantize, dequantize, storage cast),
// each an X86VectorBody run through the shared X86KernelFrame.
//
//===----------------------------------------------------------------------===//
#ifndef QJIT_JIT_ASMJIT_X86GENERATORS_H
#define QJIT_JIT_ASMJIT_X86GENERATORS_H

#include "X86Isa.h"

#include "qjit/Error.h"
#include "qjit/KernelSpec.h"

namespace qjit::asmjit_backend {

/// Ok when the x86 generators can compile `spec` at `isa`; otherwise
/// ErrorCode::Unsupported saying what is missing.
Status checkX86Support(const KernelSpec &spec, const X86Isa &isa);

/// The level `spec`'s kernel is generated for at `level`: packed storage
/// uses the AVX2 code path on AVX-512 hosts too (X86PackedCodes is VEX
/// only; it is the code this project can run and test).
IsaLevel x86KernelIsaLevel(const KernelSpec &spec, IsaLevel level);

/// Emits the kernel for `spec` (checkX86Support must have passed).
void generateX86Quantize(x86::Assembler &a, const X86Isa &isa,
                         const KernelSpec &spec);
void generateX86Dequantize(x86::Assembler &a, const X86Isa &isa,
                           const KernelSpec &spec);
void generateX86StorageCast(x86::Assembler &a, const X86Isa &isa,
                            const KernelSpec &spec);

/// Dispatches on spec.op.
void generateX86Kernel(x86::Assembler &a, const X86Isa &isa,
                       const KernelSpec &spec);

/// Checks `spec` against `isa`, then emits its kernel (at
/// x86KernelIsaLevel) into `code`, which the
/// caller has initialized (and may have given a logger). The first assembler
/// error comes back as a Status.
Status assembleX86Kernel(asmjit::CodeHolder &code, const X86Isa &isa,
                         const KernelSpec &spec);

} // namespace qjit::asmjit_backend

#endif // QJIT_JIT_ASMJIT_X86GENERATORS_H
