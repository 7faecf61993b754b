//===- RuntimeParameters.h - Scales and zero points from .npy ---*- C++ -*-===//
//
// `qjit run --scales=S.npy [--zero-points=Z.npy]` (or `--params=P.npz`,
// the arrays `scales` and `zero_points` a dynamic qcast writes) gives a
// kernel with runtime parameters its KernelParams. The arrays are checked
// against the kernel as the type's own scale list would be: one value per
// parameter of the layout (docs/semantics.md, 6), scales in the expressed
// type's host format and finite and positive (the kernel would take any value;
// the type's rules do not), zero points of any integer dtype. Arrays are 1-D,
// shaped as the sub-channel scale tensor or as the kernel's parameter grid
// (parameterShape; C order is the layout's order in every case).
//
//===----------------------------------------------------------------------===//
#ifndef QJIT_TOOLS_RUNTIMEPARAMETERS_H
#define QJIT_TOOLS_RUNTIMEPARAMETERS_H

#include "Npy.h"

#include "qjit/Error.h"
#include "qjit/KernelSpec.h"
#include "qjit/QuantType.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace qjit::tool {

struct ParameterFiles {
  /// An .npy file, or with `archive` an .npz holding `scales` and
  /// `zero_points`.
  std::string scales;
  std::optional<std::string> zeroPoints;
  bool archive = false;
};

class RuntimeParameters {
public:
  /// Reads the files for `spec` (lowered from `element` with runtime
  /// parameters); `scaleDtype` is the expressed side's .npy dtype.
  static Expected<RuntimeParameters> read(const ParameterFiles &files,
                                          const KernelSpec &spec,
                                          const QuantType &element,
                                          NpyDtype scaleDtype);

  /// Points into this object: valid while it lives.
  KernelParams params() const;

private:
  std::vector<uint8_t> scales_;
  std::vector<int64_t> zeroPoints_; ///< Empty: all zero.
};

} // namespace qjit::tool

#endif
