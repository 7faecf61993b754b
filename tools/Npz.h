//===- Npz.h - numpy .npz archives (zips of .npy files) ---------*- C++ -*-===//
//
// What numpy.savez writes and numpy.load reads: one uncompressed zip member
// NAME.npy per array. minizip does the zip format.
//
//===----------------------------------------------------------------------===//
#ifndef QJIT_TOOLS_NPZ_H
#define QJIT_TOOLS_NPZ_H

#include "Npy.h"

#include "qjit/Error.h"

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace qjit::tool {

/// One array to write: member `name` + ".npy".
struct NpzEntry {
  std::string name;
  NpyDtype dtype = NpyDtype::F4;
  std::vector<int64_t> shape;
  std::span<const uint8_t> data; ///< Exactly the shape's elements.
};

/// Writes the archive as writeOutputFile writes a file (complete or not at
/// all; "-" is standard output).
Status writeNpz(const std::string &path, std::span<const NpzEntry> entries);

/// The array `name` (member name + ".npy") of the archive at `path`;
/// InvalidArgument when the member is missing or not an .npy file.
Expected<NpyArray> readNpzArray(const std::string &path,
                                const std::string &name);

} // namespace qjit::tool

#endif
