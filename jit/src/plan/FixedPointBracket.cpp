//===- FixedPointBracket.cpp - The bracket in 16.16 fixed point -----------===//
//
// Why a passing lane is exact. Notation of CheckedReciprocal.cpp: Q = x/s,
// y = RN(1/s) = (1/s)(1 + d), |d| <= 2^-24, v = x·y + z (real), w_ref the
// reference's value before rounding: RN(RN(Q) + z) (`divide`) or
// RN(RN(x·y) + z) (`reciprocal`, closer still). β = 128 for [0, 255] and
// 0 for [-128, 127]. Over v in [lo, hi] = [min − 2, max + 2]: V bounds
// |v|, U bounds |v − β| and P bounds |v − z| for every zero point (runtime
// parameters: P = V + Z, Z = zeroPointLimit).
// The kernel forms t = RN(X), X = 2^16·(v − β + 1/2) + D, by one FMA
// (2^16·y is exact, a power of two times a normal float, and so is the
// offset: checked below), and n = RNE(t).
//  * lo <= v <= hi: |x·y| <= P, |Q| <= P(1 + 2^-23), so |RN(Q) − Q|,
//    |Q − x·y| <= 2^-24·|Q| (+ 2^-150) and |w_ref − (RN(Q) + z)| <=
//    2^-24·(V + 1): |w_ref − v| <= 2^-24·((V + 1) + 2P(1 + 2^-23))
//    + 2^-149. |t − X| <= 2^-24·2^16·(U + 1), |n − t| <= 1/2. So
//    |n − (2^16·(w_ref − β + 1/2) + D)| <= E = 1/2 + ((U + 1) +
//    (V + 1) + 2P(1 + 2^-23)) / 256 + 2^-133. Write n = 2^16·N + f,
//    0 <= f < 2^16. A passing lane has f >= F, and D > E, F − D > E put
//    2^16·(w_ref − β + 1/2) inside (2^16·N, 2^16·(N + 1)): w_ref rounds to
//    N + β in every nearest mode (no tie), and saturating N to i8, adding
//    β and clamping the byte to [min, max] (a range inside the byte's) is
//    the reference's saturation to the storage range.
//  * v > hi: every error above is at most 2^-22·(|v| + |z| + 1) (or an
//    infinity of v's sign), below v − max − 1/2 and, times 2^16, below
//    X − 2^16·(max + 1 − β) while |t| < 2^31: w_ref rounds above max and
//    N + β > max, so both saturate to max; v < lo likewise to min.
//    (|t| >= 2^31, ±inf and NaN convert to INT32_MIN, whose f = 0 fails.)
// D = floor(E) + 1 and F = D + floor(E) + 1: 3 and 6 for i8 with |z| <= 3,
// 4 and 8 for u8 with 4 <= z <= 251; about F·2^-16 of uniformly spread
// lanes fail (the two-FMA bracket's margin fails L/8·2^-16, 32·2^-16 for
// L = 256).
// `after-rounding`: the reference is sat(round(u) + z), u = RN(Q) or
// RN(x·y). Its value w_ref = u + z (exact) is within 2^-24·2P(1 + 2^-23)
// + 2^-149 of v, inside the bound above (which also covers the rounding of
// u + z). So a passing lane has u + z strictly inside (N + β − 1/2,
// N + β + 1/2): u is no tie and round(u) = N + β − z, and round(u) + z =
// N + β saturates as before; beyond [lo, hi] likewise. Failing lanes
// round u first, then add z (exact in f32: |z| is small, baked or runtime
// zero points promised within the storage range).
// Runtime parameters: Z is zeroPointLimit, which the kernel checks per
// parameter (and s in [2^-60, 2^60], so that y is normal); a parameter
// outside gets 2^16·y = NaN, which fails every lane.
//
//===----------------------------------------------------------------------===//
#include "FixedPointBracket.h"

#include "CheckedReciprocal.h"
#include "ExactReciprocal.h"

#include "qjit/internal/DynamicParameters.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdlib>

