//===- X86FloatStorage.h - fp8 / fp4 codes on AVX2 lanes --------*- C++ -*-===//
//
// docs/semantics.md section 8 on x86 lanes: the quantize generator turns
// v = fl(u + z) into the codes of f8E4M3FN, f8E5M2 or f4E2M1FN, the
// dequantize generator turns codes into their exact values. Integer and
// exact float operations only: no fp8 instructions exist, no gathers, and
// rounding uses vroundps' immediate, never MXCSR. The kernels are AVX2
// (VEX, ymm) code at every ISA level (X86Generators.cpp), so the lanes
// here are ymm and xmm registers.
//
//===----------------------------------------------------------------------===//
#ifndef QJIT_JIT_ASMJIT_X86FLOATSTORAGE_H
#define QJIT_JIT_ASMJIT_X86FLOATSTORAGE_H

#include "X86Isa.h"

#include "qjit/FloatStorage.h"
#include "qjit/KernelSpec.h"

#include <array>
#include <cstdint>
#include <vector>

namespace qjit::asmjit_backend {

/// True for the storages these helpers handle: unpacked float storage.
bool x86SupportsFloatStorage(const StorageSpec &storage);

/// 256-bit constants placed after the kernel's code, read as memory
/// operands (a ymm, or the low xmm).
class X86VectorConstants {
public:
  /// A vector of eight `value`s.
  x86::Mem broadcast(x86::Assembler &a, uint32_t value);
  /// A vector of eight 16-bit `value`s, read as xmm (8 lanes) or ymm.
  x86::Mem words(x86::Assembler &a, uint16_t value);
  x86::Mem vector(x86::Assembler &a, const std::array<uint32_t, 8> &lanes);
  void emitData(x86::Assembler &a);

private:
  asmjit::Label label_;
  std::vector<std::array<uint32_t, 8>> vectors_;
};

/// qcast: f32 lanes v = fl(u + z) → i32 lanes holding the code.
class X86FloatEncoder {
public:
  X86FloatEncoder(const KernelSpec &spec, const X86Isa &isa);

  /// True when emitEncode maps NaN lanes of v to the format's NaN code.
  /// Otherwise (f4E2M1FN) NaN lanes of u must be 0 already, so that v = z
  /// as the reference substitutes.
  bool encodesNaN() const { return format_.hasNaN; }

  /// The format bounds [lo, hi] into vec(reg::kLow) and vec(reg::kHigh).
  void emitConstants(x86::Assembler &a);
  /// v (f32) → codes (i32). Clobbers `t`, vec(reg::kScalar),
  /// vec(reg::kScalar2) and vec(reg::kSign).
  void emitEncode(x86::Assembler &a, const x86::Vec &v, const x86::Vec &t);
  void emitData(x86::Assembler &a) { constants_.emitData(a); }

private:
  X86Isa isa_;
  FloatStorageFormat format_;
  FloatStorageBounds bounds_;
  bool saturate_;
  X86VectorConstants constants_;
};

/// dcast: codes → f32 lanes of their exact values F(code).
class X86FloatDecoder {
public:
  X86FloatDecoder(const StorageSpec &storage, const X86Isa &isa);

  /// F(code) of the lanes() unpacked codes at `src`. Clobbers `t`.
  void emitLoadValues(x86::Assembler &a, const x86::Vec &v, const x86::Vec &t,
                      const x86::Mem &src);
  /// f4E2M1FN: i32 code lanes (the low 4 bits count) → F(code) in place.
  /// Clobbers `t`.
  void emitDecodeFp4(x86::Assembler &a, const x86::Vec &v, const x86::Vec &t);
  void emitData(x86::Assembler &a) { constants_.emitData(a); }

private:
  StorageSpec storage_;
  X86Isa isa_;
  X86VectorConstants constants_;
};

} // namespace qjit::asmjit_backend

#endif // QJIT_JIT_ASMJIT_X86FLOATSTORAGE_H
