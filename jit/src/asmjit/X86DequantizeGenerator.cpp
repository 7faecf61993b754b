//===- X86DequantizeGenerator.cpp - dcast: stored → expressed -------------===//
//
// Per vector: i32 lanes from the containers, converted to f32 (q rounded
// to nearest-even beyond 2^24; u32 values as 2^16·hi + lo, two exact
// terms and one rounding; quantile entries through X86QuantileStorage;
// float storage codes' exact values through X86FloatStorage), (q − z)
// then · s, each one f32 rounding, then one rounding to the expressed
// format. (f64 compute: X86WideGenerators.) Packed storage loads its codes
// through X86PackedCodes, a group of four vectors at once in the unrolled
// loop (one 16-byte load for 4-bit codes). 4-bit integer codes load as
// floats laneBias + q (no conversion) whenever the zero point operands can
// hold laneBias + z exactly: (laneBias + q) − (laneBias + z) is then q − z
// with one rounding. Runs whose runtime z is out of that range subtract
// the biases first (exact: the difference is q), then z. Signed 4-bit
// runs of runtime groups whose zero points are all 0 load i32 lanes
// q · 2^28 instead (the nibble on top, sign included), converted and
// multiplied by s · 2^-28 (prepared per group, exact or the group takes
// the biased loads): q · s with one rounding, one instruction fewer per
// vector and a shorter decode, which loads the next run's nibbles ahead
// (X86VectorBody::loadsAhead). Packed 4-bit
// tables (NF4, f4E2M1FN) look their nibbles up in zmm lanes at AVX-512
// (f32 results: emitLookUpNibbles), and otherwise decode whole unrolled
// blocks through byte planes; fp8 codes decode a whole unrolled block too
// (X86FloatDecoder::emitLoadBlock). Unrolled blocks of unpacked 8/16-bit
// integers with one baked z ≠ 0 (AVX2) add the bits of 1.5·2^23 to the
// i32 lanes instead of converting, then subtract 1.5·2^23 + z: q − z
// with one rounding, without the conversion pipe.
//
//===----------------------------------------------------------------------===//
#include "X86ByteDequantizeBody.h"
#include "X86Conversions.h"
#include "X86FloatStorage.h"
#include "X86Generators.h"
#include "X86KernelFrame.h"
#include "X86PackedCodes.h"
#include "X86Parameters.h"
#include "X86PeriodicRuns.h"
#include "X86QuantileStorage.h"
#include "X86StackSlots.h"

#include <array>
#include <optional>
#include <span>
#include <vector>

namespace qjit::asmjit_backend {

namespace {

class X86DequantizeGenerator final : public X86VectorBody {
public:
  X86DequantizeGenerator(const KernelSpec &spec, const X86Isa &isa)
      : spec_(spec), isa_(isa), folded_(foldDecodedExponent(spec)),
        params_(folded_ ? *folded_ : spec, isa, ScaleUse::Multiply) {
    if (spec.storage.kind == StorageType::Kind::Quantile ||
        x86DecodesPackedTable(spec))
      quantile_.emplace(spec);
    else if (spec.storage.kind == StorageType::Kind::Float)
      floatDecoder_.emplace(spec, isa, folded_.has_value());
    if (spec.storage.packed)
      packed_.emplace(spec.storage.bits, spec.storage.isSigned);
    biased_ = packed_ && spec.storage.bits == 4 &&
              spec.storage.kind == StorageType::Kind::Integer &&
              params_.canBiasZeroPoints();
    if (biased_)
      params_.biasZeroPoints(packed_->laneBiases());
    topCodes_ = biased_ && spec.storage.isSigned && parameterGroups();
    if (topCodes_)
      params_.shiftGroupScales();
    const StorageSpec &storage = spec.storage;
    magicValues_ = !isa.avx512() && !packed_ &&
                   storage.kind == StorageType::Kind::Integer &&
                   storage.containerBytes() <= 2 && params_.baked() &&
                   spec.params.zeroPoints.size() == 1 &&
                   !params_.zeroPointsAreZero();
    if (X86RuntimeTables::applies(spec, lanes()))
      runtimeTables_.emplace(spec, lanes());
    looksUpNibbles_ = isa.avx512() && x86LooksUpNibblesOnZmm(spec);
  }

  void generate(x86::Assembler &a) { emitX86Kernel(a, isa_, spec_, *this); }

