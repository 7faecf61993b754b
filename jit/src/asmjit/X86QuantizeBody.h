//===- X86QuantizeBody.h - What every f32 qcast body shares -----*- C++ -*-===//
//
// An f32 qcast is one of a few main-loop forms, each its own body class
// chosen once by generateX86Quantize (X86QuantizeGenerator.cpp): integer
// storage by exact scaling (X86IntegerQuantizeBody.h), by a checked
// reciprocal or its bracket (X86CheckedQuantizeBody.cpp), float storage
// (X86FloatQuantizeBody.cpp) and quantile storage
// (X86QuantileQuantizeBody.cpp). This base holds what they share: the
// parameters, the scaling u = x / s with NaN lanes made 0, the packs of a
// main-loop iteration's four vectors into one store, and the data after
// the code, named here once.
//
//===----------------------------------------------------------------------===//
#ifndef QJIT_JIT_ASMJIT_X86QUANTIZEBODY_H
#define QJIT_JIT_ASMJIT_X86QUANTIZEBODY_H

#include "X86KernelFrame.h"
#include "X86PackedCodes.h"
#include "X86Parameters.h"
#include "X86PeriodicRuns.h"

#include <cstdint>
#include <optional>

namespace qjit::asmjit_backend {

/// Immediates of the f32 qcast bodies.
namespace quantize {
constexpr uint32_t kSignBit = 0x80000000u;
constexpr uint32_t kBelowHalf = 0x3effffffu; ///< pred(0.5) = 0.5 - 2^-25.
constexpr uint8_t kOrdered = 7;              ///< vcmpps: neither is NaN.
constexpr uint8_t kRoundNearest = 0x08;      ///< + suppress exceptions.
constexpr uint8_t kRoundTowardZero = 0x0b;
/// vfixupimmps' table: quiet and signaling NaNs (tokens 0 and 1) become
/// +0 (response 8), every other class keeps the destination (0).
constexpr uint32_t kFixupNanToZero = 0x88;
} // namespace quantize

/// How a qcast `divide` or `reciprocal` uses the scale (X86Parameters).
ScaleUse quantizeScaleUse(const KernelSpec &spec);

class X86QuantizeBody : public X86VectorBody {
public:
  X86QuantizeBody(const KernelSpec &spec, const X86Isa &isa,
                  X86Parameters params);

  void generate(x86::Assembler &a, const X86FrameOptions &options) {
    emitX86Kernel(a, isa_, spec_, *this, options);
  }

  unsigned lanes() const override { return isa_.vectorBytes() / 4; }
  unsigned srcBytes() const override { return valueTypeBytes(spec_.expressed); }
  unsigned dstBytes() const override { return spec_.storage.containerBytes(); }
  unsigned dstPackedBits() const override {
    return packed_ ? packed_->bits() : 0;
  }
  void emitParameters(x86::Assembler &a) override;
  unsigned parameterBytes() const override {
    return runtimeTables_ ? 4 : params_.parameterBytes();
  }
  int32_t parameterStackBytes() const override {
    return runtimeTables_ ? runtimeTables_->stackBytes() : 0;
  }
  X86ParameterGroups *parameterGroups() override {
    return params_.groupsRuntimeLoads() ? &params_ : nullptr;
  }
  /// Out-of-line code (emitOutOfLine), the parameters' tables, the
  /// storage's (emitStorageData), the packed codes', then with packsFour()
  /// the vectors at dataAt: the half-away constant, vpermd's order and
  /// AVX-512's with the NaN fixup table (or emitPackDataTail).
  void emitData(x86::Assembler &a) final;
  bool canStreamStores() const override { return packsFour(); }

protected:
  /// Offsets of the vectors at dataAt (emitData).
  static constexpr uint32_t kDataAlignment = 32;
  static constexpr int32_t kHalfAwayOffset = 0;
  static constexpr int32_t kPackOrderOffset = 32;
  static constexpr int32_t kZmmOrderOffset = 64;     ///< AVX-512.
  static constexpr int32_t kPackDataTailOffset = 64; ///< AVX2.
  static constexpr int32_t kNanToZeroOffset = 128;   ///< AVX-512, 4 bytes.

  /// Per-axis runtime parameters of short runs read tables at rsp
  /// (X86PeriodicRuns.h) where they apply; bodies that can take them call
  /// this in their constructor.
  void useRuntimeTablesWhereTheyApply();

  /// Whether main-loop iterations store through emitPackFour (then
  /// emitConstants makes the data label first: beginPackData).
  virtual bool packsFour() const { return false; }
  /// The packs' saturation: signed or unsigned bytes.
  virtual bool packsSigned() const { return spec_.storage.isSigned; }
  /// Code placed after the kernel's, before any data.
  virtual void emitOutOfLine(x86::Assembler &) {}
  /// The storage's tables, after the parameters'.
  virtual void emitStorageData(x86::Assembler &) {}
  /// AVX2 data after vpermd's order (at kPackDataTailOffset).
  virtual void emitPackDataTail(x86::Assembler &) {}
  /// The operand u = x op s takes for `slot` (the op is
  /// params_.scaleInstruction()); may load it into `t`.
  virtual asmjit::Operand divisorOf(x86::Assembler &a, unsigned slot,
                                    const x86::Vec &t);

