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

std::vector<int64_t> parameterStrides(std::span<const PeriodDim> dims) {
  std::vector<int64_t> strides(dims.size());
  int64_t stride = 1;
  for (size_t d = dims.size(); d-- > 0;) {
    strides[d] = stride;
    stride *= dims[d].grid();
  }
  return strides;
}

int64_t periodParameterIndex(std::span<const PeriodDim> dims, int64_t i) {
  int64_t rest = i, index = 0, stride = 1;
  for (size_t d = dims.size(); d-- > 0;) {
    index += (rest % dims[d].extent / dims[d].block) * stride;
    rest /= dims[d].extent;
    stride *= dims[d].grid();
  }
  return index;
}

} // namespace qjit::plan
