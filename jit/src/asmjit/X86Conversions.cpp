//===- X86Conversions.cpp - Vector loads and stores of host formats -------===//
#include "X86Conversions.h"

#include "X86FloatStorage.h"

namespace qjit::asmjit_backend {

namespace {

/// Applies the tail mask to the next instruction: zeroing for loads,
/// merging for stores.
x86::Assembler &maskedLoad(x86::Assembler &a, bool masked) {
  if (masked)
    a.k(reg::tailMask).z();
  return a;
}
x86::Assembler &maskedStore(x86::Assembler &a, bool masked) {
  if (masked)
    a.k(reg::tailMask);
  return a;
}

} // namespace

bool x86SupportsStorage(const StorageSpec &storage) {
  if (x86SupportsFloatStorage(storage))
    return true;
  return storage.kind == StorageType::Kind::Integer && storage.bits >= 1 &&
         storage.bits <= 32;
}

void emitLoadExpressed(x86::Assembler &a, const X86Isa &, ValueType type,
                       const x86::Vec &v, const x86::Mem &src, bool masked) {
  switch (type) {
  case ValueType::F32:
    maskedLoad(a, masked).vmovups(v, src);
    return;
  case ValueType::F16:
    maskedLoad(a, masked).vcvtph2ps(v, src);
    return;
  case ValueType::BF16:
    // bf16 is the upper half of an f32.
    maskedLoad(a, masked).vpmovzxwd(v, src);
    a.vpslld(v, v, 16);
    return;
  case ValueType::F64:
    break;
  }
}

void emitStoreExpressed(x86::Assembler &a, const X86Isa &isa, ValueType type,
                        const x86::Mem &dst, const x86::Vec &v, bool masked) {
  switch (type) {
  case ValueType::F32:
    maskedStore(a, masked).vmovups(dst, v);
    return;
  case ValueType::F16:
    // Immediate 0: round to nearest-even regardless of MXCSR.
    maskedStore(a, masked).vcvtps2ph(dst, v, 0);
    return;
  case ValueType::BF16: {
    // Nearest-even on the bit pattern: add 0x7fff plus the lowest kept bit,
    // keep the upper half. (Finite and infinite values; dcast of integers
    // never produces a NaN from finite parameters.)
    x86::Vec t = isa.vec(reg::kScalar2);
    a.vpsrld(t, v, 16);
    emitBroadcastImmediate(a, isa, isa.vec(reg::kScalar), 1);
    a.vpand(t, t, isa.vec(reg::kScalar));
    emitBroadcastImmediate(a, isa, isa.vec(reg::kScalar), 0x7fff);
    a.vpaddd(t, t, isa.vec(reg::kScalar));
    a.vpaddd(t, t, v);
    a.vpsrld(t, t, 16);
    if (isa.avx512()) {
      maskedStore(a, masked).vpmovdw(dst, t);
    } else {
      x86::Xmm high = x86::xmm(reg::kScalar);
      a.vextracti128(high, t, 1);
      a.vpackusdw(t.xmm(), t.xmm(), high);
      a.vmovdqu(dst, t.xmm());
    }
    return;
  }
  case ValueType::F64:
    break;
  }
}

void emitStoreF64Pair(x86::Assembler &a, const x86::Mem &dst,
                      const x86::Ymm &low, const x86::Ymm &high,
                      bool streaming) {
  if (streaming) {
    a.vmovntpd(dst, low);
    a.vmovntpd(dst.cloneAdjusted(32), high);
    return;
  }
  a.vmovupd(dst, low);
  a.vmovupd(dst.cloneAdjusted(32), high);
}

void emitLoadStored(x86::Assembler &a, const X86Isa &isa,
                    const StorageSpec &storage, const x86::Vec &v,
                    const x86::Mem &src, bool masked) {
  unsigned container = storage.containerBytes();
  if (container == 1)
    storage.isSigned ? maskedLoad(a, masked).vpmovsxbd(v, src)
                     : maskedLoad(a, masked).vpmovzxbd(v, src);
  else if (container == 2)
    storage.isSigned ? maskedLoad(a, masked).vpmovsxwd(v, src)
                     : maskedLoad(a, masked).vpmovzxwd(v, src);
  else if (isa.avx512())
    maskedLoad(a, masked).vmovdqu32(v, src);
  else
    a.vmovdqu(v, src);
  // Only the low `bits` bits count; re-extend from there.
  unsigned unused = 32 - storage.bits;
  if (storage.bits < container * 8) {
    a.vpslld(v, v, unused);
    storage.isSigned ? a.vpsrad(v, v, unused) : a.vpsrld(v, v, unused);
  }
}

void emitStoreStored(x86::Assembler &a, const X86Isa &isa,
                     const StorageSpec &storage, const x86::Mem &dst,
                     const x86::Vec &v, const x86::Vec &temp, bool masked,
                     Narrowing narrowing) {
  unsigned container = storage.containerBytes();
  if (container == 4) {
    isa.avx512() ? maskedStore(a, masked).vmovdqu32(dst, v) : a.vmovdqu(dst, v);
    return;
  }
  if (isa.avx512()) {
    bool saturate = narrowing == Narrowing::Saturate;
    bool isSigned = storage.isSigned;
    maskedStore(a, masked);
    if (container == 1)
      !saturate ? a.vpmovdb(dst, v)
                : (isSigned ? a.vpmovsdb(dst, v) : a.vpmovusdb(dst, v));
    else
      !saturate ? a.vpmovdw(dst, v)
                : (isSigned ? a.vpmovsdw(dst, v) : a.vpmovusdw(dst, v));
    return;
  }
  // AVX2: pack the two 128-bit halves; every lane already fits.
  x86::Xmm low = v.xmm(), high = temp.xmm();
  a.vextracti128(high, v, 1);
  if (container == 2) {
    storage.isSigned ? a.vpackssdw(low, low, high)
                     : a.vpackusdw(low, low, high);
    a.vmovdqu(dst, low);
    return;
  }
  a.vpackssdw(low, low, high);
  storage.isSigned ? a.vpacksswb(low, low, low) : a.vpackuswb(low, low, low);
  a.vmovq(dst, low);
}

void emitBroadcastImmediate(x86::Assembler &a, const X86Isa &isa,
                            const x86::Vec &v, uint32_t value) {
  a.mov(reg::scratch.r32(), value);
  if (isa.avx512()) {
    a.vpbroadcastd(v, reg::scratch.r32());
    return;
  }
  a.vmovd(v.xmm(), reg::scratch.r32());
  a.vpbroadcastd(v, v.xmm());
}

} // namespace qjit::asmjit_backend