  void beginPackData(x86::Assembler &a) { dataLabel_ = a.newLabel(); }
  x86::Mem dataAt(int32_t offset) const { return x86::ptr(dataLabel_, offset); }
  asmjit::Operand zeroPointOf(unsigned slot) const {
    return runtimeTables_ ? runtimeTables_->zeroPoint(slot)
                          : params_.zeroPoint(slot);
  }
  /// Fills the runtime tables, if any (`threshold`: the checked mode's).
  void emitRuntimeTablesFill(x86::Assembler &a, const x86::Vec &threshold = {});

  /// u = x / s (or x · (1/s)) of `v` in place; with `nanToZero`, NaN lanes
  /// of u become 0. `t` is clobbered.
  void emitScale(x86::Assembler &a, unsigned slot, const x86::Vec &v,
                 const x86::Vec &t, bool nanToZero = true);

  /// 32 i32 lanes (each within the container) → 32 one-byte (or packed)
  /// values at `dst`; the packs saturate to the container. `temp` and
  /// `temp2` are clobbered.
  void emitPackFour(x86::Assembler &a, const x86::Vec (&result)[reg::kUnroll],
                    const x86::Vec &temp, const x86::Vec &temp2,
                    const x86::Mem &dst);
  /// The i16 lanes of emitPackFour's two word vectors (`low` clobbered).
  void emitPackWords(x86::Assembler &a, const x86::Vec &low,
                     const x86::Vec &high, const x86::Vec &temp,
                     const x86::Vec &temp2, const x86::Mem &dst);

  /// AVX-512 packed codes: the registers of X86PackedCodes' EVEX stores
  /// (zmm25 and up), filled here.
  X86PackedCodes::EvexConstants packedEvexConstants() const {
    return {x86::zmm(25), x86::zmm(26), x86::zmm(27)};
  }
  void emitPackedEvexConstants(x86::Assembler &a) {
    if (packed_ && isa_.avx512())
      packed_->emitEvexConstants(a, isa_, packedEvexConstants());
  }
  /// One vector of codes (i32 lanes, each the code in its low bits) as
  /// packed codes at `dst`. `codes` and `temp` are clobbered.
  void emitPackedStore(x86::Assembler &a, const x86::Mem &dst,
                       const x86::Vec &codes, const x86::Vec &temp) {
    if (!isa_.avx512()) {
      packed_->emitStore(a, dst, codes, temp);
      return;
    }
    a.vpmovdb(codes.xmm(), codes); // The codes' bits are the low bytes'.
    packed_->emitStoreBytesEvex(a, dst, codes.xmm(), packedEvexConstants());
  }

  /// Whole runs of two vectors or more: pairs of vectors through
  /// emitPairCodes and emitPackedStoreTwo where the body encodes pairs and
  /// stores packed codes at AVX-512 (with the pack data, packsFour()).
  void emitRunRest(x86::Assembler &a, const x86::Mem &src, const x86::Mem &dst,
                   unsigned count) override;
  /// The codes of two vectors and a free register (emitPairCodes).
  struct PairCodes {
    x86::Vec first, second, free;
  };
  /// Bodies whose emitPairCodes encodes two vectors at once.
  virtual bool encodesPairs() const { return false; }
  /// The codes of the vectors at `src` and after it (as emitVector's
  /// register slots 0 and 1 leave them).
  virtual PairCodes emitPairCodes(x86::Assembler &a, const x86::Mem &src) {
    (void)a, (void)src;
    return {};
  }
  /// Two vectors of codes (i32 lanes, each within the container) as the
  /// packed codes of their 32 elements at `dst`: one narrowing and one
  /// store for both, as emitPackFour's for four (whole runs of two
  /// vectors: MXFP4's blocks of 32, with emitScale's vfixupimmps 17-20%
  /// faster than a narrowing per vector at 4K-1M elements, Xeon SPR-class
  /// VM, 2026-12). `first`, `second` and `temp` are clobbered.
  void emitPackedStoreTwo(x86::Assembler &a, const x86::Mem &dst,
                          const x86::Vec &first, const x86::Vec &second,
                          const x86::Vec &temp);

  const KernelSpec &spec_;
  X86Isa isa_;
  X86Parameters params_;
  std::optional<X86RuntimeTables> runtimeTables_;
  std::optional<X86PackedCodes> packed_;

private:
  asmjit::Label dataLabel_;
};

} // namespace qjit::asmjit_backend

#endif // QJIT_JIT_ASMJIT_X86QUANTIZEBODY_H
