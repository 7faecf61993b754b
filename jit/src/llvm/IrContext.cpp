//===- IrContext.cpp - Shared state of one kernel's IR generation ---------===//
#include "IrContext.h"

#include <llvm/IR/Intrinsics.h>
#include <llvm/IR/MDBuilder.h>

namespace qjit::llvmjit {

IrContext::IrContext(llvm::Module &module, const KernelSpec &spec,
                     const VectorTarget &target)
    : context(module.getContext()), module(module), builder(context),
      spec(spec), target(target),
      compute(spec.compute == ValueType::F64 ? llvm::Type::getDoubleTy(context)
                                             : llvm::Type::getFloatTy(context)),
      i8(llvm::Type::getInt8Ty(context)), i16(llvm::Type::getInt16Ty(context)),
      i32(llvm::Type::getInt32Ty(context)),
      i64(llvm::Type::getInt64Ty(context)),
      ptr(llvm::PointerType::getUnqual(context)) {}

llvm::Type *IrContext::vectorOf(llvm::Type *element, unsigned lanes) const {
  if (lanes == 1)
    return element;
  return llvm::FixedVectorType::get(element, lanes);
}

llvm::Value *IrContext::splat(llvm::Value *scalar, unsigned lanes) {
  if (lanes == 1)
    return scalar;
  return builder.CreateVectorSplat(lanes, scalar);
}

llvm::Value *IrContext::computeConstant(double value, unsigned lanes) {
  return splat(llvm::ConstantFP::get(compute, value), lanes);
}

llvm::Value *IrContext::intConstant(llvm::IntegerType *type, int64_t value,
                                    unsigned lanes) {
  return splat(llvm::ConstantInt::getSigned(type, value), lanes);
}

llvm::Value *IrContext::byteAddress(llvm::Value *base, llvm::Value *offset) {
  return builder.CreateInBoundsGEP(i8, base, offset);
}

llvm::Value *IrContext::load(llvm::Type *element, llvm::Value *address,
                             Lanes lanes) {
  llvm::Type *type = vectorOf(element, lanes.count);
  if (lanes.mask)
    return builder.CreateMaskedLoad(type, address, llvm::Align(1), lanes.mask,
                                    llvm::Constant::getNullValue(type));
  return builder.CreateAlignedLoad(type, address, llvm::Align(1));
}

unsigned IrContext::nonTemporalAlignment(unsigned bytes) const {
  return std::min(bytes, std::max(target.vectorBits, 128u) / 8);
}

void IrContext::store(llvm::Value *value, llvm::Value *address, Lanes lanes) {
  if (lanes.mask) {
    builder.CreateMaskedStore(value, address, llvm::Align(1), lanes.mask);
    return;
  }
  unsigned bytes = value->getType()->getPrimitiveSizeInBits() / 8;
  llvm::StoreInst *store = builder.CreateAlignedStore(
      value, address,
      llvm::Align(lanes.nonTemporal ? nonTemporalAlignment(bytes) : 1));
  if (lanes.nonTemporal)
    store->setMetadata(llvm::LLVMContext::MD_nontemporal,
                       llvm::MDNode::get(context, llvm::ConstantAsMetadata::get(
                                                      builder.getInt32(1))));
}

llvm::Value *IrContext::unary(llvm::Intrinsic::ID id, llvm::Value *value) {
  return builder.CreateUnaryIntrinsic(id, value);
}

} // namespace qjit::llvmjit
