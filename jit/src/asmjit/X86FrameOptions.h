//===- X86FrameOptions.h - Frame decisions beyond the spec ------*- C++ -*-===//
//
// What the caller of an x86 generator decides that the spec alone does
// not: how far the loops prefetch their input (KernelPlan).
//
//===----------------------------------------------------------------------===//
#ifndef QJIT_JIT_ASMJIT_X86FRAMEOPTIONS_H
#define QJIT_JIT_ASMJIT_X86FRAMEOPTIONS_H

#include <cstdint>

namespace qjit::asmjit_backend {

struct X86FrameOptions {
  /// Each step of the vector loops prefetches the input this many bytes
  /// past the step's into L1 (KernelPlan::loopPrefetchBytes; 0: none).
  int32_t prefetchInputBytes = 0;
};

} // namespace qjit::asmjit_backend

#endif // QJIT_JIT_ASMJIT_X86FRAMEOPTIONS_H
