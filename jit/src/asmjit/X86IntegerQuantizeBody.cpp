//===- X86IntegerQuantizeBody.cpp - Integer qcast by exact scaling --------===//
#include "X86IntegerQuantizeBody.h"

#include "X86Conversions.h"

#include "qjit/internal/HostFloat.h"

#include <array>
#include <cstdint>
#include <utility>

namespace qjit::asmjit_backend {

using namespace quantize;

X86IntegerQuantizeBody::X86IntegerQuantizeBody(const KernelSpec &spec,
                                               const X86Isa &isa,
                                               X86Parameters params)
    : X86QuantizeBody(spec, isa, std::move(params)) {
  // AVX-512's saturating narrows (vpmovsdb, vpmovusdb, ...) clamp to the
  // container's range for free, provided the conversion is in range:
  // out-of-range converts give 0x80000000, which saturates correctly only
  // downwards (signed) or upwards (unsigned, as 2^31). AVX2 packs need
  // every lane in range.
  const StorageSpec &s = spec.storage;
  unsigned bits = s.containerBytes() * 8;
  if (isa.avx512() && bits != 32) {
    int64_t containerMin = s.isSigned ? -(int64_t(1) << (bits - 1)) : 0;
    int64_t containerMax =
        s.isSigned ? (int64_t(1) << (bits - 1)) - 1 : (int64_t(1) << bits) - 1;
    clampLow_ = !s.isSigned || s.min > containerMin;
    clampHigh_ = s.isSigned || s.max < containerMax;
  }
  useRuntimeTablesWhereTheyApply();
}

void X86IntegerQuantizeBody::emitConstants(x86::Assembler &a) {
  emitRuntimeTablesFill(a);
  emitClampConstants(a);
  if (spec_.knobs.rounding == RoundingMode::NearestAway) {
    emitBroadcastImmediate(a, isa_, isa_.vec(reg::kSign), kSignBit);
    emitBroadcastImmediate(a, isa_, isa_.vec(reg::kHalf), kBelowHalf);
  }
}

void X86IntegerQuantizeBody::emitClampConstants(x86::Assembler &a) {
  if (clampLow_)
    emitBroadcastImmediate(a, isa_, isa_.vec(reg::kLow),
                           floatBits(static_cast<float>(spec_.storage.min)));
  if (clampHigh_)
    emitBroadcastImmediate(a, isa_, isa_.vec(reg::kHigh),
                           floatBits(static_cast<float>(spec_.storage.max)));
}

void X86IntegerQuantizeBody::emitUnrolled(x86::Assembler &a,
                                          const x86::Mem &src,
                                          const x86::Mem &dst) {
  if (!packed_) {
    X86VectorBody::emitUnrolled(a, src, dst);
    return;
  }
  std::array<x86::Vec, reg::kUnroll> v;
  for (unsigned j = 0; j < reg::kUnroll; ++j) {
    v[j] = isa_.vec(reg::kWork + j);
    emitQuantize(a, j, src.cloneAdjusted(int32_t(j) * srcVectorBytes()), false);
  }
  packed_->emitStoreGroup(a, dst, v); // Lanes are within the bounds.
}

void X86IntegerQuantizeBody::emitExactVector(x86::Assembler &a, unsigned slot,
                                             const x86::Mem &src,
                                             const x86::Mem &dst, bool masked) {
  x86::Vec v = isa_.vec(reg::kWork + slot), t = isa_.vec(reg::kTemp + slot);
  emitQuantize(a, slot, src, masked);
  if (packed_)
    packed_->emitStore(a, dst, v, t);
  else
    emitStoreStored(a, isa_, spec_.storage, dst, v, t, masked,
                    Narrowing::Saturate);
}

void X86IntegerQuantizeBody::emitQuantize(x86::Assembler &a, unsigned slot,
                                          const x86::Mem &src, bool masked) {
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

void X86IntegerQuantizeBody::emitClamp(x86::Assembler &a, const x86::Vec &v) {
  if (clampLow_)
    a.vmaxps(v, v, isa_.vec(reg::kLow));
  if (clampHigh_)
    a.vminps(v, v, isa_.vec(reg::kHigh));
}

void X86IntegerQuantizeBody::emitAddHalfAway(x86::Assembler &a,
                                             const x86::Vec &v,
                                             const x86::Vec &t) {
  a.vandps(t, v, isa_.vec(reg::kSign));
  a.emit(x86::Inst::kIdVorps, t, t, halfAway());
  a.vaddps(v, v, t);
}

void X86IntegerQuantizeBody::emitConvert(x86::Assembler &a, const x86::Vec &v,
                                         const x86::Vec &t) {
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

void X86IntegerQuantizeBody::emitRoundToIntegral(x86::Assembler &a,
                                                 const x86::Vec &v,
                                                 const x86::Vec &t) {
  uint8_t mode = kRoundTowardZero;
  if (spec_.knobs.rounding == RoundingMode::NearestEven)
    mode = kRoundNearest;
  else if (spec_.knobs.rounding == RoundingMode::NearestAway)
    emitAddHalfAway(a, v, t);
  isa_.avx512() ? a.vrndscaleps(v, v, mode) : a.vroundps(v, v, mode);
}

} // namespace qjit::asmjit_backend
