//===- X86CheckedQuantizeBody.cpp - 8-bit qcast by a checked reciprocal ---===//
//
// AVX2 with 8-bit storage and a CheckedReciprocalPlan: the main loop
// multiplies by fl(1/s) instead of dividing, checks every lane
// (CheckedReciprocal.h has the proof), packs four vectors with saturating
// packs into one 32-byte store, and redoes the four vectors by division
// when any lane fails. vec(reg::kScale) then holds fl(1/s) and the
// division (rare) reloads s per vector. Nearest-even before rounding with
// baked parameters of one zero point and the full 8-bit range brackets the
// rounding instead (X86BracketedQuantizeBody: two FMAs and two conversions
// per vector, no subtraction, absolute value or clamp), on AVX2 and
// AVX-512 (four zmm, 64 bytes a store; AVX-512 has no other checked form,
// and its heads and tails divide); other checked forms convert with
// vcvtps2dq and check |w - n| against the converted-back n. Packed codes
// store the 32 packed bytes as 4·bits bytes (X86PackedCodes).
// generateX86IntegerQuantize is here because both bodies are private to
// this file; the plain integer body has its own (X86IntegerQuantizeBody.h).
//
//===----------------------------------------------------------------------===//
#include "X86Conversions.h"
#include "X86IntegerQuantizeBody.h"
#include "X86QuantizeForms.h"

#include "qjit/internal/HostFloat.h"

#include <cstdint>
#include <utility>
#include <vector>

namespace qjit::asmjit_backend {

using namespace quantize;

namespace {

/// Registers of the checked forms (the exact path's kHalf constant moves
/// to memory; kScalar* serve runtime parameters only).
constexpr unsigned kThreshold = reg::kHalf;
constexpr unsigned kLimit = reg::kScalar;
constexpr unsigned kNegLimit = reg::kScalar2;
/// The bracket's zero points z - m and -(z + m).
constexpr unsigned kLowZero = reg::kScalar;
constexpr unsigned kHighZeroNegated = reg::kScalar2;

class X86CheckedQuantizeBody : public X86IntegerQuantizeBody {
public:
  X86CheckedQuantizeBody(const KernelSpec &spec, const X86Isa &isa,
                         X86Parameters params,
                         const plan::CheckedReciprocalPlan &checked)
      : X86IntegerQuantizeBody(spec, isa, std::move(params)),
        checked_(checked) {
    params_.keepReciprocals(isa_.vec(kThreshold),
                            floatBits(checked_.threshold) - 1,
                            checked_.zeroPointLimit);
    // The packs saturate to the container; only narrower bounds need
    // clamps (before rounding, the lanes that convert to INT32_MIN fail;
    // after rounding, n is clamped at the high bound anyway).
    int64_t containerMin = spec.storage.isSigned ? -128 : 0;
    int64_t containerMax = spec.storage.isSigned ? 127 : 255;
    checkedClampLow_ = spec.storage.min > containerMin;
    checkedClampHigh_ = spec.storage.max < containerMax;
  }

  void emitConstants(x86::Assembler &a) override {
    emitCheckConstants(a);
    emitBoundConstants(a);
  }

  void emitParameters(x86::Assembler &a) override {
    X86QuantizeBody::emitParameters(a);
    // Runtime loads use kScalar*, the limits' registers (per tensor only:
    // integerForm in X86QuantizeGenerator.cpp).
    if (roundsFirst() && !setsLimitsOnce())
      emitLimits(a);
  }

  void emitUnrolled(x86::Assembler &a, const x86::Mem &src,
                    const x86::Mem &dst) override {
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
    a.vpcmpgtd(fail[0], fail[0], isa_.vec(kThreshold));
    a.vptest(fail[0], fail[0]);
    a.jnz(divide);
    emitPackFour(a, result, fail[0], fail[1], dst);
    a.bind(done);
    addDivision({divide, done, src, dst, 0, reg::kUnroll, {}, false});
  }

  void emitVector(x86::Assembler &a, unsigned slot, const x86::Mem &src,
                  const x86::Mem &dst, bool masked) override {
    if (!packed_ && !masked && !isa_.avx512()) {
      emitCheckedSingle(a, slot, src, dst);
      return;
    }
    emitExactVector(a, slot, src, dst, masked);
  }

protected:
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

  /// Records a division to emit out of line (emitOutOfLine). The general
  /// copy of a group's runs (X86Parameters::setGroupZeroPointsZero) shares
  /// the code of its divisions with the zero-point-free copy, whose
  /// division returns into the general copy: the zero point register holds
  /// 0 in both, and the general runs are exact for groups without zero
  /// points too (see groupsSkipZeroPoints).
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

  /// The threshold, the sign mask and (set once) the limits.
  void emitCheckConstants(x86::Assembler &a) {
    beginPackData(a);
    // Passing lanes have |w - n| < threshold: bit patterns below it.
    emitBroadcastImmediate(a, isa_, isa_.vec(kThreshold),
                           floatBits(checked_.threshold) - 1);
    emitBroadcastImmediate(a, isa_, isa_.vec(reg::kSign), kSignBit);
    if (setsLimitsOnce())
      emitLimits(a);
  }
  /// The runtime tables and the clamps' bounds.
  void emitBoundConstants(x86::Assembler &a) {
    emitRuntimeTablesFill(a, isa_.vec(kThreshold));
    emitClampConstants(a);
  }

