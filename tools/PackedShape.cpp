//===- PackedShape.cpp - The shape of packed storage in files -------------===//
#include "PackedShape.h"

namespace qjit::tool {

std::vector<int64_t> packedFileShape(std::span<const int64_t> elementShape,
                                     unsigned bits, size_t bytes) {
  if (elementShape.size() >= 2 && (elementShape.back() * bits) % 8 == 0) {
    std::vector<int64_t> shape(elementShape.begin(), elementShape.end());
    shape.back() = shape.back() * bits / 8;
    return shape;
  }
  return {static_cast<int64_t>(bytes)};
}

std::optional<std::vector<int64_t>>
unpackedFileShape(std::span<const int64_t> byteShape, unsigned bits) {
  if (byteShape.size() < 2)
    return std::nullopt;
  std::vector<int64_t> shape(byteShape.begin(), byteShape.end());
  shape.back() *= 8 / bits;
  return shape;
}

} // namespace qjit::tool
