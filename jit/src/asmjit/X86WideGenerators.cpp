//===- X86WideGenerators.cpp - qcast / dcast finishing in f64 lanes -------===//
//
// The kernels whose values f32 cannot hold exactly: f64 expressed values
// (C = f64), storage wider than 24 bits (bounds and stored values beyond
// 2^24) and the after-rounding sum round(u) + z for any int64 z. Eight
// elements per vector; f64 work is done on two ymm halves of four lanes.
// Runtime zero points within ±2^24 (storage of at most 24 bits, C = f32)
// are common and need no f64: a per-run flag selects the f32 sum of
// X86IntegerQuantizeBody for them (emitSmallZeroVector).
//
// qcast: u (and u + z_C before rounding) and its rounding are computed in
// C, exactly as the reference does (eight f32 lanes, or four f64 lanes per
// half). Before rounding in f32, the integral result r saturates in f32
// lanes (emitNarrowFinish); otherwise it widens exactly to f64, where
//  * after rounding, t = fl(fl(r + h) + l) with z = h + l split into two
//    exact halves (h = z & ~(2^32 − 1), l = z & (2^32 − 1)): where
//    |r + z| <= 2^33, r + h = (r + z) − l is an integer below 2^35, so t is
//    the exact sum; elsewhere rounding is monotone and every integer below
//    2^53 is an f64, so a sum beyond a bound stays beyond it (llvm's
//    SumKind::Split, the same argument);
//  * NaN lanes (still NaN: nothing zeroes them) take clamp(z, min, max),
//    the exact integer, not fl_C(z);
//  * the bounds (|bound| <= 2^32) are exact f64 values, so the clamp is the
//    reference's saturation; lanes beyond INT32_MAX (u32) convert through
//    the bias −2^31.
// dcast with C = f64: q (u32 through the bias) converts exactly to f64,
// then (q − z_C) · s in f64; outputs beyond the caches stream.
// Packed 1/2/4-bit storage loads and stores its i32 lanes through
// X86PackedCodes (the kernel frame handles heads and tails). Float and
// quantile storage with C = f64: X86WideCompactGenerators.cpp.
//
// These kernels are AVX2 (VEX, ymm) code at every ISA level: it is
// correct on AVX-512 hosts and runs (so it is tested) on every x86 host
// the backend supports; zmm versions would only add untestable code.
//
//===----------------------------------------------------------------------===//
#include "X86Conversions.h"
#include "X86Generators.h"
#include "X86KernelFrame.h"
#include "X86PackedCodes.h"
#include "X86WideCompact.h"
#include "X86WideParameters.h"

#include "plan/ComputeBounds.h"
#include "plan/KernelPlan.h"

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>

namespace qjit::asmjit_backend {

namespace {

constexpr uint8_t kUnordered = 3;       ///< vcmppd: either is NaN.
constexpr uint8_t kRoundNearest = 0x08; ///< + suppress exceptions.
constexpr uint8_t kRoundTowardZero = 0x0b;

/// Work registers of one vector (the wide bodies convert one vector at a
/// time; out-of-order execution overlaps consecutive ones).
constexpr unsigned kHalf0 = 0, kHalf1 = 1, kTemp0 = 2, kTemp1 = 3;

/// Constant vectors placed after the code (32 bytes each).
enum Constant : int32_t {
  kSignMask = 0,   ///< The sign bit of each C lane.
  kBelowHalf = 32, ///< pred(0.5) in each C lane.
  kBias = 64,      ///< 2^31 in each f64 lane.
  kSignBit32 = 96, ///< 0x80000000 in each i32 lane.
  kLowF32 = 128,   ///< The f32 nearest min, not below it (C = f32).
  kHighF32 = 160,  ///< The f32 nearest max, not above it.
  kMinI32 = 192,   ///< min in each i32 lane.
  kMaxI32 = 224,   ///< max in each i32 lane (its low 32 bits).
  kTwo31F32 = 256, ///< 2^31 in each f32 lane.
};

std::optional<X86PackedCodes> packedCodes(const StorageSpec &storage) {
  if (!storage.packed)
    return std::nullopt;
  return X86PackedCodes(storage.bits, storage.isSigned);
}

/// The storage bound in f32 (ComputeBounds.h).
plan::ComputeBound boundInF32(int64_t bound, plan::BoundSide side) {
  return plan::boundInCompute(bound, side, ValueType::F32);
}

void embedConstants(x86::Assembler &a, const asmjit::Label &label, bool f64,
                    const StorageSpec &storage) {
  a.align(asmjit::AlignMode::kData, 32);
  a.bind(label);
  if (f64) {
    a.embedUInt64(0x8000000000000000u, 4);
    a.embedUInt64(std::bit_cast<uint64_t>(0.5 - 0x1p-54), 4);
  } else {
    a.embedUInt32(0x80000000u, 8);
    a.embedUInt32(std::bit_cast<uint32_t>(0.5f - 0x1p-25f), 8);
  }
  a.embedUInt64(std::bit_cast<uint64_t>(0x1p31), 4);
  a.embedUInt32(0x80000000u, 8);
  a.embedFloat(
      static_cast<float>(boundInF32(storage.min, plan::BoundSide::Low).value),
      8);
  a.embedFloat(
      static_cast<float>(boundInF32(storage.max, plan::BoundSide::High).value),
      8);
  a.embedUInt32(static_cast<uint32_t>(storage.min), 8);
  a.embedUInt32(static_cast<uint32_t>(storage.max), 8);
  a.embedFloat(0x1p31f, 8);
}

class X86WideQuantizeGenerator final : public X86VectorBody {
public:
  X86WideQuantizeGenerator(const KernelSpec &spec)
      : spec_(spec), f64_(spec.compute == ValueType::F64),
        after_(spec.knobs.zeroPoint == ZeroPointOrder::AfterRounding),
        smallZeroPath_(after_ && !f64_ && spec.params.runtime &&
                       spec.storage.bits <= 24),
        params_(spec, spec.knobs.scaleOp == ScaleOp::Reciprocal, true,
                smallZeroPath_),
        packed_(packedCodes(spec.storage)) {}

