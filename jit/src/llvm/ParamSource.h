//===- ParamSource.h - Where scales and zero points come from ---*- C++ -*-===//
//
// Baked parameters become immediates (one parameter) or constant tables
// holding every derived quantity the plan needs (reciprocals, limits,
// zero points in each form), so kernels never derive them per element.
// Runtime parameters are read from KernelParams and derived on the fly
// (once per run for broadcast parameters).
//
//===----------------------------------------------------------------------===//
#ifndef QJIT_JIT_LLVM_PARAMSOURCE_H
#define QJIT_JIT_LLVM_PARAMSOURCE_H

#include "QuantArith.h"

#include <map>

namespace qjit::llvmjit {

class ParamSource {
public:
  /// Emits the setup (at the builder's position, the kernel's entry).
  /// `kernelParams` is the KernelParams pointer, or null.
  ParamSource(IrContext &ir, const QuantPlan &plan, llvm::Value *kernelParams);

  /// Parameter number `index`, as scalars.
  ParamValues scalar(llvm::Value *index);
  /// Parameters index .. index+lanes-1, one per lane.
  ParamValues contiguous(llvm::Value *index, Lanes lanes);
  /// Scalars broadcast to `lanes`.
  ParamValues splat(const ParamValues &scalars, unsigned lanes);

private:
  /// A baked table of one derived quantity (or its single value).
  struct Table {
    llvm::Type *element = nullptr;
    std::vector<double> reals;
    std::vector<int64_t> integers;
    llvm::GlobalVariable *global = nullptr;
  };
  void bake();
  llvm::Value *tableRead(Table &table, llvm::Value *index, Lanes lanes);
  ParamValues runtimeRead(llvm::Value *index, Lanes lanes);

  IrContext &ir_;
  const QuantPlan &plan_;
  size_t count_ = 1;
  Table scale_, reciprocal_, limit_, zeroCompute_, zeroSum_, zeroNaN_;
  llvm::Value *scales_ = nullptr;     ///< Runtime: in the ScaleFormat.
  llvm::Value *zeroPoints_ = nullptr; ///< Runtime: i64 array (or zeros).
  llvm::Value *zeroStride_ = nullptr; ///< Runtime: 1, or 0 for all zeros.
};

} // namespace qjit::llvmjit

#endif
