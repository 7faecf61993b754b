//===- KernelIr.cpp - KernelSpec to LLVM IR -------------------------------===//
//
// The kernel is the layout's loop nest (LayoutLoops) around runs. A run
// processes its elements in unrolled blocks of full vectors, then single
// vectors, then an exact tail: one masked vector on AVX-512, single
// elements otherwise, so no byte outside the buffers is ever touched.
//
//===----------------------------------------------------------------------===//
#include "KernelIr.h"

#include "ElementIo.h"
#include "LayoutLoops.h"
#include "ParamSource.h"

#include <llvm/IR/IntrinsicsX86.h>
#include <llvm/IR/MDBuilder.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Support/raw_ostream.h>

namespace qjit::llvmjit {

namespace {

/// Vectors per unrolled block.
constexpr unsigned kUnroll = 4;
/// Runs writing at least this much bypass the caches (x86): such outputs
/// would only evict the input stream, and read-for-ownership is avoided.
constexpr uint64_t kNonTemporalBytes = 8u << 20;

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

private:
  /// Converts `lanes` elements from element e.
  void emitElements(llvm::Value *e, Lanes lanes, const ParamValues &params);
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
  unsigned dstBytes_ = 1; ///< Output bytes per element (unpacked).
};

void KernelEmitter::emitElements(llvm::Value *e, Lanes lanes,
                                 const ParamValues &params) {
  switch (ir_.spec.op) {
  case KernelOp::QCast: {
    llvm::Value *x = loadExpressed(ir_, src_, e, lanes);
    if (!plan_.checked || lanes.count == 1 || lanes.mask) {
      storeStored(ir_, dst_, e,
                  emitQuantize(ir_, plan_, x, params, lanes.count), lanes);
      return;
    }
    // Multiply and check; divide only when a lane is too close to call.
    llvm::IRBuilder<> &b = ir_.builder;
    CheckedQuantize checked =
        emitCheckedQuantize(ir_, plan_, x, params, lanes.count);
    llvm::Function *function = b.GetInsertBlock()->getParent();
    auto *fast = llvm::BasicBlock::Create(ir_.context, "checked", function);
    auto *divide = llvm::BasicBlock::Create(ir_.context, "divide", function);
    auto *join = llvm::BasicBlock::Create(ir_.context, "stored", function);
    b.CreateCondBr(checked.exact, fast, divide,
                   llvm::MDBuilder(ir_.context).createLikelyBranchWeights());
    b.SetInsertPoint(fast);
    storeStored(ir_, dst_, e, checked.stored, lanes);
    b.CreateBr(join);
    b.SetInsertPoint(divide);
    storeStored(ir_, dst_, e, emitQuantize(ir_, plan_, x, params, lanes.count),
                lanes);
    b.CreateBr(join);
    b.SetInsertPoint(join);
    return;
  }
  case KernelOp::DCast: {
    llvm::Value *q = loadStored(ir_, src_, e, lanes);
    storeExpressed(ir_, dst_, e, emitDequantize(ir_, q, params, lanes.count),
                   lanes);
    return;
  }
  case KernelOp::SCast:
    storeStored(ir_, dst_, e, loadStored(ir_, src_, e, lanes), lanes);
    return;
  }
}

void KernelEmitter::emitRun(llvm::Value *first, llvm::Value *count,
                            llvm::Value *param, bool perElement) {
  llvm::IRBuilder<> &b = ir_.builder;
  llvm::Value *end = b.CreateAdd(first, count);
  ParamValues broadcast;
  if (!perElement)
    broadcast = params_.scalar(param); // Once per run.
  auto paramsAt = [&](llvm::Value *e, Lanes lanes) {
    if (!perElement)
      return params_.splat(broadcast, lanes.count);
    return params_.contiguous(b.CreateAdd(param, b.CreateSub(e, first)), lanes);
  };
  auto stepLoop = [&](llvm::Value *start, unsigned lanes,
                      const std::function<llvm::Value *(llvm::Value *)> &more,
                      bool nonTemporal = false) {
    return emitWhile(
        ir_, {start}, [&](const LoopState &s) { return more(s[0]); },
        [&](const LoopState &s) -> LoopState {
          Lanes step{lanes, nullptr, nonTemporal};
          emitElements(s[0], step, paramsAt(s[0], step));
          return {b.CreateAdd(s[0], b.getInt64(lanes))};
        })[0];
  };
  auto fits = [&](unsigned lanes) {
    return [&, lanes](llvm::Value *e) {
      return b.CreateICmpUGE(b.CreateSub(end, e), b.getInt64(lanes));
    };
  };

  llvm::Value *e = first;
  if (perByte_ > 1 && vectorLanes_ > 1) // Reach a byte boundary.
    e = stepLoop(e, 1, [&](llvm::Value *at) {
      return b.CreateAnd(
          b.CreateICmpULT(at, end),
          b.CreateICmpNE(b.CreateAnd(at, b.getInt64(perByte_ - 1)),
                         b.getInt64(0)));
    });
  if (vectorLanes_ > 1) {
    unsigned blockLanes = vectorLanes_ * kUnroll;
    if (ir_.target.isX86 && perByte_ == 1) {
      // Large runs: align the output by single elements, stream whole
      // blocks past the caches, fence, then finish as usual below.
      llvm::Value *elementBytes = b.getInt64(dstBytes_);
      uint64_t alignment = ir_.nonTemporalAlignment(blockLanes * dstBytes_);
      auto addressOf = [&](llvm::Value *at) {
        return b.CreateAdd(b.CreatePtrToInt(dst_, ir_.i64),
                           b.CreateMul(at, elementBytes));
      };
      llvm::Value *large = b.CreateAnd(
          b.CreateICmpUGE(b.CreateMul(b.CreateSub(end, e), elementBytes),
                          b.getInt64(kNonTemporalBytes)),
          b.CreateICmpEQ(b.CreateAnd(addressOf(e), b.getInt64(dstBytes_ - 1)),
                         b.getInt64(0)));
      llvm::Function *function = b.GetInsertBlock()->getParent();
      llvm::BasicBlock *before = b.GetInsertBlock();
      auto *stream = llvm::BasicBlock::Create(ir_.context, "stream", function);
      auto *join = llvm::BasicBlock::Create(ir_.context, "join", function);
      b.CreateCondBr(large, stream, join);
      b.SetInsertPoint(stream);
      llvm::Value *aligned = stepLoop(e, 1, [&](llvm::Value *at) {
        return b.CreateAnd(
            b.CreateICmpULT(at, end),
            b.CreateICmpNE(
                b.CreateAnd(addressOf(at), b.getInt64(alignment - 1)),
                b.getInt64(0)));
      });
      llvm::Value *streamed =
          stepLoop(aligned, blockLanes, fits(blockLanes), true);
      b.CreateIntrinsic(llvm::Intrinsic::x86_sse_sfence, {});
      llvm::BasicBlock *streamEnd = b.GetInsertBlock();
      b.CreateBr(join);
      b.SetInsertPoint(join);
      llvm::PHINode *next = b.CreatePHI(ir_.i64, 2);
      next->addIncoming(e, before);
      next->addIncoming(streamed, streamEnd);
      e = next;
    }
    if (vectorAllowed(blockLanes))
      e = stepLoop(e, blockLanes, fits(blockLanes));
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

Expected<std::unique_ptr<llvm::Module>>
buildKernelModule(llvm::LLVMContext &context, const KernelSpec &spec,
                  const VectorTarget &target, const std::string &name) {
  if (Status status = verifyKernelSpec(spec); !status)
    return status;
  if (spec.storage.kind != StorageType::Kind::Integer)
    return Status::error(ErrorCode::Unsupported,
                         "llvm backend: only integer storage is supported");
  auto module = std::make_unique<llvm::Module>(name, context);
  IrContext ir(*module, spec, target);
  llvm::IRBuilder<> &b = ir.builder;

  bool takesParams = spec.takesParams();
  llvm::SmallVector<llvm::Type *, 4> argTypes = {ir.ptr, ir.ptr, ir.i64};
  if (takesParams)
    argTypes.push_back(ir.ptr);
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

  QuantPlan plan = planQuantization(spec, target);
  ParamSource params(ir, plan, kernelParams);
  llvm::Value *extents =
      takesParams ? b.CreateLoad(ir.ptr, kernelParams) : nullptr;
  std::vector<LoopLevel> levels = planLoopLevels(ir, n, extents);
  KernelEmitter emitter(ir, params, plan, src, dst);
  emitLoopNest(ir, levels,
               [&](llvm::Value *first, llvm::Value *count, llvm::Value *param,
                   bool perElement) {
                 emitter.emitRun(first, count, param, perElement);
               });
  b.CreateRetVoid();

  std::string problems;
  llvm::raw_string_ostream os(problems);
  if (llvm::verifyModule(*module, &os))
    return Status::error(ErrorCode::BackendFailure,
                         "llvm backend generated invalid IR: " + problems);
  return module;
}

} // namespace qjit::llvmjit