  void generate(x86::Assembler &a) {
    emitX86Kernel(a, X86Isa(IsaLevel::Avx2), spec_, *this);
  }

  unsigned lanes() const override { return 8; }
  unsigned srcBytes() const override { return valueTypeBytes(spec_.expressed); }
  unsigned dstBytes() const override { return spec_.storage.containerBytes(); }
  unsigned dstPackedBits() const override {
    return packed_ ? packed_->bits() : 0;
  }

  void emitConstants(x86::Assembler &a) override {
    constants_ = a.newLabel();
    a.mov(reg::scratch,
          std::bit_cast<uint64_t>(static_cast<double>(spec_.storage.min)));
    a.vmovq(x86::xmm(wide::kLow), reg::scratch);
    a.vbroadcastsd(x86::ymm(wide::kLow), x86::xmm(wide::kLow));
    a.mov(reg::scratch,
          std::bit_cast<uint64_t>(static_cast<double>(spec_.storage.max)));
    a.vmovq(x86::xmm(wide::kHigh), reg::scratch);
    a.vbroadcastsd(x86::ymm(wide::kHigh), x86::xmm(wide::kHigh));
  }
  void emitParameters(x86::Assembler &a) override { params_.emitLoad(a); }
  void emitData(x86::Assembler &a) override {
    embedConstants(a, constants_, f64_, spec_.storage);
    params_.emitData(a);
    if (packed_)
      packed_->emitData(a);
  }

  void emitVector(x86::Assembler &a, unsigned, const x86::Mem &src,
                  const x86::Mem &dst, bool) override {
    x86::Ymm half0 = x86::ymm(kHalf0), half1 = x86::ymm(kHalf1);
    asmjit::Label done = a.newLabel();
    if (smallZeroPath_) {
      asmjit::Label wideSum = a.newLabel();
      x86::Ymm flag = x86::ymm(wide::kScratch);
      a.vptest(flag, flag);
      a.jz(wideSum);
      emitSmallZeroVector(a, src, dst);
      a.jmp(done);
      a.bind(wideSum);
    }
    if (!f64_ && !after_) {
      emitLoadExpressed(a, X86Isa(IsaLevel::Avx2), spec_.expressed, half0, src,
                        false);
      emitRounded(a, half0);
      emitNarrowFinish(a, half0);
    } else if (f64_) {
      a.vmovupd(half0, src);
      a.vmovupd(half1, src.cloneAdjusted(32));
      emitRounded(a, half0);
      emitRounded(a, half1);
    } else {
      X86Isa avx2(IsaLevel::Avx2);
      emitLoadExpressed(a, avx2, spec_.expressed, half0, src, false);
      emitRounded(a, half0);
      a.vextractf128(half1.xmm(), half0, 1);
      a.vcvtps2pd(half1, half1.xmm());
      a.vcvtps2pd(half0, half0.xmm());
    }
    if (f64_ || after_) {
      emitFinish(a, half0);
      emitFinish(a, half1);
      a.vinserti128(half0, half0, half1.xmm(), 1);
    }
    emitStore(a, dst, half0, x86::ymm(kTemp0));
    a.bind(done);
  }

private:
  /// A run whose |z| <= 2^24 (storage of at most 24 bits, C = f32): the
  /// f32 sum round(u) + fl(z) saturates exactly (X86IntegerQuantizeBody's
  /// after-rounding path); NaN lanes become 0 first, giving clamp(z).
  void emitSmallZeroVector(x86::Assembler &a, const x86::Mem &src,
                           const x86::Mem &dst) {
    constexpr uint8_t kOrdered = 7;
    x86::Ymm v = x86::ymm(kHalf0), t = x86::ymm(kTemp1);
    X86Isa avx2(IsaLevel::Avx2);
    emitLoadExpressed(a, avx2, spec_.expressed, v, src, false);
    emitRounded(a, v);
    a.vcmpps(t, v, v, kOrdered);
    a.vandps(v, v, t);
    a.vaddps(v, v, x86::ymm(wide::kZeroPoint));
    a.vmaxps(v, v, constant(kLowF32));
    a.vminps(v, v, constant(kHighF32));
    a.vcvttps2dq(v, v);
    emitStore(a, dst, v, t);
  }

