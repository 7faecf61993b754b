//===- LibraryVersions.cpp - What built the code --------------------------===//
#include "qjit/internal/LibraryVersions.h"

#include "qjit/Version.h"

#include <asmjit/core/api-config.h>

namespace qjit {

const std::string &libraryVersions() {
  static const std::string versions =
      "qjit=" QJIT_VERSION_STRING " llvm=" QJIT_LLVM_VERSION " asmjit=" +
      std::to_string(ASMJIT_LIBRARY_VERSION >> 16) + "." +
      std::to_string((ASMJIT_LIBRARY_VERSION >> 8) & 0xFF) + "." +
      std::to_string(ASMJIT_LIBRARY_VERSION & 0xFF);
  return versions;
}

} // namespace qjit
