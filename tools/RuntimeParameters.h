//===- RuntimeParameters.h - Scales and zero points from .npy ---*- C++ -*-===//
//
// `qjit run --scales=S.npy [--zero-points=Z.npy]` (or `--params=P.npz`,
// the arrays `scales` and `zero_points` a dynamic qcast writes) gives a
// kernel with runtime parameters its KernelParams. The arrays are checked
// against the kernel as the type's own scale list would be: one value per
// parameter of the layout (docs/semantics.md, 6), scales in the kernel's
// scale format (2.3: the expressed type's host format unless
// --scale-format, or the scales' dtype, says f32, f16, bf16 or e8m0) and
// finite and positive (the kernel would take any value; the type's rules do
// not; every E8M0 byte is taken, 0xFF marking a NaN block as OCP MX has
// it), zero points of any integer dtype. Arrays are 1-D,
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

/// The .npy dtype of the runtime scales of `spec`, whose expressed values
/// are `expressedDtype`: E8M0 codes are '|u1', bf16 bits '<u2'.
NpyDtype scaleDtype(const KernelSpec &spec, NpyDtype expressedDtype);

/// The scale format the scales of `files` have, from their dtype, for
/// `spec`, whose expressed values are `expressedDtype`: that dtype itself is
/// the expressed format; otherwise '<f4' f32, '<f2' f16, '|u1' e8m0. Other
/// dtypes fail ('<u2' bf16 bits need --scale-format=bf16 unless the values
/// are bf16).
Expected<ScaleFormat> inferScaleFormat(const ParameterFiles &files,
                                       const KernelSpec &spec,
                                       NpyDtype expressedDtype);

class RuntimeParameters {
public:
  /// Reads the files for `spec` (lowered from `element` with runtime
  /// parameters); `scaleDtype` is scaleDtype(spec, ...).
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
