//===- Normalize.cpp - MLIR's normalize-quant-types -----------------------===//
//
// A sub-channel type with one scale becomes per-tensor; one whose scale
// tensor has a single non-1 dimension d becomes per-axis along d. Unlike
// MLIR, the per-axis rewrite needs block size 1 along d: MLIR also rewrites
// larger blocks (tensor<2x8x...{1:2}, 4 scales> becomes 4 scales on an axis
// of size 8), which changes what the type means.
//
//===----------------------------------------------------------------------===//
#include "qjit/TypeParser.h"

#include <algorithm>

namespace qjit {

namespace {
bool hasUnitBlock(const QuantType &type, int64_t axis) {
  return std::any_of(type.blockSizes.begin(), type.blockSizes.end(),
                     [&](const BlockSize &block) {
                       return block.axis == axis && block.size == 1;
                     });
}
} // namespace

TypeDescriptor normalizeType(const TypeDescriptor &type) {
  const QuantType &element = type.element;
  // As MLIR's pass, which rewrites tensor types only.
  // A `?` scale list has no scale tensor to look at.
  if (!type.tensor || element.family != QuantType::Family::Uniform ||
      element.granularity != QuantType::Granularity::SubChannel ||
      element.parametersAtCallTime)
    return type;
  const std::vector<int64_t> &shape = element.scaleShape;
  auto nonUnit = [](int64_t dim) { return dim != 1; };
  TypeDescriptor normalized = type;
  QuantType &result = normalized.element;
  if (element.scales.size() == 1) {
    result.granularity = QuantType::Granularity::PerTensor;
  } else if (std::count_if(shape.begin(), shape.end(), nonUnit) == 1) {
    int64_t axis =
        std::find_if(shape.begin(), shape.end(), nonUnit) - shape.begin();
    if (!hasUnitBlock(element, axis))
      return type;
    result.granularity = QuantType::Granularity::PerAxis;
    result.axis = static_cast<int32_t>(axis);
  } else {
    return type;
  }
  result.blockSizes.clear();
  result.scaleShape.clear();
  return normalized;
}

} // namespace qjit
