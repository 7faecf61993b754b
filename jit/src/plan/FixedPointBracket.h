//===- FixedPointBracket.h - The bracket in 16.16 fixed point ---*- C++ -*-===//
//
// The bracket of CheckedReciprocal.h with one FMA and one conversion per
// vector instead of two each: n = RNE(RN(x · 2^16·y + 2^16·(z − β + 1/2)
// + D)) holds the stored value N = floor(n / 2^16) in its high 16 bits and
// the bracket's verdict in its low 16 bits f: the lane passes when
// f >= F, i.e. x·y + z lies far enough from every half-integer. Unsigned
// storage is biased by β = 128 so that both signednesses pack as i8 (the
// kernel adds 128 back). The proof is in FixedPointBracket.cpp.
//
//===----------------------------------------------------------------------===//
#ifndef QJIT_JIT_PLAN_FIXEDPOINTBRACKET_H
#define QJIT_JIT_PLAN_FIXEDPOINTBRACKET_H

#include "qjit/KernelSpec.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace qjit::plan {

struct FixedPointBracketPlan {
  static constexpr int kFractionBits = 16;
  /// 2^16 · y_k, y_k = RN(1 / s_k) (CheckedReciprocalPlan::reciprocals).
  std::vector<float> scaledReciprocals;
  /// 2^16 · (z_k + offsetBase), each exact in f32.
  std::vector<float> offsets;
  /// s_k and z_k in f32, for the lanes that fail (they divide, or
  /// multiply by y_k under the `reciprocal` knob).
  std::vector<float> divisors, zeroPoints;
  /// 0 for signed storage, 128 for unsigned.
  int32_t bias = 0;
  /// F: lanes whose low 16 bits are below it fail (at most 127, so that
  /// a signed-saturated byte of f still tells).
  uint32_t failBelow = 0;
  /// 1/2 + D/2^16 − bias (D the offset of the verdict's window).
  float offsetBase = 0;
  /// Runtime parameters (the vectors above are empty): the kernel forms
  /// y = RN(1/s), 2^16·y and 2^16·(z + offsetBase) per parameter, all
  /// exact, and fails every lane of a parameter outside the checked range
  /// (2^-60 <= |s| <= 2^60, |z| <= zeroPointLimit).
  bool runtime = false;
  int64_t zeroPointLimit = 0;
};

/// The plan when the bracket applies to `spec`: storage in one byte,
/// [-128, 127] or [0, 255] or a range inside (narrow i8, i4, u4 and the
/// like, whose bytes the kernel clamps to it afterwards), `nearest-even`,
/// `divide` or `reciprocal` (whose reference is closer to x·y + z still), the
/// zero point before rounding or, with baked parameters or runtime ones
/// promised within the storage range, after it (XNNPACK's formula); runtime
/// parameters' L holds for every z within zeroPointLimit. f32 expressed values,
/// L <= 512, every offset exact in f32 and, for `divide`, scales without exact
/// reciprocals. Otherwise nullopt.
std::optional<FixedPointBracketPlan>
planFixedPointBracket(const KernelSpec &spec);

} // namespace qjit::plan

#endif // QJIT_JIT_PLAN_FIXEDPOINTBRACKET_H
