//===- KernelIr.cpp - KernelSpec to LLVM IR -------------------------------===//
//
// The kernel is the layout's loop nest (LayoutLoops) around runs. A run
// processes its elements in unrolled blocks of full vectors; a partial
// block (the tail, and the head that aligns streamed stores) is copied
// through stack buffers and converted by the same block code, so that
// code is compiled once and no byte outside the buffers is ever touched.
// AVX-512 tails of whole elements are one masked vector instead, and
// scalar targets convert single elements.
//
//===----------------------------------------------------------------------===//
#include "KernelIr.h"

#include "CompactArith.h"
#include "DynamicIr.h"
#include "ElementIo.h"
#include "LayoutLoops.h"
#include "ParamSource.h"
#include "QuantileIr.h"

#include "plan/LayoutPeriod.h"
#include "plan/PlanLimits.h"
#include "qjit/internal/DynamicParameters.h"

#include <llvm/Analysis/VectorUtils.h>
#include <llvm/IR/IntrinsicsX86.h>
#include <llvm/IR/MDBuilder.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Support/raw_ostream.h>

namespace qjit::llvmjit {

namespace {

/// Vectors per unrolled block.
constexpr unsigned kUnroll = 4;
constexpr uint64_t kStreamingBytes = plan::kStreamingOutputBytes;

class KernelEmitter {
public:
  KernelEmitter(IrContext &ir, ParamSource &params, const QuantPlan &plan,
                llvm::Value *src, llvm::Value *dst)
      : ir_(ir), params_(params), plan_(plan), src_(src), dst_(dst) {
    unsigned computeBits = ir.compute->getPrimitiveSizeInBits();
    vectorLanes_ = std::max(1u, ir.target.vectorBits / computeBits);
    perByte_ = valuesPerByte(ir.spec.storage);
    dstBytes_ = ir.spec.op == KernelOp::DCast
                    ? valueTypeBytes(ir.spec.expressed)
                    : ir.spec.storage.containerBytes();
  }

  void emitRun(llvm::Value *first, llvm::Value *count, llvm::Value *param,
               bool perElement);
  /// Whether emitRun stages partial blocks (emitStagedRun).
  bool stagesRuns(bool perElement) const;

  /// Layouts of many runs (short ones, mostly): whether the stores bypass
  /// the caches is decided once for the call's n elements rather than per
  /// run, and one fence ends the call (fenceStreamedCall, after the runs).
  void streamWholeCall(llvm::Value *n);
  void fenceStreamedCall();

private:
  using ParamsAt = std::function<ParamValues(llvm::Value *, Lanes)>;
  /// The run as blocks only: partial blocks (the tail, and the head that
  /// aligns streamed stores) are copied through stack buffers, so the
  /// block's code is the run's only conversion code.
  void emitStagedRun(llvm::Value *first, llvm::Value *count,
                     const ParamsAt &paramsAt);
  /// Byte offset of element e in the input (or output) buffer; packed
  /// elements at a byte boundary.
  llvm::Value *byteOffset(llvm::Value *e, bool input);
  /// Bytes per element of the input (or output); 0 for packed storage.
  unsigned elementBytes(bool input) const;
  /// Copies the first `count` elements' bytes from `from` to `to`; a packed
  /// output keeps only the fields of its elements in a partial last byte.
  void copyElements(llvm::Value *to, llvm::Value *from, llvm::Value *count,
                    bool input);
  /// Stack buffers of one block of input and of output, made on first use
  /// (the input zeroed once, so lanes past a partial block hold numbers).
  void makeStagingBuffers();
  /// For a run shorter than a block, stored whole at `dstAt` (`bytes`): an
  /// i1, true when the call streams (streamWholeCall) and `dstAt` is
  /// aligned for non-temporal stores; null when the call never streams.
  llvm::Value *shortRunStreams(llvm::Value *dstAt, uint64_t bytes);
  /// The fence after a run whose stores streamed when `large` (an i1).
  void fenceStreamedRun(llvm::Value *large);
  /// An sfence executed when `streamed` (an i1) holds.
  void emitFenceIf(llvm::Value *streamed);
  /// A stack array of a block's i32 lanes for the division's results,
  /// made on first use.
  llvm::Value *divisionStash();
  /// Converts `vectors` groups of `lanes` elements from element e.
  /// `stream`: an i1, true when the stores may bypass the caches (the
  /// output is aligned for them), or null (never).
  void emitBlock(llvm::Value *e, unsigned vectors, Lanes lanes,
                 const ParamsAt &paramsAt, llvm::Value *stream);
  /// Converts `lanes` elements from element e.
  void emitElements(llvm::Value *e, Lanes lanes, const ParamValues &params,
                    llvm::Value *stream = nullptr);
  /// AVX2 and unpacked 8-bit storage: i32 lanes (in range) are stored
  /// with explicit packs, which the code generator selects far faster than
  /// a truncating store.
  bool isAvx2Bytes(Lanes lanes) const;
  /// Whether packs to bytes saturate signed (else unsigned).
  bool bytesSigned() const;
  /// Whether checked blocks bracket the rounding (emitBracketedQuantize).
  void storeEightBytes(llvm::Value *e, llvm::Value *values);
  /// Four 8-lane vectors of i32 (in range) as 32 bytes; `stream` as in
  /// emitBlock.
  void storeThirtyTwoBytes(llvm::Value *e,
                           llvm::ArrayRef<llvm::Value *> quarters,
                           llvm::Value *stream);
  /// 32 bytes already packed in element order (an <8 x i32>).
  void storeThirtyTwoPackedBytes(llvm::Value *e, llvm::Value *bytes,
                                 llvm::Value *stream);
  /// store(lanes), non-temporal when `stream` (see emitBlock) is true.
  void storeMaybeStreaming(llvm::Value *stream, Lanes lanes,
                           const std::function<void(Lanes)> &store);
  /// Whether a packed store or load may cover `lanes` whole bytes.
  bool vectorAllowed(unsigned lanes) const {
    return perByte_ == 1 || (lanes % perByte_ == 0 && lanes / perByte_ >= 2);
  }

