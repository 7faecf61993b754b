//===- X86FloatQuantizeBody.cpp - Float storage qcast ---------------------===//
//
// v = u + z goes to the format's encoder (X86FloatStorage.h) instead of
// integer rounding and a clamp; the main loop packs its four vectors of
// codes into one 32-byte store (or X86PackedCodes' bytes for packed
// f4E2M1FN). AVX2 or AVX-512 code. With one baked scale s in [2^-32, 1]
// (f32, per tensor), half the main loop's vectors form fl(x / s) by
// Markstein's division instead of vdivps (marksteinSlot); with saturation
// and zero points 0 as well, |x| is clamped before the scaling
// (X86ClampedFloatQuantizeBody) and the encoder takes u = |x / s| as it is.
//
//===----------------------------------------------------------------------===//
#include "X86Conversions.h"
#include "X86FloatStorage.h"
#include "X86QuantizeBody.h"
#include "X86QuantizeForms.h"

#include "plan/MarksteinDivision.h"

#include "qjit/internal/HostFloat.h"

#include <cstdint>
#include <optional>
#include <utility>

namespace qjit::asmjit_backend {

using namespace quantize;

namespace {

/// The main loop's odd slots (two of an iteration's four vectors) form
/// fl(x / s) by Markstein's division where the form has fl(1/s): one
/// multiplication, a bound and two FMAs instead of vdivps
/// (plan/MarksteinDivision.h, the one-correction form, has the proof):
/// measured +4-6% fp8 qcast on Zen 1, whose divider and µop count bound
/// that loop about evenly (all four slots: 0.9x).
bool marksteinSlot(unsigned slot) { return slot % 2 == 1; }

class X86FloatQuantizeBody : public X86QuantizeBody {
public:
  X86FloatQuantizeBody(const KernelSpec &spec, const X86Isa &isa,
                       X86Parameters params, std::optional<float> reciprocal,
                       bool clampsInput = false)
      : X86QuantizeBody(spec, isa, std::move(params)),
        encoder_(spec, isa, clampsInput), reciprocal_(reciprocal) {
    useRuntimeTablesWhereTheyApply();
  }

  void emitConstants(x86::Assembler &a) override {
    beginPackData(a);
    emitRuntimeTablesFill(a);
    emitMarksteinConstants(a);
    emitPackedEvexConstants(a);
    encoder_.emitConstants(a);
  }

  void emitUnrolled(x86::Assembler &a, const x86::Mem &src,
                    const x86::Mem &dst) override {
    emitStep(a, src, dst, 1, nullptr);
  }

  void emitVector(x86::Assembler &a, unsigned slot, const x86::Mem &src,
                  const x86::Mem &dst, bool masked) override {
    emitScaledFloat(a, slot, src, masked);
    encoder_.emitEncode(a, isa_.vec(reg::kWork + slot),
                        isa_.vec(reg::kTemp + slot));
    emitFloatCodes(a, slot, dst, masked);
  }

  /// Runs of prepared groups shorter than a step (MXFP4's blocks of 32 at
  /// AVX-512) share one: each run's parameters are broadcast before its
  /// vectors' scaling, and the four vectors pack together (a run of two
  /// vectors alone packs at half the width).
  unsigned runsPerUnrolledStep(int64_t runElements) const override {
    const int64_t vectors = runElements / lanes();
    if (!params_.groupsRuntimeLoads() || runElements % lanes() != 0 ||
        vectors == 0 || vectors >= reg::kUnroll || reg::kUnroll % vectors != 0)
      return 0;
    return static_cast<unsigned>(reg::kUnroll / vectors);
  }
  void emitUnrolledRuns(x86::Assembler &a, const x86::Mem &src,
                        const x86::Mem &dst, unsigned runs,
                        const x86::Mem *group) override {
    emitStep(a, src, dst, runs, group);
  }

