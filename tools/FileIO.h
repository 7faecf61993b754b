//===- FileIO.h - Whole-file reads and safe output writes -------*- C++ -*-===//
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
/// All of standard input, to its end.
Expected<std::vector<uint8_t>> readStandardInput();

/// Writes the concatenated `pieces` as the output `path`, as LLVM's tools
/// treat `-o`:
///  * "-" is standard output;
///  * a regular file (new or not) only ever appears complete: the pieces go
///    to a temporary file in its directory, which is renamed over it (an
///    existing file keeps its permissions); on failure the temporary is
///    removed and the previous file is left as it was;
///  * a symbolic link is followed: its target is written, the link stays;
///  * anything else that exists (a character device such as /dev/null, a
///    FIFO, a socket) is written in place, never replaced; a directory is
///    an error.
Status writeOutputFile(const std::string &path,
                       std::span<const std::span<const uint8_t>> pieces);

/// Whether `a` and `b` name the same existing file (after links).
bool sameFile(const std::string &a, const std::string &b);

} // namespace qjit::tool

#endif
