//===- A64Generators.h - KernelSpec → AArch64 NEON listings ------*- C++
//-*-===//
//
// AArch64 kernels are generated on any host with asmjit's a64 emitter and
// printed; executing them needs an AArch64 machine (or qemu-user).
// Covered: per-tensor, baked parameters, f32 expressed values, 8- and
// 16-bit integer storage, qcast (every knob) and dcast.
//
//===----------------------------------------------------------------------===//
#ifndef QJIT_JIT_ASMJIT_A64GENERATORS_H
#define QJIT_JIT_ASMJIT_A64GENERATORS_H

#include "qjit/Error.h"
#include "qjit/KernelSpec.h"

#include <string>
#include <string_view>

namespace qjit::asmjit_backend {

Expected<std::string> a64Assembly(const KernelSpec &spec,
                                  std::string_view triple);

} // namespace qjit::asmjit_backend

#endif // QJIT_JIT_ASMJIT_A64GENERATORS_H
