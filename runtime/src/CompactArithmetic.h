//===- CompactArithmetic.h - qcast and dcast of float / quantile storage --===//
//
// docs/semantics.md section 8 for a single element, in the compute type C
// (float or double), as ScalarArithmetic.h does for integer storage.
//
//===----------------------------------------------------------------------===//
#ifndef QJIT_RUNTIME_COMPACTARITHMETIC_H
#define QJIT_RUNTIME_COMPACTARITHMETIC_H

#include "ScalarArithmetic.h"

#include "qjit/KernelSpec.h"
#include "qjit/internal/FloatStorage.h"
#include "qjit/internal/QuantileSearch.h"

#include <cmath>
#include <cstdint>
#include <vector>

namespace qjit::reference {

/// u = x / s or x · (1 / s) (the scale-op knob), then v = u + z in C; a
/// zero point of 0 is not added, so u = −0 stays −0 (section 8.2 step 2).
template <typename C>
C shiftedScaled(C x, C scale, int64_t zeroPoint, const QuantKnobs &knobs) {
  C u = scaleValue(x, scale, knobs);
  return zeroPoint == 0 ? u : u + static_cast<C>(zeroPoint);
}

/// What a float storage qcast needs besides the parameters.
struct FloatStorageTarget {
  FloatStorageFormat format;
  FloatStorageBounds bounds;
  bool saturate = true;
};

template <typename C>
uint32_t quantizeToFloat(C x, C scale, int64_t zeroPoint,
                         const QuantKnobs &knobs,
                         const FloatStorageTarget &target) {
  const FloatStorageFormat &format = target.format;
  C v = shiftedScaled(x, scale, zeroPoint, knobs);
  if (std::isnan(v)) {
    if (format.hasNaN)
      return format.positiveNaN;
    v = static_cast<C>(zeroPoint);
  }
  if (!target.saturate &&
      (std::isinf(v) ||
       std::fabs(roundToFloatStorage(format, double(v))) > format.largest)) {
    uint32_t sign = std::signbit(v) ? format.signBit() : 0;
    return sign |
           (format.hasInfinity ? format.positiveInfinity : format.positiveNaN);
  }
  double clamped = double(v);
  if (clamped < target.bounds.lo)
    clamped = target.bounds.lo;
  else if (clamped > target.bounds.hi)
    clamped = target.bounds.hi;
  return encodeFloatStorage(format, roundToFloatStorage(format, clamped));
}

template <typename C>
C dequantizeFloat(const FloatStorageFormat &format, uint32_t code, C scale,
                  int64_t zeroPoint) {
  C value = static_cast<C>(decodeFloatStorage(format, code));
  C difference = value - static_cast<C>(zeroPoint);
  return difference * scale;
}

/// The stored value (min + k) of the entry nearest v = u + z.
template <typename C>
int64_t quantizeToQuantile(C x, C scale, int64_t zeroPoint,
                           const QuantKnobs &knobs,
                           const QuantileSearch &search, int64_t min) {
  C v = shiftedScaled(x, scale, zeroPoint, knobs);
  if (std::isnan(v))
    v = static_cast<C>(zeroPoint);
  return min + search.tableIndex[search.positionOf(double(v))];
}

/// The table entry of a stored value; outside [min, max] the nearest
/// bound's entry.
template <typename C>
C dequantizeQuantile(const std::vector<double> &table, int64_t min,
                     int64_t stored, C scale, int64_t zeroPoint) {
  int64_t k = stored - min;
  int64_t last = static_cast<int64_t>(table.size()) - 1;
  k = k < 0 ? 0 : (k > last ? last : k);
  C difference =
      static_cast<C>(table[static_cast<size_t>(k)]) - static_cast<C>(zeroPoint);
  return difference * scale;
}

} // namespace qjit::reference

#endif // QJIT_RUNTIME_COMPACTARITHMETIC_H
