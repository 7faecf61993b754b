//===- CheckedReciprocal.h - Exact `divide` without a divider ---*- C++ -*-===//
//
// The `divide` contract needs u = RN(x / s), but only the stored integer is
// observable. For baked f32 scales and small storage ranges, a kernel may
// instead compute u0 = RN(x · y) with y = RN(1/s) and check, per lane, that
// the value the rounding step sees lies farther than `threshold` inside
// (n − 1/2, n + 1/2) for the integer n it rounds to; lanes that fail (and
// NaN lanes) are recomputed with the exact division. The lanes that pass
// are bit-exact; the proof is in CheckedReciprocal.cpp and
// docs/performance.md.
//
// Per lane, in f32 (bounds clamps as the kernel needs them):
//   before-rounding: w = clamp(RN(u0 + z), min, max), or with FMA
//                    w = clamp(RN(x · y + z), min, max)
//   after-rounding:  w = clamp(u0, -limit, limit)        (n + z summed after)
//   n = roundeven(w); the lane passes when |w − n| < threshold.
// Both nearest modes round a passing lane to n (it is no tie). Kernels
// may take n from a conversion in the default rounding environment (RNE,
// as the FMA already assumes) and skip the clamps at the container's
// bounds: w beyond ±2^31 or NaN converts to INT32_MIN, far from w.
//
// The bracket (nearest-even before rounding with FMA, the 8-bit
// container's full range): a = RN(x·y + (z − m)), b = RN(x·y + (z + m))
// with m = 1/2 − threshold; the lane passes when roundeven(a) and
// roundeven(b) are one integer n (within ±32767), and stores saturate(n).
//
//===----------------------------------------------------------------------===//
#ifndef QJIT_JIT_PLAN_CHECKEDRECIPROCAL_H
#define QJIT_JIT_PLAN_CHECKEDRECIPROCAL_H

#include "qjit/KernelSpec.h"

#include <optional>
#include <vector>

namespace qjit::plan {

struct CheckedReciprocalPlan {
  /// y_k = RN(1 / s_k) in f32, one per baked parameter.
  std::vector<float> reciprocals;
  /// L: a power of two with L >= max(|min|, |max|) + max|z| + 2.
  float limit = 0;
  /// 1/2 − 2^-20 · L.
  float threshold = 0;
  /// Runtime parameters (no reciprocals): the kernel checks each one and
  /// divides unless 2^-60 <= |s| <= 2^60 and |z| <= zeroPointLimit.
  int64_t zeroPointLimit = 0;
  /// The bracket applies (baked parameters, nearest-even before rounding,
  /// the 8-bit container's full range) where the generator has FMA.
  bool bracket = false;
};

/// The plan when `spec` qualifies: qcast, `divide`, a nearest rounding
/// mode, f32 compute, L <= 2^12 and, for baked parameters, every scale in
/// [2^-60, 2^60]. Runtime parameters get L = 2^ceil(log2(2·B + 2)) for
/// bounds within ±B. Otherwise nullopt (the kernel divides).
std::optional<CheckedReciprocalPlan>
planCheckedReciprocal(const KernelSpec &spec);

} // namespace qjit::plan

#endif // QJIT_JIT_PLAN_CHECKEDRECIPROCAL_H
