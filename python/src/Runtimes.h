//===- Runtimes.h - One runtime per backend choice --------------*- C++ -*-===//
//
// The backend and ISA cap are options of a qjit::Runtime, so each distinct
// (backend, isa) pair qjit.compile is given gets one Runtime for the life
// of the process, and with it one kernel cache.
//
//===----------------------------------------------------------------------===//
#ifndef QJIT_PYTHON_RUNTIMES_H
#define QJIT_PYTHON_RUNTIMES_H

#include "qjit/Runtime.h"

#include <optional>

namespace qjit::python {

/// The runtime for these options, created on first use (the caller holds
/// the GIL, which serializes creation). Raises on options the runtime
/// rejects (an explicit backend this CPU lacks, a bad QJIT_MAX_ISA).
Runtime &runtimeFor(BackendKind backend, std::optional<IsaLevel> maxIsa);

} // namespace qjit::python

#endif
