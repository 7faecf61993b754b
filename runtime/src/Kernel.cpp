//===- Kernel.cpp - The checked kernel handle -----------------------------===//
#include "KernelChecks.h"
#include "ParameterLayout.h"
#include "qjit/KernelCall.h"
#include "qjit/Runtime.h"
#include "qjit/internal/Reference.h"

#include <cstdint>
#include <string>

namespace qjit {

namespace {

Status checkBuffer(const void *buffer, size_t bytes, size_t needed,
                   const char *role, size_t n) {
  if (bytes < needed)
    return Status::error(ErrorCode::InvalidArgument,
                         std::string(role) + " buffer holds " +
                             std::to_string(bytes) + " bytes; " +
                             std::to_string(n) + " elements need " +
                             std::to_string(needed));
  if (needed != 0 && !buffer)
    return Status::error(ErrorCode::InvalidArgument,
                         std::string(role) + " buffer is null");
  return Status::ok();
}

bool overlaps(const void *a, size_t aBytes, const void *b, size_t bBytes) {
  auto aBegin = reinterpret_cast<uintptr_t>(a);
  auto bBegin = reinterpret_cast<uintptr_t>(b);
  return aBytes != 0 && bBytes != 0 && aBegin < bBegin + bBytes &&
         bBegin < aBegin + aBytes;
}

} // namespace

Status checkBuffers(const KernelSpec &spec, const void *src, size_t srcBytes,
                    const void *dst, size_t dstBytes, size_t n) {
  Expected<size_t> inBytes = bufferBytes(spec, kernelInputSide(spec.op), n);
  if (!inBytes)
    return inBytes.status();
  Expected<size_t> outBytes = bufferBytes(spec, kernelOutputSide(spec.op), n);
  if (!outBytes)
    return outBytes.status();
  if (Status s = checkBuffer(src, srcBytes, *inBytes, "source", n); !s)
    return s;
  if (Status s = checkBuffer(dst, dstBytes, *outBytes, "destination", n); !s)
    return s;
  if (overlaps(src, *inBytes, dst, *outBytes))
    return Status::error(ErrorCode::InvalidArgument,
                         "source and destination buffers overlap");
  return Status::ok();
}

Kernel::Kernel(KernelSpec spec, BackendKind backend, IsaLevel isa,
               const void *entry)
    : spec_(std::move(spec)), name_(spec_.kernelName()), backend_(backend),
      isa_(isa), entry_(entry) {
  if (parameterCounts().extents != 0)
    return;
  if (Expected<reference::ParameterLayout> layout =
          reference::resolveParameterLayout(spec_.layout, nullptr))
    period_ = layout->period;
  if (spec_.params.dynamic != DynamicScheme::None ||
      spec_.params.zeroPointsInStorage)
    return;
  // Without dynamic extents only runtime parameters are taken.
  plainParams_ = spec_.params.runtime ? PlainParams::Scales : PlainParams::None;
}

bool Kernel::isPlainCall(const void *src, size_t srcBytes, const void *dst,
                         size_t dstBytes, size_t n) const {
  if (period_ == 0 || n == 0 || n > kMaxCallElements || n % period_ != 0)
    return false;
  // bufferBytes without its Expected (n is within its bound).
  auto bytes = [&](BufferSide side) {
    return side == BufferSide::Expressed ? expressedBytes(spec_.expressed, n)
                                         : storageBytes(spec_.storage, n);
  };
  size_t inBytes = bytes(kernelInputSide(spec_.op));
  size_t outBytes = bytes(kernelOutputSide(spec_.op));
  return src && dst && srcBytes >= inBytes && dstBytes >= outBytes &&
         !overlaps(src, inBytes, dst, outBytes);
}

Kernel::~Kernel() = default;

KernelFn Kernel::function() const {
  if (spec_.takesParams())
    return nullptr;
  return reinterpret_cast<KernelFn>(const_cast<void *>(entry_));
}

ParamKernelFn Kernel::paramFunction() const {
  // A dynamic qcast's code has an ABI of its own (runDynamic calls it).
  if (!spec_.takesParams() || spec_.params.dynamic != DynamicScheme::None)
    return nullptr;
  return reinterpret_cast<ParamKernelFn>(const_cast<void *>(entry_));
}

ParameterCounts Kernel::parameterCounts() const {
  return qjit::parameterCounts(spec_);
}

std::vector<int64_t> Kernel::parameterShape() const {
  return qjit::parameterShape(spec_);
}

Status Kernel::run(const void *src, size_t srcBytes, void *dst, size_t dstBytes,
                   size_t n, const KernelParams *params,
                   const ParameterCounts *lengths) const {
  if (plainParams_ == PlainParams::None &&
      isPlainCall(src, srcBytes, dst, dstBytes, n))
    return invoke(src, dst, n, nullptr);
  if (plainParams_ == PlainParams::Scales && !lengths && params &&
      params->scales && isPlainCall(src, srcBytes, dst, dstBytes, n))
    return invoke(src, dst, n, params);
  if (Status s = checkKernelCall(spec_, n, params, lengths); !s)
    return s;
  if (Status s = checkBuffers(spec_, src, srcBytes, dst, dstBytes, n); !s)
    return s;
  // No elements, nothing to do: JIT code may read the parameters before
  // looking at n (runtime tables), and a call without elements need not
  // supply any.
  if (n == 0)
    return Status::ok();
  return invoke(src, dst, n, spec_.takesParams() ? params : nullptr);
}

Status Kernel::runDynamic(const void *src, size_t srcBytes, void *dst,
                          size_t dstBytes, size_t n,
                          const ParameterOutputs &outputs,
                          const KernelParams *params,
                          const ParameterCounts *lengths) const {
  // checkDynamicCall without extents: the scales are written, no lengths.
  if (spec_.params.dynamic != DynamicScheme::None && outputs.scales &&
      !lengths && isPlainCall(src, srcBytes, dst, dstBytes, n))
    return invokeDynamic(src, dst, n, params, outputs);
  if (Status s = checkDynamicCall(spec_, n, params, outputs, lengths); !s)
    return s;
  if (Status s = checkBuffers(spec_, src, srcBytes, dst, dstBytes, n); !s)
    return s;
  return invokeDynamic(src, dst, n, params, outputs);
}

Status Kernel::invokeDynamic(const void *, void *, size_t, const KernelParams *,
                             const ParameterOutputs &) const {
  return Status::error(ErrorCode::Unsupported,
                       "kernel " + name_ + " has no dynamic qcast code");
}

} // namespace qjit
