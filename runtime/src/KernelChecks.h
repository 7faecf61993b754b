//===- KernelChecks.h - Checks of a kernel call's buffers -------*- C++ -*-===//
#ifndef QJIT_RUNTIME_KERNELCHECKS_H
#define QJIT_RUNTIME_KERNELCHECKS_H

#include "qjit/Error.h"
#include "qjit/KernelSpec.h"

#include <cstddef>
#include <limits>

namespace qjit {

/// No host format is wider than 8 bytes per element, so byte counts of
/// fewer elements never overflow (bufferBytes refuses more).
constexpr size_t kMaxCallElements = std::numeric_limits<size_t>::max() / 8;

/// src and dst hold n elements of their sides and do not overlap.
Status checkBuffers(const KernelSpec &spec, const void *src, size_t srcBytes,
                    const void *dst, size_t dstBytes, size_t n);

} // namespace qjit

#endif // QJIT_RUNTIME_KERNELCHECKS_H
