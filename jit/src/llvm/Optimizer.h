//===- Optimizer.h - The new-pass-manager pipeline for kernels --*- C++ -*-===//
#ifndef QJIT_JIT_LLVM_OPTIMIZER_H
#define QJIT_JIT_LLVM_OPTIMIZER_H

#include <llvm/IR/Module.h>
#include <llvm/Target/TargetMachine.h>

namespace qjit::llvmjit {

/// Runs the standard per-module pipeline of `optLevel` (0..3) for `machine`.
void optimizeModule(llvm::Module &module, llvm::TargetMachine &machine,
                    int optLevel);

/// The IR optimization level of JIT'd kernels. KernelIr already emits
/// explicit vector code in SSA form with hoisted parameters; measured on
/// this project's host, -O1..-O3 added ~25 ms per kernel and no
/// throughput, so kernels go straight to codegen (which itself runs at
/// CodeGenOptLevel::Aggressive). `qjit ir` shows -O3 by default.
constexpr int kJitOptLevel = 0;

} // namespace qjit::llvmjit

#endif