  /// i32 lanes within the bounds → the stored values at `dst`.
  void emitStore(x86::Assembler &a, const x86::Mem &dst, const x86::Ymm &v,
                 const x86::Ymm &t) {
    if (packed_)
      packed_->emitStore(a, dst, v, t);
    else
      emitStoreStored(a, X86Isa(IsaLevel::Avx2), spec_.storage, dst, v, t,
                      false, Narrowing::Saturate);
  }

  x86::Mem constant(int32_t offset) const {
    return x86::ptr(constants_, offset);
  }

  /// v = round(x / s) (or round(x / s + z_C)) in C, in place; NaN stays.
  void emitRounded(x86::Assembler &a, const x86::Ymm &v) {
    x86::Ymm scale = x86::ymm(wide::kScale), t = x86::ymm(kTemp0);
    bool divide = spec_.knobs.scaleOp == ScaleOp::Divide;
    if (f64_)
      divide ? a.vdivpd(v, v, scale) : a.vmulpd(v, v, scale);
    else
      divide ? a.vdivps(v, v, scale) : a.vmulps(v, v, scale);
    if (!after_)
      f64_ ? a.vaddpd(v, v, x86::ymm(wide::kZeroPoint))
           : a.vaddps(v, v, x86::ymm(wide::kZeroPoint));
    uint8_t mode = kRoundTowardZero;
    switch (spec_.knobs.rounding) {
    case RoundingMode::NearestEven:
      mode = kRoundNearest;
      break;
    case RoundingMode::NearestAway:
      // v + copysign(pred(0.5), v), truncated: exact half-away rounding
      // (the sum crosses an integer only on a tie or beyond).
      if (f64_) {
        a.vandpd(t, v, constant(kSignMask));
        a.vorpd(t, t, constant(kBelowHalf));
        a.vaddpd(v, v, t);
      } else {
        a.vandps(t, v, constant(kSignMask));
        a.vorps(t, t, constant(kBelowHalf));
        a.vaddps(v, v, t);
      }
      break;
    case RoundingMode::TowardZero:
      break;
    }
    f64_ ? a.vroundpd(v, v, mode) : a.vroundps(v, v, mode);
  }

  /// Before rounding with C = f32 (storage wider than 24 bits): integral
  /// f32 lanes r (±inf, NaN) → the stored i32 values, without f64. r is
  /// clamped to the f32 values nearest the bounds inside them and
  /// converted (u32 above 2^31 through −2^31, exact there by Sterbenz); an
  /// r beyond such an inexact bound is beyond the bound itself (no f32
  /// lies between), so it takes the bound's integer.
  void emitNarrowFinish(x86::Assembler &a, const x86::Ymm &r) {
    constexpr uint8_t kGreaterOrEqual = 0x1d, kGreater = 0x1e, kLess = 0x11;
    const StorageSpec &storage = spec_.storage;
    x86::Ymm c = x86::ymm(kTemp0), t = x86::ymm(kTemp1), m = x86::ymm(4);
    a.vmaxps(c, r, constant(kLowF32)); // NaN lanes are replaced below.
    a.vminps(c, c, constant(kHighF32));
    if (storage.max > INT32_MAX) {
      a.vsubps(t, c, constant(kTwo31F32));
      a.vcvttps2dq(t, t);
      a.vpxor(t, t, constant(kSignBit32));
      a.vcmpps(m, c, constant(kTwo31F32), kGreaterOrEqual);
      a.vcvttps2dq(c, c);
      a.vblendvps(c, c, t, m);
    } else {
      a.vcvttps2dq(c, c);
    }
    if (!boundInF32(storage.max, plan::BoundSide::High).exact) {
      a.vcmpps(m, r, constant(kHighF32), kGreater);
      a.vblendvps(c, c, constant(kMaxI32), m);
    }
    if (!boundInF32(storage.min, plan::BoundSide::Low).exact) {
      a.vcmpps(m, r, constant(kLowF32), kLess);
      a.vblendvps(c, c, constant(kMinI32), m);
    }
    a.vcmpps(m, r, r, kUnordered);
    a.vblendvps(r, c, x86::ymm(wide::kNaNStored), m);
  }

