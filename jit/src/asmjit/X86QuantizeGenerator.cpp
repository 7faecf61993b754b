//===- X86QuantizeGenerator.cpp - qcast: expressed → stored ---------------===//
//
// Per vector, in f32 (C): u = x / s (vdivps: exact IEEE division, so the
// `divide` contract holds bit for bit; a multiply only when s is a power of
// two, see X86Parameters) or u = x · fl(1/s); NaN lanes of u
// become 0, which then yields the (clamped) zero point like the reference;
// the zero point is added before or after rounding; clamping in f32 to the
// integral bounds commutes with rounding, so it happens before the final
// conversion. Rounding never writes MXCSR; it uses embedded {rn-sae},
// rounding immediates, truncating converts, or vcvtps2dq in the default
// nearest-even mode (semantics 2.1). (Storage wider than 24 bits, f64
// values and zero points f32 cannot add exactly after rounding take
// X86WideGenerators instead: x86NeedsWideLanes.)
//
// AVX2 with 8-bit storage and a CheckedReciprocalPlan: the main loop
// multiplies by fl(1/s) instead, checks every lane (CheckedReciprocal.h
// has the proof), packs four vectors with saturating packs into one
// 32-byte store, and redoes the four vectors by division when any lane
// fails. In that mode vec(reg::kScale) holds fl(1/s) and the division
// (rare) reloads s per vector. Nearest-even before rounding with baked
// parameters of one zero point and the full 8-bit range brackets the
// rounding instead (emitBracketedFour: two FMAs and two conversions per
// vector, no subtraction, absolute value or clamp), on AVX2 and AVX-512
// (four zmm, 64 bytes a store; AVX-512 has no other checked form, and
// its heads and tails divide); other checked forms convert with vcvtps2dq
// and check |w - n| against the converted-back n.
//
// Packed storage stores its codes through X86PackedCodes: the checked
// mode's 32 packed bytes become 4·bits bytes, and the exact mode's main
// loop converts four vectors before one group store. Packed 4-bit tables
// with one baked scale (x86EncodesPackedTable) finish the search of a
// main-loop iteration on packed bytes instead (emitEncodeNibbles); heads
// and tails still store through X86PackedCodes.
// Float storage (X86FloatStorage.h): v = u + z goes to the format encoder
// instead of the integer rounding and clamp; the main loop packs its four
// vectors of codes into one 32-byte store (or X86PackedCodes' bytes for
// packed f4E2M1FN). With saturation, zero points 0 and one baked scale in
// [2^-32, 1], |x| is clamped before the scaling instead
// (emitClampedQuotient) and the encoder takes u = |x / s| as it is.
//
//===----------------------------------------------------------------------===//
#include "X86Conversions.h"
#include "X86FixedBracketBody.h"
#include "X86FloatStorage.h"
#include "X86Generators.h"
#include "X86KernelFrame.h"
#include "X86PackedCodes.h"
#include "X86Parameters.h"
#include "X86PeriodicRuns.h"
#include "X86QuantileStorage.h"

#include "../X86PackOrder.h"
#include "plan/CheckedReciprocal.h"
#include "plan/MarksteinDivision.h"

#include "qjit/internal/HostFloat.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <optional>
#include <vector>

namespace qjit::asmjit_backend {

namespace {

constexpr uint32_t kSignBit = 0x80000000u;
constexpr uint32_t kBelowHalf = 0x3effffffu; ///< pred(0.5) = 0.5 - 2^-25.
constexpr uint8_t kOrdered = 7;              ///< vcmpps: neither is NaN.
constexpr uint8_t kRoundNearest = 0x08;      ///< + suppress exceptions.
constexpr uint8_t kRoundTowardZero = 0x0b;

/// Registers of the checked-reciprocal mode (the exact path's kHalf
/// constant moves to memory; kScalar* serve runtime parameters only).
namespace fast {
constexpr unsigned kThreshold = reg::kHalf;
constexpr unsigned kLimit = reg::kScalar;
constexpr unsigned kNegLimit = reg::kScalar2;
/// The bracket's zero points z - m and -(z + m) (planBracket()).
constexpr unsigned kLowZero = reg::kScalar;
constexpr unsigned kHighZeroNegated = reg::kScalar2;
} // namespace fast

/// Registers of float storage with a clamped input (clampedInput_): zero
/// points are 0, saturate is on and the encoder leaves kHigh and kHalf free
/// (X86FloatEncoder::clampsInput), so a slot's third register (its
/// quotient or its exponent) is kSlotThird[slot].
namespace clamped {
constexpr unsigned kInputBound = reg::kZeroPoint;
constexpr unsigned kSlotThird[reg::kUnroll] = {reg::kHigh, reg::kHalf,
                                               reg::kScalar, reg::kScalar2};
} // namespace clamped

class X86QuantizeGenerator final : public X86VectorBody {
public:
  X86QuantizeGenerator(const KernelSpec &spec, const X86Isa &isa)
      : spec_(spec), isa_(isa), params_(spec, isa,
                                        spec.knobs.scaleOp == ScaleOp::Divide
                                            ? ScaleUse::Divide
                                            : ScaleUse::MultiplyByReciprocal) {
    if (spec.storage.packed)
      packed_.emplace(spec.storage.bits, spec.storage.isSigned);
    if (spec.storage.kind == StorageType::Kind::Quantile) {
      quantile_.emplace(spec);
      nibbles_ = x86EncodesPackedTable(spec);
      return;
    }
    if (spec.storage.kind == StorageType::Kind::Float) {
      floatEncoder_.emplace(spec, isa);
      planCorrectedQuotient();
    }
    planClamp();
    planChecked();
    if (X86RuntimeTables::applies(spec, lanes()))
      runtimeTables_.emplace(spec, lanes());
  }

  void generate(x86::Assembler &a, const X86FrameOptions &options) {
    emitX86Kernel(a, isa_, spec_, *this, options);
  }

