//===- DynamicKernelAbi.h - How a JIT'd dynamic qcast is called -*- C++ -*-===//
//
// A dynamic qcast (docs/semantics.md 11) computes its parameters, so its
// machine code takes more than ParamKernelFn: where to write them, and
// scratch for each group's range. The runtime provides every array (a
// caller may leave ParameterOutputs::zeroPoints null; the kernel still
// needs its zero points to quantize), so the code never allocates.
//
//===----------------------------------------------------------------------===//
#ifndef QJIT_DYNAMICKERNELABI_H
#define QJIT_DYNAMICKERNELABI_H

#include "qjit/KernelSpec.h"

#include <cstddef>
#include <cstdint>

namespace qjit {

/// One entry per parameter (parameterCounts(spec).scales) in each array,
/// none null. Compute values are float or double per spec.compute (the
/// expressed type: dynamic qcast takes f32 and f64 values).
struct DynamicKernelBuffers {
  void *scales;        ///< Written: scales in the spec's scale format.
  int64_t *zeroPoints; ///< Written: zero points.
  void *low, *high;    ///< Scratch: each group's range, compute values.
};

/// `params` holds the layout's dynamic extents (it may be null when the
/// layout has none, as checkDynamicCall allows).
using DynamicKernelFn = void (*)(const void *src, void *dst, size_t n,
                                 const KernelParams *params,
                                 const DynamicKernelBuffers *buffers);

} // namespace qjit

#endif // QJIT_DYNAMICKERNELABI_H
