//===- CheckedReciprocal.cpp - Exact `divide` qcast without a divider -----===//
//
// Why a passing lane is exact. Notation: Q = x/s (real), u = RN(Q) (what
// the reference divides to), u0 = RN(x·y), y = RN(1/s) = (1/s)(1 + d) with
// |d| <= 2^-24 (s and 1/s are normal: 2^-60 <= |s| <= 2^60). RN errs by
// at most 2^-24 relatively plus 2^-150 absolutely (subnormals). B bounds
// |min| and |max|, Z bounds |z|, L >= B + Z + 2, m = 2^-20·L.
//
// Large |Q| >= 2L: u and u0 have Q's sign (or are infinite) and magnitude
// above 2L(1 − 2^-22), so before rounding |u + z| and |u0 + z| exceed
// B + 1 on the same side, after rounding |round(u)| > L >= B + Z + 2: the
// reference saturates, and so does the kernel (w clamps to a bound or ±L,
// which is integral and passes; a -inf w that no clamp catches fails).
//
// Otherwise nothing overflows and
//   |u0 − u| <= |u0 − xy| + |xy − Q| + |Q − u| <= 3 · 2^-24 · 2L + 2^-149,
// and with the zero point added before rounding each sum is rounded once
// more, |u + z| < 3L: |RN(u0 + z) − RN(u + z)| <= 12 · 2^-24 · L + 2^-148.
// A kernel with FMA may fuse the sum, w = RN(x·y + z): then
// |RN(xy + z) − RN(u + z)| <= 3 · 2^-24 · L + (|xy − Q| + |Q − u|)
// + 3 · 2^-24 · L <= 10 · 2^-24 · L + 2^-149, within the same bound.
// Clamping is 1-Lipschitz, so the reference's w_ref (the same clamp of the
// exact-division value) is within m − 2^-22·L + 2^-148 of the kernel's w
// (and w − n is computed exactly: Sterbenz). If
// |w − n| < 1/2 − m, then |w_ref − n| < 1/2: w_ref rounds to n in both
// nearest modes (no tie), and clamp-then-round equals the reference's
// round-then-saturate because the bounds are integers. After rounding,
// a clamp at ±L only replaces values whose rounding saturates anyway.
//
// A conversion instead of the rounding: n = RNE(w) for |w| < 2^31, so the
// passing lanes are the same; w >= 2^31, w < −2^31 and NaN convert to
// INT32_MIN, and |w − (−2^31)| is 2^31 or more (or NaN): they fail. So
// the kernel clamps only at bounds narrower than the container, and
// saturating packs do the rest (w_ref rounds to the same n, and
// saturating n to the container is the reference's clamp).
//
// The bracket: a = RN(v − m), b = RN(v + m) with v = x·y + z exact (one
// FMA each; z ± m is exact since m = 2^-20·L >= 2^-20·|z|) and
// m = 2^-20·L. For |Q| < 2L, |w_ref − v| <= |RN(u + z) − (u + z)| +
// |u − Q| + |Q − xy| <= 2^-24·(3L + 2L + 2L) + 2^-148, and a, b are
// within 2^-24·3L of v ∓ m, so a <= w_ref <= b (7 + 3 < 16). RNE is
// monotone: roundeven(a) = roundeven(b) = n forces roundeven(w_ref) = n
// (ties included), and saturate(n) is the reference's result for bounds
// at the container's. For |Q| >= 2L, a, b and w_ref lie beyond the
// bounds on one side (as above) and all saturate there. The kernels
// compare by converting a and −b (RNE is odd-symmetric), narrowing both
// with saturation to i16 and adding with saturation: the sum is zero
// exactly when both are n and −n with |n| <= 32767 (INT32_MIN from NaN,
// ±inf or |v| >= 2^31 narrows to −32768, whose sum never is). About 2m
// of uniformly spread lanes fail, as with the threshold.
//
// Runtime parameters: L is fixed from the bounds (2B + 2 rounded up), and
// the kernel checks per parameter that |z| <= L − B − 2 and that s is in
// range (y = RN(1/s) is computed in the kernel); other runs divide.
//
// A NaN x gives a NaN w, which fails the check, as do lanes near a
// half-integer: about 2m of uniformly spread values, 2^-10 for 8-bit
// storage with |z| <= 128 (L = 512).
//
//===----------------------------------------------------------------------===//
#include "CheckedReciprocal.h"

#include "qjit/internal/HostFloat.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdlib>

namespace qjit::plan {

std::optional<CheckedReciprocalPlan>
planCheckedReciprocal(const KernelSpec &spec) {
  if (spec.op != KernelOp::QCast || spec.knobs.scaleOp != ScaleOp::Divide ||
      spec.compute != ValueType::F32 ||
      spec.storage.kind != StorageType::Kind::Integer ||
      spec.knobs.rounding == RoundingMode::TowardZero)
    return std::nullopt;
  CheckedReciprocalPlan plan;
  int64_t boundBound =
      std::max(std::abs(spec.storage.min), std::abs(spec.storage.max));
  if (boundBound > 2047)
    return std::nullopt;
  if (spec.params.runtime) {
    uint64_t limit = std::bit_ceil(static_cast<uint64_t>(2 * boundBound + 2));
    plan.limit = static_cast<float>(limit);
    plan.threshold = 0.5f - std::ldexp(static_cast<float>(limit), -20);
    plan.zeroPointLimit = static_cast<int64_t>(limit) - boundBound - 2;
    return plan;
  }
  if (spec.params.scales.empty())
    return std::nullopt;
  int64_t zeroPointBound = 0;
  for (size_t k = 0; k < spec.params.scales.size(); ++k) {
    float scale = static_cast<float>(bakedScale(spec, k));
    if (!(std::fabs(scale) >= 0x1p-60f && std::fabs(scale) <= 0x1p60f))
      return std::nullopt;
    plan.reciprocals.push_back(1.0f / scale);
    int64_t z = spec.params.zeroPoints[k];
    if (z > 4096 || z < -4096)
      return std::nullopt;
    zeroPointBound = std::max<int64_t>(zeroPointBound, std::abs(z));
  }
  uint64_t limit =
      std::bit_ceil(static_cast<uint64_t>(boundBound + zeroPointBound + 2));
  if (limit > 4096)
    return std::nullopt;
  plan.limit = static_cast<float>(limit);
  plan.threshold = 0.5f - std::ldexp(static_cast<float>(limit), -20);
  const StorageSpec &s = spec.storage;
  plan.bracket = spec.knobs.zeroPoint == ZeroPointOrder::BeforeRounding &&
                 spec.knobs.rounding == RoundingMode::NearestEven &&
                 s.min == (s.isSigned ? -128 : 0) &&
                 s.max == (s.isSigned ? 127 : 255);
  return plan;
}

} // namespace qjit::plan
