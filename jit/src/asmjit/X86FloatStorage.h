//===- X86FloatStorage.h - fp8 / fp4 codes on AVX2 lanes --------*- C++ -*-===//
//
// docs/semantics.md section 8 on x86 lanes: the quantize generator turns
// v = fl(u + z) into the codes of f8E4M3FN, f8E5M2 or f4E2M1FN, the
// dequantize generator turns codes into their exact values. Integer and
// exact float operations only (no fp8 instructions exist, no gathers),
// and one nearest-even addition that rounds, as the division before it
// does, in the default environment (semantics.md 2.1). The encoder runs on
// ymm lanes (AVX2) and on zmm lanes (AVX-512: sign and overflow lanes in
// k-registers, constants in zmm16 and up); the decoder is AVX2 code at
// every ISA level (X86Generators.cpp).
//
//===----------------------------------------------------------------------===//
#ifndef QJIT_JIT_ASMJIT_X86FLOATSTORAGE_H
#define QJIT_JIT_ASMJIT_X86FLOATSTORAGE_H

#include "X86Isa.h"

#include "qjit/KernelSpec.h"
#include "qjit/internal/FloatStorage.h"

#include <array>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

namespace qjit::asmjit_backend {

/// True for the storages these helpers handle: unpacked float storage.
bool x86SupportsFloatStorage(const StorageSpec &storage);
/// Packed f4E2M1FN qcast: the encoder's codes stored through
/// X86PackedCodes (X86FloatQuantizeBody.cpp).
bool x86EncodesPackedFloat(const KernelSpec &spec);

/// 32-bit constants broadcast to every lane: kept in spare vector
/// registers while they last, the rest as vectors of the ISA's width placed
/// after the kernel's code and read as memory operands (a ymm or zmm, or
/// the low xmm).
class X86VectorConstants {
public:
  X86VectorConstants(const X86Isa &isa, std::vector<unsigned> spareRegisters)
      : isa_(isa), spare_(std::move(spareRegisters)) {}

  /// The operand of `value` in every lane; a register (loaded here, so
  /// call where the kernel runs once, e.g. emitConstants) while spare ones
  /// last.
  asmjit::Operand place(x86::Assembler &a, uint32_t value);
  /// A memory operand only: eight 32-bit lanes (twice over in a zmm).
  x86::Mem vector(x86::Assembler &a, const std::array<uint32_t, 8> &lanes);
  void emitData(x86::Assembler &a);

private:
  X86Isa isa_;
  std::vector<unsigned> spare_;
  asmjit::Label label_;
  std::vector<std::array<uint32_t, 8>> vectors_;
};

/// qcast: f32 lanes v = fl(u + z) → i32 lanes holding the code (as a
/// signed byte with signedCodes()).
class X86FloatEncoder {
public:
  /// `clampsInput`: the caller encodes through emitEncodeMagnitude only
  /// (see saturatingQuotient), which leaves vec(reg::kHigh) and
  /// vec(reg::kHalf) untouched.
  X86FloatEncoder(const KernelSpec &spec, const X86Isa &isa,
                  bool clampsInput = false);

  /// True when emitEncode maps NaN lanes of v to the format's NaN code
  /// (with signedCodes(), to a value the store saturates to it).
  /// Otherwise (f4E2M1FN) NaN lanes of u must be 0 already, so that v = z
  /// as the reference substitutes.
  bool encodesNaN() const { return format_.hasNaN; }

  /// True when emitEncode leaves the codes as signed bytes (the code's
  /// bits as int8, NaN lanes above 127), to be stored with signed
  /// saturation: f8E4M3FN, whose NaN code 0x7f is the saturated value.
  bool signedCodes() const { return format_.positiveNaN == 0x7f; }

  /// The format bounds and the encoder's constants, into vec(reg::kLow),
  /// vec(reg::kHigh), vec(reg::kHalf) and vec(reg::kSign) (or memory; see
  /// clampsInput).
  void emitConstants(x86::Assembler &a);
  /// v (f32) → codes (i32). Clobbers `t`, vec(reg::kScalar) and
  /// vec(reg::kScalar2) (AVX-512: vec(reg::kScalar2), k6 and k7).
  void emitEncode(x86::Assembler &a, const x86::Vec &v, const x86::Vec &t);

