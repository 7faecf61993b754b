//===- ScalarArithmetic.h - qcast and dcast of one value --------*- C++ -*-===//
//
// The arithmetic of docs/semantics.md for a single element, in the compute
// type C (float or double). Every operation is one IEEE operation with one
// rounding in the default (nearest-even) mode; the runtime library is built
// with -ffp-contract=off so no multiply-add is ever fused. Rounding to an
// integer is done by hand, so the floating-point environment is never read
// or changed.
//
//===----------------------------------------------------------------------===//
#ifndef QJIT_RUNTIME_SCALARARITHMETIC_H
#define QJIT_RUNTIME_SCALARARITHMETIC_H

#include "qjit/KernelSpec.h"

#include <cmath>
#include <cstdint>

namespace qjit::reference {

/// `value` rounded to an integral value of C by `mode`; ±inf stay ±inf.
/// Exact: trunc and value - trunc(value) are exact, and |t| < 2^(p-1)
/// whenever a fractional part exists, so t ± 1 is exact too.
template <typename C> C roundToIntegral(C value, RoundingMode mode) {
  C truncated = std::trunc(value);
  if (mode == RoundingMode::TowardZero || std::isinf(value))
    return truncated;
  C fraction = std::fabs(value - truncated);
  C awayFromZero = truncated + std::copysign(C(1), value);
  if (fraction > C(0.5))
    return awayFromZero;
  if (fraction < C(0.5))
    return truncated;
  // An exact tie.
  if (mode == RoundingMode::NearestAway)
    return awayFromZero;
  bool truncatedIsOdd = std::fmod(truncated, C(2)) != C(0);
  return truncatedIsOdd ? awayFromZero : truncated;
}

/// clamp(v, min, max) for an integral (or infinite) v. The comparisons are
/// done in double, where v and the bounds (|bound| < 2^33) are exact.
template <typename C> int64_t saturate(C value, int64_t min, int64_t max) {
  double wide = static_cast<double>(value);
  if (wide <= static_cast<double>(min))
    return min;
  if (wide >= static_cast<double>(max))
    return max;
  return static_cast<int64_t>(wide);
}

inline int64_t clampInteger(int64_t value, int64_t min, int64_t max) {
  return value < min ? min : (value > max ? max : value);
}

/// u = x / s, or x · fl(1 / s) with the `reciprocal` scale op: step 1 of
/// qcast for every storage.
template <typename C> C scaleValue(C x, C scale, const QuantKnobs &knobs) {
  if (knobs.scaleOp == ScaleOp::Divide)
    return x / scale;
  C reciprocal = C(1) / scale;
  return x * reciprocal;
}

/// qcast of one value: expressed x (already widened to C), scale s (already
/// rounded to the expressed type), zero point z, bounds [min, max].
template <typename C>
int64_t quantizeValue(C x, C scale, int64_t zeroPoint, const QuantKnobs &knobs,
                      int64_t min, int64_t max) {
  C scaled = scaleValue(x, scale, knobs);
  if (std::isnan(scaled))
    return clampInteger(zeroPoint, min, max);

  if (knobs.zeroPoint == ZeroPointOrder::BeforeRounding) {
    C shifted = scaled + static_cast<C>(zeroPoint);
    return saturate(roundToIntegral(shifted, knobs.rounding), min, max);
  }

  // After rounding: round(u) + z is the exact mathematical sum. Limiting
  // round(u) to ±2^64 first changes no result (|z| < 2^63 and the bounds
  // are within ±2^32) and makes the sum exact in 128-bit integers.
  __extension__ typedef __int128 Int128;
  constexpr C kLimit = C(18446744073709551616.0); // 2^64, exact in C
  C rounded = roundToIntegral(scaled, knobs.rounding);
  rounded = std::fmin(std::fmax(rounded, -kLimit), kLimit);
  Int128 sum = static_cast<Int128>(rounded) + zeroPoint;
  if (sum < min)
    return min;
  if (sum > max)
    return max;
  return static_cast<int64_t>(sum);
}

/// dcast of one value: (C(q) - C(z)) * s, each step rounded in C.
template <typename C>
C dequantizeValue(int64_t stored, C scale, int64_t zeroPoint) {
  C difference = static_cast<C>(stored) - static_cast<C>(zeroPoint);
  return difference * scale;
}

} // namespace qjit::reference

#endif // QJIT_RUNTIME_SCALARARITHMETIC_H
