//===- X86Generators.h - KernelSpec → x86 machine code ----------*- C++ -*-===//
//
// One generator per kernel family (quantize, dequantize, storage cast),
// each an X86VectorBody run through the shared X86KernelFrame.
//
//===----------------------------------------------------------------------===//
#ifndef QJIT_JIT_ASMJIT_X86GENERATORS_H
#define QJIT_JIT_ASMJIT_X86GENERATORS_H

#include "X86FrameOptions.h"
#include "X86Isa.h"

#include "plan/KernelFits.h"

#include "qjit/Error.h"
#include "qjit/KernelSpec.h"
#include "qjit/internal/Backend.h"

#include <string>

namespace qjit::asmjit_backend {

/// Ok when the x86 generators can compile `spec` at `isa`; otherwise
/// ErrorCode::Unsupported saying what is missing.
Status checkX86Support(const KernelSpec &spec, const X86Isa &isa);

/// Unsupported when checkX86Support fails; otherwise the fit of asmjit's
/// first matching row of plan/KernelFits.def (x86FitRow), Specialized when
/// none matches.
KernelFit x86KernelFit(const KernelSpec &spec, const X86Isa &isa);
/// The row of plan/KernelFits.def `spec` matches at `isa`, or null.
const plan::KernelFitRow *x86FitRow(const KernelSpec &spec, const X86Isa &isa);

/// The ISA level `spec`'s kernel is generated at: `isa`'s, except for the
/// kernels written as AVX2 (VEX) code only, the code this project's hosts
/// can run and test: packed storage (X86PackedCodes.h), float and quantile
/// storage (X86FloatStorage.h, X86QuantileStorage.h), f64 lanes and the exact
/// wide sums (x86NeedsWideLanes), dcast of storage wider than 24 bits.
X86Isa x86KernelIsa(const KernelSpec &spec, const X86Isa &isa);

/// The main loop of `spec`'s f32 qcast at `isa` (x86KernelIsa), in words
/// (X86QuantizeForms.h).
std::string describeX86Quantize(const KernelSpec &spec, const X86Isa &isa);

/// Emits the kernel for `spec` (checkX86Support must have passed).
void generateX86Quantize(x86::Assembler &a, const X86Isa &isa,
                         const KernelSpec &spec,
                         const X86FrameOptions &options = {});
void generateX86Dequantize(x86::Assembler &a, const X86Isa &isa,
                           const KernelSpec &spec);
void generateX86StorageCast(x86::Assembler &a, const X86Isa &isa,
                            const KernelSpec &spec);

/// True for the kernels that finish in f64 lanes (X86WideGenerators.cpp;
/// X86WideCompact.h for float and quantile storage), packed or not: the
/// wide families (plan/KernelFamilies.def).
bool x86NeedsWideLanes(const KernelSpec &spec);
/// Emits such a kernel (qcast or dcast), AVX2 code at every ISA level.
void generateX86Wide(x86::Assembler &a, const KernelSpec &spec);

/// Dispatches on the kernel family, at x86KernelIsa; `options` reach the
/// quantize families' frames (the wide ones take none).
void generateX86Kernel(x86::Assembler &a, const X86Isa &level,
                       const KernelSpec &spec,
                       const X86FrameOptions &options = {});

/// Checks `spec` against `isa`, then emits its kernel (at x86KernelIsa)
/// into `code`, which the caller has initialized (and may have given a
/// logger). The first assembler error comes back as a Status. A dynamic
/// qcast's entry passes a null DynamicQuantizeParts: a listing, not code
/// to run (X86DynamicQuantize.h).
Status assembleX86Kernel(asmjit::CodeHolder &code, const X86Isa &isa,
                         const KernelSpec &spec);

} // namespace qjit::asmjit_backend

#endif // QJIT_JIT_ASMJIT_X86GENERATORS_H