  unsigned lanes() const override { return isa_.vectorBytes() / 4; }
  unsigned srcBytes() const override { return spec_.storage.containerBytes(); }
  unsigned dstBytes() const override { return valueTypeBytes(spec_.expressed); }
  unsigned srcPackedBits() const override {
    return packed_ ? packed_->bits() : 0;
  }

  void emitConstants(x86::Assembler &a) override {
    if (unsignedValues())
      emitBroadcastImmediate(a, isa_, isa_.vec(reg::kLow), floatBits(0x1p16f));
    if (looksUpNibbles_) {
      nibbleData_ = a.newLabel();
      a.vmovups(x86::zmm(kNibbleEntries), x86::ptr(nibbleData_));
      a.vmovdqu32(x86::zmm(kNibbleControl), x86::ptr(nibbleData_, 64));
      if (!isa_.vbmi())
        a.vmovdqu32(x86::zmm(kNibbleShifts), x86::ptr(nibbleData_, 128));
    } else if (quantile_) {
      quantile_->emitConstants(a);
    }
    if (floatDecoder_)
      floatDecoder_->emitConstants(a);
    if (magicValues_) {
      float z = static_cast<float>(spec_.params.zeroPoints[0]);
      emitBroadcastImmediate(a, isa_, isa_.vec(kMagicBits), kMagic);
      emitBroadcastImmediate(a, isa_, isa_.vec(kMagicZero),
                             floatBits(0x1.8p23f + z));
    }
    if (runtimeTables_)
      runtimeTables_->emitFill(a, params_);
  }
  void emitParameters(x86::Assembler &a) override {
    runtimeTables_ ? runtimeTables_->emitLoad(a) : params_.emitLoad(a);
  }
  unsigned parameterBytes() const override {
    return runtimeTables_ ? 4 : params_.parameterBytes();
  }
  int32_t parameterStackBytes() const override {
    return runtimeTables_ ? runtimeTables_->stackBytes() : 0;
  }
  X86ParameterGroups *parameterGroups() override {
    return (looksUpNibbles_ || (!quantile_ && !floatDecoder_)) &&
                   params_.groupsRuntimeLoads()
               ? &params_
               : nullptr;
  }
  bool loadsAhead() const override { return topCodes_; }
  void emitLoadAhead(x86::Assembler &a, const x86::Mem &src) override {
    packed_->emitLoadTopNibbles(a, isa_.vec(reg::kTemp), src);
  }
  void setLoadsAhead(bool loaded, bool next) override {
    loadedAhead_ = loaded;
    loadsNext_ = next;
  }
  void emitData(x86::Assembler &a) override {
    emitUnbiases(a);
    params_.emitData(a);
    if (looksUpNibbles_)
      emitNibbleData(a);
    else if (quantile_)
      quantile_->emitData(a);
    if (floatDecoder_)
      floatDecoder_->emitData(a);
    if (packed_)
      packed_->emitData(a);
  }

  void emitVector(x86::Assembler &a, unsigned slot, const x86::Mem &src,
                  const x86::Mem &dst, bool masked) override {
    x86::Vec v = isa_.vec(reg::kWork + slot);
    if (looksUpNibbles_) {
      emitLookUpNibbles(a, v, src);
      emitFinish(a, slot, v, dst, masked);
      return;
    }
    if (floatDecoder_) {
      floatDecoder_->emitLoadValues(a, v, isa_.vec(reg::kTemp + slot), src);
      emitFinish(a, slot, v, dst, masked);
      return;
    }
    if (topCodes_ && params_.groupZeroPointsZero()) {
      packed_->emitLoadTop(a, v, src);
      emitFinishTop(a, v, dst);
      return;
    }
    if (biased_) {
      packed_->emitLoadBiased(a, v, src);
      emitUnbiasOutOfRange(a, {&v, 1});
      emitFinish(a, slot, v, dst, masked);
      return;
    }
    if (packed_)
      packed_->emitLoad(a, v, src);
    else
      emitLoadStored(a, isa_, spec_.storage, v, src, masked);
    emitValues(a, slot, v);
    emitFinish(a, slot, v, dst, masked);
  }

