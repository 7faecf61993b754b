//===- LayoutPeriod.h - A layout's period as blocked dims -------*- C++ -*-===//
//
// Every backend walks a per-axis or blocked layout as the same dims: one
// period of the layout, outermost first, each `extent` elements (rows, for
// outer dims) in blocks of `block` that share a parameter, the parameter
// the row-major index over the grid of blocks (KernelSpec.h, LayoutSpec).
// llvm's loop levels, asmjit's x86 frame nest and per-element tables and
// its AArch64 run tables all start from periodDims(). The reference
// resolves layouts on its own (runtime/src/ParameterLayout.cpp), so the
// differential tests compare two implementations.
//
//===----------------------------------------------------------------------===//
#ifndef QJIT_JIT_PLAN_LAYOUTPERIOD_H
#define QJIT_JIT_PLAN_LAYOUTPERIOD_H

#include "qjit/KernelSpec.h"

#include <cstdint>
#include <span>
#include <vector>

namespace qjit::plan {

/// One dim of a period. A dynamic dim (extent and block kDynamic) is
/// KernelParams::extents[extentIndex] elements at call time, one block.
struct PeriodDim {
  int64_t extent = 1;
  int64_t block = 1;
  unsigned extentIndex = 0; ///< Dynamic dims only.

  bool dynamic() const { return extent == LayoutSpec::kDynamic; }
  /// Blocks along the dim (1 for a dynamic one).
  int64_t grid() const { return dynamic() ? 1 : extent / block; }
};

/// PerAxis: (channels, 1) then (inner, inner); Blocked: its dims, dims[d]
/// reading extents[d - 1] when dynamic (dims[0] is static); PerTensor:
/// none.
std::vector<PeriodDim> periodDims(const LayoutSpec &layout);

/// Whether no dim is dynamic (then the period is the product of extents).
bool staticPeriod(std::span<const PeriodDim> dims);

/// L when a static period is runs of L elements, run k of it using
/// parameter k: blocks along the last dim only (per-axis layouts, rows of
/// blocks). 0 otherwise (no dims, a dynamic dim, or a block across rows).
int64_t consecutiveGroupRun(std::span<const PeriodDim> dims);

/// A dynamic qcast's groups as runs of consecutive elements: 0 per tensor
/// (one group) and where groups are not runs (blocks across rows, or a
/// dynamic dim in a blocked layout), LayoutSpec::kDynamic for per-axis
/// rows of a dynamic extent, else consecutiveGroupRun's L.
int64_t dynamicGroupRun(const LayoutSpec &layout);

/// The parameter-number step of one block of each dim: the product of the
/// grids inside it.
std::vector<int64_t> parameterStrides(std::span<const PeriodDim> dims);

/// The parameter number of each element of a static period, in order (an
/// odometer over the dims: no division per element).
std::vector<int64_t> periodParameterIndices(std::span<const PeriodDim> dims);

} // namespace qjit::plan

#endif
