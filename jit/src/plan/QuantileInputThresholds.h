//===- QuantileInputThresholds.h - Quantile qcast, no division --*- C++ -*-===//
//
// With one baked scale s and zero point z, quantile qcast (docs/semantics.md
// 8.4) can compare the input x itself with thresholds moved to the input
// side: x ↦ fl(fl(x / s) + z) (or x · fl(1 / s)) is monotone for a positive
// finite s, so v >= θ exactly when x >= X, X the smallest value of the
// compute type for which it holds. Both backends use these X.
//
//===----------------------------------------------------------------------===//
#ifndef QJIT_JIT_PLAN_QUANTILEINPUTTHRESHOLDS_H
#define QJIT_JIT_PLAN_QUANTILEINPUTTHRESHOLDS_H

#include "qjit/KernelSpec.h"

#include <vector>

namespace qjit::plan {

/// True when `spec` (a quantile qcast) has one baked scale and zero point
/// for which the chain is monotone and never NaN for a non-NaN x: a
/// positive finite scale whose reciprocal, when used, is finite too.
bool quantileThresholdsMoveToInput(const KernelSpec &spec);

/// The input-side thresholds X_j of `thresholds` (QuantileSearch's, in
/// spec.compute), found by bisection over the ordered values of the compute
/// type with the kernel's own IEEE operations.
std::vector<double>
quantileInputThresholds(const KernelSpec &spec,
                        const std::vector<double> &thresholds);

} // namespace qjit::plan

#endif // QJIT_JIT_PLAN_QUANTILEINPUTTHRESHOLDS_H
