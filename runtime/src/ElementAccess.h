//===- ElementAccess.h - Reading and writing host buffer elements -*- C++ -*-=//
//
// How the reference reads and writes one element of a host buffer, per
// docs/semantics.md "Host buffer formats". Element at a time, no tricks:
// these definitions are what the JIT kernels' vector loads must match.
//
//===----------------------------------------------------------------------===//
#ifndef QJIT_RUNTIME_ELEMENTACCESS_H
#define QJIT_RUNTIME_ELEMENTACCESS_H

#include "qjit/KernelSpec.h"

#include <cstddef>
#include <cstdint>

namespace qjit::reference {

/// Element i of an expressed-value buffer, widened exactly.
double loadExpressed(ValueType type, const void *buffer, size_t i);
/// Stores `value` into element i, rounding once to `type` (nearest-even).
void storeExpressed(ValueType type, void *buffer, size_t i, double value);

/// The stored value of element i: the low `bits` bits of its container or
/// packed field, sign-extended when the storage is signed. Any other
/// container bits are ignored.
int64_t loadStored(const StorageSpec &storage, const void *buffer, size_t i);
/// Writes the low `bits` bits of `value` into element i: a container gets
/// the value sign- or zero-extended to its full width; a packed field is
/// replaced without touching its neighbours.
void storeStored(const StorageSpec &storage, void *buffer, size_t i,
                 int64_t value);

} // namespace qjit::reference

#endif // QJIT_RUNTIME_ELEMENTACCESS_H
