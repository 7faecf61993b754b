//===- FloatStorage.h - fp8 / fp4 storage codes -----------------*- C++ -*-===//
//
// The float storage formats of docs/semantics.md section 8 (f8E4M3FN,
// f8E5M2, f4E2M1FN): their parameters, the value of each code, and the
// round-to-nearest-even encoding the reference uses. Plain integer and
// double arithmetic, no floating-point environment.
//
//===----------------------------------------------------------------------===//
#ifndef QJIT_FLOATSTORAGE_H
#define QJIT_FLOATSTORAGE_H

#include "qjit/KernelSpec.h"

#include <cstdint>

namespace qjit {

struct FloatStorageFormat {
  unsigned bits = 8;             ///< Code width (sign included).
  unsigned mantissaBits = 3;     ///< Fraction bits.
  int bias = 7;                  ///< Exponent bias.
  bool hasInfinity = false;      ///< f8E5M2: exponent all ones, fraction 0.
  bool hasNaN = true;            ///< f8E4M3FN: 0x7F / 0xFF only.
  double largest = 448;          ///< Largest finite value.
  uint32_t positiveNaN = 0x7F;   ///< The NaN code qcast stores.
  uint32_t positiveInfinity = 0; ///< hasInfinity only.
  int minNormalExponent() const { return 1 - bias; }
  uint32_t signBit() const { return uint32_t(1) << (bits - 1); }
};

/// The parameters of f8E4M3FN, f8E5M2 or f4E2M1FN (others: f8E4M3FN's).
FloatStorageFormat floatStorageFormat(FloatType format);

/// The value of a code (its low `bits` bits), exact; NaN codes give NaN.
double decodeFloatStorage(const FloatStorageFormat &format, uint32_t code);

/// `v` (finite) rounded to nearest, ties to even, to the format's grid with
/// an unbounded exponent range: beyond `largest` it keeps rounding.
double roundToFloatStorage(const FloatStorageFormat &format, double v);

/// The code of `v`, a finite value of the format (sign of zero kept).
uint32_t encodeFloatStorage(const FloatStorageFormat &format, double v);

/// The storage's integer bounds as format values: lo = the smallest format
/// value >= min, hi = the largest <= max.
struct FloatStorageBounds {
  double lo = -448;
  double hi = 448;
};
FloatStorageBounds floatStorageBounds(const StorageSpec &storage);

} // namespace qjit

#endif // QJIT_FLOATSTORAGE_H
