//===- HostFloat.cpp - Exact host float format conversions ----------------===//
//
// binary16 goes through the compiler's _Float16 (GCC lowers its conversions
// to libgcc's correctly rounded soft-float routines unless the target has
// native instructions, which round identically). bfloat16 is bit
// manipulation: bf16 is the upper half of an f32.
//
//===----------------------------------------------------------------------===//
#include "qjit/internal/HostFloat.h"

#include <bit>
#include <cmath>
#include <cstring>
#include <limits>

namespace qjit {

namespace {
constexpr uint32_t kBfloat16QuietBit = 0x0040;

uint16_t halfBits(_Float16 value) { return std::bit_cast<uint16_t>(value); }

/// `value` rounded to f32 with round-to-odd: truncate, then force the last
/// bit to 1 when inexact. Rounding that result to a format with at least two
/// fewer significand bits (bf16 has 8, f32 24) equals rounding `value` once.
float roundToOddFloat(double value) {
  float nearest = static_cast<float>(value);
  if (std::isnan(value) || static_cast<double>(nearest) == value ||
      std::isinf(nearest))
    return nearest;
  if ((std::bit_cast<uint32_t>(nearest) & 1) != 0)
    return nearest;
  // `value` lies strictly between `nearest` (even) and its odd neighbour
  // on the other side.
  float towards = value > static_cast<double>(nearest)
                      ? std::numeric_limits<float>::infinity()
                      : -std::numeric_limits<float>::infinity();
  return std::nextafter(nearest, towards);
}
} // namespace

float halfBitsToFloat(uint16_t bits) {
  return static_cast<float>(std::bit_cast<_Float16>(bits));
}

float bfloat16BitsToFloat(uint16_t bits) {
  return std::bit_cast<float>(static_cast<uint32_t>(bits) << 16);
}

float e8m0BitsToFloat(uint8_t bits) {
  if (bits == 0xFF)
    return std::numeric_limits<float>::quiet_NaN();
  return std::ldexp(1.0f, static_cast<int>(bits) - 127);
}

double decodeScale(ScaleFormat format, ValueType expressed, const void *scales,
                   size_t k) {
  const auto *bytes = static_cast<const unsigned char *>(scales);
  auto at = [&]<typename T>(T) {
    T value;
    std::memcpy(&value, bytes + k * sizeof(T), sizeof(T));
    return value;
  };
  if (format == ScaleFormat::Expressed) {
    switch (expressed) {
    case ValueType::F16:
      format = ScaleFormat::F16;
      break;
    case ValueType::BF16:
      format = ScaleFormat::BF16;
      break;
    case ValueType::F32:
      format = ScaleFormat::F32;
      break;
    case ValueType::F64:
      return at(double{});
    }
  }
  switch (format) {
  case ScaleFormat::Expressed: // Mapped above.
  case ScaleFormat::F32:
    return at(float{});
  case ScaleFormat::F16:
    return halfBitsToFloat(at(uint16_t{}));
  case ScaleFormat::BF16:
    return bfloat16BitsToFloat(at(uint16_t{}));
  case ScaleFormat::E8M0:
    return e8m0BitsToFloat(at(uint8_t{}));
  }
  return 0.0;
}

uint16_t floatToHalfBits(float value) {
  return halfBits(static_cast<_Float16>(value));
}

uint16_t floatToBfloat16Bits(float value) {
  uint32_t bits = std::bit_cast<uint32_t>(value);
  if (std::isnan(value))
    return static_cast<uint16_t>((bits >> 16) | kBfloat16QuietBit);
  // Adding 0x7FFF plus the lowest kept bit rounds to nearest, ties to even;
  // a carry out of the significand correctly bumps the exponent (to inf on
  // overflow).
  uint32_t lowestKeptBit = (bits >> 16) & 1;
  return static_cast<uint16_t>((bits + 0x7FFF + lowestKeptBit) >> 16);
}

uint16_t doubleToHalfBits(double value) {
  return halfBits(static_cast<_Float16>(value));
}

uint16_t doubleToBfloat16Bits(double value) {
  return floatToBfloat16Bits(roundToOddFloat(value));
}

double roundToValueType(double value, ValueType type) {
  switch (type) {
  case ValueType::F16:
    return halfBitsToFloat(doubleToHalfBits(value));
  case ValueType::BF16:
    return bfloat16BitsToFloat(doubleToBfloat16Bits(value));
  case ValueType::F32:
    return static_cast<float>(value);
  case ValueType::F64:
    return value;
  }
  return value;
}

} // namespace qjit
