//===- AsmjitStderr.cpp - stderr for the asmjit inside libqjit.so ---------===//
//
// Debian's libasmjit.a is position-independent except that it reads `stderr`
// through a PC-relative relocation, which an executable accepts and a shared
// object refuses. libqjit.so links a copy of the archive with that symbol
// renamed to this hidden variable (runtime/CMakeLists.txt).
//
//===----------------------------------------------------------------------===//
#include <cstdio>

extern "C" {
__attribute__((visibility("hidden"))) FILE *qjit_asmjit_stderr = stderr;
}
