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
#include <vector>

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

/// Entries of the three KernelParams arrays: how many a call reads
/// (parameterCounts), or how many a caller's arrays hold.
struct QJIT_API ParameterCounts {
  size_t extents = 0;
  size_t scales = 0;
  /// Read only when KernelParams::zeroPoints is non-null (null: all zero).
  size_t zeroPoints = 0;
  friend bool operator==(const ParameterCounts &,
                         const ParameterCounts &) = default;
};

/// What a call of `spec` reads from KernelParams: extents where the layout
/// has a dynamic extent (PerAxis: 1; Blocked: up to the last dynamic dim),
/// and with runtime parameters one scale and one zero point per parameter
/// (spec.layout.parameterCount(); baked parameters read none). For a
/// dynamic qcast the scales and zero points are what it writes
/// (ParameterOutputs). The counts never depend on the call's extents.
QJIT_API ParameterCounts parameterCounts(const KernelSpec &spec);

/// The grid of parameters, outermost first: {} per-tensor, {channels}
/// per-axis, extent / block per dim of a blocked layout (1 for a dynamic
/// whole-extent block). Its product is the parameter count; row-major order
/// over it is the order of the type's scales. The layout is the collapsed
/// one kernels are specialized on, so a type's scale tensor may differ by
/// dims of size 1 (tensor<4x3x8> with blocks {0:1, 2:4} has a 4x1x2 scale
/// tensor and the grid {4, 2}).
QJIT_API std::vector<int64_t> parameterShape(const KernelSpec &spec);

/// Where a dynamic qcast (spec.params.dynamic, docs/semantics.md 11) writes
/// the parameters it computes, in the formats runtime-parameter kernels
/// read (KernelParams): one scale per parameter in the spec's ScaleFormat
/// (by default the expressed type's host format), one zero point per
/// parameter (null: not written).
struct QJIT_API ParameterOutputs {
  void *scales = nullptr;
  int64_t *zeroPoints = nullptr;
};

/// As checkKernelCall, for a dynamic qcast: n fits the layout, `params`
/// holds the dynamic extents the layout needs (null when it needs none),
/// outputs.scales is non-null (every call writes every parameter, even
/// with n == 0), and with `lengths` the arrays hold parameterCounts(spec).
QJIT_API Status checkDynamicCall(const KernelSpec &spec, size_t n,
                                 const KernelParams *params,
                                 const ParameterOutputs &outputs,
                                 const ParameterCounts *lengths = nullptr);

/// Checks everything about a call with n elements except the buffers
/// themselves: n fits the layout (whole channel groups / blocks), and
/// `params` supplies what spec.takesParams() says the kernel reads (dynamic
/// extents, runtime scales). `params` is ignored when the spec takes none.
/// With `lengths` (the entries the arrays `params` points to hold), each
/// array the call reads must hold at least parameterCounts(spec); longer
/// arrays are fine. Without it the arrays are trusted to be long enough.
/// A dynamic qcast is an error here (it needs checkDynamicCall).
QJIT_API Status checkKernelCall(const KernelSpec &spec, size_t n,
                                const KernelParams *params,
                                const ParameterCounts *lengths = nullptr);

} // namespace qjit

#endif // QJIT_KERNELCALL_H
