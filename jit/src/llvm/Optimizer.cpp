//===- Optimizer.cpp - The new-pass-manager pipeline for kernels ----------===//
#include "Optimizer.h"

#include <llvm/Passes/PassBuilder.h>

namespace qjit::llvmjit {

void optimizeModule(llvm::Module &module, llvm::TargetMachine &machine,
                    int optLevel) {
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
