//===- LlvmBackend.h - LLVM-specific entry points ---------------*- C++ -*-===//
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

/// The IR optimization level of JIT'd kernels, `qjit asm` and `qjit ir` by
/// default: kernel IR is explicit vector code in SSA form with hoisted
/// parameters, so the -O1..-O3 pipelines only add compile time; codegen
/// runs at CodeGenOptLevel::Aggressive.
inline constexpr int kLlvmJitOptLevel = 0;

/// The LLVM IR of `spec`'s kernel for the host at `isa`, after the
/// optimization pipeline of level `optLevel` (0..3; the JIT's is
/// kLlvmJitOptLevel).
Expected<std::string> llvmIr(const KernelSpec &spec, int optLevel,
                             IsaLevel isa);

/// The highest x86 level, at most `isa`, whose baseline the target of
/// `options` has (-mcpu's features within `isa`, else the host's with
/// `isa`'s baseline, then -mattr): what a generator that targets levels
/// rather than CPUs (asmjit) lists for them. An unknown -mcpu is an error.
Expected<IsaLevel> x86ListingIsaLevel(IsaLevel isa, const AsmOptions &options);

/// The host as LLVM names it (`qjit --version`).
struct LlvmHost {
  std::string triple; ///< "x86_64-pc-linux-gnu"
  std::string cpu;    ///< "znver1", "sapphirerapids"
};
LlvmHost llvmHost();

} // namespace qjit

#endif
