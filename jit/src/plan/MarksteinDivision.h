//===- MarksteinDivision.h - fl(x / s) without a divider --------*- C++ -*-===//
//
// Both backends may replace an f32 division by a baked scale s with FMA
// sequences from y = RN(1/s). Which sequence, for which scales and zero
// points, and why the result is RN(x / s) wherever it matters, is decided
// and argued here once; the generators emit the steps of
// marksteinQuotient() and tests/plan/MarksteinDivisionTest.cpp checks each
// claim below on the scalar model.
//
// Markstein's theorem (Muller et al., Handbook of Floating-Point
// Arithmetic, "Markstein's theorem"): if y is within half an ulp of 1/s,
// q is within one ulp of Q = x/s (faithful) and nothing underflows, then
// r = x - s·q is exact and RN(q + r·y) = RN(Q).
//
// Two corrections (llvm, any f32 qcast; 2^-60 <= |s| <= 2^60, baked zero
// points |z| < 2^33): x' = clamp(x, -H, H) with H = |s|·2^40 (exact),
// q0 = RN(x'·y), e0 = RN(x' - s·q0), q1 = RN(q0 + e0·y), e1 = RN(x' -
// s·q1), u = RN(q1 + e1·y); u = RN(x/s) wherever the stored result
// depends on it:
//  * |x| > H: x/s and x'/s = ±2^40 both saturate (|z| < 2^33, bounds
//    within ±2^32); ±inf is such an x.
//  * |x'/s| < 2^-30 (x' = 0 too): every step stays below 2^-25, and any
//    such u stores what the exact quotient does: u + z rounds to z when
//    z != 0, round(u) is 0 in every mode when z = 0.
//  * Otherwise 2^-30 <= |Q| <= 2^40, |x'| >= 2^-90: nothing overflows or
//    underflows. q0 = Q(1 + t), |t| <= 2u + u^2 (u = 2^-24), so q0 + e0·y
//    is within 2^-45·|Q| of Q and q1 is faithful; the theorem gives e1
//    exact (a multiple of 2^(exp(s)+exp(q1)-46) >= 2^-149) and u = RN(Q).
//
// One correction (asmjit, float storage, AVX2; 2^-32 <= s <= 1):
// q = RN(x·y) bounded to ±2^100, r = x - q·s, u = RN(q + r·y). q is
// faithful without the first correction: with x, s scaled to [1, 2), for
// x >= s |x·y - Q| <= x·2^-25 < ulp(Q)/2, so |q - Q| < ulp(Q); for x < s
// the bound is 1.5 ulp and faithfulness is what the test checks over every
// significand of x for the scales whose reciprocals round worst. The bound
// keeps q·s and r finite (a bounded q leaves u beyond every code's range on
// the side of x/s), and quotients below 2^-30, where r may be inexact, keep
// their sign and stay nonzero (|x/s| >= |x| for s <= 1): they encode as
// ±0, as fl(x/s) does.
//
//===----------------------------------------------------------------------===//
#ifndef QJIT_JIT_PLAN_MARKSTEINDIVISION_H
#define QJIT_JIT_PLAN_MARKSTEINDIVISION_H

#include "qjit/KernelSpec.h"

#include <cstdint>

namespace qjit::plan {

enum class MarksteinForm : uint8_t {
  TwoCorrections, ///< Clamped to ±|s|·2^40; any f32 qcast.
  OneCorrection,  ///< q bounded to ±2^100; float storage only.
};

/// Baked zero points of the two-correction form stay below this in
/// magnitude (the clamp to ±|s|·2^40 must saturate like the quotient).
inline constexpr int64_t kMarksteinZeroLimit = (int64_t(1) << 33) - 1;
/// The one-correction form's bound on q.
inline constexpr float kMarksteinQuotientBound = 0x1p100f;

/// Whether `scale` (the f32 compute scale) is in the form's range.
bool marksteinScaleInRange(MarksteinForm form, double scale);

/// Whether the two-correction form covers `spec`'s qcast: f32 arithmetic,
/// every scale baked and in range, every zero point baked within
/// kMarksteinZeroLimit.
bool marksteinCoversSpec(const KernelSpec &spec);

/// The form's steps on one value, as the generators emit them (y =
/// RN(1/s)): the scalar model the tests check.
float marksteinQuotient(MarksteinForm form, float x, float s, float y);

} // namespace qjit::plan

#endif