  unsigned lanes() const override { return isa_.vectorBytes() / 4; }
  unsigned srcBytes() const override { return valueTypeBytes(spec_.expressed); }
  unsigned dstBytes() const override { return spec_.storage.containerBytes(); }
  unsigned dstPackedBits() const override {
    return packed_ ? packed_->bits() : 0;
  }

  void emitConstants(x86::Assembler &a) override {
    if (packsFour())
      dataLabel_ = a.newLabel();
    if (quantile_) {
      quantile_->emitConstants(a);
      return;
    }
    if (checked_) {
      // Passing lanes have |w - n| < threshold: bit patterns below it.
      emitBroadcastImmediate(a, isa_, isa_.vec(fast::kThreshold),
                             floatBits(checked_->threshold) - 1);
      emitBroadcastImmediate(a, isa_, isa_.vec(reg::kSign), kSignBit);
      if (setsLimitsOnce())
        emitLimits(a);
      if (bracket_) {
        // m = 1/2 - threshold; z ± m are exact (|z| < L, m = 2^-20·L).
        float z = static_cast<float>(spec_.params.zeroPoints[0]);
        float margin = 0.5f - checked_->threshold;
        emitBroadcastImmediate(a, isa_, isa_.vec(fast::kLowZero),
                               floatBits(z - margin));
        emitBroadcastImmediate(a, isa_, isa_.vec(fast::kHighZeroNegated),
                               floatBits(-(z + margin)));
      }
    }
    if (runtimeTables_)
      runtimeTables_->emitFill(a, params_, spec_.expressed,
                               checked_ ? isa_.vec(fast::kThreshold)
                                        : x86::Vec());
    if (floatEncoder_) {
      if (clampedInput_)
        emitBroadcastImmediate(a, isa_, isa_.vec(clamped::kInputBound),
                               floatBits(*clampedInput_));
      floatEncoder_->emitConstants(a);
      return;
    }
    if (clampLow_)
      emitBroadcastImmediate(a, isa_, isa_.vec(reg::kLow),
                             floatBits(static_cast<float>(spec_.storage.min)));
    if (clampHigh_)
      emitBroadcastImmediate(a, isa_, isa_.vec(reg::kHigh),
                             floatBits(static_cast<float>(spec_.storage.max)));
    if (spec_.knobs.rounding == RoundingMode::NearestAway && !checked_) {
      emitBroadcastImmediate(a, isa_, isa_.vec(reg::kSign), kSignBit);
      emitBroadcastImmediate(a, isa_, isa_.vec(reg::kHalf), kBelowHalf);
    }
  }

  void emitParameters(x86::Assembler &a) override {
    // The search of nibbles_ reads x itself: the parameter registers hold
    // its tables, reloaded per run (heads and tails clobber kLow and
    // kHigh at most).
    if (nibbles_)
      quantile_->emitNibbleTables(a, nibbleTables());
    else if (runtimeTables_)
      runtimeTables_->emitLoad(a);
    else
      params_.emitLoad(a);
    // Runtime loads use kScalar*, the limits' registers (planChecked).
    if (checked_ && roundsFirst() && !setsLimitsOnce())
      emitLimits(a);
  }
  unsigned parameterBytes() const override {
    return runtimeTables_ ? 4 : params_.parameterBytes();
  }
  int32_t parameterStackBytes() const override {
    return runtimeTables_ ? runtimeTables_->stackBytes() : 0;
  }
  X86ParameterGroups *parameterGroups() override {
    return !quantile_ && !floatEncoder_ && params_.groupsRuntimeLoads()
               ? &params_
               : nullptr;
  }
  void emitData(x86::Assembler &a) override {
    // The divisions of failing groups, out of the way of the fast path
    // (before the parameter data: they may create its labels).
    for (const Division &division : divisions_) {
      if (division.withTwin)
        continue;
      a.bind(division.start);
      if (division.zeroFreeTwin.isValid())
        a.bind(division.zeroFreeTwin);
      for (unsigned j = 0; j < division.vectors; ++j)
        emitExactVector(
            a, division.slot + j,
            division.src.cloneAdjusted(int32_t(j) * srcVectorBytes()),
            division.dst.cloneAdjusted(int32_t(j) * dstVectorBytes()), false);
      a.jmp(division.back);
    }
    params_.emitData(a);
    if (quantile_)
      quantile_->emitData(a);
    if (floatEncoder_)
      floatEncoder_->emitData(a);
    if (packed_)
      packed_->emitData(a);
    if (!packsFour())
      return;
    // The half-away constant as a full vector, then vpermd's dword order
    // for the packed bytes of four vectors.
    a.align(asmjit::AlignMode::kData, kDataAlignment);
    a.bind(dataLabel_);
    for (unsigned lane = 0; lane < 8; ++lane)
      a.embedUInt32(kBelowHalf);
    for (uint32_t index : kPackedDwordOrder)
      a.embedUInt32(index);
    if (isa_.avx512()) {
      // (Float storage, which embeds reciprocal_ here, is AVX2 code.)
      for (uint32_t index : kZmmPackedDwordOrder)
        a.embedUInt32(index);
      return;
    }
    if (!reciprocal_)
      return;
    for (float value : {*reciprocal_, plan::kMarksteinQuotientBound,
                        -plan::kMarksteinQuotientBound})
      for (unsigned lane = 0; lane < 8; ++lane)
        a.embedUInt32(floatBits(value));
  }

