//===- ParameterLayout.cpp - Which parameter each element uses ------------===//
#include "ParameterLayout.h"

#include <string>

namespace qjit::reference {

namespace {

Status badExtents(std::string message) {
  return Status::error(ErrorCode::InvalidArgument, std::move(message));
}

/// A static extent, or KernelParams::extents[index] for a dynamic one.
Expected<uint64_t> extentOf(int64_t extent, const int64_t *extents,
                            size_t index) {
  if (extent != LayoutSpec::kDynamic)
    return static_cast<uint64_t>(extent);
  if (!extents)
    return badExtents("the kernel has a dynamic extent but "
                      "KernelParams::extents is null");
  if (extents[index] < 1)
    return badExtents("KernelParams::extents[" + std::to_string(index) +
                      "] must be positive, got " +
                      std::to_string(extents[index]));
  return static_cast<uint64_t>(extents[index]);
}

} // namespace

Expected<ParameterLayout> resolveParameterLayout(const LayoutSpec &layout,
                                                 const int64_t *extents) {
  ParameterLayout resolved;
  switch (layout.kind) {
  case LayoutSpec::Kind::PerTensor:
    break;
  case LayoutSpec::Kind::PerAxis: {
    Expected<uint64_t> inner = extentOf(layout.inner, extents, 0);
    if (!inner)
      return inner.status();
    uint64_t channels = static_cast<uint64_t>(layout.channels);
    resolved.dims = {{channels, 1}, {*inner, *inner}};
    break;
  }
  case LayoutSpec::Kind::Blocked:
    for (size_t d = 0; d < layout.dims.size(); ++d) {
      const LayoutSpec::Dim &dim = layout.dims[d];
      // dims[0] is static (verifyKernelSpec), so dims[d] reads extents[d-1].
      Expected<uint64_t> extent =
          extentOf(dim.extent, extents, d == 0 ? 0 : d - 1);
      if (!extent)
        return extent.status();
      uint64_t block = dim.block == LayoutSpec::kDynamic
                           ? *extent
                           : static_cast<uint64_t>(dim.block);
      resolved.dims.push_back({*extent, block});
    }
    break;
  }
  for (const ParameterLayout::Dim &dim : resolved.dims)
    if (__builtin_mul_overflow(resolved.period, dim.extent, &resolved.period))
      return badExtents("the layout's period overflows");
  return resolved;
}

uint64_t parameterIndex(const ParameterLayout &layout, uint64_t i) {
  uint64_t rest = i % layout.period;
  uint64_t index = 0;
  uint64_t stride = 1;
  for (size_t d = layout.dims.size(); d-- > 0;) {
    const ParameterLayout::Dim &dim = layout.dims[d];
    uint64_t position = rest % dim.extent; // This dim's multi-index entry.
    rest /= dim.extent;
    index += (position / dim.block) * stride;
    stride *= dim.extent / dim.block;
  }
  return index;
}

} // namespace qjit::reference
