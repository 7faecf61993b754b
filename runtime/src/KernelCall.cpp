//===- KernelCall.cpp - Buffer sizes and call checks ----------------------===//
#include "qjit/KernelCall.h"

#include "ParameterLayout.h"
#include "qjit/internal/Reference.h"

#include <limits>
#include <string>

namespace qjit {

namespace {

// No host format is wider than 8 bytes per element, so byte counts of n
// elements below this bound never overflow.
constexpr size_t kMaxElements = std::numeric_limits<size_t>::max() / 8;

Status badCall(std::string message) {
  return Status::error(ErrorCode::InvalidArgument, std::move(message));
}

} // namespace

BufferSide kernelInputSide(KernelOp op) {
  return op == KernelOp::QCast ? BufferSide::Expressed : BufferSide::Storage;
}

BufferSide kernelOutputSide(KernelOp op) {
  return op == KernelOp::DCast ? BufferSide::Expressed : BufferSide::Storage;
}

Expected<size_t> bufferBytes(const KernelSpec &spec, BufferSide side,
                             size_t n) {
  if (n > kMaxElements)
    return badCall(std::to_string(n) + " elements do not fit in memory");
  return side == BufferSide::Expressed ? expressedBytes(spec.expressed, n)
                                       : storageBytes(spec.storage, n);
}

Status checkKernelCall(const KernelSpec &spec, size_t n,
                       const KernelParams *params) {
  if (!spec.takesParams())
    params = nullptr; // Nothing may be read from them.
  else if (!params)
    return badCall("kernel " + spec.kernelName() + " needs KernelParams");
  if (spec.params.runtime && n != 0 && !params->scales)
    return badCall("kernel " + spec.kernelName() +
                   " takes runtime parameters but KernelParams::scales is "
                   "null");
  // The reference's layout resolution checks the extents and gives the
  // period n must be a multiple of.
  Expected<reference::ParameterLayout> layout =
      reference::resolveParameterLayout(spec.layout,
                                        params ? params->extents : nullptr);
  if (!layout)
    return layout.status();
  if (n % layout->period != 0)
    return badCall(std::to_string(n) +
                   " elements is not a whole number of layout periods (" +
                   std::to_string(layout->period) + " elements each)");
  return Status::ok();
}

} // namespace qjit
