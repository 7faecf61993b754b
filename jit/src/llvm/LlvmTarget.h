//===- LlvmTarget.h - TargetMachine configurations --------------*- C++ -*-===//
//
// One place decides the triple, CPU and feature string of every
// TargetMachine the LLVM backend builds, so the JIT and `qjit asm` compile
// with identical configurations. The host CPU name only tunes scheduling:
// the feature string is explicit and complete, derived from the host's
// features capped at an IsaLevel, so the CPU name never implies anything.
//
//===----------------------------------------------------------------------===//
#ifndef QJIT_JIT_LLVM_LLVMTARGET_H
#define QJIT_JIT_LLVM_LLVMTARGET_H

#include "qjit/internal/Backend.h"

#include <llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h>
#include <llvm/Target/TargetMachine.h>

#include <memory>
#include <string>

namespace qjit::llvmjit {

/// What kernel IR may assume about its target.
struct VectorTarget {
  bool isX86 = true;
  unsigned vectorBits = 128; ///< Widest vector register the IR should use.
  bool maskedMemory = false; ///< AVX-512 style masked loads and stores.
  /// Divide by baked scales with FMA corrections instead of the divider
  /// (QuantArith.cpp). Measured on this project's AVX2 host, vdivps beats
  /// the five FMA-unit operations, so only 512-bit x86 (half-rate divider)
  /// and AArch64 (slow fdiv, fast fmla) use it; on x86 only where the
  /// checked multiply (which divides near rounding boundaries alone) does
  /// not apply.
  bool fmaDivision = false;
  bool fma = false; ///< Fused multiply-add instructions.
};

struct TargetConfig {
  std::string triple;
  std::string cpu;
  std::string features; ///< "+a,-b,...", explicit and complete on x86.
  VectorTarget vector;
  std::string describe() const; ///< "triple cpu=... features=..."
};

/// The host at `isa` (levels above the host are allowed: assembly only).
TargetConfig hostTargetConfig(IsaLevel isa);
/// The host configuration adjusted by `qjit asm` options (cross triples,
/// -mcpu, -mattr applied last).
Expected<TargetConfig> asmTargetConfig(IsaLevel isa, const AsmOptions &options);

llvm::orc::JITTargetMachineBuilder machineBuilder(const TargetConfig &config);
Expected<std::unique_ptr<llvm::TargetMachine>>
createTargetMachine(const TargetConfig &config);

/// Registers the native and AArch64 targets (with the AArch64
/// disassembler) once (thread-safe).
void initializeLlvmTargets();

} // namespace qjit::llvmjit

#endif