  bool encodesPairs() const override { return true; }
  PairCodes emitPairCodes(x86::Assembler &a, const x86::Mem &src) override {
    for (unsigned j = 0; j < 2; ++j)
      emitScaledFloat(a, j, src.cloneAdjusted(int32_t(j) * srcVectorBytes()),
                      false);
    for (unsigned j = 0; j < 2; ++j)
      encoder_.emitEncode(a, isa_.vec(reg::kWork + j),
                          isa_.vec(reg::kTemp + j));
    return {isa_.vec(reg::kWork), isa_.vec(reg::kWork + 1),
            isa_.vec(reg::kTemp)};
  }

protected:
  /// AVX2: the vectors after vpermd's order: fl(1/s), then the quotient
  /// bounds ±plan::kMarksteinQuotientBound. AVX-512: registers.
  static constexpr int32_t kReciprocalOffset = kPackDataTailOffset;
  static constexpr int32_t kQuotientHighOffset = kPackDataTailOffset + 32;
  static constexpr int32_t kQuotientLowOffset = kPackDataTailOffset + 64;
  static constexpr unsigned kReciprocalZmm = 28;
  static constexpr unsigned kQuotientHighZmm = 29;
  static constexpr unsigned kQuotientLowZmm = 30;

  /// Markstein's operands: fl(1/s) and the quotient bounds.
  asmjit::Operand reciprocal() const {
    return isa_.avx512() ? asmjit::Operand(x86::zmm(kReciprocalZmm))
                         : asmjit::Operand(dataAt(kReciprocalOffset));
  }
  asmjit::Operand quotientHigh() const {
    return isa_.avx512() ? asmjit::Operand(x86::zmm(kQuotientHighZmm))
                         : asmjit::Operand(dataAt(kQuotientHighOffset));
  }
  asmjit::Operand quotientLow() const {
    return isa_.avx512() ? asmjit::Operand(x86::zmm(kQuotientLowZmm))
                         : asmjit::Operand(dataAt(kQuotientLowOffset));
  }
  /// AVX-512: Markstein's operands into their registers.
  void emitMarksteinConstants(x86::Assembler &a) {
    if (!reciprocal_ || !isa_.avx512())
      return;
    emitBroadcastImmediate(a, isa_, x86::zmm(kReciprocalZmm),
                           floatBits(*reciprocal_));
    emitBroadcastImmediate(a, isa_, x86::zmm(kQuotientHighZmm),
                           floatBits(plan::kMarksteinQuotientBound));
    emitBroadcastImmediate(a, isa_, x86::zmm(kQuotientLowZmm),
                           floatBits(-plan::kMarksteinQuotientBound));
  }

  bool packsFour() const override { return true; }
  bool packsSigned() const override { return encoder_.signedCodes(); }
  void emitStorageData(x86::Assembler &a) override { encoder_.emitData(a); }
  void emitPackDataTail(x86::Assembler &a) override {
    if (!reciprocal_)
      return;
    for (float value : {*reciprocal_, plan::kMarksteinQuotientBound,
                        -plan::kMarksteinQuotientBound})
      for (unsigned lane = 0; lane < 8; ++lane)
        a.embedUInt32(floatBits(value));
  }

  /// The slot's codes stored.
  void emitFloatCodes(x86::Assembler &a, unsigned slot, const x86::Mem &dst,
                      bool masked) {
    x86::Vec v = isa_.vec(reg::kWork + slot), t = isa_.vec(reg::kTemp + slot);
    if (packed_) {
      emitPackedStore(a, dst, v, t);
      return;
    }
    StorageSpec codes = spec_.storage;
    codes.isSigned = encoder_.signedCodes();
    emitStoreStored(a, isa_, codes, dst, v, t, masked, Narrowing::Saturate);
  }

  X86FloatEncoder encoder_;
  /// fl(1/s) where Markstein's division serves the odd slots.
  const std::optional<float> reciprocal_;

private:
  /// One unrolled step of `runs` runs; with several, each run's parameters
  /// from its entry of the prepared `group`. All divisions first: their
  /// latency overlaps the encoding.
  void emitStep(x86::Assembler &a, const x86::Mem &src, const x86::Mem &dst,
                unsigned runs, const x86::Mem *group) {
    const unsigned vectorsPerRun = reg::kUnroll / runs;
    x86::Vec codes[reg::kUnroll];
    for (unsigned j = 0; j < reg::kUnroll; ++j) {
      codes[j] = isa_.vec(reg::kWork + j);
      // The scaling reads the broadcast registers before the next run's
      // broadcast renames them.
      if (runs > 1 && j % vectorsPerRun == 0)
        params_.emitGroupMember(
            a, group->cloneAdjusted(int32_t(4 * (j / vectorsPerRun))));
      emitScaledFloat(a, j, src.cloneAdjusted(int32_t(j) * srcVectorBytes()),
                      false);
    }
    for (unsigned j = 0; j < reg::kUnroll; ++j)
      encoder_.emitEncode(a, codes[j], isa_.vec(reg::kTemp + j));
    emitPackFour(a, codes, isa_.vec(reg::kTemp), isa_.vec(reg::kTemp + 1), dst);
  }

