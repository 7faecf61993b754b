//===- KernelIr.h - KernelSpec to LLVM IR -----------------------*- C++ -*-===//
#ifndef QJIT_JIT_LLVM_KERNELIR_H
#define QJIT_JIT_LLVM_KERNELIR_H

#include "LlvmTarget.h"

#include "qjit/KernelSpec.h"

#include <llvm/IR/Module.h>

#include <memory>
#include <string>

namespace qjit::llvmjit {

/// A module holding one external function `name` with the kernel ABI of
/// `spec` (KernelFn or ParamKernelFn), specialized for `target`.
Expected<std::unique_ptr<llvm::Module>>
buildKernelModule(llvm::LLVMContext &context, const KernelSpec &spec,
                  const VectorTarget &target, const std::string &name);

} // namespace qjit::llvmjit

#endif
