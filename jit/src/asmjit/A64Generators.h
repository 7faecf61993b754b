//===- A64Generators.h - KernelSpec → AArch64 NEON code ---------*- C++ -*-===//
//
// AArch64 kernels are generated on any host with asmjit's a64 emitter
// (A64Target.cpp turns them into flat code bytes and listings); they run on
// an AArch64 machine or under qemu-user (tests/aarch64).
// Covered: qcast (every knob) and dcast of 8- and 16-bit integer storage
// (signed, unsigned, any bounds) with f32 or f16 expressed values,
// per-tensor, per-axis and blocked layouts (dynamic extents: the innermost
// and one more), baked or runtime parameters.
//
//===----------------------------------------------------------------------===//
#ifndef QJIT_JIT_ASMJIT_A64GENERATORS_H
#define QJIT_JIT_ASMJIT_A64GENERATORS_H

#include "qjit/Error.h"
#include "qjit/KernelSpec.h"

#include <asmjit/core.h>

namespace qjit::asmjit_backend {

/// Emits the kernel of `spec` into `code` (initialized for AArch64): one
/// section, code then its constant tables, addressed PC-relative.
/// ErrorCode::Unsupported for specs outside the coverage above.
Status assembleA64Kernel(asmjit::CodeHolder &code, const KernelSpec &spec);

} // namespace qjit::asmjit_backend

#endif // QJIT_JIT_ASMJIT_A64GENERATORS_H