  /// v = u + z into the slot's register.
  void emitScaledFloat(x86::Assembler &a, unsigned slot, const x86::Mem &src,
                       bool masked) {
    x86::Vec v = isa_.vec(reg::kWork + slot), t = isa_.vec(reg::kTemp + slot);
    emitLoadExpressed(a, isa_, spec_.expressed, v, src, masked);
    if (reciprocal_ && marksteinSlot(slot))
      emitMarksteinQuotient(a, slot, v, t);
    else
      emitScale(a, slot, v, t, !encoder_.encodesNaN());
    if (!params_.zeroPointsAreZero())
      a.emit(x86::Inst::kIdVaddps, v, v, zeroPointOf(slot));
  }

  /// q = x · fl(1/s) bounded (NaN lanes of x stay NaN through the
  /// residual), the exact residual x - q·s, then fl(q + residual ·
  /// fl(1/s)) = fl(x / s) (plan/MarksteinDivision.h, one correction). The
  /// residual is negated, q·s - x, and subtracted: the same values, but
  /// x = -0 keeps its sign (-0 - (+0·y) is -0, where the sum of q = -0 and
  /// x - q·s = +0 would be +0). NaN lanes of u become 0 unless the encoder
  /// encodes NaN.
  void emitMarksteinQuotient(x86::Assembler &a, unsigned slot,
                             const x86::Vec &v, const x86::Vec &t) {
    asmjit::Operand scale = divisorOf(a, slot, t);
    a.emit(x86::Inst::kIdVmulps, t, v, reciprocal());
    a.emit(x86::Inst::kIdVminps, t, t, quotientHigh());
    a.emit(x86::Inst::kIdVmaxps, t, t, quotientLow());
    a.emit(x86::Inst::kIdVfmsub231ps, v, t, scale);
    a.emit(x86::Inst::kIdVfnmadd132ps, v, t, reciprocal());
    if (encoder_.encodesNaN())
      return;
    if (isa_.avx512()) {
      a.vcmpps(reg::nanMask(slot), v, v, kOrdered);
      a.k(reg::nanMask(slot)).z().vmovaps(v, v);
      return;
    }
    a.vcmpps(t, v, v, kOrdered);
    a.vandps(v, v, t);
  }
};

/// Registers of the clamped input: zero points are 0, saturate is on and
/// the encoder leaves kHigh and kHalf free (X86FloatEncoder::clampsInput),
/// so a slot's third register (its quotient or its exponent) is
/// kSlotThird[slot].
constexpr unsigned kInputBound = reg::kZeroPoint;
constexpr unsigned kSlotThird[reg::kUnroll] = {reg::kHigh, reg::kHalf,
                                               reg::kScalar, reg::kScalar2};

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
/// is x's (emitSignMask): fl(x/s) has it, -0 included (zero points
/// 0 are not added), and NaN lanes take the positive NaN code. The main
/// loop's odd slots take Markstein's form, the even ones the division: the
/// divider and the FP pipes share the load (measured on Zen 1: +5% over
/// clamping after the scaling).
class X86ClampedFloatQuantizeBody final : public X86FloatQuantizeBody {
public:
  X86ClampedFloatQuantizeBody(const KernelSpec &spec, const X86Isa &isa,
                              X86Parameters params, float reciprocal,
                              float inputBound)
      : X86FloatQuantizeBody(spec, isa, std::move(params), reciprocal, true),
        inputBound_(inputBound) {}

