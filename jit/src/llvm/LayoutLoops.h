//===- LayoutLoops.h - Loops that follow a layout ---------------*- C++ -*-===//
//
// A layout maps elements to parameters. Walking the elements in memory
// order, that map is a nest of counted loops, each advancing the parameter
// number by a fixed stride per iteration: for every blocked dim, a loop
// over its blocks (stride: the grid size of the dims inside it) around a
// loop over one block (stride 0), all inside a loop over layout periods.
// Trivial loops are dropped and compatible neighbours merged, so the
// innermost loop becomes one *run*: consecutive elements that share one
// parameter (stride 0, broadcast) or take consecutive ones (stride 1, a
// contiguous table read). Kernels then need no division or modulo per
// element: the element index and parameter number are running sums.
//
//===----------------------------------------------------------------------===//
#ifndef QJIT_JIT_LLVM_LAYOUTLOOPS_H
#define QJIT_JIT_LLVM_LAYOUTLOOPS_H

#include "IrContext.h"

#include <functional>

namespace qjit::llvmjit {

struct LoopLevel {
  llvm::Value *count;  ///< Iterations (i64).
  llvm::Value *stride; ///< Parameter-number step per iteration (i64).
};

/// The levels of `spec`'s layout for n elements, outermost first. Emits
/// the (per-call) extent arithmetic at the builder's position. `extents`
/// is KernelParams::extents (may be null when nothing is dynamic).
std::vector<LoopLevel> planLoopLevels(IrContext &ir, llvm::Value *n,
                                      llvm::Value *extents);

/// Emits one run: `count` elements from element `first`, using parameter
/// `param` (broadcast) or param + i for element first + i (`perElement`).
using RunEmitter = std::function<void(llvm::Value *first, llvm::Value *count,
                                      llvm::Value *param, bool perElement)>;
void emitLoopNest(IrContext &ir, const std::vector<LoopLevel> &levels,
                  const RunEmitter &emitRun);

/// while (condition(state)) state = body(state); returns the final state.
using LoopState = llvm::SmallVector<llvm::Value *, 4>;
LoopState
emitWhile(IrContext &ir, LoopState initial,
          const std::function<llvm::Value *(const LoopState &)> &condition,
          const std::function<LoopState(const LoopState &)> &body);

} // namespace qjit::llvmjit

#endif
