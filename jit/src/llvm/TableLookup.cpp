//===- TableLookup.cpp - Per-lane reads of a small constant table ---------===//
#include "TableLookup.h"

#include <llvm/IR/IntrinsicsX86.h>

#include <cstring>

namespace qjit::llvmjit {

namespace {

constexpr unsigned kSlice = 8;     ///< Entries one AVX2 register holds.
constexpr unsigned kZmmSlice = 16; ///< Entries one AVX-512 register holds.

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

/// Tables of up to 4 entries, replicated in both 128-bit halves, are read
/// by vpermilps (in-lane, cheaper than the lane-crossing vpermps).
constexpr size_t kInLaneEntries = 4;

llvm::Value *inLaneLookup(IrContext &ir, llvm::Type *element,
                          const std::vector<double> &entries,
                          llvm::Value *index) {
  llvm::IRBuilder<> &b = ir.builder;
  llvm::Type *floats = llvm::FixedVectorType::get(b.getFloatTy(), kSlice);
  llvm::SmallVector<llvm::Constant *, kSlice> table;
  for (size_t k = 0; k < kSlice; ++k)
    table.push_back(constantOf(
        element, entries[std::min(k % kInLaneEntries, entries.size() - 1)]));
  llvm::Value *values =
      b.CreateBitCast(llvm::ConstantVector::get(table), floats);
  llvm::Value *picked = b.CreateIntrinsic(
      llvm::Intrinsic::x86_avx_vpermilvar_ps_256, {}, {values, index});
  return b.CreateBitCast(picked, llvm::FixedVectorType::get(element, kSlice));
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

/// One 16-lane chunk of AVX-512: tables of up to 16 entries in one zmm
/// (vpermps / vpermd), up to 32 in two (vpermi2ps / vpermi2d), up to 64
/// as two of those and a select on bit 5 of the index.
llvm::Value *zmmLookup(IrContext &ir, llvm::Type *element,
                       const std::vector<double> &entries, llvm::Value *index) {
  llvm::IRBuilder<> &b = ir.builder;
  bool isFloat = element->isFloatTy();
  auto slice = [&](size_t first) {
    llvm::SmallVector<llvm::Constant *, kZmmSlice> values;
    for (size_t k = first; k < first + kZmmSlice; ++k)
      values.push_back(
          constantOf(element, entries[std::min(k, entries.size() - 1)]));
    return llvm::ConstantVector::get(values);
  };
  if (entries.size() <= kZmmSlice)
    return b.CreateIntrinsic(isFloat
                                 ? llvm::Intrinsic::x86_avx512_permvar_sf_512
                                 : llvm::Intrinsic::x86_avx512_permvar_si_512,
                             {}, {slice(0), index});
  llvm::Intrinsic::ID twoSlices =
      isFloat ? llvm::Intrinsic::x86_avx512_vpermi2var_ps_512
              : llvm::Intrinsic::x86_avx512_vpermi2var_d_512;
  llvm::Value *low =
      b.CreateIntrinsic(twoSlices, {}, {slice(0), index, slice(kZmmSlice)});
  if (entries.size() <= 2 * kZmmSlice)
    return low;
  llvm::Value *high = b.CreateIntrinsic(
      twoSlices, {}, {slice(2 * kZmmSlice), index, slice(3 * kZmmSlice)});
  llvm::Value *upper = b.CreateICmpNE(
      b.CreateAnd(index, ir.intConstant(ir.i32, 2 * kZmmSlice, kZmmSlice)),
      ir.intConstant(ir.i32, 0, kZmmSlice));
  return b.CreateSelect(upper, high, low);
}

/// AVX2's in-lane unpack (punpckl* / punpckh*) of two 256-bit vectors of
/// `count` elements: per 128-bit half, the low or high halves interleaved.
llvm::Value *unpackInLanes(IrContext &ir, llvm::Value *a, llvm::Value *b,
                           unsigned count, bool high) {
  llvm::SmallVector<int, 64> mask;
  unsigned half = count / 2, quarter = count / 4;
  for (unsigned lane = 0; lane < 2; ++lane)
    for (unsigned i = 0; i < quarter; ++i) {
      int from = static_cast<int>(lane * half + (high ? quarter : 0) + i);
      mask.push_back(from);
      mask.push_back(from + static_cast<int>(count));
    }
  return ir.builder.CreateShuffleVector(a, b, mask);
}

/// Lanes the byte-plane lookup converts at once (one 16-byte load).
constexpr unsigned kPlaneLanes = 32;

} // namespace

bool nibbleLookupApplies(IrContext &ir, Lanes lanes,
                         const std::vector<double> &entries) {
  const StorageSpec &storage = ir.spec.storage;
  return ir.target.isX86 && ir.target.vectorBits >= 256 && storage.packed &&
         storage.bits == 4 && entries.size() == 16 &&
         lanes.count == kPlaneLanes && !lanes.mask;
}

llvm::Value *emitNibbleLookup(IrContext &ir, llvm::Value *src,
                              llvm::Value *index,
                              const std::vector<double> &entries) {
  llvm::IRBuilder<> &b = ir.builder;
  llvm::Value *packed =
      ir.load(ir.i8, ir.byteAddress(src, b.CreateLShr(index, 1)), Lanes{16});
  // Nibble order such that the in-lane unpacks below leave elements in
  // order: the low 128 bits hold elements 0-3, 8-11, 16-19, 24-27, the
  // high ones 4-7, 12-15, 20-23, 28-31. Element e is nibble e % 2 of
  // byte e / 2, so the low half needs bytes 0, 1, 4, 5, ... and the high
  // half bytes 2, 3, 6, 7, ...: one byte shuffle, widened to words w, and
  // (w | w << 4) & 0x0F0F puts each byte's low nibble before its high one.
  llvm::SmallVector<int, 16> byteOrder;
  for (unsigned half = 0; half < 2; ++half)
    for (unsigned pair = 0; pair < 4; ++pair)
      for (unsigned i = 0; i < 2; ++i)
        byteOrder.push_back(static_cast<int>(4 * pair + 2 * half + i));
  llvm::Value *pairs = b.CreateZExt(b.CreateShuffleVector(packed, byteOrder),
                                    ir.vectorOf(ir.i16, 16));
  pairs = b.CreateAnd(
      b.CreateOr(pairs, b.CreateShl(pairs, ir.intConstant(ir.i16, 4, 16))),
      ir.intConstant(ir.i16, 0x0F0F, 16));
  llvm::Value *nibbles =
      b.CreateBitCast(pairs, ir.vectorOf(ir.i8, kPlaneLanes));
  std::vector<llvm::Value *> planes;
  for (unsigned k = 0; k < 4; ++k) {
    llvm::SmallVector<llvm::Constant *, kPlaneLanes> plane;
    for (unsigned e = 0; e < kPlaneLanes; ++e) {
      float entry = static_cast<float>(entries[e % 16]);
      uint32_t word;
      std::memcpy(&word, &entry, 4);
      plane.push_back(b.getInt8(static_cast<uint8_t>(word >> (8 * k))));
    }
    planes.push_back(
        b.CreateIntrinsic(llvm::Intrinsic::x86_avx2_pshuf_b, {},
                          {llvm::ConstantVector::get(plane), nibbles}));
  }
  llvm::Type *words = ir.vectorOf(ir.i16, 16);
  std::vector<llvm::Value *> outputs;
  for (bool highBytes : {false, true}) {
    llvm::Value *low16 = b.CreateBitCast(
        unpackInLanes(ir, planes[0], planes[1], 32, highBytes), words);
    llvm::Value *high16 = b.CreateBitCast(
        unpackInLanes(ir, planes[2], planes[3], 32, highBytes), words);
    for (bool highWords : {false, true})
      outputs.push_back(unpackInLanes(ir, low16, high16, 16, highWords));
  }
  auto concatenate = [&](llvm::Value *x, llvm::Value *y) {
    unsigned count =
        llvm::cast<llvm::FixedVectorType>(x->getType())->getNumElements();
    llvm::SmallVector<int, 64> both;
    for (unsigned i = 0; i < 2 * count; ++i)
      both.push_back(static_cast<int>(i));
    return b.CreateShuffleVector(x, y, both);
  };
  return b.CreateBitCast(concatenate(concatenate(outputs[0], outputs[1]),
                                     concatenate(outputs[2], outputs[3])),
                         ir.vectorOf(ir.compute, kPlaneLanes));
}

llvm::Value *emitTableLookup(IrContext &ir, llvm::Type *element,
                             const std::vector<double> &entries,
                             llvm::Value *index, unsigned lanes) {
  llvm::IRBuilder<> &b = ir.builder;
  // Two entries are a select. (LLVM 22 aborts selecting the AND that its
  // x86 combines make of a two-valued vpermilps joined into 512 bits.)
  if (entries.size() <= 2)
    return b.CreateSelect(
        b.CreateICmpNE(index, ir.intConstant(ir.i32, 0, lanes)),
        ir.splat(constantOf(element, entries.back()), lanes),
        ir.splat(constantOf(element, entries.front()), lanes));
  bool permutes = ir.target.isX86 && ir.target.vectorBits >= 256 &&
                  (element->isFloatTy() || element == ir.i32) &&
                  entries.size() <= 64;
  unsigned slice = ir.target.vectorBits >= 512 ? kZmmSlice : kSlice;
  if (permutes && lanes % slice == 0) {
    std::vector<llvm::Value *> parts;
    for (unsigned first = 0; first < lanes; first += slice) {
      llvm::Value *chunk = lanesOf(ir, index, first, slice);
      parts.push_back(slice == kZmmSlice
                          ? zmmLookup(ir, element, entries, chunk)
                      : entries.size() <= kInLaneEntries
                          ? inLaneLookup(ir, element, entries, chunk)
                          : permuteLookup(ir, element, entries, chunk));
    }
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