  /// Integral f64 lanes (±inf, NaN) → the stored i32 values, in the low
  /// 128 bits of v.
  void emitFinish(x86::Assembler &a, const x86::Ymm &v) {
    x86::Ymm t = x86::ymm(kTemp1);
    if (after_) {
      a.vaddpd(v, v, x86::ymm(wide::kZeroHigh));
      a.vaddpd(v, v, x86::ymm(wide::kZeroLow));
    }
    a.vcmppd(t, v, v, kUnordered);
    a.vblendvpd(v, v, x86::ymm(wide::kNaNValue), t);
    a.vmaxpd(v, v, x86::ymm(wide::kLow));
    a.vminpd(v, v, x86::ymm(wide::kHigh));
    if (spec_.storage.max <= INT32_MAX) {
      a.vcvttpd2dq(v.xmm(), v);
      return;
    }
    // [0, 2^32): t − 2^31 is exact and fits i32; flip the sign bit back.
    a.vsubpd(v, v, constant(kBias));
    a.vcvttpd2dq(v.xmm(), v);
    a.vpxor(v.xmm(), v.xmm(), constant(kSignBit32));
  }

  const KernelSpec &spec_;
  bool f64_, after_;
  /// Runtime zero points within ±2^24 take the f32 sum (a per-run flag).
  bool smallZeroPath_;
  X86WideParameters params_;
  std::optional<X86PackedCodes> packed_;
  asmjit::Label constants_;
};

class X86WideDequantizeGenerator final : public X86VectorBody {
public:
  X86WideDequantizeGenerator(const KernelSpec &spec)
      : spec_(spec), params_(spec, false, false),
        packed_(packedCodes(spec.storage)) {}

  void generate(x86::Assembler &a) {
    emitX86Kernel(a, X86Isa(IsaLevel::Avx2), spec_, *this);
  }

  unsigned lanes() const override { return 8; }
  unsigned srcBytes() const override { return spec_.storage.containerBytes(); }
  unsigned dstBytes() const override { return valueTypeBytes(spec_.expressed); }
  unsigned srcPackedBits() const override {
    return packed_ ? packed_->bits() : 0;
  }

  void emitConstants(x86::Assembler &a) override { constants_ = a.newLabel(); }
  void emitParameters(x86::Assembler &a) override { params_.emitLoad(a); }
  void emitData(x86::Assembler &a) override {
    embedConstants(a, constants_, true, spec_.storage);
    params_.emitData(a);
    if (packed_)
      packed_->emitData(a);
  }

  void emitVector(x86::Assembler &a, unsigned, const x86::Mem &src,
                  const x86::Mem &dst, bool) override {
    x86::Ymm half0 = x86::ymm(kHalf0), half1 = x86::ymm(kHalf1);
    bool unsignedValues = !spec_.storage.isSigned && spec_.storage.bits == 32;
    if (packed_)
      packed_->emitLoad(a, half0, src);
    else
      emitLoadStored(a, X86Isa(IsaLevel::Avx2), spec_.storage, half0, src,
                     false);
    if (unsignedValues) // q − 2^31 as i32.
      a.vpxor(half0, half0, x86::ptr(constants_, kSignBit32));
    a.vextracti128(half1.xmm(), half0, 1);
    for (const x86::Ymm &v : {half0, half1}) {
      a.vcvtdq2pd(v, v.xmm());
      if (unsignedValues)
        a.vaddpd(v, v, x86::ptr(constants_, kBias));
      a.vsubpd(v, v, x86::ymm(wide::kZeroPoint));
      a.vmulpd(v, v, x86::ymm(wide::kScale));
    }
    emitStoreF64Pair(a, dst, half0, half1, streamingStores_);
  }

  /// f64 outputs are the widest ones (8 bytes per 1-byte input).
  bool canStreamStores() const override { return true; }

private:
  const KernelSpec &spec_;
  X86WideParameters params_;
  std::optional<X86PackedCodes> packed_;
  asmjit::Label constants_;
};

} // namespace

bool x86NeedsWideLanes(const KernelSpec &spec) {
  return plan::kernelFamilyIsWide(plan::kernelFamily(spec));
}

void generateX86Wide(x86::Assembler &a, const KernelSpec &spec) {
  if (spec.storage.kind != StorageType::Kind::Integer)
    generateX86WideCompact(a, spec);
  else if (spec.op == KernelOp::QCast)
    X86WideQuantizeGenerator(spec).generate(a);
  else
    X86WideDequantizeGenerator(spec).generate(a);
}

} // namespace qjit::asmjit_backend