  void emitUnrolled(x86::Assembler &a, const x86::Mem &src,
                    const x86::Mem &dst) override {
    if (nibbles_) {
      std::array<x86::Vec, reg::kUnroll> values, positions;
      for (unsigned j = 0; j < reg::kUnroll; ++j) {
        values[j] = isa_.vec(reg::kWork + j);
        positions[j] = isa_.vec(reg::kTemp + j);
        emitLoadExpressed(a, isa_, spec_.expressed, values[j],
                          src.cloneAdjusted(int32_t(j) * srcVectorBytes()),
                          false);
      }
      const std::array<x86::Vec, reg::kUnroll> masks = {
          isa_.vec(reg::kHigh), isa_.vec(reg::kHalf), isa_.vec(reg::kSign),
          isa_.vec(reg::kScalar)};
      quantile_->emitEncodeNibbles(a, values, positions, masks,
                                   isa_.vec(reg::kLow), nibbleTables(), dst);
      return;
    }
    if (packsQuantile()) {
      x86::Vec values[reg::kUnroll], stored[reg::kUnroll];
      for (unsigned j = 0; j < reg::kUnroll; ++j) {
        values[j] = isa_.vec(reg::kWork + j);
        stored[j] = isa_.vec(reg::kTemp + j);
        emitLoadExpressed(a, isa_, spec_.expressed, values[j],
                          src.cloneAdjusted(int32_t(j) * srcVectorBytes()),
                          false);
        emitQuantileInput(a, j, values[j], stored[j]);
      }
      quantile_->emitEncode(a, values, stored);
      emitPackFour(a, stored, values[0], values[1], dst);
      return;
    }
    if (floatEncoder_) {
      // All divisions first: their latency overlaps the encoding.
      x86::Vec codes[reg::kUnroll];
      for (unsigned j = 0; j < reg::kUnroll; ++j) {
        codes[j] = isa_.vec(reg::kWork + j);
        x86::Mem at = src.cloneAdjusted(int32_t(j) * srcVectorBytes());
        clampedInput_ ? emitClampedQuotient(a, j, at, false, j % 2 == 1)
                      : emitScaledFloat(a, j, at, false);
      }
      for (unsigned j = 0; j < reg::kUnroll; ++j)
        clampedInput_
            ? emitClampedCodes(a, j, j % 2 == 1)
            : floatEncoder_->emitEncode(a, codes[j], isa_.vec(reg::kTemp + j));
      emitPackFour(a, codes, isa_.vec(reg::kTemp), isa_.vec(reg::kTemp + 1),
                   dst);
      return;
    }
    if (!checked_ && packed_) {
      std::array<x86::Vec, reg::kUnroll> v;
      for (unsigned j = 0; j < reg::kUnroll; ++j) {
        v[j] = isa_.vec(reg::kWork + j);
        emitQuantize(a, j, src.cloneAdjusted(int32_t(j) * srcVectorBytes()),
                     false);
      }
      packed_->emitStoreGroup(a, dst, v); // Lanes are within the bounds.
      return;
    }
    if (!checked_) {
      X86VectorBody::emitUnrolled(a, src, dst);
      return;
    }
    if (bracket_) {
      emitBracketedFour(a, src, dst);
      return;
    }
    asmjit::Label divide = a.newLabel(), done = a.newLabel();
    x86::Vec fail[reg::kUnroll], result[reg::kUnroll];
    for (unsigned j = 0; j < reg::kUnroll; ++j) {
      fail[j] = isa_.vec(reg::kWork + j);
      result[j] = isa_.vec(reg::kTemp + j);
    }
    // |w - n| as integers orders like the floats, NaN above them all: the
    // largest of the group fails exactly when any lane does. Folding each
    // vector into fail[0] as it comes frees a work register for the next
    // vector's scratch (the last one reuses fail[1]).
    for (unsigned j = 0; j < reg::kUnroll; ++j) {
      x86::Vec scratch = fail[j + 1 < reg::kUnroll ? j + 1 : 1];
      emitCheckedVector(a, j,
                        src.cloneAdjusted(int32_t(j * lanes() * srcBytes())),
                        fail[j], result[j], scratch);
      if (j > 0)
        a.vpmaxud(fail[0], fail[0], fail[j]);
    }
    a.vpcmpgtd(fail[0], fail[0], isa_.vec(fast::kThreshold));
    a.vptest(fail[0], fail[0]);
    a.jnz(divide);
    emitPackFour(a, result, fail[0], fail[1], dst);
    a.bind(done);
    addDivision({divide, done, src, dst, 0, reg::kUnroll, {}, false});
  }

  bool canStreamStores() const override { return packsFour(); }

  void emitVector(x86::Assembler &a, unsigned slot, const x86::Mem &src,
                  const x86::Mem &dst, bool masked) override {
    if (floatEncoder_) {
      if (clampedInput_) {
        emitClampedQuotient(a, slot, src, masked, false);
        emitClampedCodes(a, slot, false);
      } else {
        emitScaledFloat(a, slot, src, masked);
        floatEncoder_->emitEncode(a, isa_.vec(reg::kWork + slot),
                                  isa_.vec(reg::kTemp + slot));
      }
      emitFloatCodes(a, slot, dst, masked);
      return;
    }
    x86::Vec v = isa_.vec(reg::kWork + slot), t = isa_.vec(reg::kTemp + slot);
    if (quantile_) {
      emitLoadExpressed(a, isa_, spec_.expressed, v, src, masked);
      emitQuantileInput(a, slot, v, t);
      quantile_->emitEncode(a, std::span(&v, 1), std::span(&t, 1));
      if (packed_)
        packed_->emitStore(a, dst, t, v);
      else
        emitStoreStored(a, isa_, spec_.storage, dst, t, v, masked,
                        Narrowing::Truncate);
      return;
    }
    if (checked_ && !packed_ && !masked && !isa_.avx512()) {
      emitCheckedSingle(a, slot, src, dst);
      return;
    }
    emitExactVector(a, slot, src, dst, masked);
  }

private:
  /// A group to divide after all, emitted after the kernel's code.
  struct Division {
    asmjit::Label start, back;
    x86::Mem src, dst;
    unsigned slot, vectors; ///< Register slots slot .. slot + vectors - 1.
    /// The same division in the zero-point-free copy of the group's runs
    /// (addDivision): it shares this one's code.
    asmjit::Label zeroFreeTwin;
    bool withTwin = false; ///< A zero-free copy's, emitted by its twin.
  };

