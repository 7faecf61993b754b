//===- FileIO.h - Whole-file reads and atomic writes ------------*- C++ -*-===//
#ifndef QJIT_TOOLS_FILEIO_H
#define QJIT_TOOLS_FILEIO_H

#include "qjit/Error.h"

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace qjit::tool {

/// The whole file. IOError naming the path and the reason otherwise.
Expected<std::vector<uint8_t>> readFile(const std::string &path);

/// Writes the concatenated `pieces` to `path` so that the file only ever
/// appears complete: they go to a temporary file in the same directory,
/// which is then renamed over `path`. On failure the temporary is removed,
/// and a previous file at `path` is left as it was.
Status writeFileAtomically(const std::string &path,
                           std::span<const std::span<const uint8_t>> pieces);

} // namespace qjit::tool

#endif
