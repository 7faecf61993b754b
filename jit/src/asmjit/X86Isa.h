//===- X86Isa.h - ISA-dependent choices of the x86 generators ---*- C++ -*-===//
//
// The x86 generators read the ISA level only through this helper: vector
// width, register views and the fixed register assignment shared by the
// kernel frame and the vector bodies.
//
//===----------------------------------------------------------------------===//
#ifndef QJIT_JIT_ASMJIT_X86ISA_H
#define QJIT_JIT_ASMJIT_X86ISA_H

#include "HostFeatures.h"
#include "qjit/Isa.h"

#include <asmjit/x86.h>

namespace qjit::asmjit_backend {

namespace x86 = asmjit::x86;

class X86Isa {
public:
  explicit X86Isa(IsaLevel level) : level_(level) {}

  IsaLevel level() const { return level_; }
  /// AVX-512 (F, BW, VL, DQ): zmm vectors, k-register tails, vpmov narrows.
  bool avx512() const { return level_ >= IsaLevel::Avx512; }
  unsigned vectorBytes() const { return avx512() ? 64 : 32; }
  /// AVX-512 VBMI (vpermb), where the host has it and QJIT_X86_FEATURES
  /// does not mask it: kernels run on the host, so listings for other CPUs
  /// show the host's choice.
  bool vbmi() const { return avx512() && hostX86VbmiUsable(); }
  /// Full-width vector register `id`.
  x86::Vec vec(unsigned id) const {
    return avx512() ? x86::Vec(x86::zmm(id)) : x86::Vec(x86::ymm(id));
  }

private:
  IsaLevel level_;
};

/// Fixed register roles. Kernels are leaf functions using only
/// caller-saved registers, so no callee-saved register is ever spilled.
namespace reg {
inline const x86::Gp src = x86::rdi;       ///< Source cursor.
inline const x86::Gp dst = x86::rsi;       ///< Destination cursor.
inline const x86::Gp remaining = x86::rdx; ///< Elements left (whole call).
inline const x86::Gp params = x86::rcx;    ///< const KernelParams *.
inline const x86::Gp runCount = x86::r8;   ///< Elements left in this run.
inline const x86::Gp paramIndex = x86::r9; ///< Parameter of this run.
inline const x86::Gp scratch = x86::rax;
inline const x86::Gp scratch2 = x86::r10;
inline const x86::Gp scratch3 = x86::r11;
inline const x86::KReg tailMask = x86::k1; ///< AVX-512 tail lanes.

constexpr unsigned kUnroll = 4;    ///< Vectors per main-loop iteration.
constexpr unsigned kWork = 0;      ///< vec(kWork + slot): the slot's value.
constexpr unsigned kTemp = 4;      ///< vec(kTemp + slot): its scratch.
constexpr unsigned kScale = 8;     ///< Scale (or reciprocal), broadcast.
constexpr unsigned kZeroPoint = 9; ///< Zero point in C, broadcast.
constexpr unsigned kLow = 10;      ///< Clamp bounds in C.
constexpr unsigned kHigh = 11;
constexpr unsigned kHalf = 12; ///< Constants of the rounding helpers.
constexpr unsigned kSign = 13;
constexpr unsigned kScalar = 14; ///< Scalar scratch of parameter loads.
constexpr unsigned kScalar2 = 15;
/// Variable shifts take their count in cl, the low byte of reg::params:
/// their users save that around them (stack::savedParams).
inline const x86::Gp shiftCount = x86::ecx;
inline const x86::Gp shiftCountByte = x86::cl;
/// k-register of a slot's NaN lanes (k2..k5).
inline x86::KReg nanMask(unsigned slot) { return x86::k(2 + slot); }
} // namespace reg

} // namespace qjit::asmjit_backend

#endif // QJIT_JIT_ASMJIT_X86ISA_H
