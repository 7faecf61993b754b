//===- FloatStorage.cpp - fp8 / fp4 storage codes -------------------------===//
#include "qjit/internal/FloatStorage.h"

#include <cmath>
#include <limits>

namespace qjit {

FloatStorageFormat floatStorageFormat(FloatType format) {
  FloatStorageFormat f;
  switch (format) {
  case FloatType::F8E5M2:
    f.mantissaBits = 2;
    f.bias = 15;
    f.hasInfinity = true;
    f.largest = 57344;
    f.positiveNaN = 0x7E;
    f.positiveInfinity = 0x7C;
    break;
  case FloatType::F4E2M1FN:
    f.bits = 4;
    f.mantissaBits = 1;
    f.bias = 1;
    f.hasNaN = false;
    f.largest = 6;
    f.positiveNaN = 0;
    break;
  default: // f8E4M3FN
    break;
  }
  return f;
}

double decodeFloatStorage(const FloatStorageFormat &format, uint32_t code) {
  code &= (uint32_t(1) << format.bits) - 1;
  bool negative = (code & format.signBit()) != 0;
  uint32_t magnitude = code & (format.signBit() - 1);
  uint32_t exponentField = magnitude >> format.mantissaBits;
  uint32_t fraction = magnitude & ((uint32_t(1) << format.mantissaBits) - 1);
  uint32_t exponentAllOnes =
      (uint32_t(1) << (format.bits - 1 - format.mantissaBits)) - 1;
  double value;
  if (format.hasInfinity && exponentField == exponentAllOnes)
    value = fraction == 0 ? std::numeric_limits<double>::infinity()
                          : std::numeric_limits<double>::quiet_NaN();
  else if (format.hasNaN && !format.hasInfinity &&
           magnitude == format.signBit() - 1)
    value = std::numeric_limits<double>::quiet_NaN();
  else if (exponentField == 0)
    value = std::ldexp(double(fraction),
                       format.minNormalExponent() - int(format.mantissaBits));
  else
    value =
        std::ldexp(double(fraction + (uint32_t(1) << format.mantissaBits)),
                   int(exponentField) - format.bias - int(format.mantissaBits));
  return negative ? -value : value;
}

namespace {

/// The spacing of the format's values around |v| (> 0).
int quantumExponent(const FloatStorageFormat &format, double magnitude) {
  int exponent = std::ilogb(magnitude);
  if (exponent < format.minNormalExponent())
    exponent = format.minNormalExponent();
  return exponent - int(format.mantissaBits);
}

/// Round-half-even of a non-negative double to an integer-valued double.
double roundHalfEven(double x) {
  double floor = std::floor(x);
  double fraction = x - floor; // Exact.
  if (fraction > 0.5)
    return floor + 1;
  if (fraction < 0.5)
    return floor;
  return std::fmod(floor, 2.0) == 0 ? floor : floor + 1;
}

} // namespace

double roundToFloatStorage(const FloatStorageFormat &format, double v) {
  if (v == 0)
    return v;
  double magnitude = std::fabs(v);
  int quantum = quantumExponent(format, magnitude);
  // Scaling by a power of two is exact for everything a compute type
  // holds; the count of quanta fits a double exactly.
  double rounded =
      std::ldexp(roundHalfEven(std::ldexp(magnitude, -quantum)), quantum);
  return std::copysign(rounded, v);
}

uint32_t encodeFloatStorage(const FloatStorageFormat &format, double v) {
  uint32_t sign = std::signbit(v) ? format.signBit() : 0;
  double magnitude = std::fabs(v);
  if (magnitude == 0)
    return sign;
  int exponent = std::ilogb(magnitude);
  if (exponent < format.minNormalExponent()) {
    int quantum = format.minNormalExponent() - int(format.mantissaBits);
    return sign | uint32_t(std::ldexp(magnitude, -quantum));
  }
  uint32_t fraction =
      uint32_t(std::ldexp(magnitude, int(format.mantissaBits) - exponent) -
               double(uint32_t(1) << format.mantissaBits));
  uint32_t exponentField = uint32_t(exponent + format.bias);
  return sign | (exponentField << format.mantissaBits) | fraction;
}

FloatStorageBounds floatStorageBounds(const StorageSpec &storage) {
  FloatStorageFormat format = floatStorageFormat(storage.floatFormat);
  // The nearest format value, then one step inward when it lies outside
  // (bounds are non-zero integers there, so the step stays in one sign).
  auto inward = [&](double bound, bool upper) {
    double rounded = roundToFloatStorage(format, bound);
    if (upper ? rounded <= bound : rounded >= bound)
      return rounded;
    uint32_t code = encodeFloatStorage(format, rounded);
    // Codes of one sign are monotonic in magnitude.
    bool towardZero = (rounded > 0) == upper;
    return decodeFloatStorage(format, towardZero ? code - 1 : code + 1);
  };
  return {inward(double(storage.min), false),
          inward(double(storage.max), true)};
}

} // namespace qjit