  IrContext &ir_;
  ParamSource &params_;
  const QuantPlan &plan_;
  llvm::Value *src_, *dst_;
  unsigned vectorLanes_ = 1;
  unsigned perByte_ = 1;
  unsigned dstBytes_ = 1;              ///< Output bytes per element (unpacked).
  llvm::Value *callStreams_ = nullptr; ///< i1 of streamWholeCall, or null.
  llvm::Value *stagedInput_ = nullptr, *stagedOutput_ = nullptr;
  llvm::Value *divided_ = nullptr;
};

/// Whether stores may stream at all: x86, and outputs of whole elements
/// (unpacked storage, or dcast).
bool mayStreamStores(const IrContext &ir) {
  return ir.target.isX86 &&
         (valuesPerByte(ir.spec.storage) == 1 || ir.spec.op == KernelOp::DCast);
}

void KernelEmitter::streamWholeCall(llvm::Value *n) {
  // Narrowing outputs (qcast) of many short runs measured slower streamed.
  if (!mayStreamStores(ir_) || vectorLanes_ == 1 ||
      ir_.spec.op != KernelOp::DCast)
    return;
  llvm::IRBuilder<> &b = ir_.builder;
  callStreams_ = b.CreateICmpUGE(b.CreateMul(n, b.getInt64(dstBytes_)),
                                 b.getInt64(kStreamingBytes));
}

llvm::Value *KernelEmitter::shortRunStreams(llvm::Value *dstAt,
                                            uint64_t bytes) {
  // Blocks of 32 f32 values at AVX-512 are such runs: int4 and MXFP4
  // blockwise dcast of 16M elements took 7.7 and 5.3 ms cached, 3.5 and
  // 3.4 streamed (Xeon SPR-class VM, 2026-12). The call's fence follows.
  if (!callStreams_)
    return nullptr;
  llvm::IRBuilder<> &b = ir_.builder;
  uint64_t alignment = ir_.nonTemporalAlignment(static_cast<unsigned>(bytes));
  llvm::Value *misaligned =
      b.CreateAnd(b.CreatePtrToInt(dstAt, ir_.i64), b.getInt64(alignment - 1));
  return b.CreateAnd(callStreams_, b.CreateICmpEQ(misaligned, b.getInt64(0)));
}

void KernelEmitter::fenceStreamedCall() {
  if (callStreams_)
    emitFenceIf(callStreams_);
}

void KernelEmitter::emitFenceIf(llvm::Value *streamed) {
  llvm::IRBuilder<> &b = ir_.builder;
  llvm::Function *function = b.GetInsertBlock()->getParent();
  auto *fence = llvm::BasicBlock::Create(ir_.context, "fence", function);
  auto *join = llvm::BasicBlock::Create(ir_.context, "fenced", function);
  b.CreateCondBr(streamed, fence, join);
  b.SetInsertPoint(fence);
  b.CreateIntrinsic(llvm::Intrinsic::x86_sse_sfence, {});
  b.CreateBr(join);
  b.SetInsertPoint(join);
}

void KernelEmitter::storeMaybeStreaming(
    llvm::Value *stream, Lanes lanes, const std::function<void(Lanes)> &store) {
  if (!stream) {
    store(lanes);
    return;
  }
  llvm::IRBuilder<> &b = ir_.builder;
  llvm::Function *function = b.GetInsertBlock()->getParent();
  auto *streaming = llvm::BasicBlock::Create(ir_.context, "nt", function);
  auto *cached = llvm::BasicBlock::Create(ir_.context, "cached", function);
  auto *join = llvm::BasicBlock::Create(ir_.context, "written", function);
  // Cached first: the branch costs short outputs, not streamed ones.
  b.CreateCondBr(stream, streaming, cached,
                 llvm::MDBuilder(ir_.context).createUnlikelyBranchWeights());
  b.SetInsertPoint(streaming);
  store(Lanes{lanes.count, lanes.mask, true});
  b.CreateBr(join);
  b.SetInsertPoint(cached);
  store(lanes);
  b.CreateBr(join);
  b.SetInsertPoint(join);
}

bool KernelEmitter::isAvx2Bytes(Lanes lanes) const {
  // Saturating packs keep integers in range and fp8 codes, which arrive
  // sign-extended (FloatStorageIr.h), but no quantile positions.
  const StorageSpec &storage = ir_.spec.storage;
  return ir_.target.isX86 && ir_.target.vectorBits == 256 && !lanes.mask &&
         storage.kind != StorageType::Kind::Quantile &&
         storage.containerBytes() == 1 && !storage.packed;
}

bool KernelEmitter::bytesSigned() const {
  return ir_.spec.storage.kind == StorageType::Kind::Float ||
         ir_.spec.storage.isSigned;
}

void KernelEmitter::storeEightBytes(llvm::Value *e, llvm::Value *values) {
  llvm::IRBuilder<> &b = ir_.builder;
  llvm::Value *low = b.CreateShuffleVector(values, {0, 1, 2, 3});
  llvm::Value *high = b.CreateShuffleVector(values, {4, 5, 6, 7});
  llvm::Value *words = b.CreateIntrinsic(llvm::Intrinsic::x86_sse2_packssdw_128,
                                         {}, {low, high});
  llvm::Value *bytes =
      b.CreateIntrinsic(bytesSigned() ? llvm::Intrinsic::x86_sse2_packsswb_128
                                      : llvm::Intrinsic::x86_sse2_packuswb_128,
                        {}, {words, words});
  ir_.store(b.CreateShuffleVector(bytes, {0, 1, 2, 3, 4, 5, 6, 7}),
            ir_.byteAddress(dst_, e), Lanes{8});
}

void KernelEmitter::storeThirtyTwoBytes(llvm::Value *e,
                                        llvm::ArrayRef<llvm::Value *> quarters,
                                        llvm::Value *stream) {
  // Four vectors of i32 into 32 bytes with AVX2's saturating packs, as
  // the asmjit kernels do (cheaper to select than a wide truncation).
  storeThirtyTwoPackedBytes(e, packThirtyTwoBytes(ir_, quarters, bytesSigned()),
                            stream);
}

void KernelEmitter::storeThirtyTwoPackedBytes(llvm::Value *e,
                                              llvm::Value *bytes,
                                              llvm::Value *stream) {
  llvm::IRBuilder<> &b = ir_.builder;
  llvm::Value *address = ir_.byteAddress(dst_, e);
  storeMaybeStreaming(stream, Lanes{32}, [&](Lanes l) {
    ir_.store(b.CreateBitCast(bytes, ir_.vectorOf(ir_.i8, 32)), address, l);
  });
}

void KernelEmitter::emitElements(llvm::Value *e, Lanes lanes,
                                 const ParamValues &params,
                                 llvm::Value *stream) {
  switch (ir_.spec.op) {
  case KernelOp::QCast: {
    llvm::Value *x = loadExpressed(ir_, src_, e, lanes);
    if (ir_.spec.storage.kind == StorageType::Kind::Quantile) {
      std::vector<llvm::Value *> groups =
          emitQuantileNibblesFromInput(ir_, x, lanes);
      for (size_t g = 0; g < groups.size(); ++g)
        storeNibblesInPackOrder(
            ir_, dst_, ir_.builder.CreateAdd(e, ir_.builder.getInt64(32 * g)),
            groups[g]);
      if (!groups.empty())
        return;
    }
    llvm::Value *q =
        isCompactStorage(ir_.spec.storage)
            ? emitCompactQuantize(ir_, plan_, x, params, lanes.count)
            : emitQuantize(ir_, plan_, x, params, lanes.count);
    if (!stream && isAvx2Bytes(lanes) && lanes.count == 8) {
      storeEightBytes(e, q);
      return;
    }
    if (isAvx2Bytes(lanes) && lanes.count == 32 &&
        ir_.spec.storage.kind == StorageType::Kind::Float) {
      llvm::SmallVector<llvm::Value *, 4> quarters;
      for (int first = 0; first < 32; first += 8)
        quarters.push_back(ir_.builder.CreateShuffleVector(
            q, {first, first + 1, first + 2, first + 3, first + 4, first + 5,
                first + 6, first + 7}));
      storeThirtyTwoBytes(e, quarters, stream);
      return;
    }
    storeMaybeStreaming(stream, lanes,
                        [&](Lanes l) { storeStored(ir_, dst_, e, q, l); });
    return;
  }
  case KernelOp::DCast: {
    llvm::Value *v = isCompactStorage(ir_.spec.storage)
                         ? emitCompactDequantize(ir_, src_, e, lanes, params)
                         : emitDequantize(ir_, loadStored(ir_, src_, e, lanes),
                                          params, lanes.count);
    storeMaybeStreaming(stream, lanes,
                        [&](Lanes l) { storeExpressed(ir_, dst_, e, v, l); });
    return;
  }
  case KernelOp::SCast: {
    llvm::Value *q = loadStored(ir_, src_, e, lanes);
    storeMaybeStreaming(stream, lanes,
                        [&](Lanes l) { storeStored(ir_, dst_, e, q, l); });
    return;
  }
  }
}

void KernelEmitter::emitBlock(llvm::Value *e, unsigned vectors, Lanes lanes,
                              const ParamsAt &paramsAt, llvm::Value *stream) {
  llvm::IRBuilder<> &b = ir_.builder;
  auto at = [&](unsigned j) {
    return b.CreateAdd(e, b.getInt64(uint64_t(j) * lanes.count));
  };
  // Single vectors (at most a block's worth per run) divide.
  if (ir_.spec.op != KernelOp::QCast || !plan_.checked || vectors == 1 ||
      lanes.count == 1 || lanes.mask || !vectorAllowed(lanes.count)) {
    Lanes all{lanes.count * vectors, lanes.mask, lanes.nonTemporal};
    emitElements(e, all, paramsAt(e, all), stream);
    return;
  }
  // Multiply and check every lane; divide only when one is too close to
  // call. The division's results meet the checked ones before the one
  // store code (as i32 lanes through the stack). The bracket checks four
  // vectors at once and packs them itself: the division's lanes are packed
  // the same way before they meet.
  bool thirtyTwoBytes =
      ir_.target.isX86 && ir_.target.vectorBits == 256 && vectors == 4 &&
      ir_.spec.storage.containerBytes() == 1 && !ir_.spec.storage.packed;
  bool bracketed = thirtyTwoBytes && plan_.bracket;
  llvm::SmallVector<llvm::Value *, 4> stored;
  llvm::Value *exact = nullptr;
  if (bracketed) {
    llvm::SmallVector<llvm::Value *, 4> x;
    llvm::SmallVector<ParamValues, 4> params;
    for (unsigned j = 0; j < vectors; ++j) {
      x.push_back(loadExpressed(ir_, src_, at(j), lanes));
      params.push_back(paramsAt(at(j), lanes));
    }
    BracketedQuantize checked = emitBracketedQuantize(
        ir_, plan_, x, params, lanes.count, bytesSigned());
    stored.push_back(checked.bytes);
    exact = checked.exact;
  } else {
    for (unsigned j = 0; j < vectors; ++j) {
      CheckedQuantize checked = emitCheckedQuantize(
          ir_, plan_, loadExpressed(ir_, src_, at(j), lanes),
          paramsAt(at(j), lanes), lanes.count);
      stored.push_back(checked.stored);
      exact = exact ? b.CreateAnd(exact, checked.exact) : checked.exact;
    }
    exact = b.CreateAndReduce(exact);
  }
  llvm::Function *function = b.GetInsertBlock()->getParent();
  llvm::BasicBlock *checkedEnd = b.GetInsertBlock();
  auto *divide = llvm::BasicBlock::Create(ir_.context, "divide", function);
  auto *join = llvm::BasicBlock::Create(ir_.context, "quantized", function);
  b.CreateCondBr(exact, join, divide,
                 llvm::MDBuilder(ir_.context).createLikelyBranchWeights());
  // The exact division, one vector at a time (one copy of its code).
  b.SetInsertPoint(divide);
  llvm::Type *quarter = ir_.vectorOf(ir_.i32, lanes.count);
  llvm::Value *divided = divisionStash();
  emitWhile(
      ir_, {b.getInt64(0)},
      [&](const LoopState &s) {
        return b.CreateICmpULT(s[0], b.getInt64(vectors * lanes.count));
      },
      [&](const LoopState &s) -> LoopState {
        llvm::Value *at = b.CreateAdd(e, s[0]);
        llvm::Value *x = loadExpressed(ir_, src_, at, lanes);
        ParamValues params = paramsAt(at, lanes);
        llvm::Value *q =
            isCompactStorage(ir_.spec.storage)
                ? emitCompactQuantize(ir_, plan_, x, params, lanes.count)
                : emitQuantize(ir_, plan_, x, params, lanes.count);
        b.CreateAlignedStore(q, b.CreateInBoundsGEP(ir_.i32, divided, s[0]),
                             llvm::Align(4));
        return {b.CreateAdd(s[0], b.getInt64(lanes.count))};
      });
  llvm::SmallVector<llvm::Value *, 4> reloaded;
  for (unsigned j = 0; j < vectors; ++j)
    reloaded.push_back(b.CreateAlignedLoad(
        quarter,
        b.CreateInBoundsGEP(ir_.i32, divided, b.getInt64(j * lanes.count)),
        llvm::Align(4)));
  if (bracketed)
    reloaded = {packThirtyTwoBytes(ir_, reloaded, bytesSigned())};
  llvm::BasicBlock *divideEnd = b.GetInsertBlock();
  b.CreateBr(join);
  b.SetInsertPoint(join);
  for (size_t j = 0; j < stored.size(); ++j) {
    llvm::PHINode *phi = b.CreatePHI(stored[j]->getType(), 2);
    phi->addIncoming(stored[j], checkedEnd);
    phi->addIncoming(reloaded[j], divideEnd);
    stored[j] = phi;
  }
  if (bracketed) {
    storeThirtyTwoPackedBytes(e, stored[0], stream);
    return;
  }
  if (thirtyTwoBytes) {
    storeThirtyTwoBytes(e, stored, stream);
    return;
  }
  // Any number of vectors (runs of three vectors make blocks of three).
  llvm::Value *all = llvm::concatenateVectors(b, stored);
  storeMaybeStreaming(stream, Lanes{lanes.count * vectors},
                      [&](Lanes l) { storeStored(ir_, dst_, e, all, l); });
}

bool KernelEmitter::stagesRuns(bool perElement) const {
  // Masked vectors cover AVX-512 tails of whole elements already; runtime
  // per-element parameters cannot be read a block past a run's end (baked
  // tables can: ParamSource pads them).
  return vectorLanes_ > 1 && !(ir_.target.maskedMemory && perByte_ == 1) &&
         vectorAllowed(vectorLanes_ * kUnroll) &&
         !(perElement && ir_.spec.params.runtime);
}

unsigned KernelEmitter::elementBytes(bool input) const {
  KernelOp op = ir_.spec.op;
  if (op == (input ? KernelOp::QCast : KernelOp::DCast))
    return valueTypeBytes(ir_.spec.expressed);
  return ir_.spec.storage.packed ? 0 : ir_.spec.storage.containerBytes();
}

llvm::Value *KernelEmitter::byteOffset(llvm::Value *e, bool input) {
  llvm::IRBuilder<> &b = ir_.builder;
  unsigned bytes = elementBytes(input);
  return bytes ? b.CreateMul(e, b.getInt64(bytes))
               : b.CreateUDiv(e, b.getInt64(perByte_));
}

llvm::Value *KernelEmitter::divisionStash() {
  if (divided_)
    return divided_;
  llvm::BasicBlock &entry =
      ir_.builder.GetInsertBlock()->getParent()->getEntryBlock();
  llvm::IRBuilder<> at(&entry, entry.begin());
  llvm::AllocaInst *alloca =
      at.CreateAlloca(llvm::ArrayType::get(ir_.i32, vectorLanes_ * kUnroll));
  alloca->setAlignment(llvm::Align(64));
  divided_ = alloca;
  return divided_;
}

void KernelEmitter::makeStagingBuffers() {
  if (stagedInput_)
    return;
  llvm::BasicBlock &entry =
      ir_.builder.GetInsertBlock()->getParent()->getEntryBlock();
  llvm::IRBuilder<> at(&entry, entry.begin());
  unsigned blockLanes = vectorLanes_ * kUnroll;
  auto bufferBytes = [&](bool input) {
    unsigned bytes = elementBytes(input);
    return bytes ? bytes * blockLanes : blockLanes / perByte_;
  };
  auto buffer = [&](bool input) {
    llvm::AllocaInst *alloca =
        at.CreateAlloca(llvm::ArrayType::get(ir_.i8, bufferBytes(input)));
    alloca->setAlignment(llvm::Align(64)); // Streamed stores land here too.
    return alloca;
  };
  stagedInput_ = buffer(true);
  stagedOutput_ = buffer(false);
  // A plain store (not a memset, which could become a library call).
  at.CreateAlignedStore(
      llvm::Constant::getNullValue(ir_.vectorOf(ir_.i8, bufferBytes(true))),
      stagedInput_, llvm::Align(64));
}

void KernelEmitter::copyElements(llvm::Value *to, llvm::Value *from,
                                 llvm::Value *count, bool input) {
  llvm::IRBuilder<> &b = ir_.builder;
  unsigned bytes = elementBytes(input);
  llvm::Value *perByte = b.getInt64(perByte_);
  llvm::Value *units =
      bytes ? count
      : input
          ? b.CreateUDiv(b.CreateAdd(count, b.getInt64(perByte_ - 1)), perByte)
          : b.CreateUDiv(count, perByte);
  unsigned unitBytes = bytes ? bytes : 1;
  auto move = [&](llvm::Value *offset, unsigned pieceBytes) {
    llvm::Type *type = pieceBytes > 8 ? ir_.vectorOf(ir_.i8, pieceBytes)
                                      : b.getIntNTy(8 * pieceBytes);
    b.CreateAlignedStore(b.CreateAlignedLoad(type,
                                             ir_.byteAddress(from, offset),
                                             llvm::Align(1)),
                         ir_.byteAddress(to, offset), llvm::Align(1));
  };
  llvm::Value *copied = units;
  if (auto *known = llvm::dyn_cast<llvm::ConstantInt>(units)) {
    // A known count: one move per set bit (runs of a static length).
    uint64_t done = 0;
    for (uint64_t piece = llvm::bit_floor(known->getZExtValue()); piece > 0;
         piece /= 2)
      if (known->getZExtValue() & piece) {
        move(b.getInt64(done * unitBytes), piece * unitBytes);
        done += piece;
      }
  } else {
    // A loop: fewer blocks to compile than moves by the bits of `units`.
    emitWhile(
        ir_, {b.getInt64(0)},
        [&](const LoopState &s) { return b.CreateICmpULT(s[0], units); },
        [&](const LoopState &s) -> LoopState {
          move(b.CreateMul(s[0], b.getInt64(unitBytes)), unitBytes);
          return {b.CreateAdd(s[0], b.getInt64(1))};
        });
  }
  if (bytes || input)
    return;
  // The fields past the last element are padding: zero, as a byte's first
  // element defines it (ElementIo.h).
  llvm::Value *left = b.CreateTrunc(b.CreateURem(count, perByte), ir_.i8);
  llvm::Function *function = b.GetInsertBlock()->getParent();
  auto *partial = llvm::BasicBlock::Create(ir_.context, "partial", function);
  auto *done = llvm::BasicBlock::Create(ir_.context, "copied", function);
  b.CreateCondBr(b.CreateICmpNE(left, b.getInt8(0)), partial, done);
  b.SetInsertPoint(partial);
  llvm::Value *fields = b.CreateSub(
      b.CreateShl(b.getInt8(1),
                  b.CreateMul(left, b.getInt8(ir_.spec.storage.bits))),
      b.getInt8(1));
  b.CreateStore(
      b.CreateAnd(b.CreateLoad(ir_.i8, ir_.byteAddress(from, copied)), fields),
      ir_.byteAddress(to, copied));
  b.CreateBr(done);
  b.SetInsertPoint(done);
}

void KernelEmitter::emitStagedRun(llvm::Value *first, llvm::Value *count,
                                  const ParamsAt &paramsAt) {
  llvm::IRBuilder<> &b = ir_.builder;
  llvm::Function *function = b.GetInsertBlock()->getParent();
  unsigned blockLanes = vectorLanes_ * kUnroll;
  llvm::Value *end = b.CreateAdd(first, count);
  auto *staticCount = llvm::dyn_cast<llvm::ConstantInt>(count);
  uint64_t known = staticCount ? staticCount->getZExtValue() : 0;
  // Converts one block from `from` to `to` (element e of the run).
  auto convert = [&](llvm::Value *from, llvm::Value *to, llvm::Value *e,
                     llvm::Value *stream, unsigned vectors = kUnroll) {
    ParamsAt blockParams = [&](llvm::Value *index, Lanes lanes) {
      return paramsAt(b.CreateAdd(e, index), lanes);
    };
    llvm::Value *src = src_, *dst = dst_;
    src_ = from;
    dst_ = to;
    emitBlock(b.getInt64(0), vectors, Lanes{vectorLanes_}, blockParams, stream);
    src_ = src;
    dst_ = dst;
  };
  if (staticCount && known < blockLanes) { // One partial block, or none.
    if (known == 0)
      return;
    // Just the vectors the run needs.
    unsigned vectors =
        static_cast<unsigned>(known + vectorLanes_ - 1) / vectorLanes_;
    if (known % vectorLanes_ == 0 && vectorAllowed(vectorLanes_)) {
      llvm::Value *dstAt = ir_.byteAddress(dst_, byteOffset(first, false));
      convert(ir_.byteAddress(src_, byteOffset(first, true)), dstAt, first,
              shortRunStreams(dstAt, known * dstBytes_), vectors);
      return;
    }
    makeStagingBuffers();
    copyElements(stagedInput_, ir_.byteAddress(src_, byteOffset(first, true)),
                 count, true);
    convert(stagedInput_, stagedOutput_, first, nullptr, vectors);
    copyElements(ir_.byteAddress(dst_, byteOffset(first, false)), stagedOutput_,
                 count, false);
    return;
  }
  // Runs that write at least kStreamingBytes (or any run of a call that
  // does, streamWholeCall) stream their stores past the caches once the
  // output is aligned: the first (staged) block ends where it is, and a
  // fence follows (the call's, then). Runs known to be shorter never
  // stream, and runs of a known length that keeps the alignment of the
  // first stream only when that is aligned. Packed input (dcast) streams
  // too: its outputs are whole elements, and an output aligned to perByte_
  // elements at the byte-aligned first element keeps every aligned element
  // a byte boundary of the input.
  bool mayStream =
      mayStreamStores(ir_) &&
      (callStreams_ || !(staticCount && known * dstBytes_ < kStreamingBytes));
  uint64_t alignment = ir_.nonTemporalAlignment(blockLanes * dstBytes_);
  bool aligns =
      mayStream && !(staticCount && known * dstBytes_ % alignment == 0);
  llvm::Value *large = nullptr;
  llvm::Value *cut = end; // Where the first block ends at the latest.
  if (mayStream) {
    llvm::Value *address =
        b.CreateAdd(b.CreatePtrToInt(dst_, ir_.i64),
                    b.CreateMul(first, b.getInt64(dstBytes_)));
    large = b.CreateAnd(
        callStreams_
            ? callStreams_
            : b.CreateICmpUGE(b.CreateMul(count, b.getInt64(dstBytes_)),
                              b.getInt64(kStreamingBytes)),
        b.CreateICmpEQ(
            b.CreateAnd(
                address,
                b.getInt64((aligns ? dstBytes_ * perByte_ : alignment) - 1)),
            b.getInt64(0)));
    if (aligns) {
      llvm::Value *headBytes =
          b.CreateAnd(b.CreateSub(b.getInt64(alignment), address),
                      b.getInt64(alignment - 1));
      llvm::Value *head = b.CreateBinaryIntrinsic(
          llvm::Intrinsic::umin, b.CreateUDiv(headBytes, b.getInt64(dstBytes_)),
          count);
      cut = b.CreateSelect(
          b.CreateAnd(large, b.CreateICmpNE(head, b.getInt64(0))),
          b.CreateAdd(first, head), end);
    }
  }
  bool mayStage = aligns || !(staticCount && known % blockLanes == 0);
  if (!mayStage && known == blockLanes) { // One whole block.
    convert(ir_.byteAddress(src_, byteOffset(first, true)),
            ir_.byteAddress(dst_, byteOffset(first, false)), first, large);
    fenceStreamedRun(large);
    return;
  }
  if (!mayStage) { // Whole blocks only.
    emitWhile(
        ir_, {first},
        [&](const LoopState &s) { return b.CreateICmpULT(s[0], end); },
        [&](const LoopState &s) -> LoopState {
          convert(ir_.byteAddress(src_, byteOffset(s[0], true)),
                  ir_.byteAddress(dst_, byteOffset(s[0], false)), s[0], large);
          return {b.CreateAdd(s[0], b.getInt64(blockLanes))};
        });
    fenceStreamedRun(large);
    return;
  }
  makeStagingBuffers();

  llvm::BasicBlock *preheader = b.GetInsertBlock();
  auto *header = llvm::BasicBlock::Create(ir_.context, "block", function);
  auto *partial = llvm::BasicBlock::Create(ir_.context, "partial", function);
  auto *staged = llvm::BasicBlock::Create(ir_.context, "staged", function);
  auto *body = llvm::BasicBlock::Create(ir_.context, "convert", function);
  auto *copyOut = llvm::BasicBlock::Create(ir_.context, "unstage", function);
  auto *latch = llvm::BasicBlock::Create(ir_.context, "next", function);
  auto *exit = llvm::BasicBlock::Create(ir_.context, "blocks_done", function);
  b.CreateBr(header);

  b.SetInsertPoint(header);
  llvm::PHINode *e = b.CreatePHI(ir_.i64, 2);
  llvm::PHINode *stop = b.CreatePHI(ir_.i64, 2);
  e->addIncoming(first, preheader);
  stop->addIncoming(cut, preheader);
  llvm::Value *left = b.CreateSub(stop, e);
  llvm::Value *srcAt = ir_.byteAddress(src_, byteOffset(e, true));
  llvm::Value *dstAt = ir_.byteAddress(dst_, byteOffset(e, false));
  llvm::MDBuilder weights(ir_.context);
  b.CreateCondBr(b.CreateICmpUGE(left, b.getInt64(blockLanes)), body, partial,
                 weights.createLikelyBranchWeights());

  b.SetInsertPoint(partial);
  b.CreateCondBr(b.CreateICmpEQ(left, b.getInt64(0)), exit, staged);

  b.SetInsertPoint(staged);
  copyElements(stagedInput_, srcAt, left, true);
  llvm::BasicBlock *stagedEnd = b.GetInsertBlock();
  b.CreateBr(body);

  b.SetInsertPoint(body);
  llvm::PHINode *from = b.CreatePHI(ir_.ptr, 2);
  llvm::PHINode *to = b.CreatePHI(ir_.ptr, 2);
  llvm::PHINode *done = b.CreatePHI(ir_.i64, 2);
  llvm::PHINode *isStaged = b.CreatePHI(b.getInt1Ty(), 2);
  from->addIncoming(srcAt, header);
  to->addIncoming(dstAt, header);
  done->addIncoming(b.getInt64(blockLanes), header);
  isStaged->addIncoming(b.getFalse(), header);
  from->addIncoming(stagedInput_, stagedEnd);
  to->addIncoming(stagedOutput_, stagedEnd);
  done->addIncoming(left, stagedEnd);
  isStaged->addIncoming(b.getTrue(), stagedEnd);
  convert(from, to, e, large);
  b.CreateCondBr(isStaged, copyOut, latch,
                 weights.createUnlikelyBranchWeights());

  b.SetInsertPoint(copyOut);
  copyElements(dstAt, stagedOutput_, done, false);
  b.CreateBr(latch);

  b.SetInsertPoint(latch);
  e->addIncoming(b.CreateAdd(e, done), latch);
  stop->addIncoming(end, latch);
  b.CreateBr(header);

  b.SetInsertPoint(exit);
  fenceStreamedRun(large);
}

void KernelEmitter::fenceStreamedRun(llvm::Value *large) {
  if (!large || callStreams_)
    return; // Never streamed, or the call's fence follows.
  emitFenceIf(large);
}

void KernelEmitter::emitRun(llvm::Value *first, llvm::Value *count,
                            llvm::Value *param, bool perElement) {
  llvm::IRBuilder<> &b = ir_.builder;
  llvm::Value *end = b.CreateAdd(first, count);
  ParamValues broadcast;
  if (!perElement)
    broadcast = params_.scalar(param); // Once per run.
  ParamsAt paramsAt = [&](llvm::Value *e, Lanes lanes) {
    if (!perElement)
      return params_.splat(broadcast, lanes.count);
    return params_.contiguous(b.CreateAdd(param, b.CreateSub(e, first)), lanes);
  };
  // A block of kUnroll vectors is emitted as kUnroll vector operations
  // (wider IR vectors cost the code generator far more time).
  auto stepLoop = [&](llvm::Value *start, unsigned lanes,
                      const std::function<llvm::Value *(llvm::Value *)> &more,
                      llvm::Value *stream = nullptr) {
    unsigned vectors = lanes > vectorLanes_ ? lanes / vectorLanes_ : 1;
    return emitWhile(
        ir_, {start}, [&](const LoopState &s) { return more(s[0]); },
        [&](const LoopState &s) -> LoopState {
          Lanes step{lanes / vectors};
          emitBlock(s[0], vectors, step, paramsAt, stream);
          return {b.CreateAdd(s[0], b.getInt64(lanes))};
        })[0];
  };
  auto fits = [&](unsigned lanes) {
    return [&, lanes](llvm::Value *e) {
      return b.CreateICmpUGE(b.CreateSub(end, e), b.getInt64(lanes));
    };
  };

  // Runs all as long as `count` start at its multiples.
  auto *staticCount = llvm::dyn_cast<llvm::ConstantInt>(count);
  bool startsOnBytes =
      staticCount && staticCount->getZExtValue() % perByte_ == 0;
  if (auto *staticFirst = llvm::dyn_cast<llvm::ConstantInt>(first))
    startsOnBytes |= staticFirst->getZExtValue() % perByte_ == 0;
  llvm::Value *e = first;
  if (perByte_ > 1 && vectorLanes_ > 1 &&
      !startsOnBytes) // Reach a byte boundary.
    e = stepLoop(e, 1, [&](llvm::Value *at) {
      return b.CreateAnd(
          b.CreateICmpULT(at, end),
          b.CreateICmpNE(b.CreateAnd(at, b.getInt64(perByte_ - 1)),
                         b.getInt64(0)));
    });
  if (stagesRuns(perElement)) {
    emitStagedRun(e, e == first ? count : b.CreateSub(end, e), paramsAt);
    return;
  }
  if (vectorLanes_ > 1) {
    unsigned blockLanes = vectorLanes_ * kUnroll;
    // Runs that write at least kStreamingBytes (or any run of a call
    // that does, streamWholeCall): align the output by single elements,
    // then the block loop streams its stores past the caches, and a fence
    // follows (the call's, then). Runs known to be shorter never stream.
    // Packed input (dcast) streams too: its outputs are whole elements,
    // and an output aligned to perByte_ elements at the byte-aligned e
    // keeps every aligned element a byte boundary of the input.
    bool mayStream = mayStreamStores(ir_) &&
                     (callStreams_ ||
                      !(staticCount && staticCount->getZExtValue() * dstBytes_ <
                                           kStreamingBytes));
    llvm::Value *large = nullptr;
    if (mayStream) {
      llvm::Value *elementBytes = b.getInt64(dstBytes_);
      uint64_t alignment = ir_.nonTemporalAlignment(blockLanes * dstBytes_);
      auto addressOf = [&](llvm::Value *at) {
        return b.CreateAdd(b.CreatePtrToInt(dst_, ir_.i64),
                           b.CreateMul(at, elementBytes));
      };
      large = b.CreateAnd(
          callStreams_
              ? callStreams_
              : b.CreateICmpUGE(b.CreateMul(b.CreateSub(end, e), elementBytes),
                                b.getInt64(kStreamingBytes)),
          b.CreateICmpEQ(
              b.CreateAnd(addressOf(e), b.getInt64(dstBytes_ * perByte_ - 1)),
              b.getInt64(0)));
      llvm::Function *function = b.GetInsertBlock()->getParent();
      llvm::BasicBlock *before = b.GetInsertBlock();
      auto *align = llvm::BasicBlock::Create(ir_.context, "align", function);
      auto *join = llvm::BasicBlock::Create(ir_.context, "aligned", function);
      b.CreateCondBr(large, align, join);
      b.SetInsertPoint(align);
      llvm::Value *aligned = stepLoop(e, 1, [&](llvm::Value *at) {
        return b.CreateAnd(
            b.CreateICmpULT(at, end),
            b.CreateICmpNE(
                b.CreateAnd(addressOf(at), b.getInt64(alignment - 1)),
                b.getInt64(0)));
      });
      llvm::BasicBlock *alignEnd = b.GetInsertBlock();
      b.CreateBr(join);
      b.SetInsertPoint(join);
      llvm::PHINode *next = b.CreatePHI(ir_.i64, 2);
      next->addIncoming(e, before);
      next->addIncoming(aligned, alignEnd);
      e = next;
    }
    if (vectorAllowed(blockLanes))
      e = stepLoop(e, blockLanes, fits(blockLanes), large);
    if (large && !callStreams_) {
      llvm::Function *function = b.GetInsertBlock()->getParent();
      auto *fence = llvm::BasicBlock::Create(ir_.context, "fence", function);
      auto *join = llvm::BasicBlock::Create(ir_.context, "fenced", function);
      b.CreateCondBr(large, fence, join);
      b.SetInsertPoint(fence);
      b.CreateIntrinsic(llvm::Intrinsic::x86_sse_sfence, {});
      b.CreateBr(join);
      b.SetInsertPoint(join);
    }
    if (vectorAllowed(vectorLanes_))
      e = stepLoop(e, vectorLanes_, fits(vectorLanes_));
  }
  if (ir_.target.maskedMemory && perByte_ == 1 && vectorLanes_ > 1) {
    // One masked vector covers the tail.
    llvm::Function *function = b.GetInsertBlock()->getParent();
    auto *tail = llvm::BasicBlock::Create(ir_.context, "tail", function);
    auto *done = llvm::BasicBlock::Create(ir_.context, "done", function);
    b.CreateCondBr(b.CreateICmpULT(e, end), tail, done);
    b.SetInsertPoint(tail);
    llvm::SmallVector<llvm::Constant *, 64> laneIndex;
    for (unsigned lane = 0; lane < vectorLanes_; ++lane)
      laneIndex.push_back(b.getInt64(lane));
    llvm::Value *left = ir_.splat(b.CreateSub(end, e), vectorLanes_);
    Lanes lanes{vectorLanes_,
                b.CreateICmpULT(llvm::ConstantVector::get(laneIndex), left)};
    emitElements(e, lanes, paramsAt(e, lanes));
    b.CreateBr(done);
    b.SetInsertPoint(done);
    return;
  }
  stepLoop(e, 1, [&](llvm::Value *at) { return b.CreateICmpULT(at, end); });
}

} // namespace

namespace {

/// Offsets of DynamicKernelBuffers' fields (four pointers).
constexpr uint64_t kScalesOut = 0, kZeroPointsOut = 8, kLow = 16, kHigh = 24;

/// The KernelParams (extents, scales, zero points) the quantizing pass of a
/// dynamic qcast reads: the parameters the kernel just wrote (ggml: its
/// unrounded scales, which emitDynamicParameters leaves in `low`).
llvm::Value *writtenParameters(IrContext &ir, const KernelSpec &spec,
                               llvm::Value *extents,
                               const DynamicArrays &arrays) {
  llvm::IRBuilder<> &b = ir.builder;
  auto *type = llvm::ArrayType::get(ir.ptr, 3);
  llvm::Value *params = b.CreateAlloca(type);
  llvm::Value *fields[] = {
      extents ? extents : llvm::Constant::getNullValue(ir.ptr),
      quantizesWithUnroundedScale(spec) ? arrays.low : arrays.scales,
      arrays.zeroPoints};
  for (uint64_t k = 0; k < 3; ++k)
    b.CreateStore(fields[k], ir.byteAddress(params, b.getInt64(8 * k)));
  return params;
}

} // namespace

Expected<std::unique_ptr<llvm::Module>>
buildKernelModule(llvm::LLVMContext &context, const KernelSpec &spec,
                  const VectorTarget &target, const std::string &name) {
  if (Status status = verifyKernelSpec(spec); !status)
    return status;
  // A dynamic qcast quantizes as its runtime-parameter twin does, after
  // computing the parameters (DynamicIr.h).
  bool dynamic = spec.params.dynamic != DynamicScheme::None;
  KernelSpec quantizeSpec = quantizeWithChosenParameters(spec);
  auto module = std::make_unique<llvm::Module>(name, context);
  IrContext ir(*module, quantizeSpec, target);
  llvm::IRBuilder<> &b = ir.builder;

  bool takesParams = spec.takesParams();
  llvm::SmallVector<llvm::Type *, 5> argTypes = {ir.ptr, ir.ptr, ir.i64};
  if (takesParams)
    argTypes.push_back(ir.ptr);
  if (dynamic)
    argTypes.push_back(ir.ptr); // DynamicKernelBuffers
  auto *type = llvm::FunctionType::get(b.getVoidTy(), argTypes, false);
  auto *function = llvm::Function::Create(
      type, llvm::GlobalValue::ExternalLinkage, name, *module);
  function->addFnAttr(llvm::Attribute::NoUnwind);
  function->addFnAttr(llvm::Attribute::NoFree);
  function->addFnAttr(llvm::Attribute::NoSync);
  // Explicit wide vectors are meant: keep 512-bit registers when present.
  function->addFnAttr("min-legal-vector-width",
                      std::to_string(std::max(target.vectorBits, 128u)));
  function->addFnAttr("prefer-vector-width",
                      std::to_string(std::max(target.vectorBits, 128u)));
  llvm::Value *src = function->getArg(0);
  llvm::Value *dst = function->getArg(1);
  llvm::Value *n = function->getArg(2);
  src->setName("src");
  dst->setName("dst");
  n->setName("n");
  llvm::Value *kernelParams = takesParams ? function->getArg(3) : nullptr;
  b.SetInsertPoint(llvm::BasicBlock::Create(context, "entry", function));

  // A dynamic call's KernelParams may be null when no extent is dynamic.
  bool readsExtents =
      !dynamic || !plan::staticPeriod(plan::periodDims(spec.layout));
  llvm::Value *extents = takesParams && readsExtents
                             ? b.CreateLoad(ir.ptr, kernelParams)
                             : nullptr;
  std::vector<LoopLevel> levels = planLoopLevels(ir, n, extents);
  if (dynamic) {
    llvm::Value *buffers = function->getArg(4);
    auto field = [&](uint64_t offset) {
      return b.CreateLoad(ir.ptr, ir.byteAddress(buffers, b.getInt64(offset)));
    };
    DynamicArrays arrays{field(kScalesOut), field(kZeroPointsOut), field(kLow),
                         field(kHigh)};
    emitDynamicParameters(ir, spec, src, levels, arrays);
    kernelParams = writtenParameters(ir, spec, extents, arrays);
  }
  QuantPlan plan = planQuantization(quantizeSpec, target);
  adaptPlanToCompactStorage(plan, quantizeSpec);
  ParamSource params(ir, plan, kernelParams);
  KernelEmitter emitter(ir, params, plan, src, dst);
  if (spec.layout.kind != LayoutSpec::Kind::PerTensor)
    emitter.streamWholeCall(n);
  emitLoopNest(ir, levels,
               [&](llvm::Value *first, llvm::Value *count, llvm::Value *param,
                   bool perElement) {
                 emitter.emitRun(first, count, param, perElement);
               });
  emitter.fenceStreamedCall();
  b.CreateRetVoid();

  std::string problems;
  llvm::raw_string_ostream os(problems);
  if (llvm::verifyModule(*module, &os))
    return Status::error(ErrorCode::BackendFailure,
                         "llvm backend generated invalid IR: " + problems);
  return module;
}

} // namespace qjit::llvmjit