  void emitUnrolled(x86::Assembler &a, const x86::Mem &src,
                    const x86::Mem &dst) override {
    std::array<x86::Vec, reg::kUnroll> values, temp;
    for (unsigned j = 0; j < reg::kUnroll; ++j) {
      values[j] = isa_.vec(reg::kWork + j);
      temp[j] = isa_.vec(reg::kTemp + j);
    }
    if (quantile_ && quantile_->decodesPackedBlocks() && !looksUpNibbles_) {
      quantile_->emitDecodePackedBlock(a, src, values, temp,
                                       [&](unsigned first, const x86::Xmm &v) {
                                         emitFinishBlockPart(a, first, v, dst);
                                       });
      return;
    }
    if (looksUpNibbles_) {
      for (unsigned j = 0; j < reg::kUnroll; ++j)
        emitLookUpNibbles(a, values[j],
                          src.cloneAdjusted(int32_t(j) * srcVectorBytes()));
    } else if (quantile_ && quantile_->decodesBytePlanes()) {
      // Tables of one-byte containers or packed 4-bit codes decode a
      // whole unrolled block with byte shuffles.
      quantile_->emitDecodeBytePlanes(a, src, values, temp);
    } else if (topCodes_ && params_.groupZeroPointsZero()) {
      // temp[0] carries the nibbles of runs loaded ahead.
      if (!loadedAhead_)
        packed_->emitLoadTopNibbles(a, temp[0], src);
      packed_->emitPlaceTopNibbles(a, values, temp[0]);
      if (loadsNext_)
        packed_->emitLoadTopNibbles(
            a, temp[0],
            src.cloneAdjusted(srcVectorBytes() * int32_t(reg::kUnroll)));
      for (unsigned j = 0; j < reg::kUnroll; ++j)
        emitFinishTop(a, values[j],
                      dst.cloneAdjusted(int32_t(j) * dstVectorBytes()));
      return;
    } else if (biased_) {
      packed_->emitLoadBiasedGroup(a, values, temp[0], src);
      emitUnbiasOutOfRange(a, values);
    } else if (packed_) {
      packed_->emitLoadGroup(a, values, temp[0], temp[1], src);
      for (unsigned j = 0; j < reg::kUnroll; ++j)
        emitValues(a, j, values[j]);
    } else if (floatDecoder_ && floatDecoder_->decodesBlocks()) {
      floatDecoder_->emitLoadBlock(a, values, temp, src);
    } else if (!quantile_ && !floatDecoder_) {
      // All conversions first, then the arithmetic and the stores: the
      // block's independent chains overlap better (measured on znver1).
      // With magicValues_ the lanes become the floats 1.5·2^23 + q by an
      // integer addition (exact: |q| < 2^16), and subtracting
      // 1.5·2^23 + z leaves q − z with one rounding, like the
      // conversion and the subtraction (no conversion on the one
      // converting pipe).
      for (unsigned j = 0; j < reg::kUnroll; ++j) {
        emitLoadStored(a, isa_, spec_.storage, values[j],
                       src.cloneAdjusted(int32_t(j) * srcVectorBytes()), false);
        if (magicValues_)
          a.vpaddd(values[j], values[j], isa_.vec(kMagicBits));
        else
          emitValues(a, j, values[j]);
      }
      if (magicValues_) {
        for (unsigned j = 0; j < reg::kUnroll; ++j) {
          x86::Mem at = dst.cloneAdjusted(int32_t(j) * dstVectorBytes());
          a.vsubps(values[j], values[j], isa_.vec(kMagicZero));
          a.emit(x86::Inst::kIdVmulps, values[j], values[j], params_.scale(j));
          if (streamingStores_)
            a.vmovntps(at, values[j]);
          else
            emitStoreExpressed(a, isa_, spec_.expressed, at, values[j], false);
        }
        return;
      }
    } else {
      X86VectorBody::emitUnrolled(a, src, dst);
      return;
    }
    for (unsigned j = 0; j < reg::kUnroll; ++j)
      emitFinish(a, j, values[j],
                 dst.cloneAdjusted(int32_t(j) * dstVectorBytes()), false);
  }

  /// f32 outputs are the widest ones (4 bytes per 1-byte input).
  bool canStreamStores() const override {
    return spec_.expressed == ValueType::F32;
  }

private:
  /// u32 integer storage: lanes above INT32_MAX must not convert as
  /// negative.
  bool unsignedValues() const {
    return spec_.storage.kind == StorageType::Kind::Integer &&
           !spec_.storage.isSigned && spec_.storage.bits == 32;
  }

