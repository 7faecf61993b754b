//===- X86StackSlots.h - Every stack slot of the x86 kernels ----*- C++ -*-===//
//
// The one table of where the x86 kernels keep values on the stack, so that
// no two users pick the same bytes by a bare offset.
//
// Kernels are leaf functions: the 128 bytes below rsp (the System V red
// zone) are theirs without moving rsp. They hold what lives within one
// run's code: the tail buffers and a few saved registers and flags, at
// fixed offsets from rsp. The prologue moves rsp down only for what
// outlives that (X86KernelFrame.cpp): the counters of the nest levels,
// the prepared parameter groups, or per-element runtime tables
// (X86RuntimeTables, which own their layout from rsp up).
//
//===----------------------------------------------------------------------===//
#ifndef QJIT_JIT_ASMJIT_X86STACKSLOTS_H
#define QJIT_JIT_ASMJIT_X86STACKSLOTS_H

#include "X86Isa.h"

#include <cstddef>
#include <cstdint>

namespace qjit::asmjit_backend::stack {

// The red zone, as offsets from rsp. The tail buffers lie below the slots:
// the source buffer at kTailSource, the results at kTailResult, or for
// packed codes in (whose results may be a vector of eight f64, 64 bytes;
// the codes fill at most 8 bytes of the source buffer) at
// kPackedTailResult.
constexpr int32_t kTailSource = -128;
constexpr int32_t kPackedTailResult = -96;
constexpr int32_t kTailResult = -64;
/// A byte: non-zero while the run's runtime zero point is outside the
/// range biased packed loads handle (X86Parameters::biasZeroPoints).
constexpr int32_t kZeroPointOutOfRange = -24;
/// reg::params while a variable shift needs cl (packed heads and tails).
constexpr int32_t kSavedParams = -16;
/// reg::runCount while a packed head converts its elements.
constexpr int32_t kSavedRunCount = -8;

inline x86::Mem redZone(int32_t offset) { return x86::ptr(x86::rsp, offset); }
inline x86::Mem zeroPointOutOfRange() {
  return x86::byte_ptr(x86::rsp, kZeroPointOutOfRange);
}
inline x86::Mem savedParams() { return x86::qword_ptr(x86::rsp, kSavedParams); }
inline x86::Mem savedRunCount() {
  return x86::qword_ptr(x86::rsp, kSavedRunCount);
}

/// A `call` pushes its return address: inside a kernel's subroutines,
/// every rsp-relative slot of the frame is this many bytes further up.
constexpr int32_t kReturnAddressBytes = 8;

// The frame, from rsp up: one block of slots per nest level (outermost
// first), then, for bodies that prepare parameter groups, the group being
// run, the next group and the saved parameter index.

/// The 8-byte counters of one nest level.
struct LevelSlots {
  x86::Mem block, blockIndex, row, base;
};
constexpr int32_t kLevelSlotBytes = 32;
inline LevelSlots levelSlots(size_t level) {
  const int32_t at = static_cast<int32_t>(level) * kLevelSlotBytes;
  return {x86::qword_ptr(x86::rsp, at), x86::qword_ptr(x86::rsp, at + 8),
          x86::qword_ptr(x86::rsp, at + 16), x86::qword_ptr(x86::rsp, at + 24)};
}
inline int32_t levelSlotsBytes(size_t levels) {
  return static_cast<int32_t>(levels) * kLevelSlotBytes;
}

/// The group areas above `levels` levels' slots, each `areaBytes` long.
struct GroupSlots {
  x86::Mem ready, next, savedIndex;
};
constexpr int32_t kSavedIndexBytes = 8;
inline GroupSlots groupSlots(size_t levels, int32_t areaBytes) {
  const x86::Mem ready = x86::ptr(x86::rsp, levelSlotsBytes(levels));
  x86::Mem savedIndex = ready.cloneAdjusted(2 * areaBytes);
  savedIndex.setSize(8);
  return {ready, ready.cloneAdjusted(areaBytes), savedIndex};
}
inline int32_t groupSlotsBytes(int32_t areaBytes) {
  return 2 * areaBytes + kSavedIndexBytes;
}

// One prepared group of X86Parameters (kGroupRuns = 8 runs): parts of one
// dword per run each.
constexpr int32_t kGroupPartBytes = 32;
constexpr int32_t kGroupScales = 0;
constexpr int32_t kGroupZeroPoints = 32;
/// Biased zero points: each run's zeroPointOutOfRange byte, as a dword.
constexpr int32_t kGroupOutOfRange = 64;
/// Shifted scales (after the out-of-range flags): s · 2^-28 of each run,
/// then a dword that is non-zero when one of them is inexact.
constexpr int32_t kGroupShiftedScales = 96;
constexpr int32_t kGroupShiftInexact = 128;

// One prepared group of the fixed-point bracket (X86FixedBracketBody, 16
// runs): Y, offsets, divisors and zero points, 16 dwords each.
constexpr int32_t kBracketGroupTables = 4;
constexpr int32_t kBracketGroupTableBytes = 64;

} // namespace qjit::asmjit_backend::stack

#endif // QJIT_JIT_ASMJIT_X86STACKSLOTS_H
