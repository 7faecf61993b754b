//===- OutputCheck.h - Compare a row's output with the reference *- C++ -*-===//
#ifndef QJIT_BENCH_OUTPUTCHECK_H
#define QJIT_BENCH_OUTPUTCHECK_H

#include "qjit/KernelSpec.h"

#include <cstddef>
#include <string>

namespace qjit::bench {

struct CheckResult {
  size_t elements = 0;
  size_t mismatches = 0;
  /// The first mismatch, "element 17: 0x05, reference 0x06"; empty if none.
  std::string firstMismatch;

  double mismatchFraction() const {
    return elements ? static_cast<double>(mismatches) / elements : 0.0;
  }
  /// "exact" or "12 of 4096 differ (0.29%), first: ...".
  std::string summary() const;
};

/// Element-wise comparison of two outputs of `spec` over n elements: bit
/// for bit, except that any two NaNs are equal.
CheckResult compareOutputs(const KernelSpec &spec, const void *output,
                           const void *reference, size_t n);

} // namespace qjit::bench

#endif
