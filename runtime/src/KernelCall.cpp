//===- KernelCall.cpp - Buffer sizes and call checks ----------------------===//
#include "qjit/KernelCall.h"

#include "KernelChecks.h"
#include "ParameterLayout.h"
#include "qjit/internal/Reference.h"

#include <string>

namespace qjit {

namespace {

Status badCall(std::string message) {
  return Status::error(ErrorCode::InvalidArgument, std::move(message));
}

/// An array of `given` `what`s where the call reads `needed`.
Status checkLength(const KernelSpec &spec, const char *what, size_t needed,
                   size_t given) {
  if (given >= needed)
    return Status::ok();
  return badCall("kernel " + spec.kernelName() + " reads " +
                 std::to_string(needed) + " " + what +
                 (needed == 1 ? "" : "s") + ", given " + std::to_string(given));
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
  if (n > kMaxCallElements)
    return badCall(std::to_string(n) + " elements do not fit in memory");
  return side == BufferSide::Expressed ? expressedBytes(spec.expressed, n)
                                       : storageBytes(spec.storage, n);
}

ParameterCounts parameterCounts(const KernelSpec &spec) {
  ParameterCounts counts;
  const LayoutSpec &layout = spec.layout;
  if (layout.kind == LayoutSpec::Kind::PerAxis &&
      layout.inner == LayoutSpec::kDynamic)
    counts.extents = 1;
  // dims[d] reads extents[d - 1] (dims[0] is static).
  for (size_t d = 1; d < layout.dims.size(); ++d)
    if (layout.dims[d].extent == LayoutSpec::kDynamic)
      counts.extents = d;
  if (spec.params.runtime) {
    counts.scales = static_cast<size_t>(layout.parameterCount());
    counts.zeroPoints = counts.scales;
  }
  return counts;
}

std::vector<int64_t> parameterShape(const KernelSpec &spec) {
  const LayoutSpec &layout = spec.layout;
  switch (layout.kind) {
  case LayoutSpec::Kind::PerTensor:
    return {};
  case LayoutSpec::Kind::PerAxis:
    return {layout.channels};
  case LayoutSpec::Kind::Blocked:
    break;
  }
  std::vector<int64_t> grid;
  for (const LayoutSpec::Dim &dim : layout.dims)
    grid.push_back(dim.block == LayoutSpec::kDynamic ? 1
                                                     : dim.extent / dim.block);
  return grid;
}

namespace {

/// The reference's layout resolution checks the extents and gives the
/// period n must be a multiple of.
Status checkPeriods(const KernelSpec &spec, size_t n,
                    const KernelParams *params) {
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

/// A spec promising zero points within the storage range (its f32 kernels
/// add them after rounding) takes no others.
Status checkZeroPointsInStorage(const KernelSpec &spec,
                                const KernelParams *params) {
  if (!spec.params.zeroPointsInStorage || !params->zeroPoints)
    return Status::ok();
  size_t count = parameterCounts(spec).zeroPoints;
  for (size_t k = 0; k < count; ++k) {
    int64_t z = params->zeroPoints[k];
    if (z < spec.storage.min || z > spec.storage.max)
      return badCall("kernel " + spec.kernelName() + " takes zero points in [" +
                     std::to_string(spec.storage.min) + ", " +
                     std::to_string(spec.storage.max) + "]; zero point " +
                     std::to_string(k) + " is " + std::to_string(z));
  }
  return Status::ok();
}

} // namespace

Status checkKernelCall(const KernelSpec &spec, size_t n,
                       const KernelParams *params,
                       const ParameterCounts *lengths) {
  if (spec.params.dynamic != DynamicScheme::None)
    return badCall("kernel " + spec.kernelName() +
                   " is a dynamic qcast, which writes its parameters: call "
                   "it with Kernel::runDynamic (qjit_kernel_run_dynamic)");
  if (!spec.takesParams())
    params = nullptr; // Nothing may be read from them.
  else if (!params)
    return badCall("kernel " + spec.kernelName() + " needs KernelParams");
  if (spec.params.runtime && n != 0 && !params->scales)
    return badCall("kernel " + spec.kernelName() +
                   " takes runtime parameters but KernelParams::scales is "
                   "null");
  if (params && lengths) {
    ParameterCounts needed = parameterCounts(spec);
    // Extents are read whatever n is (the layout is resolved first); the
    // parameters only when there are elements.
    if (Status s =
            checkLength(spec, "extent", needed.extents, lengths->extents);
        !s)
      return s;
    if (n != 0) {
      if (Status s = checkLength(spec, "scale", needed.scales, lengths->scales);
          !s)
        return s;
      if (params->zeroPoints)
        if (Status s = checkLength(spec, "zero point", needed.zeroPoints,
                                   lengths->zeroPoints);
            !s)
          return s;
    }
  }
  if (Status s = checkPeriods(spec, n, params); !s)
    return s;
  return n == 0 ? Status::ok() : checkZeroPointsInStorage(spec, params);
}

Status checkDynamicCall(const KernelSpec &spec, size_t n,
                        const KernelParams *params,
                        const ParameterOutputs &outputs,
                        const ParameterCounts *lengths) {
  if (spec.params.dynamic == DynamicScheme::None)
    return badCall("kernel " + spec.kernelName() +
                   " is not a dynamic qcast: call it with Kernel::run");
  ParameterCounts needed = parameterCounts(spec);
  if (needed.extents != 0 && (!params || !params->extents))
    return badCall("kernel " + spec.kernelName() +
                   " has dynamic extents but KernelParams::extents is null");
  if (!outputs.scales)
    return badCall("kernel " + spec.kernelName() +
                   " writes its scales but ParameterOutputs::scales is null");
  if (lengths) {
    if (Status s =
            checkLength(spec, "extent", needed.extents, lengths->extents);
        !s)
      return s;
    if (Status s = checkLength(spec, "scale", needed.scales, lengths->scales);
        !s)
      return s;
    if (outputs.zeroPoints)
      if (Status s = checkLength(spec, "zero point", needed.zeroPoints,
                                 lengths->zeroPoints);
          !s)
        return s;
  }
  return checkPeriods(spec, n, needed.extents != 0 ? params : nullptr);
}

} // namespace qjit