  bool packsFour() const override { return true; }
  asmjit::Operand halfAway() const override { return dataAt(kHalfAwayOffset); }
  /// The broadcast register holds fl(1/s): the division loads s.
  asmjit::Operand divisorOf(x86::Assembler &a, unsigned slot,
                            const x86::Vec &t) override {
    if (runtimeTables_)
      return runtimeTables_->divisor(slot);
    if (params_.perElement())
      return params_.scale(slot);
    params_.emitLoadScale(a, t);
    return t;
  }

  void emitOutOfLine(x86::Assembler &a) override {
    // The divisions of failing groups, out of the way of the fast path.
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
  }

  const plan::CheckedReciprocalPlan checked_;

private:
  bool roundsFirst() const {
    return spec_.knobs.zeroPoint == ZeroPointOrder::AfterRounding;
  }
  /// The limits (after rounding) in kScalar*: set with the constants unless
  /// runtime parameter loads clobber them.
  bool setsLimitsOnce() const { return roundsFirst() && !spec_.params.runtime; }

  void emitLimits(x86::Assembler &a) {
    emitBroadcastImmediate(a, isa_, isa_.vec(kLimit),
                           floatBits(checked_.limit));
    emitBroadcastImmediate(a, isa_, isa_.vec(kNegLimit),
                           floatBits(-checked_.limit));
  }

  /// One vector on its own (runs and tails shorter than an unrolled
  /// block): its 8 bytes, or the division when a lane fails. Clobbers the
  /// next slot's work register too.
  void emitCheckedSingle(x86::Assembler &a, unsigned slot, const x86::Mem &src,
                         const x86::Mem &dst) {
    asmjit::Label divide = a.newLabel(), done = a.newLabel();
    x86::Vec fail = isa_.vec(reg::kWork + slot),
             result = isa_.vec(reg::kTemp + slot);
    x86::Xmm high = x86::xmm(reg::kWork + (slot + 1) % reg::kUnroll);
    emitCheckedVector(a, slot, src, fail, result, isa_.vec(high.id()));
    a.vpcmpgtd(fail, fail, isa_.vec(kThreshold));
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

  /// One vector: `fail` gets |w - n| (NaN for NaN lanes), which must stay
  /// below the threshold; `result` the i32 results of the lanes that do.
  /// `scratch` is clobbered.
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
      a.vminps(w, isa_.vec(kLimit), w);
      a.vmaxps(w, isa_.vec(kNegLimit), w);
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

  bool checkedClampLow_ = true, checkedClampHigh_ = true;
  std::vector<Division> divisions_;
  /// The divisions (indices) of the last zero-point-free copy of a
  /// group's runs, paired in order from nextTwin_ with the general copy's.
  std::vector<size_t> zeroFreeDivisions_;
  size_t nextTwin_ = 0;
  unsigned zeroFreeCopy_ = 0; ///< X86Parameters::zeroFreeCopies() they are of.
};

/// The checked form's main loop with nearest-even rounding before
/// clamping, baked per-tensor parameters and the container's bounds
/// (CheckedReciprocal.h, "bracket"): per lane a = RN(x·y + (z − m)) and
/// b = RN(x·y + (z + m)) round to the same integer, which the lane
/// stores. The kernel converts a and −b (vfnmadd, RNE by the default
/// environment like the FMA), narrows both to i16 with saturation and
/// adds them with saturation: zero exactly when RNE(a) = RNE(b) lies in
/// ±32767 (NaN, ±inf and |x·y| >= 2^31 convert to INT32_MIN: −32768,
/// never zero). No lane needs a subtraction, an absolute value or a
/// clamp.
class X86BracketedQuantizeBody final : public X86CheckedQuantizeBody {
public:
  using X86CheckedQuantizeBody::X86CheckedQuantizeBody;

  void emitConstants(x86::Assembler &a) override {
    emitCheckConstants(a);
    // m = 1/2 - threshold; z ± m are exact (|z| < L, m = 2^-20·L).
    float z = static_cast<float>(spec_.params.zeroPoints[0]);
    float margin = 0.5f - checked_.threshold;
    emitBroadcastImmediate(a, isa_, isa_.vec(kLowZero), floatBits(z - margin));
    emitBroadcastImmediate(a, isa_, isa_.vec(kHighZeroNegated),
                           floatBits(-(z + margin)));
    emitBoundConstants(a);
  }

  void emitUnrolled(x86::Assembler &a, const x86::Mem &src,
                    const x86::Mem &dst) override {
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
      a.vfmadd213ps(low[j], y, isa_.vec(kLowZero));
      a.vfnmadd213ps(high[j], y, isa_.vec(kHighZeroNegated));
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
};

} // namespace

void generateX86IntegerQuantize(x86::Assembler &a, const X86Isa &isa,
                                const KernelSpec &spec, X86Parameters params,
                                const X86QuantizeForm &form,
                                const X86FrameOptions &options) {
  switch (form.loop) {
  case X86QuantizeLoop::CheckedReciprocal:
    X86CheckedQuantizeBody(spec, isa, std::move(params), *form.checked)
        .generate(a, options);
    return;
  case X86QuantizeLoop::BracketedReciprocal:
    X86BracketedQuantizeBody(spec, isa, std::move(params), *form.checked)
        .generate(a, options);
    return;
  default:
    X86IntegerQuantizeBody(spec, isa, std::move(params)).generate(a, options);
    return;
  }
}

} // namespace qjit::asmjit_backend