  /// Biased loads in a run whose zero point operands hold z rather than
  /// laneBias + z (X86Parameters::biasZeroPoints): laneBias + q → q, out
  /// of line (emitData) so that the usual path falls through.
  void emitUnbiasOutOfRange(x86::Assembler &a,
                            std::span<const x86::Vec> values) {
    if (!params_.checksBiasRange())
      return;
    Unbias unbias{a.newLabel(), a.newLabel(), {values.begin(), values.end()}};
    a.cmp(stack::zeroPointOutOfRange(), 0);
    a.jne(unbias.entry);
    a.bind(unbias.back);
    unbiases_.push_back(std::move(unbias));
  }

  /// The out-of-line code of emitUnbiasOutOfRange.
  struct Unbias {
    asmjit::Label entry, back;
    std::vector<x86::Vec> values;
  };
  void emitUnbiases(x86::Assembler &a) {
    for (const Unbias &unbias : unbiases_) {
      a.bind(unbias.entry);
      for (const x86::Vec &v : unbias.values)
        a.vsubps(v, v, params_.laneBiasTable(a));
      a.jmp(unbias.back);
    }
  }

  /// The 16 packed 4-bit codes (8 bytes) at `src` → their f32 entries in
  /// `v`'s lanes: element e's nibble, bits 4e..4e+3 of the bytes, in the
  /// low bits of dword e (vpermps reads only those). Three instructions
  /// per 16 elements where the byte planes take about 38 per 32.
  void emitLookUpNibbles(x86::Assembler &a, const x86::Vec &v,
                         const x86::Mem &src) {
    x86::Mem codes = src;
    codes.setSize(8);
    a.vpbroadcastq(v, codes);
    if (isa_.vbmi()) {
      a.vpmultishiftqb(v, x86::zmm(kNibbleControl), v);
    } else {
      a.vpshufb(v, v, x86::zmm(kNibbleControl));
      a.vpsrlvd(v, v, x86::zmm(kNibbleShifts));
    }
    a.vpermps(v, v, x86::zmm(kNibbleEntries));
  }
  /// emitLookUpNibbles' vectors: the entries, the control (VBMI: bit
  /// offset 4e in dword e's low byte; else vpshufb's source byte e / 2,
  /// broadcast qwords filling both halves of each 128-bit lane), and
  /// without VBMI the shifts 4·(e mod 2).
  void emitNibbleData(x86::Assembler &a) {
    const std::vector<uint32_t> &entries = quantile_->nibbleEntries();
    a.align(asmjit::AlignMode::kData, 64);
    a.bind(nibbleData_);
    for (uint32_t entry : entries)
      a.embedUInt32(entry);
    for (uint32_t e = 0; e < 16; ++e)
      a.embedUInt32(isa_.vbmi() ? 4 * e : 0x80808000u | (e / 2));
    if (!isa_.vbmi())
      for (uint32_t e = 0; e < 16; ++e)
        a.embedUInt32(4 * (e % 2));
  }

  /// i32 lanes of stored values in `v` → f32 values (q, or the entry).
  void emitValues(x86::Assembler &a, unsigned slot, const x86::Vec &v) {
    if (quantile_) {
      quantile_->emitDecode(a, v, isa_.vec(reg::kTemp + slot));
    } else if (unsignedValues()) {
      x86::Vec high = isa_.vec(reg::kTemp + slot);
      a.vpsrld(high, v, 16);
      a.vpslld(v, v, 16);
      a.vpsrld(v, v, 16);
      a.vcvtdq2ps(high, high);
      a.vmulps(high, high, isa_.vec(reg::kLow));
      a.vcvtdq2ps(v, v);
      a.vaddps(v, v, high);
    } else {
      a.vcvtdq2ps(v, v);
    }
  }

  /// The f32 entries of elements first..first+3 of an unrolled block →
  /// (· − z) · s → f32 at dst (its first element's); or 8 final 16-bit
  /// results, stored as they are.
  void emitFinishBlockPart(x86::Assembler &a, unsigned first, const x86::Xmm &v,
                           const x86::Mem &dst) {
    x86::Mem at = dst.cloneAdjusted(static_cast<int32_t>(dstBytes() * first));
    if (quantile_->halfResults()) {
      a.vmovdqu(at, v);
      return;
    }
    unsigned slot = first / lanes();
    auto quarter = [&](const asmjit::Operand &parameter) -> asmjit::Operand {
      if (parameter.isMem()) // The slot's per-element table entries.
        return parameter.as<x86::Mem>().cloneAdjusted(
            static_cast<int32_t>(4 * (first % lanes())));
      return parameter.as<x86::Vec>().xmm();
    };
    if (!quantile_->bakesParameters()) {
      if (!params_.zeroPointsAreZero())
        a.emit(x86::Inst::kIdVsubps, v, v, quarter(params_.zeroPoint(slot)));
      a.emit(x86::Inst::kIdVmulps, v, v, quarter(params_.scale(slot)));
    }
    streamingStores_ ? a.vmovntps(at, v) : a.vmovups(at, v);
  }

