//===- ElementIo.cpp - Loading and storing kernel elements ----------------===//
#include "ElementIo.h"

#include "X86PackOrder.h"

#include <llvm/IR/Intrinsics.h>
#include <llvm/IR/IntrinsicsX86.h>

#include <cassert>
#include <vector>

namespace qjit::llvmjit {

unsigned valuesPerByte(const StorageSpec &storage) {
  return storage.packed ? 8 / storage.bits : 1;
}

llvm::Type *expressedMemoryType(IrContext &ir) {
  switch (ir.spec.expressed) {
  case ValueType::F16:
    return llvm::Type::getHalfTy(ir.context);
  case ValueType::BF16:
    return ir.i16; // Widened by hand: exact, and no libcalls.
  case ValueType::F32:
    return llvm::Type::getFloatTy(ir.context);
  case ValueType::F64:
    return llvm::Type::getDoubleTy(ir.context);
  }
  return nullptr;
}

llvm::Value *widenExpressed(IrContext &ir, llvm::Value *raw, unsigned lanes) {
  llvm::IRBuilder<> &b = ir.builder;
  if (ir.spec.expressed == ValueType::BF16) {
    llvm::Value *wide = b.CreateZExt(raw, ir.vectorOf(ir.i32, lanes));
    wide = b.CreateShl(wide, ir.intConstant(ir.i32, 16, lanes));
    return b.CreateBitCast(wide, ir.vectorOf(ir.compute, lanes));
  }
  if (raw->getType() == ir.vectorOf(ir.compute, lanes))
    return raw;
  return b.CreateFPExt(raw, ir.vectorOf(ir.compute, lanes));
}

llvm::Value *loadExpressed(IrContext &ir, llvm::Value *base, llvm::Value *index,
                           Lanes lanes) {
  llvm::IRBuilder<> &b = ir.builder;
  unsigned bytes = valueTypeBytes(ir.spec.expressed);
  llvm::Value *address =
      ir.byteAddress(base, b.CreateMul(index, b.getInt64(bytes)));
  return widenExpressed(ir, ir.load(expressedMemoryType(ir), address, lanes),
                        lanes.count);
}

/// f32 lanes rounded to bf16 bits, nearest-even. dcast never produces NaN
/// (finite operands, finite scale), so no quieting is needed; overflow
/// rounds to infinity as it must.
llvm::Value *roundToBfloat16(IrContext &ir, llvm::Value *values,
                             unsigned lanes) {
  llvm::IRBuilder<> &b = ir.builder;
  llvm::Value *bits = b.CreateBitCast(values, ir.vectorOf(ir.i32, lanes));
  llvm::Value *lsb =
      b.CreateAnd(b.CreateLShr(bits, ir.intConstant(ir.i32, 16, lanes)),
                  ir.intConstant(ir.i32, 1, lanes));
  llvm::Value *rounded = b.CreateAdd(
      bits, b.CreateAdd(lsb, ir.intConstant(ir.i32, 0x7FFF, lanes)));
  return b.CreateTrunc(b.CreateLShr(rounded, ir.intConstant(ir.i32, 16, lanes)),
                       ir.vectorOf(ir.i16, lanes));
}

void storeExpressed(IrContext &ir, llvm::Value *base, llvm::Value *index,
                    llvm::Value *values, Lanes lanes) {
  llvm::IRBuilder<> &b = ir.builder;
  unsigned bytes = valueTypeBytes(ir.spec.expressed);
  llvm::Value *address =
      ir.byteAddress(base, b.CreateMul(index, b.getInt64(bytes)));
  llvm::Value *narrow = values;
  if (ir.spec.expressed == ValueType::BF16)
    narrow = roundToBfloat16(ir, values, lanes.count);
  else if (ir.compute != expressedMemoryType(ir)) // f16, or f32 from f64.
    narrow = b.CreateFPTrunc(values,
                             ir.vectorOf(expressedMemoryType(ir), lanes.count));
  ir.store(narrow, address, lanes);
}

namespace {

llvm::IntegerType *containerType(IrContext &ir) {
  switch (ir.spec.storage.containerBytes()) {
  case 1:
    return ir.i8;
  case 2:
    return ir.i16;
  default:
    return ir.i32;
  }
}

/// i32 lanes holding `bits`-bit fields at bit `shift`... (per lane) moved
/// to the top and extended back: the value of the field.
llvm::Value *extractField(IrContext &ir, llvm::Value *wide,
                          llvm::Value *topShift, unsigned lanes) {
  llvm::IRBuilder<> &b = ir.builder;
  const StorageSpec &storage = ir.spec.storage;
  llvm::Value *top = topShift ? b.CreateShl(wide, topShift) : wide;
  llvm::Value *down = ir.intConstant(ir.i32, 32 - storage.bits, lanes);
  return storage.isSigned ? b.CreateAShr(top, down) : b.CreateLShr(top, down);
}

/// Lanes per chunk of a packed vector load: the fields of 8 lanes fit one
/// 32-bit word, which every lane of the chunk reads (a broadcast load) and
/// shifts its own field out of: two shifts per 8 lanes, no shuffles.
constexpr unsigned kPackedChunk = 8;

llvm::Value *loadPackedChunks(IrContext &ir, llvm::Value *address, unsigned n) {
  llvm::IRBuilder<> &b = ir.builder;
  const StorageSpec &storage = ir.spec.storage;
  unsigned chunkBytes = kPackedChunk * storage.bits / 8;
  llvm::IntegerType *word = b.getIntNTy(chunkBytes * 8);
  llvm::SmallVector<llvm::Constant *, kPackedChunk> tops;
  for (unsigned lane = 0; lane < kPackedChunk; ++lane)
    tops.push_back(b.getInt32(32 - storage.bits - lane * storage.bits));
  llvm::Value *topShift = llvm::ConstantVector::get(tops);
  std::vector<llvm::Value *> parts;
  for (unsigned first = 0; first < n; first += kPackedChunk) {
    llvm::Value *at =
        ir.byteAddress(address, b.getInt64(first / kPackedChunk * chunkBytes));
    llvm::Value *bits =
        b.CreateZExt(b.CreateAlignedLoad(word, at, llvm::Align(1)), ir.i32);
    parts.push_back(extractField(ir, b.CreateVectorSplat(kPackedChunk, bits),
                                 topShift, kPackedChunk));
  }
  // Join neighbours until one vector of n lanes is left.
  while (parts.size() > 1) {
    std::vector<llvm::Value *> joined;
    for (size_t i = 0; i < parts.size(); i += 2) {
      unsigned width = llvm::cast<llvm::FixedVectorType>(parts[i]->getType())
                           ->getNumElements();
      llvm::SmallVector<int, 64> both;
      for (unsigned lane = 0; lane < 2 * width; ++lane)
        both.push_back(static_cast<int>(lane));
      joined.push_back(b.CreateShuffleVector(parts[i], parts[i + 1], both));
    }
    parts = std::move(joined);
  }
  return parts[0];
}

unsigned log2(unsigned value) {
  unsigned result = 0;
  while ((1u << result) < value)
    ++result;
  return result;
}

} // namespace

llvm::Value *loadStored(IrContext &ir, llvm::Value *base, llvm::Value *index,
                        Lanes lanes) {
  llvm::IRBuilder<> &b = ir.builder;
  const StorageSpec &storage = ir.spec.storage;
  unsigned n = lanes.count;
  if (!storage.packed) {
    llvm::IntegerType *container = containerType(ir);
    llvm::Value *address = ir.byteAddress(
        base, b.CreateMul(index, b.getInt64(storage.containerBytes())));
    llvm::Value *raw = ir.load(container, address, lanes);
    llvm::Value *wide = b.CreateZExt(raw, ir.vectorOf(ir.i32, n));
    if (storage.bits == 32)
      return wide;
    // Only the low `bits` bits of a container carry the value.
    return extractField(ir, wide, ir.intConstant(ir.i32, 32 - storage.bits, n),
                        n);
  }
  unsigned perByte = valuesPerByte(storage);
  llvm::Value *byteIndex = b.CreateLShr(index, log2(perByte));
  llvm::Value *address = ir.byteAddress(base, byteIndex);
  if (n == 1) {
    llvm::Value *wide = b.CreateZExt(b.CreateLoad(ir.i8, address), ir.i32);
    llvm::Value *slot =
        b.CreateTrunc(b.CreateAnd(index, b.getInt64(perByte - 1)), ir.i32);
    llvm::Value *shift = b.CreateMul(slot, b.getInt32(storage.bits));
    llvm::Value *top = b.CreateSub(b.getInt32(32 - storage.bits), shift);
    return extractField(ir, wide, top, 1);
  }
  assert(n % perByte == 0 && !lanes.mask && "packed vectors cover bytes");
  if (n % kPackedChunk == 0 && llvm::isPowerOf2_32(n / kPackedChunk))
    return loadPackedChunks(ir, address, n);
  llvm::Value *bytes = ir.load(ir.i8, address, Lanes{n / perByte});
  llvm::SmallVector<int, 64> replicate;
  llvm::SmallVector<llvm::Constant *, 64> tops;
  for (unsigned lane = 0; lane < n; ++lane) {
    replicate.push_back(static_cast<int>(lane / perByte));
    tops.push_back(
        b.getInt32(32 - storage.bits - (lane % perByte) * storage.bits));
  }
  // One byte loads as a scalar (ir.load of one lane): splat it instead.
  llvm::Value *spread = n == perByte ? b.CreateVectorSplat(n, bytes)
                                     : b.CreateShuffleVector(bytes, replicate);
  llvm::Value *wide = b.CreateZExt(spread, ir.vectorOf(ir.i32, n));
  return extractField(ir, wide, llvm::ConstantVector::get(tops), n);
}

void storeStored(IrContext &ir, llvm::Value *base, llvm::Value *index,
                 llvm::Value *values, Lanes lanes) {
  llvm::IRBuilder<> &b = ir.builder;
  const StorageSpec &storage = ir.spec.storage;
  unsigned n = lanes.count;
  if (!storage.packed) {
    // Values are within the storage range, so truncation keeps their
    // sign- or zero-extended container form.
    llvm::Value *address = ir.byteAddress(
        base, b.CreateMul(index, b.getInt64(storage.containerBytes())));
    ir.store(b.CreateTrunc(values, ir.vectorOf(containerType(ir), n)), address,
             lanes);
    return;
  }
  unsigned perByte = valuesPerByte(storage);
  uint8_t fieldMask = static_cast<uint8_t>((1u << storage.bits) - 1);
  llvm::Value *byteIndex = b.CreateLShr(index, log2(perByte));
  llvm::Value *address = ir.byteAddress(base, byteIndex);
  llvm::Value *fields =
      b.CreateAnd(b.CreateTrunc(values, ir.vectorOf(ir.i8, n)),
                  ir.intConstant(ir.i8, fieldMask, n));
  if (n == 1) {
    llvm::Value *slot =
        b.CreateTrunc(b.CreateAnd(index, b.getInt64(perByte - 1)), ir.i8);
    llvm::Value *shifted =
        b.CreateShl(fields, b.CreateMul(slot, b.getInt8(storage.bits)));
    // The first element of a byte defines it (zero padding); later ones
    // merge into it.
    llvm::Value *old = b.CreateLoad(ir.i8, address);
    llvm::Value *kept =
        b.CreateSelect(b.CreateICmpEQ(slot, b.getInt8(0)), b.getInt8(0), old);
    b.CreateStore(b.CreateOr(kept, shifted), address);
    return;
  }
  assert(n % perByte == 0 && !lanes.mask && "packed vectors cover bytes");
  unsigned bytes = n / perByte;
  if (ir.target.isX86 && ir.target.vectorBits == 256 && storage.bits == 4 &&
      n == 32) {
    // AVX2: the i32 lanes (4-bit values, in i8 range) become 32 bytes
    // through saturating packs, the fields masked when signed.
    llvm::SmallVector<llvm::Value *, 4> quarters;
    for (int first = 0; first < 32; first += 8)
      quarters.push_back(b.CreateShuffleVector(
          values, {first, first + 1, first + 2, first + 3, first + 4, first + 5,
                   first + 6, first + 7}));
    llvm::Value *codes = packBytesInPackOrder(ir, quarters, true);
    if (storage.isSigned)
      codes = b.CreateAnd(codes, ir.intConstant(ir.i8, fieldMask, 32));
    storeNibblesInPackOrder(ir, base, index, codes);
    return;
  }
  llvm::Value *packed = nullptr;
  for (unsigned slot = 0; slot < perByte; ++slot) {
    llvm::SmallVector<int, 64> pick;
    for (unsigned byte = 0; byte < bytes; ++byte)
      pick.push_back(static_cast<int>(byte * perByte + slot));
    llvm::Value *part = b.CreateShuffleVector(fields, pick);
    if (bytes == 1) // One byte: a scalar, as intConstant's for one lane.
      part = b.CreateExtractElement(part, uint64_t(0));
    if (slot > 0)
      part =
          b.CreateShl(part, ir.intConstant(ir.i8, slot * storage.bits, bytes));
    packed = packed ? b.CreateOr(packed, part) : part;
  }
  ir.store(packed, address, Lanes{bytes});
}

llvm::Value *packBytesInPackOrder(IrContext &ir,
                                  llvm::ArrayRef<llvm::Value *> quarters,
                                  bool signedBytes) {
  llvm::IRBuilder<> &b = ir.builder;
  llvm::Value *low = b.CreateIntrinsic(llvm::Intrinsic::x86_avx2_packssdw, {},
                                       {quarters[0], quarters[1]});
  llvm::Value *high = b.CreateIntrinsic(llvm::Intrinsic::x86_avx2_packssdw, {},
                                        {quarters[2], quarters[3]});
  return b.CreateIntrinsic(signedBytes ? llvm::Intrinsic::x86_avx2_packsswb
                                       : llvm::Intrinsic::x86_avx2_packuswb,
                           {}, {low, high});
}

llvm::Value *packThirtyTwoBytes(IrContext &ir,
                                llvm::ArrayRef<llvm::Value *> quarters,
                                bool signedBytes) {
  return bytesInElementOrder(ir,
                             packBytesInPackOrder(ir, quarters, signedBytes));
}

llvm::Value *bytesInElementOrder(IrContext &ir, llvm::Value *packed) {
  llvm::IRBuilder<> &b = ir.builder;
  llvm::SmallVector<llvm::Constant *, 8> order;
  for (uint32_t index : kPackedDwordOrder)
    order.push_back(b.getInt32(index));
  return b.CreateIntrinsic(llvm::Intrinsic::x86_avx2_permd, {},
                           {b.CreateBitCast(packed, ir.vectorOf(ir.i32, 8)),
                            llvm::ConstantVector::get(order)});
}

void storeNibblesInPackOrder(IrContext &ir, llvm::Value *base,
                             llvm::Value *index, llvm::Value *codes) {
  llvm::IRBuilder<> &b = ir.builder;
  // vpmaddubsw makes each byte pair (elements 2k, 2k + 1, neighbours in
  // the packs' order too) the word even + 16 · odd; one more pack narrows
  // the words, and a byte shuffle puts the pairs, which the packs' order
  // keeps in groups of two, back in element order.
  llvm::SmallVector<llvm::Constant *, 32> weights;
  for (unsigned byte = 0; byte < 32; ++byte)
    weights.push_back(b.getInt8(byte % 2 ? 16 : 1));
  llvm::Value *pairs =
      b.CreateIntrinsic(llvm::Intrinsic::x86_avx2_pmadd_ub_sw, {},
                        {b.CreateBitCast(codes, ir.vectorOf(ir.i8, 32)),
                         llvm::ConstantVector::get(weights)});
  llvm::Value *narrow = b.CreateIntrinsic(
      llvm::Intrinsic::x86_sse2_packuswb_128, {},
      {b.CreateShuffleVector(pairs, {0, 1, 2, 3, 4, 5, 6, 7}),
       b.CreateShuffleVector(pairs, {8, 9, 10, 11, 12, 13, 14, 15})});
  // Bytes hold pairs 0 1 4 5 8 9 12 13 2 3 6 7 10 11 14 15.
  llvm::Value *ordered = b.CreateShuffleVector(
      narrow, {0, 1, 8, 9, 2, 3, 10, 11, 4, 5, 12, 13, 6, 7, 14, 15});
  ir.store(ordered, ir.byteAddress(base, b.CreateLShr(index, 1)), Lanes{16});
}

} // namespace qjit::llvmjit
