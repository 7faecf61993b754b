//===- HostFloat.h - Exact host float format conversions --------*- C++ -*-===//
//
// The one place qjit converts between its host value formats (f16, bf16,
// f32, f64). Widening is exact; narrowing rounds once, to nearest with ties
// to even, and turns a NaN into a quiet NaN of the same sign
// (docs/semantics.md, "Host buffer formats"). None of these functions read
// or change the floating-point environment.
//
//===----------------------------------------------------------------------===//
#ifndef QJIT_HOSTFLOAT_H
#define QJIT_HOSTFLOAT_H

#include "qjit/KernelSpec.h"

#include <cstdint>

namespace qjit {

/// Exact widening of IEEE binary16 / bfloat16 bit patterns.
float halfBitsToFloat(uint16_t bits);
float bfloat16BitsToFloat(uint16_t bits);

/// An OCP MX E8M0 scale byte (decodeScale, KernelSpec.h, reads arrays): 2^(bits
/// - 127) for 0..254 (0 is 2^-127, an f32 subnormal, exact), NaN for 0xFF.
float e8m0BitsToFloat(uint8_t bits);

/// Round-to-nearest-even narrowing to binary16 / bfloat16 bit patterns.
uint16_t floatToHalfBits(float value);
uint16_t floatToBfloat16Bits(float value);
/// As above but from double, rounding once (not through f32).
uint16_t doubleToHalfBits(double value);
uint16_t doubleToBfloat16Bits(double value);

/// `value` rounded once (nearest-even) to `type`, widened back exactly.
double roundToValueType(double value, ValueType type);

} // namespace qjit

#endif // QJIT_HOSTFLOAT_H
