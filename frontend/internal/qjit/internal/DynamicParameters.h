//===- DynamicParameters.h - A group's parameters from its data -*- C++ -*-===//
//
// docs/semantics.md section 11: the scale and zero point a dynamic qcast
// chooses for one group, from the group's range of finite values. The
// reference and asmjit's dynamic kernels call these functions; the llvm
// backend emits the same steps (jit/src/llvm/DynamicIr.cpp), and the
// differential tests hold them together.
//
//===----------------------------------------------------------------------===//
#ifndef QJIT_DYNAMICPARAMETERS_H
#define QJIT_DYNAMICPARAMETERS_H

#include "qjit/KernelSpec.h"

#include <cstdint>

namespace qjit {

/// The range of one group (11.1): lo = min(0, finite elements), hi =
/// max(0, finite elements). An empty group, or one without finite
/// elements, is [0, 0].
template <typename C> struct GroupRange {
  C lo = 0;
  C hi = 0;
  void add(C x) {
    if (x < lo && x - x == 0)
      lo = x;
    if (x > hi && x - x == 0)
      hi = x;
  }
};

/// A group's parameters: the scale (a value of the expressed type, which
/// is C for the f32 and f64 values dynamic qcast takes) and zero point.
template <typename C> struct DynamicParameter {
  C scale = 1;
  int64_t zeroPoint = 0;
};

DynamicParameter<float> chooseDynamicParameter(const KernelSpec &spec,
                                               GroupRange<float> range);
DynamicParameter<double> chooseDynamicParameter(const KernelSpec &spec,
                                                GroupRange<double> range);

} // namespace qjit

#endif // QJIT_DYNAMICPARAMETERS_H
