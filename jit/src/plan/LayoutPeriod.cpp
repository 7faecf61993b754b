//===- LayoutPeriod.cpp - A layout's period as blocked dims ---------------===//
#include "LayoutPeriod.h"

#include <algorithm>

namespace qjit::plan {

std::vector<PeriodDim> periodDims(const LayoutSpec &layout) {
  switch (layout.kind) {
  case LayoutSpec::Kind::PerTensor:
    return {};
  case LayoutSpec::Kind::PerAxis:
    return {{layout.channels, 1, 0}, {layout.inner, layout.inner, 0}};
  case LayoutSpec::Kind::Blocked:
    break;
  }
  std::vector<PeriodDim> dims;
  for (size_t d = 0; d < layout.dims.size(); ++d) {
    const LayoutSpec::Dim &dim = layout.dims[d];
    bool dynamic = dim.extent == LayoutSpec::kDynamic;
    dims.push_back({dim.extent, dynamic ? LayoutSpec::kDynamic : dim.block,
                    d == 0 ? 0u : static_cast<unsigned>(d - 1)});
  }
  return dims;
}

bool staticPeriod(std::span<const PeriodDim> dims) {
  return std::none_of(dims.begin(), dims.end(),
                      [](const PeriodDim &dim) { return dim.dynamic(); });
}

int64_t consecutiveGroupRun(std::span<const PeriodDim> dims) {
  if (dims.empty() || !staticPeriod(dims))
    return 0;
  bool rowsApart =
      std::all_of(dims.begin(), dims.end() - 1,
                  [](const PeriodDim &dim) { return dim.block == 1; });
  return rowsApart ? dims.back().block : 0;
}

int64_t dynamicGroupRun(const LayoutSpec &layout) {
  if (layout.kind == LayoutSpec::Kind::PerAxis &&
      layout.inner == LayoutSpec::kDynamic)
    return LayoutSpec::kDynamic;
  return consecutiveGroupRun(periodDims(layout));
}

std::vector<int64_t> parameterStrides(std::span<const PeriodDim> dims) {
  std::vector<int64_t> strides(dims.size());
  int64_t stride = 1;
  for (size_t d = dims.size(); d-- > 0;) {
    strides[d] = stride;
    stride *= dims[d].grid();
  }
  return strides;
}

std::vector<int64_t> periodParameterIndices(std::span<const PeriodDim> dims) {
  std::vector<int64_t> strides = parameterStrides(dims);
  int64_t period = 1;
  for (const PeriodDim &dim : dims)
    period *= dim.extent;
  std::vector<int64_t> coordinate(dims.size(), 0), indices;
  indices.reserve(static_cast<size_t>(period));
  for (int64_t i = 0; i < period; ++i) {
    int64_t index = 0;
    for (size_t d = 0; d < dims.size(); ++d)
      index += coordinate[d] / dims[d].block * strides[d];
    indices.push_back(index);
    for (size_t d = dims.size(); d-- > 0;) {
      if (++coordinate[d] < dims[d].extent)
        break;
      coordinate[d] = 0;
    }
  }
  return indices;
}

} // namespace qjit::plan