  /// Records a division to emit out of line (emitData). The general copy
  /// of a group's runs (X86Parameters::setGroupZeroPointsZero) shares the
  /// code of its
  /// divisions with the zero-point-free copy, whose division returns into
  /// the general copy: the zero point register holds 0 in both, and the
  /// general runs are exact for groups without zero points too (see
  /// groupsSkipZeroPoints).
  void addDivision(Division division) {
    if (params_.zeroFreeCopies() != zeroFreeCopy_) {
      // A new zero-point-free copy began: it pairs with the next general
      // copy only.
      zeroFreeCopy_ = params_.zeroFreeCopies();
      zeroFreeDivisions_.clear();
      nextTwin_ = 0;
    }
    if (params_.groupZeroPointsZero()) {
      zeroFreeDivisions_.push_back(divisions_.size());
    } else if (nextTwin_ < zeroFreeDivisions_.size()) {
      Division &twin = divisions_[zeroFreeDivisions_[nextTwin_]];
      if (twin.src == division.src && twin.dst == division.dst &&
          twin.slot == division.slot && twin.vectors == division.vectors) {
        twin.withTwin = true;
        division.zeroFreeTwin = twin.start;
        ++nextTwin_;
      } else {
        zeroFreeDivisions_.clear(); // Not the general copy: no pairs.
      }
    }
    divisions_.push_back(division);
  }

  /// One vector of integer storage with the exact scaling (the division,
  /// in the checked mode).
  void emitExactVector(x86::Assembler &a, unsigned slot, const x86::Mem &src,
                       const x86::Mem &dst, bool masked) {
    x86::Vec v = isa_.vec(reg::kWork + slot), t = isa_.vec(reg::kTemp + slot);
    emitQuantize(a, slot, src, masked);
    if (packed_)
      packed_->emitStore(a, dst, v, t);
    else
      emitStoreStored(a, isa_, spec_.storage, dst, v, t, masked,
                      Narrowing::Saturate);
  }

  /// The checked mode on one vector (runs and tails shorter than an
  /// unrolled block): its 8 bytes, or the division when a lane fails.
  /// Clobbers the next slot's work register too.
  void emitCheckedSingle(x86::Assembler &a, unsigned slot, const x86::Mem &src,
                         const x86::Mem &dst) {
    asmjit::Label divide = a.newLabel(), done = a.newLabel();
    x86::Vec fail = isa_.vec(reg::kWork + slot),
             result = isa_.vec(reg::kTemp + slot);
    x86::Xmm high = x86::xmm(reg::kWork + (slot + 1) % reg::kUnroll);
    emitCheckedVector(a, slot, src, fail, result, isa_.vec(high.id()));
    a.vpcmpgtd(fail, fail, isa_.vec(fast::kThreshold));
    a.vptest(fail, fail);
    a.jnz(divide);
    a.vextracti128(high, result, 1);
    a.vpackssdw(result.xmm(), result.xmm(), high);
    spec_.storage.isSigned
        ? a.vpacksswb(result.xmm(), result.xmm(), result.xmm())
        : a.vpackuswb(result.xmm(), result.xmm(), result.xmm());
    a.vmovq(dst, result.xmm());
    a.bind(done);
    addDivision({divide, done, src, dst, slot, 1, {}, false});
  }
  /// Expressed values at `src` to i32 stored values in vec(kWork + slot)
  /// (within the bounds on AVX2; AVX-512 stores may saturate them).
  void emitQuantize(x86::Assembler &a, unsigned slot, const x86::Mem &src,
                    bool masked) {
    x86::Vec v = isa_.vec(reg::kWork + slot), t = isa_.vec(reg::kTemp + slot);
    emitLoadExpressed(a, isa_, spec_.expressed, v, src, masked);
    emitScale(a, slot, v, t);
    bool addZero = !params_.zeroPointsAreZero();
    if (spec_.knobs.zeroPoint == ZeroPointOrder::BeforeRounding) {
      if (addZero)
        a.emit(x86::Inst::kIdVaddps, v, v, zeroPointOf(slot));
      emitClamp(a, v);
      emitConvert(a, v, t);
    } else {
      emitRoundToIntegral(a, v, t);
      if (addZero)
        a.emit(x86::Inst::kIdVaddps, v, v, zeroPointOf(slot));
      emitClamp(a, v);
      a.vcvttps2dq(v, v);
    }
  }

  X86QuantileEncoder::NibbleTables nibbleTables() const {
    return {isa_.vec(reg::kScale), isa_.vec(reg::kZeroPoint),
            isa_.vec(reg::kScalar2)};
  }

  /// Quantile storage in one-byte containers: a main-loop iteration packs
  /// its four vectors into one 32-byte store.
  bool packsQuantile() const {
    return quantile_ && spec_.storage.containerBytes() == 1;
  }
  /// Main-loop iterations that store through emitPackFour.
  bool packsFour() const {
    return checked_ || packsQuantile() || floatEncoder_;
  }
  /// The packs' saturation: float codes as the encoder leaves them.
  bool packsSigned() const {
    return floatEncoder_ ? floatEncoder_->signedCodes()
                         : spec_.storage.isSigned;
  }

  /// x of `slot` in `v` → what the quantile search takes: x itself, or
  /// v = u + z (`t` clobbered).
  void emitQuantileInput(x86::Assembler &a, unsigned slot, const x86::Vec &v,
                         const x86::Vec &t) {
    if (quantile_->searchesInput())
      return;
    emitScale(a, slot, v, t); // NaN lanes of u are 0: v = z.
    if (!params_.zeroPointsAreZero())
      a.emit(x86::Inst::kIdVaddps, v, v, zeroPointOf(slot));
  }

