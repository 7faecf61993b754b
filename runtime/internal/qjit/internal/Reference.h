//===- Reference.h - The scalar reference implementation --------*- C++ -*-===//
//
// The ground truth: a plain, readable, element-at-a-time implementation of
// docs/semantics.md for any KernelSpec. Every JIT kernel must match it bit
// for bit; the runtime falls back to it when no JIT is available.
//
//===----------------------------------------------------------------------===//
#ifndef QJIT_REFERENCE_H
#define QJIT_REFERENCE_H

#include "qjit/Error.h"
#include "qjit/KernelCall.h"
#include "qjit/KernelSpec.h"

#include <cstddef>

namespace qjit {

/// Runs `spec` on n elements, like a kernel with the same spec would.
/// `params` is required exactly when spec.takesParams(). Fails (without
/// touching dst) when n does not fit the layout or params are missing.
Status runReference(const KernelSpec &spec, const void *src, void *dst,
                    size_t n, const KernelParams *params = nullptr);

/// The elements [start, start + count) of a call of n elements, each with
/// the parameter of its absolute position: src and dst are the whole
/// call's buffers, and only the range's elements are read and written (a
/// packed byte shared with earlier elements keeps their fields).
Status runReferenceRange(const KernelSpec &spec, const void *src, void *dst,
                         size_t n, size_t start, size_t count,
                         const KernelParams *params = nullptr);

/// Runs a dynamic qcast (spec.params.dynamic, docs/semantics.md 11): writes
/// the codes to dst and every group's parameters to `outputs`. `params`
/// supplies the dynamic extents the layout needs (may be null otherwise).
/// Fails (writing nothing) when checkDynamicCall does.
Status runReferenceDynamic(const KernelSpec &spec, const void *src, void *dst,
                           size_t n, const KernelParams *params,
                           const ParameterOutputs &outputs);

/// Bytes a buffer of n elements occupies on the given side of the spec.
size_t storageBytes(const StorageSpec &storage, size_t n);
size_t expressedBytes(ValueType type, size_t n);

} // namespace qjit

#endif // QJIT_REFERENCE_H
