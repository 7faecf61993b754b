//===- ParameterLayout.h - Which parameter each element uses ----*- C++ -*-===//
//
// The reference's definition of a layout: the tensor (one period of it) as
// row-major dims, each split into blocks, and the parameter of an element
// found from its multi-index. Deliberately the obvious computation, with a
// division per dim per element: it is the ground truth for the kernels'
// collapsed loops, so it shares nothing with them.
//
//===----------------------------------------------------------------------===//
#ifndef QJIT_RUNTIME_PARAMETERLAYOUT_H
#define QJIT_RUNTIME_PARAMETERLAYOUT_H

#include "qjit/Error.h"
#include "qjit/KernelSpec.h"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace qjit::reference {

/// A layout with every extent known.
struct ParameterLayout {
  struct Dim {
    uint64_t extent = 1;
    uint64_t block = 1; ///< Divides extent.
  };
  std::vector<Dim> dims; ///< Outermost first; empty for per-tensor.
  uint64_t period = 1;   ///< Product of the extents.
};

/// Fills the dynamic extents of `layout` from `extents` (KernelParams'
/// array; may be null when nothing is dynamic). PerAxis becomes the dims
/// (channels / 1, inner / inner). Fails on missing or non-positive extents
/// and on a period that overflows.
Expected<ParameterLayout> resolveParameterLayout(const LayoutSpec &layout,
                                                 const int64_t *extents);

/// The parameter number of flat element i: the row-major multi-index of
/// i % period, divided by the blocks, flattened row-major over the grid.
uint64_t parameterIndex(const ParameterLayout &layout, uint64_t i);

} // namespace qjit::reference

#endif // QJIT_RUNTIME_PARAMETERLAYOUT_H
