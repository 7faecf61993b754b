//===- TableLookup.cpp - Per-lane reads of a small constant table ---------===//
#include "TableLookup.h"

#include <llvm/IR/IntrinsicsX86.h>

namespace qjit::llvmjit {

namespace {

constexpr unsigned kSlice = 8; ///< Entries one AVX2 register holds.

llvm::Constant *constantOf(llvm::Type *element, double value) {
  if (element->isFloatingPointTy())
    return llvm::ConstantFP::get(element, value);
  return llvm::ConstantInt::getSigned(llvm::cast<llvm::IntegerType>(element),
                                      static_cast<int64_t>(value));
}

/// Lanes [first, first + count) of `vector`.
llvm::Value *lanesOf(IrContext &ir, llvm::Value *vector, unsigned first,
                     unsigned count) {
  llvm::SmallVector<int, 64> mask;
  for (unsigned lane = 0; lane < count; ++lane)
    mask.push_back(static_cast<int>(first + lane));
  return ir.builder.CreateShuffleVector(vector, mask);
}

/// `parts` (equal lane counts) joined in order.
llvm::Value *concatenate(IrContext &ir, std::vector<llvm::Value *> parts) {
  while (parts.size() > 1) {
    std::vector<llvm::Value *> joined;
    for (size_t i = 0; i + 1 < parts.size(); i += 2) {
      unsigned width = llvm::cast<llvm::FixedVectorType>(parts[i]->getType())
                           ->getNumElements();
      llvm::SmallVector<int, 64> mask;
      for (unsigned lane = 0; lane < 2 * width; ++lane)
        mask.push_back(static_cast<int>(lane));
      joined.push_back(
          ir.builder.CreateShuffleVector(parts[i], parts[i + 1], mask));
    }
    parts = std::move(joined);
  }
  return parts[0];
}

/// One 8-lane chunk through vpermps / vpermd and a select tree.
llvm::Value *permuteLookup(IrContext &ir, llvm::Type *element,
                           const std::vector<double> &entries,
                           llvm::Value *index) {
  llvm::IRBuilder<> &b = ir.builder;
  bool isFloat = element->isFloatTy();
  llvm::Intrinsic::ID permute = isFloat ? llvm::Intrinsic::x86_avx2_permps
                                        : llvm::Intrinsic::x86_avx2_permd;
  std::vector<llvm::Value *> level;
  for (size_t first = 0; first < entries.size(); first += kSlice) {
    llvm::SmallVector<llvm::Constant *, kSlice> slice;
    for (size_t k = first; k < first + kSlice; ++k)
      slice.push_back(
          constantOf(element, entries[std::min(k, entries.size() - 1)]));
    level.push_back(b.CreateIntrinsic(
        permute, {}, {llvm::ConstantVector::get(slice), index}));
  }
  // Bit 3 of the index picks between neighbouring slices, bit 4 between
  // pairs of them, and so on.
  for (unsigned bit = 3; level.size() > 1; ++bit) {
    llvm::Value *high = b.CreateICmpNE(
        b.CreateAnd(index, ir.intConstant(ir.i32, int64_t(1) << bit, kSlice)),
        ir.intConstant(ir.i32, 0, kSlice));
    std::vector<llvm::Value *> next;
    for (size_t i = 0; i < level.size(); i += 2)
      next.push_back(i + 1 < level.size()
                         ? b.CreateSelect(high, level[i + 1], level[i])
                         : level[i]);
    level = std::move(next);
  }
  return level[0];
}

} // namespace

llvm::Value *emitTableLookup(IrContext &ir, llvm::Type *element,
                             const std::vector<double> &entries,
                             llvm::Value *index, unsigned lanes) {
  llvm::IRBuilder<> &b = ir.builder;
  bool permutes =
      ir.target.isX86 && ir.target.vectorBits >= 256 && lanes % kSlice == 0 &&
      (element->isFloatTy() || element == ir.i32) && entries.size() <= 64;
  if (permutes) {
    std::vector<llvm::Value *> parts;
    for (unsigned first = 0; first < lanes; first += kSlice)
      parts.push_back(permuteLookup(ir, element, entries,
                                    lanesOf(ir, index, first, kSlice)));
    return concatenate(ir, std::move(parts));
  }
  llvm::SmallVector<llvm::Constant *, 64> values;
  for (double entry : entries)
    values.push_back(constantOf(element, entry));
  auto *arrayType = llvm::ArrayType::get(element, entries.size());
  auto *global = new llvm::GlobalVariable(
      ir.module, arrayType, /*isConstant=*/true,
      llvm::GlobalValue::PrivateLinkage,
      llvm::ConstantArray::get(arrayType, values), "table");
  llvm::Value *offsets = b.CreateZExt(index, ir.vectorOf(ir.i64, lanes));
  llvm::Value *addresses = b.CreateInBoundsGEP(element, global, offsets);
  if (lanes == 1)
    return b.CreateLoad(element, addresses);
  return b.CreateMaskedGather(
      ir.vectorOf(element, lanes), addresses,
      llvm::Align(element->getPrimitiveSizeInBits() / 8));
}

} // namespace qjit::llvmjit