  /// 32 i32 lanes (each within the container) → 32 one-byte (or packed)
  /// values at `dst`; the packs saturate to the container. `temp` and
  /// `temp2` are clobbered.
  void emitPackFour(x86::Assembler &a, const x86::Vec (&result)[reg::kUnroll],
                    const x86::Vec &temp, const x86::Vec &temp2,
                    const x86::Mem &dst) {
    a.vpackssdw(result[0], result[0], result[1]);
    a.vpackssdw(result[2], result[2], result[3]);
    emitPackWords(a, result[0], result[2], temp, temp2, dst);
  }
  /// The i16 lanes of emitPackFour's two word vectors (`low` clobbered).
  void emitPackWords(x86::Assembler &a, const x86::Vec &low,
                     const x86::Vec &high, const x86::Vec &temp,
                     const x86::Vec &temp2, const x86::Mem &dst) {
    packsSigned() ? a.vpacksswb(low, low, high) : a.vpackuswb(low, low, high);
    isa_.avx512() ? a.vmovdqu32(temp, dataAt(kZmmOrderOffset))
                  : a.vmovdqu(temp, dataAt(kPackOrderOffset));
    a.vpermd(low, temp, low);
    if (packed_)
      packed_->emitStoreBytes(a, dst, low, temp2);
    else
      streamingStores_ ? a.vmovntdq(dst, low)
      : isa_.avx512()  ? a.vmovdqu32(dst, low)
                       : a.vmovdqu(dst, low);
  }

  /// Float storage: v = u + z into the slot's register.
  void emitScaledFloat(x86::Assembler &a, unsigned slot, const x86::Mem &src,
                       bool masked) {
    x86::Vec v = isa_.vec(reg::kWork + slot), t = isa_.vec(reg::kTemp + slot);
    emitLoadExpressed(a, isa_, spec_.expressed, v, src, masked);
    emitScale(a, slot, v, t);
    if (!params_.zeroPointsAreZero())
      a.emit(x86::Inst::kIdVaddps, v, v, zeroPointOf(slot));
  }
  /// Float storage: the slot's codes stored.
  void emitFloatCodes(x86::Assembler &a, unsigned slot, const x86::Mem &dst,
                      bool masked) {
    x86::Vec v = isa_.vec(reg::kWork + slot), t = isa_.vec(reg::kTemp + slot);
    if (packed_) {
      packed_->emitStore(a, dst, v, t);
      return;
    }
    StorageSpec codes = spec_.storage;
    codes.isSigned = floatEncoder_->signedCodes();
    emitStoreStored(a, isa_, codes, dst, v, t, masked, Narrowing::Saturate);
  }

  /// Float storage with one baked scale s in [2^-32, 1], f32 and AVX2:
  /// fl(x / s) from fl(1/s) by one multiplication, a bound and two FMAs
  /// instead of vdivps (plan/MarksteinDivision.h, the one-correction form,
  /// has the proof), for the odd slots (two of a main-loop iteration's
  /// four vectors): measured +4-6% fp8 qcast on Zen 1, whose divider and
  /// µop count bound that loop about evenly (all four slots: 0.9x).
  void planCorrectedQuotient() {
    if (isa_.avx512() || spec_.params.runtime ||
        spec_.layout.kind != LayoutSpec::Kind::PerTensor ||
        spec_.expressed != ValueType::F32 ||
        params_.scaleInstruction() != x86::Inst::kIdVdivps)
      return;
    auto s = static_cast<float>(bakedScale(spec_, 0));
    if (!plan::marksteinScaleInRange(plan::MarksteinForm::OneCorrection, s))
      return;
    reciprocal_ = 1.0f / s; // f32 division: fl(1/s).
    std::optional<double> top = floatEncoder_->saturatingQuotient();
    if (!top || !params_.zeroPointsAreZero() || packed_)
      return;
    clampedInput_ = static_cast<float>(*top * s); // RN of an exact product.
    floatEncoder_.emplace(spec_, isa_, true);
  }

  /// Float storage with a clamped input (saturate on, zero points 0, one
  /// baked scale s in [2^-32, 1], f32, AVX2): per lane a = min(|x|, X) with
  /// X = RN(H·s) (H = saturatingQuotient(): X/s = H(1 + d), |d| <= 2^-24,
  /// so fl(X/s) rounds to the largest code), then u = fl(a/s) by vdivps,
  /// or in Markstein slots by q = RN(a·y), r = a - q·s, u = RN(q + r·y)
  /// with y = fl(1/s), which is fl(a/s) as well where it matters:
  ///  * a = X (|x| >= X, ±inf): the reference's |fl(x/s)| >= fl(X/s)
  ///    saturates to the largest code, and so does u = fl(X/s) below.
  ///  * a/s >= 2^-30: no step overflows (q <= 2·largest) or underflows, and
  ///    Markstein's theorem (plan/MarksteinDivision.h) gives u = fl(a/s).
  ///  * a/s < 2^-30: q <= 2^-29, |r| <= 4a, |r·y| <= 2^-27, so |u| <
  ///    2^-26: the magnitude code 0, as |fl(x/s)| < 2^-29 has (the encoder
  ///    takes (-q/4, -0] as 0 too, q = 2^-9 or 2^-16 the smallest
  ///    subnormal).
  ///  * NaN x: a, q, r and u are NaN (sign bits aside), the NaN code.
  /// u = |fl(x/s)| in [0, largest] needs no clamp in the encoder. The sign
  /// is x's (emitPositiveMask): fl(x/s) has it, -0 included (zero points
  /// 0 are not added), and NaN lanes take the positive NaN code. The main
  /// loop's odd slots take Markstein's form, the even ones the division: the
  /// divider and the FP pipes share the load (measured on Zen 1: +5% over
  /// clamping after the scaling). Leaves the positive mask in vec(kWork + slot)
  /// and u in vec(kTemp + slot) (division) or kSlotThird[slot] (Markstein).
  void emitClampedQuotient(x86::Assembler &a, unsigned slot,
                           const x86::Mem &src, bool masked, bool markstein) {
    x86::Vec v = isa_.vec(reg::kWork + slot), t = isa_.vec(reg::kTemp + slot);
    x86::Vec third = isa_.vec(clamped::kSlotThird[slot]);
    emitLoadExpressed(a, isa_, spec_.expressed, v, src, masked);
    floatEncoder_->emitAbs(a, t, v);
    a.vminps(t, isa_.vec(clamped::kInputBound), t); // NaN stays.
    floatEncoder_->emitPositiveMask(a, v, v);
    if (!markstein) {
      a.vdivps(t, t, isa_.vec(reg::kScale));
      return;
    }
    a.vmulps(third, t, dataAt(kReciprocalOffset));
    a.vfnmadd231ps(t, third, isa_.vec(reg::kScale)); // r = a - q·s.
    a.vfmadd231ps(third, t, dataAt(kReciprocalOffset));
  }
  /// emitClampedQuotient's lanes → the codes in vec(kWork + slot).
  void emitClampedCodes(x86::Assembler &a, unsigned slot, bool markstein) {
    x86::Vec t = isa_.vec(reg::kTemp + slot);
    x86::Vec third = isa_.vec(clamped::kSlotThird[slot]);
    floatEncoder_->emitEncodeMagnitude(a, markstein ? third : t,
                                       isa_.vec(reg::kWork + slot),
                                       markstein ? t : third);
  }

