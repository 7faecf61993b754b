//===- X86ListingSyntax.h - asmjit listings for GNU as ----------*- C++ -*-===//
//
// asmjit's x86 StringLogger prints its own dialect of Intel syntax; `qjit
// asm` listings are meant to be fed to llvm-mc and llvm-mca (bench/model.py)
// as they are, so the dialect is rewritten into what GNU as and llvm-mc
// accept, without changing a single encoded instruction.
//
//===----------------------------------------------------------------------===//
#ifndef QJIT_JIT_ASMJIT_X86LISTINGSYNTAX_H
#define QJIT_JIT_ASMJIT_X86LISTINGSYNTAX_H

#include <string>
#include <string_view>

namespace qjit::asmjit_backend {

/// `asmjitText` (StringLogger lines) as `.intel_syntax noprefix` assembler
/// input that llvm-mc -triple=x86_64 assembles to the same instructions.
std::string gasIntelListing(std::string_view asmjitText);

} // namespace qjit::asmjit_backend

#endif // QJIT_JIT_ASMJIT_X86LISTINGSYNTAX_H
