//===- X86WideParameters.cpp - Parameters of the f64-lane kernels ---------===//
#include "X86WideParameters.h"

#include "X86Parameters.h"

#include "qjit/internal/HostFloat.h"

#include <algorithm>
#include <bit>
#include <cstddef>

namespace qjit::asmjit_backend {

namespace {

/// The entry of a C value: f64 bits, or f32 bits in the low half.
uint64_t computeEntry(double value, bool f64) {
  if (f64)
    return std::bit_cast<uint64_t>(value);
  return std::bit_cast<uint32_t>(static_cast<float>(value));
}

uint64_t doubleEntry(double value) { return std::bit_cast<uint64_t>(value); }

constexpr uint64_t kLowHalf = 0xffffffffu;

} // namespace

X86WideParameters::X86WideParameters(const KernelSpec &spec, bool reciprocal,
                                     bool sum, bool smallZeroFlag)
    : spec_(spec), f64_(spec.compute == ValueType::F64),
      reciprocal_(reciprocal), sum_(sum), smallZeroFlag_(smallZeroFlag) {
  if (spec.params.runtime)
    return;
  count_ = spec.params.scales.size();
  table_.assign(6 * count_, 0);
  for (size_t k = 0; k < count_; ++k) {
    // The scale in C, as the reference gathers it, and its reciprocal
    // computed in C.
    double scale = bakedScale(spec, k);
    double used =
        f64_ ? (reciprocal ? 1.0 / scale : scale)
             : static_cast<double>(reciprocal ? 1.0f / static_cast<float>(scale)
                                              : static_cast<float>(scale));
    int64_t z = spec.params.zeroPoints[k];
    table_[k] = computeEntry(used, f64_);
    double zero = z == 0 && zeroIsNegativeZero() ? -0.0 : double(z);
    table_[count_ + k] = computeEntry(
        f64_ ? zero : static_cast<double>(static_cast<float>(zero)), f64_);
    uint64_t bits = static_cast<uint64_t>(z);
    table_[2 * count_ + k] = doubleEntry(
        static_cast<double>(static_cast<int64_t>(bits & ~kLowHalf)));
    table_[3 * count_ + k] = doubleEntry(static_cast<double>(bits & kLowHalf));
    int64_t nanStored = std::clamp(z, spec.storage.min, spec.storage.max);
    table_[4 * count_ + k] = doubleEntry(static_cast<double>(nanStored));
    table_[5 * count_ + k] = static_cast<uint32_t>(nanStored);
  }
}

void X86WideParameters::emitBroadcast(x86::Assembler &a, unsigned id,
                                      bool f64) {
  x86::Ymm v = x86::ymm(id);
  f64 ? a.vbroadcastsd(v, v.xmm()) : a.vbroadcastss(v, v.xmm());
}

void X86WideParameters::emitLoad(x86::Assembler &a) {
  if (spec_.params.runtime) {
    emitRuntimeLoad(a);
    return;
  }
  if (!tableLabel_.isValid())
    tableLabel_ = a.newLabel();
  a.lea(reg::scratch, x86::ptr(tableLabel_));
  auto entry = [&](size_t array) {
    return x86::ptr(reg::scratch, reg::paramIndex, 3,
                    static_cast<int32_t>(array * count_ * 8));
  };
  auto broadcastC = [&](unsigned id, size_t array) {
    f64_ ? a.vbroadcastsd(x86::ymm(id), entry(array))
         : a.vbroadcastss(x86::ymm(id), entry(array));
  };
  broadcastC(wide::kScale, 0);
  broadcastC(wide::kZeroPoint, 1);
  if (!sum_)
    return;
  a.vbroadcastsd(x86::ymm(wide::kZeroHigh), entry(2));
  a.vbroadcastsd(x86::ymm(wide::kZeroLow), entry(3));
  a.vbroadcastsd(x86::ymm(wide::kNaNValue), entry(4));
  a.vpbroadcastd(x86::ymm(wide::kNaNStored), entry(5));
}

void X86WideParameters::emitRuntimeLoad(x86::Assembler &a) {
  x86::Gp p = reg::scratch;
  x86::Xmm s = x86::xmm(wide::kScale);
  X86ScaleType type = x86ScaleType(spec_);
  emitLoadRuntimeScale(a, type, s);
  if (f64_ && type != X86ScaleType::F64)
    a.vcvtss2sd(s, s, s); // Exact.
  if (reciprocal_) {
    x86::Xmm one = x86::xmm(wide::kScratch);
    if (f64_) {
      a.mov(p, std::bit_cast<uint64_t>(1.0));
      a.vmovq(one, p);
      a.vdivsd(s, one, s);
    } else {
      a.mov(p.r32(), std::bit_cast<uint32_t>(1.0f));
      a.vmovd(one, p.r32());
      a.vdivss(s, one, s);
    }
  }
  emitBroadcast(a, wide::kScale, f64_);

  // z (0 without zero points) in reg::scratch.
  asmjit::Label noZeroPoints = a.newLabel();
  a.mov(p, x86::qword_ptr(reg::params, offsetof(KernelParams, zeroPoints)));
  a.test(p, p);
  a.jz(noZeroPoints);
  a.mov(p, x86::qword_ptr(p, reg::paramIndex, 3));
  a.bind(noZeroPoints);
  // vcvtsi2s* round to nearest-even (the MXCSR default kernels rely on).
  x86::Xmm zero = x86::xmm(wide::kZeroPoint);
  f64_ ? a.vcvtsi2sd(zero, zero, p) : a.vcvtsi2ss(zero, zero, p);
  if (zeroIsNegativeZero()) {
    // A zero point of 0 is −0 (see the constructor); p stays z.
    asmjit::Label nonZero = a.newLabel();
    a.test(p, p);
    a.jnz(nonZero);
    a.mov(reg::scratch2, f64_ ? uint64_t(1) << 63 : uint64_t(1) << 31);
    a.vmovq(zero, reg::scratch2);
    a.bind(nonZero);
  }
  emitBroadcast(a, wide::kZeroPoint, f64_);
  if (!sum_)
    return;
  x86::Gp t = reg::scratch2;
  if (smallZeroFlag_) {
    // -2^24 <= z <= 2^24 as one unsigned comparison.
    a.mov(t, p);
    a.add(t, int32_t(1) << 24);
    a.cmp(t, int32_t(1) << 25);
    a.mov(t.r32(), 0); // Keeps the flags.
    a.setbe(t.r8());
    a.vmovd(x86::xmm(wide::kScratch), t.r32()); // Clears the upper lanes.
  }
  x86::Xmm high = x86::xmm(wide::kZeroHigh), low = x86::xmm(wide::kZeroLow),
           nan = x86::xmm(wide::kNaNValue);
  // h and l have at most 32 significant bits: both convert exactly.
  a.mov(t, p);
  a.shr(t, 32);
  a.shl(t, 32);
  a.vcvtsi2sd(high, high, t);
  a.mov(t.r32(), p.r32()); // Zero-extends: l >= 0.
  a.vcvtsi2sd(low, low, t);
  a.mov(t, spec_.storage.min);
  a.cmp(p, t);
  a.cmovl(p, t);
  a.mov(t, spec_.storage.max);
  a.cmp(p, t);
  a.cmovg(p, t);
  a.vcvtsi2sd(nan, nan, p); // |clamp(z)| <= 2^32: exact.
  a.vmovd(x86::xmm(wide::kNaNStored), p.r32());
  a.vpbroadcastd(x86::ymm(wide::kNaNStored), x86::xmm(wide::kNaNStored));
  emitBroadcast(a, wide::kZeroHigh, true);
  emitBroadcast(a, wide::kZeroLow, true);
  emitBroadcast(a, wide::kNaNValue, true);
}

void X86WideParameters::emitData(x86::Assembler &a) {
  if (!tableLabel_.isValid())
    return;
  a.align(asmjit::AlignMode::kData, 8);
  a.bind(tableLabel_);
  a.embed(table_.data(), table_.size() * sizeof(uint64_t));
}

} // namespace qjit::asmjit_backend
