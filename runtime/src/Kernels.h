//===- Kernels.h - The two kinds of Kernel ----------------------*- C++ -*-===//
#ifndef QJIT_RUNTIME_KERNELS_H
#define QJIT_RUNTIME_KERNELS_H

#include "SharedBackend.h"
#include "qjit/Runtime.h"

#include <memory>

namespace qjit {

/// A kernel running code a backend compiled; `backend` made `code` and
/// answers assembly() requests.
std::shared_ptr<const Kernel>
makeNativeKernel(KernelSpec spec, CompiledCode code,
                 std::shared_ptr<SharedBackend> backend);

/// A kernel running the scalar reference (no machine code).
std::shared_ptr<const Kernel> makeReferenceKernel(KernelSpec spec);

} // namespace qjit

#endif // QJIT_RUNTIME_KERNELS_H
