//===- X86FloatStorage.cpp - fp8 / fp4 codes on AVX2 lanes ----------------===//
//
// Encoding a clamped value c (|c| = a, a format value's range, exact f32)
// with M fraction bits and minimum normal exponent emin (biased in f32:
// Emin): let E be a's f32 exponent field and e = max(E - Emin, 0). Then
// t = a · 2^(M - max(E - 127, emin)) lies in [2^M, 2^(M+1)) above the
// format's subnormal range and in [0, 2^M) within it; n = roundeven(t)
// counts quanta, and the code's magnitude is (e << M) + n (a carry of n
// into 2^(M+1) moves into the exponent, as it must). t is built by integer
// arithmetic on a's bits (a - (e << 23) + ((127 + M - Emin) << 23): the
// exponent rebiased, exact for every normal a; a zero or f32-subnormal a
// gives a value far below 1/2, which rounds to 0 as a · 2^(M - emin) does),
// and rounded by vroundps with an immediate (nearest-even, MXCSR unread).
//
// Decoding fp8 goes through binary16 with F16C, as the LLVM backend does:
// f8E5M2 is the top byte of a binary16; f8E4M3FN's bits shifted left 7 are
// the binary16 of F · 2^-8 (its NaN patched to a binary16 NaN).
// f4E2M1FN's eight magnitudes are one vpermps table.
//
//===----------------------------------------------------------------------===//
#include "X86FloatStorage.h"

#include "X86Conversions.h"
#include "X86Parameters.h"

#include <bit>
#include <cmath>

