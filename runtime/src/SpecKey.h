//===- SpecKey.h - A KernelSpec as a hash-map key ---------------*- C++ -*-===//
//
// Cache lookups must not print the spec: canonicalString() formats every
// baked scale, which costs microseconds for per-axis types. A SpecKey hashes
// the fields' bits directly, once, and compares specs structurally, with
// floating-point values compared bit for bit (so 0.0 and -0.0 stay distinct,
// as in the canonical string).
//
//===----------------------------------------------------------------------===//
#ifndef QJIT_RUNTIME_SPECKEY_H
#define QJIT_RUNTIME_SPECKEY_H

#include "qjit/KernelSpec.h"

#include <cstddef>

namespace qjit {

/// A hash of every field of `spec` the code depends on: all that
/// operator== compares but the shape, which is informational (the layout
/// holds what kernels read), so specs differing only in shape share one
/// kernel.
size_t structuralHash(const KernelSpec &spec);

/// operator== without the shape, floating-point values compared by bit
/// pattern. A spec holding a NaN is equal to itself exactly when it has the
/// same bits.
bool sameSpec(const KernelSpec &a, const KernelSpec &b);

/// A non-owning key: the spec must outlive the key's use.
struct SpecKey {
  const KernelSpec *spec = nullptr;
  size_t hash = 0;

  explicit SpecKey(const KernelSpec &spec)
      : spec(&spec), hash(structuralHash(spec)) {}
  SpecKey(const KernelSpec &spec, size_t hash) : spec(&spec), hash(hash) {}

  friend bool operator==(const SpecKey &a, const SpecKey &b) {
    return a.hash == b.hash && (a.spec == b.spec || sameSpec(*a.spec, *b.spec));
  }
};

struct SpecKeyHash {
  size_t operator()(const SpecKey &key) const noexcept { return key.hash; }
};

} // namespace qjit

#endif // QJIT_RUNTIME_SPECKEY_H
