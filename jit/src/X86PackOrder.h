//===- X86PackOrder.h - Element order after x86's in-lane packs -*- C++ -*-===//
//
// packssdw then packsswb / packuswb of four 8-lane i32 vectors (AVX2) work
// within 128-bit halves: the 32 result bytes come out as dwords of elements
// 0-3, 8-11, 16-19, 24-27, 4-7, 12-15, 20-23, 28-31. vpermd by
// kPackedDwordOrder puts them back in element order. Both backends' x86
// code packs this way; AVX-512 packs of four zmm likewise per 128 bits.
//
//===----------------------------------------------------------------------===//
#ifndef QJIT_JIT_X86PACKORDER_H
#define QJIT_JIT_X86PACKORDER_H

#include <array>
#include <cstdint>

namespace qjit {

inline constexpr std::array<uint32_t, 8> kPackedDwordOrder = {0, 4, 1, 5,
                                                              2, 6, 3, 7};
/// The same for four 16-lane vectors (AVX-512BW packs, four 128-bit
/// lanes): output dword p holds vector p / 4's chunk p % 4.
inline constexpr std::array<uint32_t, 16> kZmmPackedDwordOrder = {
    0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15};

} // namespace qjit

#endif
