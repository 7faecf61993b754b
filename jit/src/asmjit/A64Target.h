//===- A64Target.h - AArch64 kernels as flat code bytes ---------*- C++ -*-===//
//
// The asmjit backend's "emit for a target" path for AArch64: the a64
// generator assembles into a CodeHolder with an AArch64 environment, which
// is flattened and relocated to raw position-independent bytes. The
// listing is logged by the same assembler run that produced the bytes.
//
//===----------------------------------------------------------------------===//
#ifndef QJIT_JIT_ASMJIT_A64TARGET_H
#define QJIT_JIT_ASMJIT_A64TARGET_H

#include "qjit/internal/Backend.h"

#include <string_view>

namespace qjit::asmjit_backend {

Expected<TargetCode> a64TargetCode(const KernelSpec &spec,
                                   std::string_view triple);

} // namespace qjit::asmjit_backend

#endif // QJIT_JIT_ASMJIT_A64TARGET_H
