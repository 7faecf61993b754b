//===- Optimizer.h - The new-pass-manager pipeline for kernels --*- C++ -*-===//
#ifndef QJIT_JIT_LLVM_OPTIMIZER_H
#define QJIT_JIT_LLVM_OPTIMIZER_H

#include <llvm/IR/Module.h>
#include <llvm/Target/TargetMachine.h>

namespace qjit::llvmjit {

/// Runs the standard per-module pipeline of `optLevel` (0..3) for `machine`
/// and gates the module's codegen (see Optimizer.cpp): the JIT, `qjit asm`
/// and `qjit ir` all pass through here.
void optimizeModule(llvm::Module &module, llvm::TargetMachine &machine,
                    int optLevel);

} // namespace qjit::llvmjit

#endif
