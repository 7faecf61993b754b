//===- LayoutLoops.cpp - Loop nests that follow a parameter layout --------===//
#include "LayoutLoops.h"

#include "plan/LayoutPeriod.h"

#include <optional>

namespace qjit::llvmjit {

namespace {

std::optional<int64_t> staticValue(llvm::Value *value) {
  if (auto *constant = llvm::dyn_cast<llvm::ConstantInt>(value))
    return constant->getSExtValue();
  return std::nullopt;
}

bool isStatic(llvm::Value *value, int64_t expected) {
  std::optional<int64_t> v = staticValue(value);
  return v && *v == expected;
}

/// Drops single-iteration loops and merges neighbours that walk the
/// parameters consistently: (c1, s1)(c2, s2) is (c1·c2, s2) when
/// s1 == c2·s2 (both stride 0, or an outer stride equal to the inner span).
std::vector<LoopLevel> simplify(IrContext &ir, std::vector<LoopLevel> levels) {
  llvm::IRBuilder<> &b = ir.builder;
  std::vector<LoopLevel> result;
  for (const LoopLevel &level : levels) {
    if (isStatic(level.count, 1))
      continue;
    if (!result.empty()) {
      LoopLevel &outer = result.back();
      bool bothBroadcast =
          isStatic(outer.stride, 0) && isStatic(level.stride, 0);
      std::optional<int64_t> outerStride = staticValue(outer.stride);
      std::optional<int64_t> innerStride = staticValue(level.stride);
      std::optional<int64_t> innerCount = staticValue(level.count);
      bool contiguous = outerStride && innerStride && innerCount &&
                        *outerStride == *innerCount * *innerStride;
      if (bothBroadcast || contiguous) {
        outer.count = b.CreateMul(outer.count, level.count);
        outer.stride = level.stride;
        continue;
      }
    }
    result.push_back(level);
  }
  if (result.empty())
    result.push_back({b.getInt64(1), b.getInt64(0)});
  // A run needs stride 0 or 1; anything else becomes runs of one element.
  if (!isStatic(result.back().stride, 0) && !isStatic(result.back().stride, 1))
    result.push_back({b.getInt64(1), b.getInt64(0)});
  return result;
}

} // namespace

std::vector<LoopLevel> planLoopLevels(IrContext &ir, llvm::Value *n,
                                      llvm::Value *extents) {
  llvm::IRBuilder<> &b = ir.builder;
  std::vector<plan::PeriodDim> dims = plan::periodDims(ir.spec.layout);
  std::vector<int64_t> strides = plan::parameterStrides(dims);
  std::vector<llvm::Value *> extentValues;
  llvm::Value *period = b.getInt64(1);
  for (const plan::PeriodDim &dim : dims) {
    llvm::Value *extent = b.getInt64(dim.extent);
    if (dim.dynamic())
      extent = b.CreateLoad(
          ir.i64,
          b.CreateInBoundsGEP(ir.i64, extents, b.getInt64(dim.extentIndex)));
    extentValues.push_back(extent);
    period = b.CreateMul(period, extent);
  }
  std::vector<LoopLevel> levels;
  levels.push_back({b.CreateUDiv(n, period), b.getInt64(0)});
  for (size_t d = 0; d < dims.size(); ++d) {
    // A dynamic dim is one whole block.
    llvm::Value *block =
        dims[d].dynamic() ? extentValues[d] : b.getInt64(dims[d].block);
    levels.push_back({b.getInt64(dims[d].grid()), b.getInt64(strides[d])});
    levels.push_back({block, b.getInt64(0)});
  }
  return simplify(ir, std::move(levels));
}

LoopState
emitWhile(IrContext &ir, LoopState initial,
          const std::function<llvm::Value *(const LoopState &)> &condition,
          const std::function<LoopState(const LoopState &)> &body) {
  llvm::IRBuilder<> &b = ir.builder;
  llvm::Function *function = b.GetInsertBlock()->getParent();
  llvm::BasicBlock *preheader = b.GetInsertBlock();
  auto *header = llvm::BasicBlock::Create(ir.context, "loop", function);
  auto *bodyBlock = llvm::BasicBlock::Create(ir.context, "body", function);
  auto *exit = llvm::BasicBlock::Create(ir.context, "exit", function);
  b.CreateBr(header);
  b.SetInsertPoint(header);
  LoopState state;
  llvm::SmallVector<llvm::PHINode *, 4> phis;
  for (llvm::Value *value : initial) {
    llvm::PHINode *phi = b.CreatePHI(value->getType(), 2);
    phi->addIncoming(value, preheader);
    phis.push_back(phi);
    state.push_back(phi);
  }
  b.CreateCondBr(condition(state), bodyBlock, exit);
  b.SetInsertPoint(bodyBlock);
  LoopState next = body(state);
  for (size_t i = 0; i < phis.size(); ++i)
    phis[i]->addIncoming(next[i], b.GetInsertBlock());
  b.CreateBr(header);
  b.SetInsertPoint(exit);
  return state;
}

namespace {

llvm::Value *emitLevel(IrContext &ir, const std::vector<LoopLevel> &levels,
                       size_t index, llvm::Value *first, llvm::Value *param,
                       const RunEmitter &emitRun) {
  llvm::IRBuilder<> &b = ir.builder;
  const LoopLevel &level = levels[index];
  if (index + 1 == levels.size()) {
    emitRun(first, level.count, param, isStatic(level.stride, 1));
    return b.CreateAdd(first, level.count);
  }
  LoopState final = emitWhile(
      ir, {b.getInt64(0), first, param},
      [&](const LoopState &s) { return b.CreateICmpULT(s[0], level.count); },
      [&](const LoopState &s) -> LoopState {
        llvm::Value *next =
            emitLevel(ir, levels, index + 1, s[1], s[2], emitRun);
        return {b.CreateAdd(s[0], b.getInt64(1)), next,
                b.CreateAdd(s[2], level.stride)};
      });
  return final[1];
}

} // namespace

void emitLoopNest(IrContext &ir, const std::vector<LoopLevel> &levels,
                  const RunEmitter &emitRun) {
  llvm::IRBuilder<> &b = ir.builder;
  emitLevel(ir, levels, 0, b.getInt64(0), b.getInt64(0), emitRun);
}

} // namespace qjit::llvmjit
