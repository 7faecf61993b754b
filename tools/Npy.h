//===- Npy.h - numpy .npy files ---------------------------------*- C++ -*-===//
//
// Reads and writes the .npy format (numpy.lib.format) for the few dtypes
// qjit kernels consume: versions 1.0, 2.0 and 3.0 headers, little-endian
// data in C order. Anything else (Fortran order, big-endian, object or
// structured dtypes, other element types) is rejected with a message that
// says which.
//
//===----------------------------------------------------------------------===//
#ifndef QJIT_TOOLS_NPY_H
#define QJIT_TOOLS_NPY_H

#include "qjit/Error.h"

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace qjit::tool {

/// The element types, named by their numpy descr.
enum class NpyDtype : uint8_t {
  F4, ///< '<f4' f32
  F2, ///< '<f2' f16
  F8, ///< '<f8' f64
  I1, ///< '|i1'
  U1, ///< '|u1' (also packed storage and fp8 bytes)
  I2, ///< '<i2'
  U2, ///< '<u2' (also bf16 bit patterns)
  I4, ///< '<i4'
  U4, ///< '<u4'
  I8, ///< '<i8' (numpy's default integers: zero points)
};

std::string_view npyDescr(NpyDtype dtype); ///< "<f4", "|u1", ...
unsigned npyItemBytes(NpyDtype dtype);

struct NpyArray {
  NpyDtype dtype = NpyDtype::F4;
  std::vector<int64_t> shape; ///< Empty for a 0-d array (one element).
  std::vector<uint8_t> data;  ///< C order, little-endian.
};

/// Elements of `shape` (1 for a 0-d array); shapes are validated on read, so
/// this does not overflow for arrays that came from a file.
uint64_t npyElementCount(std::span<const int64_t> shape);

/// Parses a whole .npy file. InvalidArgument describing the problem.
Expected<NpyArray> parseNpy(std::vector<uint8_t> file);
/// readFile + parseNpy, with the path in every message.
Expected<NpyArray> readNpy(const std::string &path);

/// The header (magic, version, dict, padding) for an array; version 1.0
/// unless the dict needs 2.0's longer length field.
std::vector<uint8_t> npyHeader(NpyDtype dtype, std::span<const int64_t> shape);
/// Writes header and data atomically (see writeOutputFile). `data` must
/// hold exactly the shape's elements.
Status writeNpy(const std::string &path, NpyDtype dtype,
                std::span<const int64_t> shape, std::span<const uint8_t> data);

} // namespace qjit::tool

#endif
