//===- A64ListingSyntax.h - asmjit AArch64 listings for GNU as --*- C++ -*-===//
//
// asmjit's AArch64 StringLogger prints register lists without braces,
// register offsets without the comma before the shift and post-index
// immediates without '#'; `qjit asm` listings are assembler input
// (llvm-mc, llvm-mca), so those are rewritten into what GNU as and llvm-mc
// accept, without changing a single encoded instruction.
//
//===----------------------------------------------------------------------===//
#ifndef QJIT_JIT_ASMJIT_A64LISTINGSYNTAX_H
#define QJIT_JIT_ASMJIT_A64LISTINGSYNTAX_H

#include <string>
#include <string_view>

namespace qjit::asmjit_backend {

/// `asmjitText` (StringLogger lines) as assembler input that llvm-mc
/// -triple=aarch64 assembles to the same instructions.
std::string gasA64Listing(std::string_view asmjitText);

} // namespace qjit::asmjit_backend

#endif // QJIT_JIT_ASMJIT_A64LISTINGSYNTAX_H
