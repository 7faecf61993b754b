//===- PackedShape.h - The shape of packed storage in files -----*- C++ -*-===//
//
// Packed 1/2/4-bit storage is a byte stream (first element in the lowest
// bits, docs/semantics.md), so a file of it has a byte shape. `qjit run`
// keeps the logical shape in the last axis: values of shape (..., n) are
// bytes of shape (..., n·bits/8) when n·bits is a whole number of bytes, and
// unpack back to (..., n). Otherwise (n·bits not a multiple of 8, so rows
// share a byte) the file is the 1-D byte stream, whose last byte may be
// partly padding: reading it back takes the element count from the type's
// shape or --shape, else every slot of every byte is an element.
//
//===----------------------------------------------------------------------===//
#ifndef QJIT_TOOLS_PACKEDSHAPE_H
#define QJIT_TOOLS_PACKEDSHAPE_H

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

namespace qjit::tool {

/// The byte shape of `elementShape` packed at `bits` per value, which take
/// `bytes` bytes.
std::vector<int64_t> packedFileShape(std::span<const int64_t> elementShape,
                                     unsigned bits, size_t bytes);

/// The element shape of packed bytes shaped `byteShape`: the last axis
/// unpacked, for rank 2 and up; nullopt for 1-D bytes (their count is the
/// type's or --shape's).
std::optional<std::vector<int64_t>>
unpackedFileShape(std::span<const int64_t> byteShape, unsigned bits);

} // namespace qjit::tool

#endif