  bool roundsFirst() const {
    return spec_.knobs.zeroPoint == ZeroPointOrder::AfterRounding;
  }
  /// The checked mode's limits (after rounding) in kScalar*: set with the
  /// constants unless runtime parameter loads clobber them.
  bool setsLimitsOnce() const { return roundsFirst() && !spec_.params.runtime; }

  void emitLimits(x86::Assembler &a) {
    emitBroadcastImmediate(a, isa_, isa_.vec(fast::kLimit),
                           floatBits(checked_->limit));
    emitBroadcastImmediate(a, isa_, isa_.vec(fast::kNegLimit),
                           floatBits(-checked_->limit));
  }

  /// The checked-reciprocal mode: AVX2, 8-bit containers.
  void planChecked() {
    if (spec_.storage.containerBytes() != 1 ||
        params_.scaleInstruction() != x86::Inst::kIdVdivps)
      return;
    // Runtime parameters after rounding: the limits follow each load of
    // the parameters (emitParameters), which per-axis groups do mid-loop.
    if (spec_.params.runtime && roundsFirst() &&
        spec_.layout.kind != LayoutSpec::Kind::PerTensor)
      return;
    checked_ = plan::planCheckedReciprocal(spec_);
    bracket_ = planBracket();
    if (isa_.avx512() && !bracket_)
      checked_.reset(); // AVX-512 has the bracketed main loop only.
    if (checked_)
      params_.keepReciprocals(isa_.vec(fast::kThreshold),
                              floatBits(checked_->threshold) - 1,
                              checked_->zeroPointLimit);
    // The packs saturate to the container; only narrower bounds need
    // clamps (before rounding, the lanes that convert to INT32_MIN fail;
    // after rounding, n is clamped at the high bound anyway).
    int64_t containerMin = spec_.storage.isSigned ? -128 : 0;
    int64_t containerMax = spec_.storage.isSigned ? 127 : 255;
    checkedClampLow_ = spec_.storage.min > containerMin;
    checkedClampHigh_ = spec_.storage.max < containerMax;
  }

  asmjit::Operand zeroPointOf(unsigned slot) const {
    return runtimeTables_ ? runtimeTables_->zeroPoint(slot)
                          : params_.zeroPoint(slot);
  }

  x86::Mem dataAt(int32_t offset) const { return x86::ptr(dataLabel_, offset); }

  /// One vector of the checked mode: `fail` gets |w - n| (NaN for NaN
  /// lanes), which must stay below the threshold; `result` the i32
  /// results of the lanes that do. `scratch` is clobbered.
  void emitCheckedVector(x86::Assembler &a, unsigned slot, const x86::Mem &src,
                         const x86::Vec &fail, const x86::Vec &result,
                         const x86::Vec &scratch) {
    x86::Vec w = fail, n = result;
    asmjit::Operand reciprocal =
        runtimeTables_ ? runtimeTables_->scale(slot) : params_.reciprocal(slot);
    asmjit::Operand zeroPoint = zeroPointOf(slot);
    bool addZero = !params_.zeroPointsAreZero();
    bool before = spec_.knobs.zeroPoint == ZeroPointOrder::BeforeRounding;
    if (before && addZero && (reciprocal.isReg() || zeroPoint.isReg())) {
      // w = RN(x·y + z), one rounding (the proof allows it).
      emitLoadExpressed(a, isa_, spec_.expressed, w, src, false);
      reciprocal.isReg()
          ? a.emit(x86::Inst::kIdVfmadd213ps, w, reciprocal, zeroPoint)
          : a.emit(x86::Inst::kIdVfmadd132ps, w, zeroPoint, reciprocal);
    } else if (spec_.expressed == ValueType::F32 && reciprocal.isReg()) {
      a.emit(x86::Inst::kIdVmulps, w, reciprocal, src); // Load folded in.
    } else {
      emitLoadExpressed(a, isa_, spec_.expressed, w, src, false);
      a.emit(x86::Inst::kIdVmulps, w, w, reciprocal);
    }
    // Clamps keep NaN lanes NaN (vminps/vmaxps return their second
    // operand when either is NaN), so that they fail the check.
    if (!before) {
      a.vminps(w, isa_.vec(fast::kLimit), w);
      a.vmaxps(w, isa_.vec(fast::kNegLimit), w);
      a.vroundps(n, w, kRoundNearest);
      a.vsubps(w, w, n);
      a.vandnps(fail, isa_.vec(reg::kSign), w); // |w - n|, or NaN.
      if (addZero)
        a.emit(x86::Inst::kIdVaddps, n, n, zeroPointOf(slot));
      a.vminps(n, n, isa_.vec(reg::kHigh));
      if (checkedClampLow_)
        a.vmaxps(n, n, isa_.vec(reg::kLow));
      a.vcvttps2dq(n, n);
      return;
    }
    if (addZero && !(reciprocal.isReg() || zeroPoint.isReg()))
      a.emit(x86::Inst::kIdVaddps, w, w, zeroPoint);
    if (checkedClampHigh_)
      a.vminps(w, isa_.vec(reg::kHigh), w);
    if (checkedClampLow_)
      a.vmaxps(w, isa_.vec(reg::kLow), w);
    // n = roundeven(w) by the conversion itself (the default environment
    // rounds to nearest even, as for the FMA above). |w| >= 2^31 and NaN
    // convert to INT32_MIN, whose -2^31 is far from w (or NaN): they fail,
    // so only lanes in the container's range need clamps (the packs
    // saturate the others).
    a.vcvtps2dq(n, w);
    a.vcvtdq2ps(scratch, n);
    a.vsubps(w, w, scratch);
    a.vandnps(fail, isa_.vec(reg::kSign), w); // |w - n|, or NaN.
  }