  /// i32 lanes q · 2^28 (X86PackedCodes::emitLoadTop) of a run whose z
  /// is 0 → q · s (the scale register holds s · 2^-28) → stored.
  void emitFinishTop(x86::Assembler &a, const x86::Vec &v,
                     const x86::Mem &dst) {
    a.vcvtdq2ps(v, v);
    a.vmulps(v, v, isa_.vec(reg::kScale));
    if (streamingStores_)
      a.vmovntps(dst, v);
    else
      emitStoreExpressed(a, isa_, spec_.expressed, dst, v, false);
  }

  /// f32 values (q, or the entry) → (· − z) · s → stored expressed.
  void emitFinish(x86::Assembler &a, unsigned slot, const x86::Vec &v,
                  const x86::Mem &dst, bool masked) {
    if (!quantile_ || !quantile_->bakesParameters()) {
      asmjit::Operand zeroPoint = runtimeTables_
                                      ? runtimeTables_->zeroPoint(slot)
                                      : params_.zeroPoint(slot);
      asmjit::Operand scale =
          runtimeTables_ ? runtimeTables_->scale(slot) : params_.scale(slot);
      if (!params_.zeroPointsAreZero())
        a.emit(x86::Inst::kIdVsubps, v, v, zeroPoint);
      a.emit(x86::Inst::kIdVmulps, v, v, scale);
    }
    if (streamingStores_)
      a.vmovntps(dst, v);
    else
      emitStoreExpressed(a, isa_, spec_.expressed, dst, v, masked);
  }

  const KernelSpec &spec_;
  X86Isa isa_;
  /// Baked f8E4M3FN parameters with the decoder's 2^-8 folded in.
  std::optional<KernelSpec> folded_;
  X86Parameters params_;
  /// Runtime per-axis parameters of short runs (X86PeriodicRuns.h).
  std::optional<X86RuntimeTables> runtimeTables_;
  std::optional<X86QuantileDecoder> quantile_;
  std::optional<X86FloatDecoder> floatDecoder_; ///< Float storage only.
  std::optional<X86PackedCodes> packed_;
  bool biased_ = false; ///< 4-bit codes loaded as laneBias + q.
  /// Signed 4-bit codes of runs in a group whose zero points are all 0
  /// (and whose shifted scales are exact) load as q · 2^28 instead: a
  /// conversion in place of the bias's subtraction, and a shorter decode.
  bool topCodes_ = false;
  bool loadedAhead_ = false, loadsNext_ = false; ///< setLoadsAhead().
  /// Unrolled blocks of 8/16-bit integers with one baked z ≠ 0 take
  /// their values as 1.5·2^23 + q (emitUnrolled).
  bool magicValues_ = false;
  /// Packed 4-bit tables at AVX-512 (x86LooksUpNibblesOnZmm): their
  /// constants' registers and data.
  bool looksUpNibbles_ = false;
  asmjit::Label nibbleData_;
  static constexpr unsigned kNibbleEntries = 24;
  static constexpr unsigned kNibbleControl = 25;
  static constexpr unsigned kNibbleShifts = 26;
  static constexpr unsigned kMagicBits = reg::kHalf; ///< bits(1.5·2^23).
  static constexpr unsigned kMagicZero = reg::kSign; ///< 1.5·2^23 + z.
  static constexpr uint32_t kMagic = 0x4b400000u;
  std::vector<Unbias> unbiases_;
};

} // namespace

void generateX86Dequantize(x86::Assembler &a, const X86Isa &isa,
                           const KernelSpec &spec) {
  if (x86ByteDequantizeApplies(spec, isa)) {
    generateX86ByteDequantize(a, isa, spec);
    return;
  }
  X86DequantizeGenerator(spec, isa).generate(a);
}

} // namespace qjit::asmjit_backend