  /// With saturate on, NaN codes and bounds ±largest: a value H (exact in
  /// f32) inside the largest code's rounding interval, a quarter-quantum
  /// from its ends, so that every |v| >= H stores as ±largest and the
  /// caller may clamp |v| to any value that rounds to within [H', largest]
  /// with H' beyond the midpoint below (emitEncodeMagnitude needs no clamp
  /// then). Otherwise nullopt.
  std::optional<double> saturatingQuotient() const;
  /// dst = |src| (bits), NaN lanes stay NaN.
  void emitAbs(x86::Assembler &a, const x86::Vec &dst, const x86::Vec &src);
  /// The sign lanes of v's codes: v's sign bit set and v not NaN (NaN
  /// takes the positive NaN code; a −0 lane is among them). One signed
  /// comparison of v's bits: those of the negative non-NaN floats, −0 to
  /// −inf, are exactly the ones up to 0xff800000. AVX2: `dst` a vector,
  /// all ones in the lanes *without* the sign; AVX-512: `dst` a k-register
  /// of the lanes with it.
  void emitSignMask(x86::Assembler &a, const asmjit::Operand &dst,
                    const x86::Vec &v);
  /// saturatingQuotient() only: the codes of lanes whose magnitude is in
  /// [0, largest] or NaN (also (-q/4, -0], q the format's smallest
  /// subnormal: code magnitude 0), signed where `signMask` (emitSignMask)
  /// says, into `code`. Clobbers `magnitude` and `t`, and at AVX2
  /// `signMask`.
  void emitEncodeMagnitude(x86::Assembler &a, const x86::Vec &magnitude,
                           const asmjit::Operand &signMask, const x86::Vec &t,
                           const x86::Vec &code);
  void emitData(x86::Assembler &a) { constants_.emitData(a); }

private:
  /// Bounds ±hi (hi > 0): the clamp is one of |v|, whose sign is v's.
  bool symmetric() const { return bounds_.lo == -bounds_.hi && bounds_.hi > 0; }
  /// Saturate off with bounds of one sign: an overflowing lane's sign is
  /// v's, not the clamped value's (needs vec(reg::kSign) as scratch).
  bool overflowSignFromV() const {
    return !saturate_ && !(bounds_.lo < 0 && bounds_.hi > 0);
  }
  /// The code of `magnitude` (clamped) and `signMask` into `code`;
  /// `exponent` is scratch (it may be `code`), `overflow` the lanes beyond
  /// the format with saturate off (a vector, or k7 at AVX-512).
  void emitCodes(x86::Assembler &a, const x86::Vec &exponent,
                 const x86::Vec &magnitude, const asmjit::Operand &signMask,
                 const asmjit::Operand &overflow, const x86::Vec &code);

  X86Isa isa_;
  FloatStorageFormat format_;
  FloatStorageBounds bounds_;
  bool saturate_;
  bool clampsInput_;
  X86VectorConstants constants_;
  struct Operands {
    /// negativeMagic (AVX2: K - sign, the blend's other operand) or
    /// signAdjust (AVX-512: what negative lanes add after K's subtraction).
    asmjit::Operand magic, magnitudeMask, exponentMask, minNormal,
        negativeMagic, signAdjust, nanCode, threshold, special, negativeBits;
  } c_;
};

/// f8E4M3FN codes decode as F · 2^-8 (the binary16 route): with baked
/// scales and zero points 0, dcast may fold the 2^8 into the scales. The
/// spec with scales · 2^8 when each stays exact in the expressed type,
/// otherwise nullopt (the decoder multiplies by 2^8 itself).
std::optional<KernelSpec> foldDecodedExponent(const KernelSpec &spec);

/// dcast: codes → f32 lanes of their exact values F(code), or of F · 2^-8
/// for f8E4M3FN when the parameters fold that (foldDecodedExponent).
class X86FloatDecoder {
public:
  X86FloatDecoder(const KernelSpec &spec, const X86Isa &isa,
                  bool exponentFolded);

  /// Constants into vec(reg::kLow) .. vec(reg::kSign) (or memory).
  void emitConstants(x86::Assembler &a);
  /// The values of the lanes() unpacked codes at `src`. Clobbers `t`.
  void emitLoadValues(x86::Assembler &a, const x86::Vec &v, const x86::Vec &t,
                      const x86::Mem &src);
  /// True when emitLoadBlock decodes the fp8 codes of a whole unrolled
  /// block (four vectors of lanes() codes).
  bool decodesBlocks() const;
  /// The values of the 32 codes at `src` into v[0..3] in order. Clobbers
  /// t[0] and t[1].
  void emitLoadBlock(x86::Assembler &a, const std::array<x86::Vec, 4> &v,
                     const std::array<x86::Vec, 4> &t, const x86::Mem &src);
  /// f4E2M1FN: i32 code lanes (the low 4 bits count) → F(code) in place.
  /// Clobbers `t`.
  void emitDecodeFp4(x86::Assembler &a, const x86::Vec &v, const x86::Vec &t);
  void emitData(x86::Assembler &a) { constants_.emitData(a); }

private:
  /// The binary16 words in v's low half → v's f32 lanes (· 2^8 for an
  /// unfolded f8E4M3FN).
  void emitWidenWords(x86::Assembler &a, const x86::Vec &v);

  StorageSpec storage_;
  X86Isa isa_;
  bool exponentFolded_;
  X86VectorConstants constants_;
  /// Registers (placed first, so always spare ones) for f8E4M3FN.
  x86::Vec byte80_, byte01_;
  asmjit::Operand up8_, signBit_;
};

} // namespace qjit::asmjit_backend

#endif // QJIT_JIT_ASMJIT_X86FLOATSTORAGE_H
