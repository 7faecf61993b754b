//===- X86ByteDequantizeBody.h - AVX-512 8-bit dcast, no cvt ----*- C++ -*-===//
//
// The AVX-512 (VBMI) main loop of per-tensor dcast from unpacked 8-bit
// integers: one 64-byte load, and per vector one vpermb that writes each
// byte under the exponent of 2^23 (the bits of 2^23 + q, signed bytes
// biased by 128 first), one subtraction of 2^23 (+ 128) + z (exact: both
// integers below 2^24) and one multiplication: q − z and then · s, each
// one f32 rounding, as X86DequantizeGenerator's conversion, with three
// vector µops per 16 elements instead of four.
//
//===----------------------------------------------------------------------===//
#ifndef QJIT_JIT_ASMJIT_X86BYTEDEQUANTIZEBODY_H
#define QJIT_JIT_ASMJIT_X86BYTEDEQUANTIZEBODY_H

#include "X86Isa.h"

#include "qjit/KernelSpec.h"

namespace qjit::asmjit_backend {

/// Whether `spec` at `isa` takes this body: dcast, AVX-512 with VBMI,
/// unpacked 8-bit integers, f32 expressed and compute, one baked scale,
/// |z| < 2^22.
bool x86ByteDequantizeApplies(const KernelSpec &spec, const X86Isa &isa);

/// Emits the kernel (x86ByteDequantizeApplies must hold).
void generateX86ByteDequantize(x86::Assembler &a, const X86Isa &isa,
                               const KernelSpec &spec);

} // namespace qjit::asmjit_backend

#endif // QJIT_JIT_ASMJIT_X86BYTEDEQUANTIZEBODY_H
