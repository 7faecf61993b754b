//===- X86QuantizeGenerator.cpp - qcast: expressed → stored ---------------===//
//
// Per vector, in f32 (C): u = x / s (vdivps: exact IEEE division, so the
// `divide` contract holds bit for bit; a multiply only when s is a power of
// two, see X86Parameters) or u = x · fl(1/s); NaN lanes of u
// become 0, which then yields the (clamped) zero point like the reference;
// the zero point is added before or after rounding; clamping in f32 to the
// integral bounds commutes with rounding, so it happens before the final
// conversion. Rounding never reads MXCSR: embedded {rn-sae}, rounding
// immediates, or truncating converts.
//
//===----------------------------------------------------------------------===//
#include "X86Conversions.h"
#include "X86Generators.h"
#include "X86KernelFrame.h"
#include "X86Parameters.h"

#include <cstdint>

namespace qjit::asmjit_backend {

namespace {

constexpr uint32_t kSignBit = 0x80000000u;
constexpr uint32_t kBelowHalf = 0x3effffffu; ///< pred(0.5) = 0.5 - 2^-25.
constexpr uint8_t kOrdered = 7;              ///< vcmpps: neither is NaN.
constexpr uint8_t kRoundNearest = 0x08;      ///< + suppress exceptions.
constexpr uint8_t kRoundTowardZero = 0x0b;

class X86QuantizeGenerator final : public X86VectorBody {
public:
  X86QuantizeGenerator(const KernelSpec &spec, const X86Isa &isa)
      : spec_(spec), isa_(isa), params_(spec, isa,
                                        spec.knobs.scaleOp == ScaleOp::Divide
                                            ? ScaleUse::Divide
                                            : ScaleUse::MultiplyByReciprocal) {
    planClamp();
  }

  void generate(x86::Assembler &a) { emitX86Kernel(a, isa_, spec_, *this); }

  unsigned lanes() const override { return isa_.vectorBytes() / 4; }
  unsigned srcBytes() const override { return valueTypeBytes(spec_.expressed); }
  unsigned dstBytes() const override { return spec_.storage.containerBytes(); }

  void emitConstants(x86::Assembler &a) override {
    if (clampLow_)
      emitBroadcastImmediate(a, isa_, isa_.vec(reg::kLow),
                             floatBits(static_cast<float>(spec_.storage.min)));
    if (clampHigh_)
      emitBroadcastImmediate(a, isa_, isa_.vec(reg::kHigh),
                             floatBits(static_cast<float>(spec_.storage.max)));
    if (spec_.knobs.rounding == RoundingMode::NearestAway) {
      emitBroadcastImmediate(a, isa_, isa_.vec(reg::kSign), kSignBit);
      emitBroadcastImmediate(a, isa_, isa_.vec(reg::kHalf), kBelowHalf);
    }
  }

  void emitParameters(x86::Assembler &a) override { params_.emitLoad(a); }
  unsigned parameterBytes() const override { return params_.parameterBytes(); }
  void emitData(x86::Assembler &a) override { params_.emitData(a); }

  void emitVector(x86::Assembler &a, unsigned slot, const x86::Mem &src,
                  const x86::Mem &dst, bool masked) override {
    x86::Vec v = isa_.vec(reg::kWork + slot), t = isa_.vec(reg::kTemp + slot);
    emitLoadExpressed(a, isa_, spec_.expressed, v, src, masked);
    emitScale(a, slot, v, t);
    bool addZero = !params_.zeroPointsAreZero();
    if (spec_.knobs.zeroPoint == ZeroPointOrder::BeforeRounding) {
      if (addZero)
        a.emit(x86::Inst::kIdVaddps, v, v, params_.zeroPoint(slot));
      emitClamp(a, v);
      emitConvert(a, v, t);
    } else {
      emitRoundToIntegral(a, v, t);
      if (addZero)
        a.emit(x86::Inst::kIdVaddps, v, v, params_.zeroPoint(slot));
      emitClamp(a, v);
      a.vcvttps2dq(v, v);
    }
    emitStoreStored(a, isa_, spec_.storage, dst, v, t, masked,
                    Narrowing::Saturate);
  }

private:
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

  /// u = x / s or x · (1/s), NaN lanes → 0.
  void emitScale(x86::Assembler &a, unsigned slot, const x86::Vec &v,
                 const x86::Vec &t) {
    asmjit::Operand scale = params_.scale(slot);
    asmjit::InstId op = params_.scaleInstruction();
    auto scaleOp = [&](x86::Assembler &as) { as.emit(op, v, v, scale); };
    if (!isa_.avx512()) {
      scaleOp(a);
      a.vcmpps(t, v, v, kOrdered);
      a.vandps(v, v, t);
      return;
    }
    x86::KReg ordered = reg::nanMask(slot);
    if (params_.baked()) {
      // A baked scale is finite and positive: u is NaN exactly when x is,
      // so the NaN mask folds into the scaling as zero-masking.
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
  bool clampLow_ = true, clampHigh_ = true;
};

} // namespace

void generateX86Quantize(x86::Assembler &a, const X86Isa &isa,
                         const KernelSpec &spec) {
  X86QuantizeGenerator(spec, isa).generate(a);
}

} // namespace qjit::asmjit_backend