namespace qjit::plan {

std::optional<FixedPointBracketPlan>
planFixedPointBracket(const KernelSpec &spec) {
  // Exact reciprocals multiply without a check (ExactReciprocal.h).
  if (spec.expressed != ValueType::F32 || spec.storage.containerBytes() != 1 ||
      (spec.knobs.scaleOp == ScaleOp::Divide &&
       scalesHaveExactReciprocals(spec)))
    return std::nullopt;
  // `reciprocal` takes the conditions `divide` would: the same y = RN(1/s).
  KernelSpec divide = spec;
  divide.knobs.scaleOp = ScaleOp::Divide;
  std::optional<CheckedReciprocalPlan> checked = planCheckedReciprocal(divide);
  // The bracket's conditions (CheckedReciprocal.cpp sets them for baked
  // parameters; runtime ones hold L for every z in range alike).
  const StorageSpec &s = spec.storage;
  // Either zero-point order (see above). Failing lanes add z after
  // rounding in f32: runtime parameters need it within the storage range.
  bool bracketKnobs =
      spec.knobs.rounding == RoundingMode::NearestEven &&
      (spec.knobs.zeroPoint == ZeroPointOrder::BeforeRounding ||
       !spec.params.runtime || runtimeZeroPointsInStorage(spec));
  if (!checked || !bracketKnobs || checked->limit > 512)
    return std::nullopt;
  FixedPointBracketPlan plan;
  plan.bias = spec.storage.isSigned ? 0 : 128;
  double scale = std::ldexp(1.0, FixedPointBracketPlan::kFractionBits);
  if (spec.params.runtime) {
    // Zero points up to 2^ceil(log2(B + 3)) − B − 2 pass (126 for i8,
    // 255 for u8): the usual ones, with a narrow window.
    int64_t bound = std::max(std::abs(s.min), std::abs(s.max));
    auto limit =
        static_cast<int64_t>(std::bit_ceil(static_cast<uint64_t>(bound + 3)));
    plan.runtime = true;
    plan.zeroPointLimit = limit - bound - 2;
  }
  // The bounds of the proof (above): V, U and P over v in [lo, hi].
  const double lo = static_cast<double>(s.min - 2),
               hi = static_cast<double>(s.max + 2),
               bias = static_cast<double>(plan.bias);
  const double v = std::max(std::abs(lo), std::abs(hi));
  const double u = std::max(std::abs(lo - bias), std::abs(hi - bias));
  // Runtime zero points: any |z| <= zeroPointLimit.
  double p = plan.runtime ? v + static_cast<double>(plan.zeroPointLimit) : 0.0;
  for (int64_t zeroPoint : spec.params.zeroPoints) {
    auto z = static_cast<double>(zeroPoint);
    p = std::max({p, std::abs(lo - z), std::abs(hi - z)});
  }
  double e = 0.5 + ((u + 1) + (v + 1) + 2 * p * (1 + 0x1p-23)) / 256 +
             0x1p-40; // 2^-133, rounded up.
  auto error = static_cast<uint32_t>(std::floor(e));
  uint32_t shift = error + 1; // D > E; F − D > E.
  plan.failBelow = shift + error + 1;
  if (plan.failBelow > 127)
    return std::nullopt;
  double offsetBase = 0.5 + shift / scale - plan.bias;
  // |z − bias| < 2^9 and 1/2 + D/2^16 need 21 significant bits: exact.
  plan.offsetBase = static_cast<float>(offsetBase);
  if (plan.runtime)
    return plan;
  for (size_t k = 0; k < checked->reciprocals.size(); ++k) {
    int64_t z = spec.params.zeroPoints[k];
    double offset = scale * (static_cast<double>(z) + offsetBase);
    if (static_cast<double>(static_cast<float>(offset)) != offset)
      return std::nullopt;
    plan.scaledReciprocals.push_back(
        static_cast<float>(scale * checked->reciprocals[k]));
    plan.offsets.push_back(static_cast<float>(offset));
    plan.divisors.push_back(static_cast<float>(bakedScale(spec, k)));
    plan.zeroPoints.push_back(static_cast<float>(z));
  }
  return plan;
}

} // namespace qjit::plan