  void emitConstants(x86::Assembler &a) override {
    beginPackData(a);
    emitRuntimeTablesFill(a);
    emitMarksteinConstants(a);
    emitBroadcastImmediate(a, isa_, isa_.vec(kInputBound),
                           floatBits(inputBound_));
    encoder_.emitConstants(a);
  }

  void emitUnrolled(x86::Assembler &a, const x86::Mem &src,
                    const x86::Mem &dst) override {
    x86::Vec codes[reg::kUnroll];
    for (unsigned j = 0; j < reg::kUnroll; ++j) {
      codes[j] = isa_.vec(reg::kWork + j);
      emitClampedQuotient(a, j,
                          src.cloneAdjusted(int32_t(j) * srcVectorBytes()),
                          false, marksteinSlot(j));
    }
    for (unsigned j = 0; j < reg::kUnroll; ++j)
      emitClampedCodes(a, j, marksteinSlot(j));
    emitPackFour(a, codes, isa_.vec(reg::kTemp), isa_.vec(reg::kTemp + 1), dst);
  }

  /// (One baked scale: no runs; the float body's pairs are not this one's.)
  bool encodesPairs() const override { return false; }

  void emitVector(x86::Assembler &a, unsigned slot, const x86::Mem &src,
                  const x86::Mem &dst, bool masked) override {
    emitClampedQuotient(a, slot, src, masked, false);
    emitClampedCodes(a, slot, false);
    emitFloatCodes(a, slot, dst, masked);
  }

private:
  /// The slot's sign mask (X86FloatEncoder::emitSignMask): AVX2 keeps it
  /// in vec(kWork + slot), AVX-512 in the slot's k-register (this body
  /// makes no NaN masks).
  asmjit::Operand signMaskOf(unsigned slot) const {
    return isa_.avx512() ? asmjit::Operand(reg::nanMask(slot))
                         : asmjit::Operand(isa_.vec(reg::kWork + slot));
  }
  /// Leaves the sign mask in signMaskOf(slot) and u in vec(kTemp + slot)
  /// (division) or kSlotThird[slot] (Markstein).
  void emitClampedQuotient(x86::Assembler &a, unsigned slot,
                           const x86::Mem &src, bool masked, bool markstein) {
    x86::Vec v = isa_.vec(reg::kWork + slot), t = isa_.vec(reg::kTemp + slot);
    x86::Vec third = isa_.vec(kSlotThird[slot]);
    emitLoadExpressed(a, isa_, spec_.expressed, v, src, masked);
    encoder_.emitAbs(a, t, v);
    a.vminps(t, isa_.vec(kInputBound), t); // NaN stays.
    encoder_.emitSignMask(a, signMaskOf(slot), v);
    if (!markstein) {
      a.vdivps(t, t, isa_.vec(reg::kScale));
      return;
    }
    a.emit(x86::Inst::kIdVmulps, third, t, reciprocal());
    a.vfnmadd231ps(t, third, isa_.vec(reg::kScale)); // r = a - q·s.
    a.emit(x86::Inst::kIdVfmadd231ps, third, t, reciprocal());
  }
  /// emitClampedQuotient's lanes → the codes in vec(kWork + slot).
  void emitClampedCodes(x86::Assembler &a, unsigned slot, bool markstein) {
    x86::Vec t = isa_.vec(reg::kTemp + slot);
    x86::Vec third = isa_.vec(kSlotThird[slot]);
    encoder_.emitEncodeMagnitude(a, markstein ? third : t, signMaskOf(slot),
                                 markstein ? t : third,
                                 isa_.vec(reg::kWork + slot));
  }

  const float inputBound_; ///< X = RN(H·s).
};

} // namespace

void generateX86FloatQuantize(x86::Assembler &a, const X86Isa &isa,
                              const KernelSpec &spec, X86Parameters params,
                              const X86QuantizeForm &form,
                              const X86FrameOptions &options) {
  if (form.loop == X86QuantizeLoop::ClampedFloatEncoder) {
    X86ClampedFloatQuantizeBody(spec, isa, std::move(params),
                                *form.marksteinReciprocal, form.inputBound)
        .generate(a, options);
    return;
  }
  X86FloatQuantizeBody(spec, isa, std::move(params), form.marksteinReciprocal)
      .generate(a, options);
}

} // namespace qjit::asmjit_backend
