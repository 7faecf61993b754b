//===- X86FixedBracketBody.h - AVX-512 8-bit qcast, bracketed ---*- C++ -*-===//
//
// The AVX-512 main loop of 8-bit integer qcast under a
// plan::FixedPointBracketPlan: per vector one FMA and one conversion give
// the stored value and the bracket's verdict (16.16 fixed point); four
// vectors pack into one 64-byte store by two vpacksswb, a shift, a
// vpternlogd and a vpermb (the verdicts come from the packs' other bytes).
// Vectors with a failing lane redo those lanes by the exact formula, as
// do heads and tails. Storage ranges inside the byte's (i8<-127:127>,
// i4, u4, ...) clamp the bytes after; packed codes merge them (two to a
// byte for 4 bits) before the store (X86PackedCodes). Per-tensor
// parameters, per-run broadcasts (short runs of 16 or 32 elements go
// several to an unrolled step) or per-element tables (runs shorter than
// a vector).
//
//===----------------------------------------------------------------------===//
#ifndef QJIT_JIT_ASMJIT_X86FIXEDBRACKETBODY_H
#define QJIT_JIT_ASMJIT_X86FIXEDBRACKETBODY_H

#include "X86FrameOptions.h"
#include "X86Isa.h"

#include "qjit/KernelSpec.h"

namespace qjit::asmjit_backend {

/// Whether `spec` at `isa` takes this body (AVX-512 with VBMI, and a
/// plan::planFixedPointBracket).
bool x86FixedBracketApplies(const KernelSpec &spec, const X86Isa &isa);

/// Emits the kernel (x86FixedBracketApplies must hold).
void generateX86FixedBracket(x86::Assembler &a, const X86Isa &isa,
                             const KernelSpec &spec,
                             const X86FrameOptions &options);

} // namespace qjit::asmjit_backend

#endif // QJIT_JIT_ASMJIT_X86FIXEDBRACKETBODY_H
