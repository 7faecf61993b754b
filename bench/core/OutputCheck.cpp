//===- OutputCheck.cpp - Compare a row's output with the reference --------===//
#include "OutputCheck.h"

#include <cstdio>
#include <cstring>

namespace qjit::bench {

namespace {

/// Element e of a buffer whose elements are `bits` wide, as raw bits.
uint64_t elementBits(const void *buffer, size_t e, unsigned bits) {
  const auto *bytes = static_cast<const unsigned char *>(buffer);
  if (bits < 8) {
    size_t bit = e * bits;
    return (bytes[bit / 8] >> (bit % 8)) & ((1u << bits) - 1);
  }
  uint64_t value = 0;
  std::memcpy(&value, bytes + e * (bits / 8), bits / 8); // Little-endian.
  return value;
}

bool isNaN(ValueType type, uint64_t bits) {
  switch (type) {
  case ValueType::F16:
    return (bits & 0x7c00) == 0x7c00 && (bits & 0x03ff);
  case ValueType::BF16:
    return (bits & 0x7f80) == 0x7f80 && (bits & 0x007f);
  case ValueType::F32:
    return (bits & 0x7f800000) == 0x7f800000 && (bits & 0x007fffff);
  case ValueType::F64:
    return (bits & 0x7ff0000000000000ull) == 0x7ff0000000000000ull &&
           (bits & 0x000fffffffffffffull);
  }
  return false;
}

} // namespace

std::string CheckResult::summary() const {
  if (!mismatches)
    return "exact";
  char text[96];
  std::snprintf(text, sizeof text,
                "%zu of %zu differ (%.3g%%), first: ", mismatches, elements,
                100.0 * mismatchFraction());
  return text + firstMismatch;
}

CheckResult compareOutputs(const KernelSpec &spec, const void *output,
                           const void *reference, size_t n) {
  bool stored = spec.op != KernelOp::DCast;
  unsigned bits =
      stored ? (spec.storage.packed ? spec.storage.bits
                                    : 8 * spec.storage.containerBytes())
             : 8 * valueTypeBytes(spec.expressed);
  CheckResult result;
  result.elements = n;
  for (size_t e = 0; e < n; ++e) {
    uint64_t got = elementBits(output, e, bits);
    uint64_t want = elementBits(reference, e, bits);
    if (got == want ||
        (!stored && isNaN(spec.expressed, got) && isNaN(spec.expressed, want)))
      continue;
    if (!result.mismatches++) {
      char text[96];
      std::snprintf(text, sizeof text, "element %zu: 0x%llx, reference 0x%llx",
                    e, static_cast<unsigned long long>(got),
                    static_cast<unsigned long long>(want));
      result.firstMismatch = text;
    }
  }
  return result;
}

} // namespace qjit::bench
