//===- X86PackedCodes.h - Packed sub-byte codes <-> i32 lanes ---*- C++ -*-===//
//
// The packing layer of the x86 kernels: codes of 1, 2 or 4 bits packed
// first element in the lowest bits of a byte (docs/semantics.md 2.2) to and
// from i32 lanes, whatever the codes mean (integers, float or quantile
// codes). It only ever touches whole bytes that hold a vector's codes, so
// the kernel frame decides what happens at sub-byte run boundaries and at
// the tail (X86KernelFrame.cpp).
//
// AVX2 (8 lanes of ymm): a vector of 8 codes is exactly `bits` bytes, a
// group of 4 vectors (the frame's unrolled step) 4·bits bytes. Packed
// kernels are generated with the AVX2 code path at the AVX-512 level too
// (x86KernelIsa), except the AVX-512 qcasts of the fixed-point bracket and
// of the float encoder, which store bytes of codes through the EVEX forms
// at the end (16, 32 or 64 codes: 2·bits, 4·bits or 8·bits bytes).
//
//===----------------------------------------------------------------------===//
#ifndef QJIT_JIT_ASMJIT_X86PACKEDCODES_H
#define QJIT_JIT_ASMJIT_X86PACKEDCODES_H

#include "X86Isa.h"

#include <array>

namespace qjit::asmjit_backend {

class X86PackedCodes {
public:
  /// `bits` is 1, 2 or 4; signed codes load sign-extended.
  X86PackedCodes(unsigned bits, bool isSigned);

  unsigned bits() const { return bits_; }
  /// Bytes of one vector (8 codes).
  unsigned vectorBytes() const { return bits_; }

  /// 8 codes at `src` (`bits` bytes) into the i32 lanes of `v`.
  void emitLoad(x86::Assembler &a, const x86::Vec &v, const x86::Mem &src);
  /// 32 codes at `src` (4·bits bytes) into v[0..3]; `t0`, `t1` clobbered.
  void emitLoadGroup(x86::Assembler &a, const std::array<x86::Vec, 4> &v,
                     const x86::Vec &t0, const x86::Vec &t1,
                     const x86::Mem &src);

  /// 4-bit integer codes straight to f32, without an int → float
  /// conversion: lane i of a vector holds laneBiases()[i] + q exactly (q
  /// the code's value), so subtracting laneBiases()[i] + z gives q − z
  /// with the reference's one rounding while that sum is exact.
  std::array<float, 8> laneBiases() const;
  /// 8 codes at `src` (4 bytes) as biased f32 lanes of `v`.
  void emitLoadBiased(x86::Assembler &a, const x86::Vec &v,
                      const x86::Mem &src);
  /// 32 codes at `src` (16 bytes) as biased f32 lanes of v[0..3]; `t`
  /// clobbered.
  void emitLoadBiasedGroup(x86::Assembler &a, const std::array<x86::Vec, 4> &v,
                           const x86::Vec &t, const x86::Mem &src);

  /// Signed 4-bit codes as i32 lanes q · 2^28 (the code in the top
  /// nibble, sign included): converted, they are exactly q · 2^28, so
  /// that · (s · 2^-28) rounds q · s once, with neither a bias nor a shift
  /// to undo. 8 codes at `src` (4 bytes) into `v`.
  void emitLoadTop(x86::Assembler &a, const x86::Vec &v, const x86::Mem &src);
  /// 32 codes at `src` (16 bytes) as such lanes of v[0..3], in two
  /// steps: the codes' nibbles into `t`, then from `t` into v[0..3].
  void emitLoadTopNibbles(x86::Assembler &a, const x86::Vec &t,
                          const x86::Mem &src);
  void emitPlaceTopNibbles(x86::Assembler &a, const std::array<x86::Vec, 4> &v,
                           const x86::Vec &t);

  /// The low `bits` bits of the 8 lanes of `v` as codes at `dst` (`bits`
  /// bytes). `v` and `temp` are clobbered; so is reg::scratch.
  void emitStore(x86::Assembler &a, const x86::Mem &dst, const x86::Vec &v,
                 const x86::Vec &temp);
  /// 32 lanes in v[0..3], each the code sign- or zero-extended (so within
  /// [-128, 127]), as codes at `dst` (4·bits bytes). v[] are clobbered, so
  /// is reg::scratch.
  void emitStoreGroup(x86::Assembler &a, const x86::Mem &dst,
                      const std::array<x86::Vec, 4> &v);
  /// 32 bytes in `bytes` (element order), each holding one code in its low
  /// bits, as codes at `dst` (4·bits bytes). `bytes` and `temp` are
  /// clobbered, so is reg::scratch.
  void emitStoreBytes(x86::Assembler &a, const x86::Mem &dst,
                      const x86::Vec &bytes, const x86::Vec &temp);

  /// AVX-512: the registers emitStoreBytesEvex reads, filled by
  /// emitEvexConstants (`wordWeights` only for 2-bit codes).
  struct EvexConstants {
    x86::Zmm codeMask, byteWeights, wordWeights;
  };
  void emitEvexConstants(x86::Assembler &a, const X86Isa &isa,
                         const EvexConstants &c);
  /// The 16 (xmm), 32 (ymm) or 64 (zmm) bytes of `bytes`, each holding one code
  /// in its low bits, as codes at `dst`. `bytes` is clobbered, so are k3 and
  /// reg::scratch (1-bit codes).
  void emitStoreBytesEvex(x86::Assembler &a, const x86::Mem &dst,
                          const x86::Vec &bytes, const EvexConstants &c);

  /// The constants the code above reads (after the kernel's code).
  void emitData(x86::Assembler &a);

private:
  /// The constant at `offset` of the data block (whose label this makes on
  /// first use: emitData emits the block only when some code reads it).
  x86::Mem data(x86::Assembler &a, int32_t offset);

  unsigned bits_;
  bool isSigned_;
  asmjit::Label data_;
};

} // namespace qjit::asmjit_backend

#endif // QJIT_JIT_ASMJIT_X86PACKEDCODES_H
