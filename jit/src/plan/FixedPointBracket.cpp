//===- FixedPointBracket.cpp - The bracket in 16.16 fixed point -----------===//
//
// Why a passing lane is exact. Notation of CheckedReciprocal.cpp: v = x·y
// + z (real), w_ref the reference's value before rounding, B the bound
// magnitude, and for |Q| < 2L |w_ref − v| <= 7·2^-24·L + 2^-148
// (`divide`; under `reciprocal`, w_ref = RN(RN(x·y) + z) is within
// 5·2^-24·L of v). The kernel forms t = RN(2^16·(v − β + 1/2) + D) by one
// FMA: 2^16·y is exact (a power of two times a normal float) and so is
// the offset (checked below), so t errs by at most 2^-24·2^16·4L. Its
// conversion n = RNE(t) adds 1/2, so with E = 11·L/256 + 1/2 + 2^-132,
// |n − (2^16·(w_ref − β + 1/2) + D)| <= E. Write n = 2^16·N + f,
// 0 <= f < 2^16. A passing lane has f >= F, and D > E, F − D > E put
// 2^16·(w_ref − β + 1/2) inside (2^16·N, 2^16·(N + 1)): w_ref rounds to
// N + β in every nearest mode (no tie), and saturating N to i8 and adding
// β is the reference's saturation to the container (β = 128 for [0, 255],
// 0 for [-128, 127]). D = floor(E) + 1 and F = D + floor(E) + 1: 24 for
// L = 256, 46 for L = 512, so about F·2^-16 of uniformly spread lanes
// fail (the two-FMA bracket's m = 2^-20·L fails 2^17·m·2^-16 = L/8·2^-16).
// For |Q| >= 2L, v and w_ref lie beyond the bounds on one side (as in
// CheckedReciprocal.cpp), and so does N + β: v − β >= B + 1 − β gives
// n/2^16 > B + 1 − β, v − β <= −B − 1 − β gives n/2^16 < −B − β.
// |t| >= 2^31, ±inf and NaN convert to INT32_MIN, whose f = 0 fails.
// Runtime parameters: the proof holds for any L >= B + Z + 2, so a kernel
// that checks |z| <= zeroPointLimit = L − B − 2 per parameter (and s in
// range) may take L = 2^ceil(log2(B + 3)); a parameter outside the range
// gets 2^16·y = NaN, which fails every lane.
//
//===----------------------------------------------------------------------===//
#include "FixedPointBracket.h"

#include "CheckedReciprocal.h"
#include "ExactReciprocal.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdlib>

namespace qjit::plan {

std::optional<FixedPointBracketPlan>
planFixedPointBracket(const KernelSpec &spec) {
  // Exact reciprocals multiply without a check (ExactReciprocal.h).
  if (spec.expressed != ValueType::F32 || spec.storage.packed ||
      spec.storage.containerBytes() != 1 ||
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
  bool fullRange =
      s.min == (s.isSigned ? -128 : 0) && s.max == (s.isSigned ? 127 : 255);
  bool runtimeBracket =
      spec.params.runtime && fullRange &&
      spec.knobs.zeroPoint == ZeroPointOrder::BeforeRounding &&
      spec.knobs.rounding == RoundingMode::NearestEven;
  if (!checked || !(checked->bracket || runtimeBracket) || checked->limit > 512)
    return std::nullopt;
  FixedPointBracketPlan plan;
  plan.bias = spec.storage.isSigned ? 0 : 128;
  double scale = std::ldexp(1.0, FixedPointBracketPlan::kFractionBits);
  int64_t limit = static_cast<int64_t>(checked->limit);
  if (spec.params.runtime) {
    // L = 2^ceil(log2(B + 3)) rather than the checked form's 2B + 2: half
    // the failing lanes for i8 (L = 256), whose zero points up to
    // L − B − 2 = 126 pass; u8 keeps L = 512.
    int64_t bound = std::max(std::abs(s.min), std::abs(s.max));
    limit =
        static_cast<int64_t>(std::bit_ceil(static_cast<uint64_t>(bound + 3)));
    plan.runtime = true;
    plan.zeroPointLimit = limit - bound - 2;
  }
  // E = 2^16·ε = 11·L/256 + 1/2 (+ 2^-132); D > E and F − D > E.
  auto error = static_cast<uint32_t>(11 * limit / 256); // floor(E).
  uint32_t shift = error + 1;
  plan.failBelow = shift + error + 1;
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
