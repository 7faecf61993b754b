//===- ComputeBounds.h - Storage bounds as compute values -------*- C++ -*-===//
//
// Kernels clamp before converting to integers, in the compute type C. A
// bound of up to 32 bits may not be a value of C = f32; the nearest value
// of C inside the bounds then clamps every input that can still round to
// an integer within the bounds, and the lanes beyond it take the bound
// itself (no other integral value of C lies between the two).
//
//===----------------------------------------------------------------------===//
#ifndef QJIT_JIT_PLAN_COMPUTEBOUNDS_H
#define QJIT_JIT_PLAN_COMPUTEBOUNDS_H

#include "qjit/KernelSpec.h"

#include <cstdint>

namespace qjit::plan {

/// The value of C nearest `bound` (|bound| <= 2^32) that is not outside
/// the bounds, and whether it is the bound itself.
struct ComputeBound {
  double value = 0;
  bool exact = true;
};
enum class BoundSide { Low, High };
ComputeBound boundInCompute(int64_t bound, BoundSide side, ValueType compute);

} // namespace qjit::plan

#endif
