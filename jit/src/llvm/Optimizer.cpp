//===- Optimizer.cpp - The pipelines kernels go through -------------------===//
#include "Optimizer.h"

#include <llvm/ADT/StringRef.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/OptBisect.h>
#include <llvm/Passes/PassBuilder.h>

#include <algorithm>

namespace qjit::llvmjit {

namespace {

/// Skips optional codegen passes that kernels do not need, per
/// context (a process-wide -disable-lsr would change other LLVM users).
/// Loop strength reduction rewrites the kernels' `base + i * size`
/// addresses into pointer increments, which scaled-index addressing (x86,
/// AArch64) does not need: with it and its freeze canonicalization skipped, a
/// compile measured ~2 ms shorter and no kernel slower (NF4 qcast faster).
class KernelCodegenGate final : public llvm::OptPassGate {
public:
  bool isEnabled() const override { return true; }
  bool shouldRunPass(llvm::StringRef pass, llvm::StringRef) const override {
    return pass != "Loop Strength Reduction" &&
           pass != "Canonicalize Freeze Instructions in Loops";
  }
};

} // namespace

void optimizeModule(llvm::Module &module, llvm::TargetMachine &machine,
                    int optLevel) {
  static KernelCodegenGate gate;
  module.getContext().setOptPassGate(gate);
  module.setDataLayout(machine.createDataLayout());
  module.setTargetTriple(machine.getTargetTriple());
  llvm::LoopAnalysisManager loops;
  llvm::FunctionAnalysisManager functions;
  llvm::CGSCCAnalysisManager cgscc;
  llvm::ModuleAnalysisManager modules;
  llvm::PassBuilder builder(&machine);
  builder.registerModuleAnalyses(modules);
  builder.registerCGSCCAnalyses(cgscc);
  builder.registerFunctionAnalyses(functions);
  builder.registerLoopAnalyses(loops);
  builder.crossRegisterProxies(loops, functions, cgscc, modules);
  static const llvm::OptimizationLevel kLevels[] = {
      llvm::OptimizationLevel::O0, llvm::OptimizationLevel::O1,
      llvm::OptimizationLevel::O2, llvm::OptimizationLevel::O3};
  llvm::OptimizationLevel level = kLevels[std::clamp(optLevel, 0, 3)];
  llvm::ModulePassManager pipeline =
      level == llvm::OptimizationLevel::O0
          ? builder.buildO0DefaultPipeline(level)
          : builder.buildPerModuleDefaultPipeline(level);
  pipeline.run(module, modules);
}

} // namespace qjit::llvmjit
