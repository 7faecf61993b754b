//===- qjit/LlvmBackend.h - LLVM-specific entry points ----------*- C++ -*-===//
//
// What only the LLVM backend offers, without exposing LLVM types: the
// optimized IR of a kernel (`qjit ir`). Compiling and assembly go through
// the generic Backend interface (createLlvmBackend).
//
//===----------------------------------------------------------------------===//
#ifndef QJIT_LLVMBACKEND_H
#define QJIT_LLVMBACKEND_H

#include "qjit/Error.h"
#include "qjit/Isa.h"
#include "qjit/KernelSpec.h"

#include <string>

namespace qjit {

/// The LLVM IR of `spec`'s kernel for the host at `isa`, after the
/// optimization pipeline of level `optLevel` (0..3; the JIT uses 3).
Expected<std::string> llvmIr(const KernelSpec &spec, int optLevel,
                             IsaLevel isa);

} // namespace qjit

#endif