namespace qjit::asmjit_backend {

namespace {

constexpr uint8_t kLessOrdered = 0x11;         ///< vcmpps LT_OQ.
constexpr uint8_t kGreaterEqualOrdered = 0x1d; ///< GE_OQ.
constexpr uint8_t kGreaterOrdered = 0x1e;      ///< GT_OQ.
constexpr uint8_t kRoundNearest = 0x08; ///< vroundps: even, no exception.
constexpr uint32_t kMagnitudeMask = 0x7fffffffu;
constexpr uint32_t kExponentMask = 0x7f800000u;

} // namespace

bool x86SupportsFloatStorage(const StorageSpec &storage) {
  return storage.kind == StorageType::Kind::Float && !storage.packed;
}

x86::Mem X86VectorConstants::vector(x86::Assembler &a,
                                    const std::array<uint32_t, 8> &lanes) {
  if (!label_.isValid())
    label_ = a.newLabel();
  size_t index = 0;
  while (index < vectors_.size() && vectors_[index] != lanes)
    ++index;
  if (index == vectors_.size())
    vectors_.push_back(lanes);
  return x86::ptr(label_, static_cast<int32_t>(index * 32));
}

x86::Mem X86VectorConstants::broadcast(x86::Assembler &a, uint32_t value) {
  std::array<uint32_t, 8> lanes;
  lanes.fill(value);
  return vector(a, lanes);
}

x86::Mem X86VectorConstants::words(x86::Assembler &a, uint16_t value) {
  return broadcast(a, uint32_t(value) << 16 | value);
}

void X86VectorConstants::emitData(x86::Assembler &a) {
  if (!label_.isValid())
    return;
  a.align(asmjit::AlignMode::kData, 32);
  a.bind(label_);
  for (const std::array<uint32_t, 8> &lanes : vectors_)
    a.embed(lanes.data(), sizeof lanes);
}

X86FloatEncoder::X86FloatEncoder(const KernelSpec &spec, const X86Isa &isa)
    : isa_(isa), format_(floatStorageFormat(spec.storage.floatFormat)),
      bounds_(floatStorageBounds(spec.storage)),
      saturate_(spec.knobs.saturate) {}

void X86FloatEncoder::emitConstants(x86::Assembler &a) {
  emitBroadcastImmediate(a, isa_, isa_.vec(reg::kLow),
                         floatBits(static_cast<float>(bounds_.lo)));
  emitBroadcastImmediate(a, isa_, isa_.vec(reg::kHigh),
                         floatBits(static_cast<float>(bounds_.hi)));
}

void X86FloatEncoder::emitEncode(x86::Assembler &a, const x86::Vec &v,
                                 const x86::Vec &t) {
  const unsigned M = format_.mantissaBits;
  const uint32_t minNormal = uint32_t(format_.minNormalExponent() + 127) << 23;
  x86::Vec negative = isa_.vec(reg::kScalar);
  x86::Vec overflow = isa_.vec(reg::kScalar2);
  x86::Vec negativeBeforeClamp = isa_.vec(reg::kSign);
  // Overflow (saturate off) is decided on v itself: the bounds clamp only
  // the lanes that stay finite. Its sign is v's, which the clamped value
  // keeps only when the bounds have both signs.
  bool overflowSignFromV = !saturate_ && !(bounds_.lo < 0 && bounds_.hi > 0);
  if (!saturate_) {
    // RNE_F(v) beyond the largest finite value: |v| above its upper
    // half-quantum, or on it when that tie goes to the (even) next binade.
    int top = std::ilogb(format_.largest);
    float threshold = static_cast<float>(
        format_.largest + std::ldexp(1.0, top - static_cast<int>(M) - 1));
    bool tieOverflows = (encodeFloatStorage(format_, format_.largest) & 1) != 0;
    a.vandps(overflow, v, constants_.broadcast(a, kMagnitudeMask));
    if (overflowSignFromV)
      a.vcmpps(negativeBeforeClamp, v, overflow, kLessOrdered);
    a.vcmpps(overflow, overflow, constants_.broadcast(a, floatBits(threshold)),
             tieOverflows ? kGreaterEqualOrdered : kGreaterOrdered);
  }
  // Clamp to [lo, hi]; NaN lanes stay NaN (the second operand wins).
  a.vminps(v, isa_.vec(reg::kHigh), v);
  a.vmaxps(v, isa_.vec(reg::kLow), v);
  x86::Vec magnitude = t;
  a.vandps(magnitude, v, constants_.broadcast(a, kMagnitudeMask));
  // c < |c|: the sign of a non-zero c; false for ±0 (v = -0 only comes
  // from u = -0 with z = 0, whose +0 sum the kernel may skip) and NaN.
  a.vcmpps(negative, v, magnitude, kLessOrdered);
  if (overflowSignFromV)
    a.vblendvps(negative, negative, negativeBeforeClamp, overflow);
  x86::Vec exponent = v; // (E - Emin)+ << 23, per 16-bit half: the high one.
  a.vpand(exponent, magnitude, constants_.broadcast(a, kExponentMask));
  a.vpsubusw(exponent, exponent, constants_.broadcast(a, minNormal));
  x86::Vec quanta = t;
  a.vpsubd(quanta, magnitude, exponent);
  a.vpaddd(quanta, quanta,
           constants_.broadcast(a, ((127 + M) << 23) - minNormal));
  a.vroundps(quanta, quanta, kRoundNearest);
  a.vcvttps2dq(quanta, quanta);
  x86::Vec code = v;
  a.vpsrld(code, exponent, 23 - M);
  a.vpaddd(code, code, quanta);
  if (!saturate_) {
    uint32_t special =
        format_.hasInfinity ? format_.positiveInfinity : format_.positiveNaN;
    a.vpand(overflow, overflow, constants_.broadcast(a, special));
    a.vpmaxud(code, code, overflow);
  }
  // A NaN lane's magnitude bits gave a code far above every finite one.
  if (format_.hasNaN)
    a.vpminud(code, code, constants_.broadcast(a, format_.positiveNaN));
  // The sign: code - (-1 << (bits - 1)) sets the (clear) sign bit.
  a.vpslld(negative, negative, format_.bits - 1);
  a.vpsubd(code, code, negative);
}

X86FloatDecoder::X86FloatDecoder(const StorageSpec &storage, const X86Isa &isa)
    : storage_(storage), isa_(isa) {}

void X86FloatDecoder::emitLoadValues(x86::Assembler &a, const x86::Vec &v,
                                     const x86::Vec &t, const x86::Mem &src) {
  x86::Xmm half = v.xmm(), work = t.xmm();
  switch (storage_.floatFormat) {
  case FloatType::F8E5M2:
    a.vpmovzxbw(half, src);
    a.vpsllw(half, half, 8);
    a.vcvtph2ps(v, half);
    return;
  case FloatType::F8E4M3FN: {
    a.vpmovsxbw(work, src); // The sign fills the high byte.
    a.vpsllw(half, work, 7);
    a.vpand(half, half, constants_.words(a, 0xbf80));
    // Magnitude 0x7f (NaN) became 0x3f80; turn it into the quiet NaN 0x7e00.
    a.vpand(work, work, constants_.words(a, 0x7f));
    a.vpcmpeqw(work, work, constants_.words(a, 0x7f));
    a.vpand(work, work, constants_.words(a, 0x3f80 ^ 0x7e00));
    a.vpxor(half, half, work);
    a.vcvtph2ps(v, half);
    a.vmulps(v, v, constants_.broadcast(a, floatBits(256.0f))); // Exact.
    return;
  }
  default:
    emitLoadStored(a, isa_, storage_, v, src, false);
    emitDecodeFp4(a, v, t);
    return;
  }
}

void X86FloatDecoder::emitDecodeFp4(x86::Assembler &a, const x86::Vec &v,
                                    const x86::Vec &t) {
  std::array<uint32_t, 8> magnitudes;
  FloatStorageFormat format = floatStorageFormat(FloatType::F4E2M1FN);
  for (uint32_t code = 0; code < 8; ++code)
    magnitudes[code] =
        floatBits(static_cast<float>(decodeFloatStorage(format, code)));
  a.vpermps(t, v, constants_.vector(a, magnitudes)); // Low 3 bits index.
  a.vpslld(v, v, 28);
  a.vpand(v, v, constants_.broadcast(a, 0x80000000u));
  a.vorps(v, v, t);
}

} // namespace qjit::asmjit_backend
