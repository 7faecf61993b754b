//===- IrContext.h - Shared state of one kernel's IR generation -*- C++ -*-===//
//
// What every IR-generation helper needs: the builder, the spec, the target
// and the handful of types kernels compute in. Values of `lanes` lanes are
// vectors, except that one lane is a plain scalar (tails, scalar targets).
//
//===----------------------------------------------------------------------===//
#ifndef QJIT_JIT_LLVM_IRCONTEXT_H
#define QJIT_JIT_LLVM_IRCONTEXT_H

#include "LlvmTarget.h"

#include "qjit/KernelSpec.h"

#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Module.h>

namespace qjit::llvmjit {

/// How many elements one operation covers, and which of them are live
/// (a masked tail) when `mask` is set.
struct Lanes {
  unsigned count = 1;
  llvm::Value *mask = nullptr; ///< <count x i1>, or null: all lanes live.
  /// Stores bypass the caches; the address must be aligned to
  /// min(store size, vector register size).
  bool nonTemporal = false;
};

struct IrContext {
  IrContext(llvm::Module &module, const KernelSpec &spec,
            const VectorTarget &target);

  llvm::LLVMContext &context;
  llvm::Module &module;
  llvm::IRBuilder<> builder;
  const KernelSpec &spec;
  const VectorTarget &target;
  llvm::Type *compute; ///< float or double.
  llvm::IntegerType *i8, *i16, *i32, *i64;
  llvm::Type *ptr;

  /// `element` widened to `lanes` (the element itself for one lane).
  llvm::Type *vectorOf(llvm::Type *element, unsigned lanes) const;
  /// A constant or value broadcast to `lanes`.
  llvm::Value *splat(llvm::Value *scalar, unsigned lanes);
  llvm::Value *computeConstant(double value, unsigned lanes);
  llvm::Value *intConstant(llvm::IntegerType *type, int64_t value,
                           unsigned lanes);
  /// `base + offset` bytes.
  llvm::Value *byteAddress(llvm::Value *base, llvm::Value *offset);
  /// A load or store of `lanes` elements, masked when lanes.mask is set.
  llvm::Value *load(llvm::Type *element, llvm::Value *address, Lanes lanes);
  void store(llvm::Value *value, llvm::Value *address, Lanes lanes);
  /// The alignment non-temporal stores of `bytes` bytes need.
  unsigned nonTemporalAlignment(unsigned bytes) const;
  /// A call to an overloaded intrinsic on `value`'s type.
  llvm::Value *unary(llvm::Intrinsic::ID id, llvm::Value *value);
};

} // namespace qjit::llvmjit

#endif