  /// The checked mode's main loop with nearest-even rounding before
  /// clamping, baked per-tensor parameters and the container's bounds
  /// (CheckedReciprocal.h, "bracket"): per lane a = RN(x·y + (z − m)) and
  /// b = RN(x·y + (z + m)) round to the same integer, which the lane
  /// stores. The kernel converts a and −b (vfnmadd, RNE by the default
  /// environment like the FMA), narrows both to i16 with saturation and
  /// adds them with saturation: zero exactly when RNE(a) = RNE(b) lies in
  /// ±32767 (NaN, ±inf and |x·y| >= 2^31 convert to INT32_MIN: −32768,
  /// never zero). No lane needs a subtraction, an absolute value or a
  /// clamp.
  void emitBracketedFour(x86::Assembler &a, const x86::Mem &src,
                         const x86::Mem &dst) {
    asmjit::Label divide = a.newLabel(), done = a.newLabel();
    x86::Vec low[reg::kUnroll], high[reg::kUnroll];
    for (unsigned j = 0; j < reg::kUnroll; ++j) {
      low[j] = isa_.vec(reg::kTemp + j);
      high[j] = isa_.vec(reg::kWork + j);
    }
    x86::Vec y = isa_.vec(reg::kScale);
    for (unsigned j = 0; j < reg::kUnroll; ++j) {
      x86::Mem at = src.cloneAdjusted(int32_t(j * lanes() * srcBytes()));
      emitLoadExpressed(a, isa_, spec_.expressed, high[j], at, false);
      emitLoadExpressed(a, isa_, spec_.expressed, low[j], at, false);
      a.vfmadd213ps(low[j], y, isa_.vec(fast::kLowZero));
      a.vfnmadd213ps(high[j], y, isa_.vec(fast::kHighZeroNegated));
      a.vcvtps2dq(low[j], low[j]);
      a.vcvtps2dq(high[j], high[j]);
      if (j % 2 == 1) {
        // Words of vectors j - 1 and j; their check sum into high[j - 1].
        a.vpackssdw(low[j - 1], low[j - 1], low[j]);
        a.vpackssdw(high[j - 1], high[j - 1], high[j]);
        a.vpaddsw(high[j - 1], high[j - 1], low[j - 1]);
      }
    }
    if (isa_.avx512()) {
      a.vpord(high[0], high[0], high[2]);
      a.vptestmd(reg::nanMask(0), high[0], high[0]);
      a.kortestw(reg::nanMask(0), reg::nanMask(0));
    } else {
      a.vpor(high[0], high[0], high[2]);
      a.vptest(high[0], high[0]);
    }
    a.jnz(divide);
    emitPackWords(a, low[0], low[2], high[0], high[1], dst);
    a.bind(done);
    addDivision({divide, done, src, dst, 0, reg::kUnroll, {}, false});
  }

  /// Whether the main loop brackets the rounding (emitBracketedFour).
  bool planBracket() const {
    // z ± m live in two registers for the whole call: one zero point.
    const std::vector<int64_t> &zeros = spec_.params.zeroPoints;
    return checked_ && checked_->bracket && !packed_ && !params_.perElement() &&
           std::all_of(zeros.begin(), zeros.end(),
                       [&](int64_t z) { return z == zeros.front(); });
  }

  /// Which f32 clamps the store needs. AVX-512's saturating narrows
  /// (vpmovsdb, vpmovusdb, ...) clamp to the container's range for free,
  /// provided the conversion is in range: out-of-range converts give
  /// 0x80000000, which saturates correctly only downwards (signed) or
  /// upwards (unsigned, as 2^31). AVX2 packs need every lane in range.
  void planClamp() {
    const StorageSpec &s = spec_.storage;
    unsigned bits = s.containerBytes() * 8;
    if (!isa_.avx512() || bits == 32) {
      clampLow_ = clampHigh_ = true;
      return;
    }
    int64_t containerMin = s.isSigned ? -(int64_t(1) << (bits - 1)) : 0;
    int64_t containerMax =
        s.isSigned ? (int64_t(1) << (bits - 1)) - 1 : (int64_t(1) << bits) - 1;
    clampLow_ = !s.isSigned || s.min > containerMin;
    clampHigh_ = s.isSigned || s.max < containerMax;
  }

