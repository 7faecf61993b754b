//===- ExpressedValues.h - Reading expressed values back in tests -*- C++ -*-=//
//
// Shared by the kernel tester and the JIT fuzzer: dcast results compare
// bit for bit except where both sides hold a NaN, whose sign and payload
// docs/semantics.md (5.3, 8.3) leaves unspecified.
//
//===----------------------------------------------------------------------===//
#ifndef QJIT_TESTS_EXPRESSEDVALUES_H
#define QJIT_TESTS_EXPRESSEDVALUES_H

#include "qjit/KernelSpec.h"
#include "qjit/internal/HostFloat.h"

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace qjit::testing {

/// Element i of a buffer of expressed values, widened exactly to double.
inline double loadExpressedBits(ValueType type, const uint8_t *buffer,
                                size_t i) {
  uint16_t half;
  float f;
  double d;
  switch (type) {
  case ValueType::F16:
    std::memcpy(&half, buffer + 2 * i, 2);
    return halfBitsToFloat(half);
  case ValueType::BF16:
    std::memcpy(&half, buffer + 2 * i, 2);
    return bfloat16BitsToFloat(half);
  case ValueType::F32:
    std::memcpy(&f, buffer + 4 * i, 4);
    return f;
  case ValueType::F64:
    std::memcpy(&d, buffer + 8 * i, 8);
    return d;
  }
  return 0;
}

/// Where both buffers hold a NaN, makes `actual`'s bytes `expected`'s.
inline void equateNaNs(ValueType type, const uint8_t *expected, uint8_t *actual,
                       size_t n) {
  unsigned bytes = valueTypeBytes(type);
  for (size_t i = 0; i < n; ++i)
    if (std::isnan(loadExpressedBits(type, expected, i)) &&
        std::isnan(loadExpressedBits(type, actual, i)))
      std::memcpy(actual + i * bytes, expected + i * bytes, bytes);
}

} // namespace qjit::testing

#endif // QJIT_TESTS_EXPRESSEDVALUES_H
