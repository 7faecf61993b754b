//===- qjit/KernelCall.h - What one kernel call needs -----------*- C++ -*-===//
//
// The buffer sizes and argument rules every kernel call must satisfy,
// whatever runs it (JIT code or the scalar reference). Kernel::run checks
// them before calling code that cannot check anything itself; tools use the
// sizes to validate files before running.
//
//===----------------------------------------------------------------------===//
#ifndef QJIT_KERNELCALL_H
#define QJIT_KERNELCALL_H

#include "qjit/Error.h"
#include "qjit/Export.h"
#include "qjit/KernelSpec.h"

#include <cstddef>
#include <cstdint>

namespace qjit {

/// Which side of the quantized type a kernel buffer holds.
enum class BufferSide : uint8_t {
  Expressed, ///< Expressed values in spec.expressed's host format.
  Storage,   ///< Stored values per spec.storage (containers or packed).
};

/// qcast reads expressed values; dcast and scast read storage.
QJIT_API BufferSide kernelInputSide(KernelOp op);
/// qcast and scast write storage; dcast writes expressed values.
QJIT_API BufferSide kernelOutputSide(KernelOp op);

/// Bytes n elements occupy on `side` of `spec`; an error when that does not
/// fit in size_t.
QJIT_API Expected<size_t> bufferBytes(const KernelSpec &spec, BufferSide side,
                                      size_t n);

/// Checks everything about a call with n elements except the buffers
/// themselves: n fits the layout (whole channel groups / blocks), and
/// `params` supplies what spec.takesParams() says the kernel reads (dynamic
/// extents, runtime scales). `params` is ignored when the spec takes none.
QJIT_API Status checkKernelCall(const KernelSpec &spec, size_t n,
                                const KernelParams *params);

} // namespace qjit

#endif // QJIT_KERNELCALL_H