  /// u = x / s or x · (1/s), NaN lanes → 0 (unless the float encoder
  /// encodes NaN itself).
  void emitScale(x86::Assembler &a, unsigned slot, const x86::Vec &v,
                 const x86::Vec &t) {
    asmjit::Operand scale =
        runtimeTables_ ? runtimeTables_->scale(slot) : params_.scale(slot);
    if (checked_ && runtimeTables_) {
      scale = runtimeTables_->divisor(slot);
    } else if (checked_ && !params_.perElement()) {
      params_.emitLoadScale(a, t); // The register holds fl(1/s).
      scale = t;
    }
    asmjit::InstId op = params_.scaleInstruction();
    auto scaleOp = [&](x86::Assembler &as) { as.emit(op, v, v, scale); };
    if (reciprocal_ && slot % 2 == 1) {
      // q = x · fl(1/s) bounded (NaN lanes of x stay NaN through the
      // residual), the exact residual x - q·s, then fl(q + residual ·
      // fl(1/s)) = fl(x / s) (plan/MarksteinDivision.h, one correction).
      // The residual is negated, q·s - x, and subtracted: the same values,
      // but x = -0 keeps its sign (-0 - (+0·y) is -0, where the sum of
      // q = -0 and x - q·s = +0 would be +0).
      a.vmulps(t, v, dataAt(kReciprocalOffset));
      a.vminps(t, t, dataAt(kQuotientHighOffset));
      a.vmaxps(t, t, dataAt(kQuotientLowOffset));
      a.emit(x86::Inst::kIdVfmsub231ps, v, t, scale);
      a.vfnmadd132ps(v, t, dataAt(kReciprocalOffset));
      if (floatEncoder_->encodesNaN())
        return;
      a.vcmpps(t, v, v, kOrdered);
      a.vandps(v, v, t);
      return;
    }
    if (!isa_.avx512()) {
      scaleOp(a);
      if (floatEncoder_ && floatEncoder_->encodesNaN())
        return;
      a.vcmpps(t, v, v, kOrdered);
      a.vandps(v, v, t);
      return;
    }
    x86::KReg ordered = reg::nanMask(slot);
    if (params_.bakedOperandsFinite()) {
      // A finite, positive operand: u is NaN exactly when x is, so the
      // NaN mask folds into the scaling as zero-masking.
      a.vcmpps(ordered, v, v, kOrdered);
      scaleOp(a.k(ordered).z());
      return;
    }
    scaleOp(a);
    a.vcmpps(ordered, v, v, kOrdered);
    a.k(ordered).z().vmovaps(v, v);
  }

  void emitClamp(x86::Assembler &a, const x86::Vec &v) {
    if (clampLow_)
      a.vmaxps(v, v, isa_.vec(reg::kLow));
    if (clampHigh_)
      a.vminps(v, v, isa_.vec(reg::kHigh));
  }

  /// v + copysign(pred(0.5), v): truncating that rounds half away from
  /// zero exactly (the sum rounds across an integer only on a tie or
  /// beyond; pred(0.5) keeps 0.49999997 below 1).
  void emitAddHalfAway(x86::Assembler &a, const x86::Vec &v,
                       const x86::Vec &t) {
    a.vandps(t, v, isa_.vec(reg::kSign));
    if (checked_)
      a.vorps(t, t, dataAt(kHalfAwayOffset));
    else
      a.vorps(t, t, isa_.vec(reg::kHalf));
    a.vaddps(v, v, t);
  }

  /// f32 lanes (in range) → i32 lanes, rounded per the knob.
  void emitConvert(x86::Assembler &a, const x86::Vec &v, const x86::Vec &t) {
    switch (spec_.knobs.rounding) {
    case RoundingMode::NearestEven:
      if (isa_.avx512()) {
        a.rn_sae().vcvtps2dq(v, v);
        return;
      }
      a.vroundps(v, v, kRoundNearest);
      break;
    case RoundingMode::NearestAway:
      emitAddHalfAway(a, v, t);
      break;
    case RoundingMode::TowardZero:
      break;
    }
    a.vcvttps2dq(v, v);
  }

  /// f32 lanes → integral f32 lanes (±inf stay), rounded per the knob.
  void emitRoundToIntegral(x86::Assembler &a, const x86::Vec &v,
                           const x86::Vec &t) {
    uint8_t mode = kRoundTowardZero;
    if (spec_.knobs.rounding == RoundingMode::NearestEven)
      mode = kRoundNearest;
    else if (spec_.knobs.rounding == RoundingMode::NearestAway)
      emitAddHalfAway(a, v, t);
    isa_.avx512() ? a.vrndscaleps(v, v, mode) : a.vroundps(v, v, mode);
  }

  const KernelSpec &spec_;
  X86Isa isa_;
  X86Parameters params_;
  /// Runtime per-axis parameters of short runs (X86PeriodicRuns.h).
  std::optional<X86RuntimeTables> runtimeTables_;
  bool clampLow_ = true, clampHigh_ = true;
  std::optional<plan::CheckedReciprocalPlan> checked_;
  std::optional<X86QuantileEncoder> quantile_;
  bool nibbles_ = false; ///< Main loop through emitEncodeNibbles.
  std::optional<X86FloatEncoder> floatEncoder_; ///< Float storage only.
  std::vector<Division> divisions_;
  /// The divisions (indices) of the last zero-point-free copy of a
  /// group's runs, paired in order from nextTwin_ with the general copy's.
  std::vector<size_t> zeroFreeDivisions_;
  size_t nextTwin_ = 0;
  unsigned zeroFreeCopy_ = 0; ///< X86Parameters::zeroFreeCopies() they are of.
  std::optional<X86PackedCodes> packed_;
  bool checkedClampLow_ = true, checkedClampHigh_ = true;
  bool bracket_ = false; ///< Main loop through emitBracketedFour.
  /// The vectors of emitData at dataAt(offset): the half-away constant,
  /// vpermd's order, then kZmmPackedDwordOrder (AVX-512) or fl(1/s) of
  /// planCorrectedQuotient and the bounds ±plan::kMarksteinQuotientBound.
  asmjit::Label dataLabel_;
  static constexpr uint32_t kDataAlignment = 32;
  static constexpr int32_t kHalfAwayOffset = 0;
  static constexpr int32_t kPackOrderOffset = 32;
  static constexpr int32_t kZmmOrderOffset = 64;
  static constexpr int32_t kReciprocalOffset = 64;
  static constexpr int32_t kQuotientHighOffset = 96;
  static constexpr int32_t kQuotientLowOffset = 128;
  std::optional<float> reciprocal_;
  /// X of emitClampedQuotient (nullopt: the encoder clamps instead).
  std::optional<float> clampedInput_;
};

} // namespace

void generateX86Quantize(x86::Assembler &a, const X86Isa &isa,
                         const KernelSpec &spec,
                         const X86FrameOptions &options) {
  if (x86FixedBracketApplies(spec, isa)) {
    generateX86FixedBracket(a, isa, spec, options);
    return;
  }
  X86QuantizeGenerator(spec, isa).generate(a, options);
}

} // namespace qjit::asmjit_backend
