//===- LibraryVersions.h - What built the code ------------------*- C++ -*-===//
#ifndef QJIT_RUNTIME_LIBRARYVERSIONS_H
#define QJIT_RUNTIME_LIBRARYVERSIONS_H

#include <string>

namespace qjit {

/// "qjit=0.1.0 llvm=22.1.0 asmjit=1.9.0": the libraries whose versions
/// decide what code a spec compiles to (fixed per process, so implied by
/// every cache key; logged when a runtime is created).
const std::string &libraryVersions();

} // namespace qjit

#endif // QJIT_RUNTIME_LIBRARYVERSIONS_H
