//===- CallParameters.h - Runtime scales and zero points --------*- C++ -*-===//
//
// `kernel(x, scales=S, zero_points=Z)` for kernels compiled with runtime
// parameters. Checked as `qjit run --scales` checks its files: one value per
// parameter of the layout (any shape with that many elements, read in C
// order: a 1-D array or the sub-channel scale tensor), scales in the
// expressed type's dtype (bf16: uint16 bits or torch.bfloat16) and finite
// and positive, zero points of any integer dtype (default 0).
//
//===----------------------------------------------------------------------===//
#ifndef QJIT_PYTHON_CALLPARAMETERS_H
#define QJIT_PYTHON_CALLPARAMETERS_H

#include "ArrayView.h"

#include "qjit/KernelCall.h"
#include "qjit/KernelSpec.h"

#include <pybind11/pybind11.h>

#include <optional>
#include <vector>

namespace qjit::python {

class CallParameters {
public:
  /// Raises InvalidArgumentError when the arrays do not fit the kernel, or
  /// are given to a kernel that bakes its parameters (None: not given).
  static CallParameters read(const KernelSpec &spec, pybind11::handle scales,
                             pybind11::handle zeroPoints);

  /// Points into this object (and `extents`): valid while both live.
  KernelParams params(const std::vector<int64_t> &extents) const;
  /// The entries those arrays hold, for Kernel::run to check again.
  ParameterCounts lengths(const std::vector<int64_t> &extents) const;

private:
  std::optional<ArrayView> scales_;
  std::optional<ArrayView> zeroPointArray_; ///< Used as is when int64.
  std::vector<int64_t> zeroPoints_;         ///< Otherwise widened here.
};

} // namespace qjit::python

#endif
