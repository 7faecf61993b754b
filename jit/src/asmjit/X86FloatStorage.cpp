//===- X86FloatStorage.cpp - fp8 / fp4 codes on AVX2 lanes ----------------===//
//
// Encoding a clamped value c (|c| = a, a format value's range, exact f32)
// with M fraction bits and minimum normal exponent emin (biased in f32:
// Emin): let E be a's f32 exponent field and e = max(E - Emin, 0). Then
// t = a - (e << 23) (integer arithmetic on the bits) is a moved down to
// the format's smallest normal binade [2^emin, 2^(emin+1)), exactly, or a
// itself below it: either way the format's quantum there is 2^(emin - M).
// K = 2^(emin + 23 - M) has that quantum as its ulp and t + K < 2K, so the
// FPU's nearest-even addition t + K counts quanta into its low bits:
// bits(t + K) = bits(K) + n, n = roundeven(t / 2^(emin - M)), and the
// code's magnitude is (e << M) + n (a carry of n into 2^(M+1) moves into
// the exponent, as it must). A zero or f32-subnormal a gives n = 0. A NaN
// lane's bits give a finite t and a code far above every finite one. K
// (or K - sign) is subtracted last, by one blend on the sign mask (AVX2),
// or K, then the sign added under a k-mask (AVX-512).
//
// Decoding fp8 goes through binary16 with F16C, as the LLVM backend does:
// f8E5M2 is the top byte of a binary16. f8E4M3FN's sign s, magnitude m (7
// bits) and NaN flag n (m = 0x7f) make the binary16 of F · 2^-8 as
// s << 15 | n << 14 | m << 7. With c the code as a signed byte and
// y = (c + 1) & 0x80 (byte arithmetic: bit 7 is s xor n) as a signed byte,
// 128·c + 128·y is that word as int16 (vpmaddubsw with 128, 128 on the
// byte pairs (y, c)): 128·m when s = n = 0; 128·m - 32768 for s = 1, the
// word with bit 15 and m << 7; -128 = 0xff80, a binary16 NaN, for both
// NaN codes 0x7f and 0xff. Two byte operations per 32 codes, then one
// unpack and one vpmaddubsw per 8.
// f4E2M1FN's eight magnitudes are one vpermps table.
//
//===----------------------------------------------------------------------===//
#include "X86FloatStorage.h"

#include "X86Conversions.h"
#include "X86Parameters.h"

#include "qjit/internal/HostFloat.h"

#include <cmath>
#include <utility>

namespace qjit::asmjit_backend {

namespace {

constexpr uint8_t kGreaterEqualOrdered = 0x1d; ///< GE_OQ.
constexpr uint8_t kGreaterOrdered = 0x1e;      ///< GT_OQ.
constexpr uint8_t kLessEqual = 2;              ///< vpcmpd: signed <=.
/// vrangeps: the smaller magnitude, sign cleared.
constexpr uint8_t kSmallerMagnitude = 0x0a;
constexpr uint32_t kMagnitudeMask = 0x7fffffffu;
constexpr uint32_t kExponentMask = 0x7f800000u;
/// −inf: as int32, every negative non-NaN float's bits are at most these.
constexpr uint32_t kNegativeInfinityBits = 0xff800000u;
/// AVX-512: the sign lanes and the overflowing lanes of the encoder.
inline const x86::KReg kSignLanes = x86::k6;
inline const x86::KReg kOverflowLanes = x86::k7;
/// AVX-512: zmm16..zmm24 hold the encoder's constants (at most nine; the
/// bodies use the first 16 registers and zmm25 and up).
constexpr unsigned kFirstUpperConstant = 16;
constexpr unsigned kUpperConstants = 9;

} // namespace

bool x86SupportsFloatStorage(const StorageSpec &storage) {
  return storage.kind == StorageType::Kind::Float && !storage.packed;
}

bool x86EncodesPackedFloat(const KernelSpec &spec) {
  return spec.op == KernelOp::QCast &&
         spec.storage.kind == StorageType::Kind::Float &&
         spec.storage.floatFormat == FloatType::F4E2M1FN &&
         spec.storage.packed && spec.storage.bits == 4;
}

asmjit::Operand X86VectorConstants::place(x86::Assembler &a, uint32_t value) {
  if (!spare_.empty()) {
    x86::Vec v = isa_.vec(spare_.front());
    spare_.erase(spare_.begin());
    emitBroadcastImmediate(a, isa_, v, value);
    return v;
  }
  std::array<uint32_t, 8> lanes;
  lanes.fill(value);
  return vector(a, lanes);
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
  return x86::ptr(label_, static_cast<int32_t>(index * isa_.vectorBytes()));
}

void X86VectorConstants::emitData(x86::Assembler &a) {
  if (!label_.isValid())
    return;
  a.align(asmjit::AlignMode::kData, isa_.vectorBytes());
  a.bind(label_);
  for (const std::array<uint32_t, 8> &lanes : vectors_)
    for (unsigned copy = 0; copy < isa_.vectorBytes() / sizeof lanes; ++copy)
      a.embed(lanes.data(), sizeof lanes);
}

namespace {

/// The spare registers of the encoder: vec(reg::kLow) is free when the
/// clamp needs hi only, vec(reg::kSign) unless it is scratch, vec(kHalf)
/// unless the caller clamps the input; at AVX-512 the upper registers.
std::vector<unsigned> encoderSpares(const X86Isa &isa, bool symmetric,
                                    bool signScratch, bool clampsInput) {
  std::vector<unsigned> spares;
  if (isa.avx512())
    for (unsigned r = 0; r < kUpperConstants; ++r)
      spares.push_back(kFirstUpperConstant + r);
  if (symmetric)
    spares.push_back(reg::kLow);
  if (!clampsInput)
    spares.push_back(reg::kHalf);
  if (!signScratch)
    spares.push_back(reg::kSign);
  return spares;
}

} // namespace

X86FloatEncoder::X86FloatEncoder(const KernelSpec &spec, const X86Isa &isa,
                                 bool clampsInput)
    : isa_(isa), format_(floatStorageFormat(spec.storage.floatFormat)),
      bounds_(floatStorageBounds(spec.storage)), saturate_(spec.knobs.saturate),
      clampsInput_(clampsInput),
      constants_(isa, encoderSpares(isa, symmetric(), overflowSignFromV(),
                                    clampsInput)) {}

void X86FloatEncoder::emitConstants(x86::Assembler &a) {
  if (!clampsInput_)
    emitBroadcastImmediate(a, isa_, isa_.vec(reg::kHigh),
                           floatBits(static_cast<float>(bounds_.hi)));
  if (!symmetric())
    emitBroadcastImmediate(a, isa_, isa_.vec(reg::kLow),
                           floatBits(static_cast<float>(bounds_.lo)));
  const unsigned M = format_.mantissaBits;
  uint32_t minNormal = uint32_t(format_.minNormalExponent() + 127) << 23;
  // K = 2^(emin + 23 - M): its ulp is the quantum of the smallest normal
  // binade.
  uint32_t magic = minNormal + ((23 - M) << 23);
  // Negative lanes subtract K - sign: the sign bit set, or for signed
  // codes the byte's value as int8 (magnitude - 128). The blend's first
  // operand must be a register: K - sign gets the first one. AVX-512
  // subtracts K and adds the sign (-128 for signed codes) under a mask.
  uint32_t sign = signedCodes() ? uint32_t(-128) : format_.signBit();
  if (isa_.avx512())
    c_.signAdjust = constants_.place(a, sign);
  else
    c_.negativeMagic = constants_.place(a, magic - sign);
  c_.magic = constants_.place(a, magic);
  c_.magnitudeMask = constants_.place(a, kMagnitudeMask);
  c_.exponentMask = constants_.place(a, kExponentMask);
  c_.minNormal = constants_.place(a, minNormal);
  c_.negativeBits = constants_.place(a, kNegativeInfinityBits);
  if (format_.hasNaN && !signedCodes())
    c_.nanCode = constants_.place(a, magic + format_.positiveNaN);
  if (!saturate_) {
    // RNE_F(v) beyond the largest finite value: |v| above its upper
    // half-quantum, or on it when that tie goes to the (even) next binade.
    int top = std::ilogb(format_.largest);
    c_.threshold = constants_.place(
        a,
        floatBits(static_cast<float>(
            format_.largest + std::ldexp(1.0, top - static_cast<int>(M) - 1))));
    c_.special = constants_.place(a, magic + (format_.hasInfinity
                                                  ? format_.positiveInfinity
                                                  : format_.positiveNaN));
  }
}

void X86FloatEncoder::emitEncode(x86::Assembler &a, const x86::Vec &v,
                                 const x86::Vec &t) {
  bool evex = isa_.avx512();
  asmjit::Operand signMask = evex ? asmjit::Operand(kSignLanes)
                                  : asmjit::Operand(isa_.vec(reg::kScalar));
  asmjit::Operand overflow = evex ? asmjit::Operand(kOverflowLanes)
                                  : asmjit::Operand(isa_.vec(reg::kScalar2));
  x86::Vec high = isa_.vec(reg::kHigh);
  bool tieOverflows = (encodeFloatStorage(format_, format_.largest) & 1) != 0;
  uint8_t overflowPredicate =
      tieOverflows ? kGreaterEqualOrdered : kGreaterOrdered;
  // Saturate off decides overflow on v itself; the clamp below then only
  // matters for the lanes that stay finite. NaN lanes stay NaN through
  // the clamps (vminps / vmaxps return the second operand) and compare
  // false.
  x86::Vec magnitude = t;
  if (symmetric()) {
    // Clamp |v| to hi; the sign is v's.
    if (evex && saturate_ && !format_.hasNaN) {
      // One instruction for both (v's NaN lanes are 0 here: see
      // encodesNaN). MXFP4 qcast at AVX-512, 4K elements: 4.3-4.6 ->
      // 4.9-5.0 el/ns (Xeon SPR-class VM, 2026-12-07).
      a.vrangeps(magnitude, v, high, kSmallerMagnitude);
    } else {
      a.emit(x86::Inst::kIdVandps, magnitude, v, c_.magnitudeMask);
      if (!saturate_)
        a.emit(x86::Inst::kIdVcmpps, overflow, magnitude, c_.threshold,
               overflowPredicate);
      a.vminps(magnitude, high, magnitude);
    }
    emitSignMask(a, signMask, v);
    emitCodes(a, v, magnitude, signMask, overflow, v);
    return;
  }
  // An overflowing lane is nonzero: v >= |v| is its sign clear. AVX-512
  // keeps v unclamped in those lanes instead (vec(reg::kScalar2) then
  // holds v).
  x86::Vec positiveBeforeClamp = isa_.vec(reg::kSign);
  x86::Vec unclamped = isa_.vec(reg::kScalar2);
  if (!saturate_) {
    x86::Vec absolute = evex ? unclamped : overflow.as<x86::Vec>();
    a.emit(x86::Inst::kIdVandps, absolute, v, c_.magnitudeMask);
    if (overflowSignFromV() && !evex)
      a.vcmpps(positiveBeforeClamp, v, absolute, kGreaterEqualOrdered);
    a.emit(x86::Inst::kIdVcmpps, overflow, absolute, c_.threshold,
           overflowPredicate);
    if (overflowSignFromV() && evex)
      a.vmovaps(unclamped, v);
  }
  a.vminps(v, high, v);
  a.vmaxps(v, isa_.vec(reg::kLow), v);
  a.emit(x86::Inst::kIdVandps, magnitude, v, c_.magnitudeMask);
  if (overflowSignFromV() && evex)
    a.k(kOverflowLanes).vmovaps(v, unclamped);
  emitSignMask(a, signMask, v);
  if (overflowSignFromV() && !evex)
    a.vblendvps(signMask.as<x86::Vec>(), signMask.as<x86::Vec>(),
                positiveBeforeClamp, overflow.as<x86::Vec>());
  emitCodes(a, v, magnitude, signMask, overflow, v);
}

void X86FloatEncoder::emitSignMask(x86::Assembler &a,
                                   const asmjit::Operand &dst,
                                   const x86::Vec &v) {
  if (isa_.avx512())
    a.emit(x86::Inst::kIdVpcmpd, dst, v, c_.negativeBits, kLessEqual);
  else
    a.emit(x86::Inst::kIdVpcmpgtd, dst, v, c_.negativeBits);
}

void X86FloatEncoder::emitCodes(x86::Assembler &a, const x86::Vec &exponent,
                                const x86::Vec &magnitude,
                                const asmjit::Operand &signMask,
                                const asmjit::Operand &overflow,
                                const x86::Vec &code) {
  const unsigned M = format_.mantissaBits;
  bool evex = isa_.avx512();
  // e = (E - Emin)+ << 23: the subtraction saturates in the high 16 bits.
  a.emit(evex ? x86::Inst::kIdVpandd : x86::Inst::kIdVpand, exponent, magnitude,
         c_.exponentMask);
  a.emit(x86::Inst::kIdVpsubusw, exponent, exponent, c_.minNormal);
  // a - e: a's binade moved down to the smallest normal one (or a itself
  // below it); + K counts its quanta into the low bits. (A magnitude in
  // (-q/4, -0], q = ulp(K) the smallest subnormal, has e = 0 and no quanta
  // either: below K the ulp is q/2, and K - q/4 ties to K.)
  x86::Vec quanta = magnitude;
  a.vpsubd(quanta, magnitude, exponent);
  a.emit(x86::Inst::kIdVaddps, quanta, quanta, c_.magic);
  // K + the code's magnitude, in the exponent's register.
  a.vpsrld(exponent, exponent, 23 - M);
  a.vpaddd(exponent, exponent, quanta);
  if (!saturate_) {
    if (evex) {
      a.k(overflow.as<x86::KReg>())
          .emit(x86::Inst::kIdVpmaxud, exponent, exponent, c_.special);
    } else {
      a.emit(x86::Inst::kIdVpand, overflow, overflow, c_.special);
      a.emit(x86::Inst::kIdVpmaxud, exponent, exponent, overflow);
    }
  }
  // A NaN lane's magnitude bits gave a code far above every finite one:
  // the NaN code, or with signed codes what the store saturates to it.
  if (format_.hasNaN && !signedCodes())
    a.emit(x86::Inst::kIdVpminud, exponent, exponent, c_.nanCode);
  if (evex) {
    // Minus K, then the sign in the sign lanes.
    a.emit(x86::Inst::kIdVpsubd, code, exponent, c_.magic);
    a.k(signMask.as<x86::KReg>())
        .emit(x86::Inst::kIdVpaddd, code, code, c_.signAdjust);
    return;
  }
  // Minus K, or minus K - sign for negative lanes.
  x86::Vec positive = signMask.as<x86::Vec>();
  a.emit(x86::Inst::kIdVblendvps, positive, c_.negativeMagic, c_.magic,
         positive);
  a.vpsubd(code, exponent, positive);
}

std::optional<double> X86FloatEncoder::saturatingQuotient() const {
  if (!saturate_ || !format_.hasNaN || !symmetric() ||
      bounds_.hi != format_.largest)
    return std::nullopt;
  // The top code's half-quantum below it is the midpoint to the next code
  // down, which rounds (ties to even) either way: a quarter-quantum below
  // the top is inside the top code's interval with room on both sides.
  int top = std::ilogb(format_.largest);
  return format_.largest -
         std::ldexp(1.0, top - static_cast<int>(format_.mantissaBits) - 2);
}

void X86FloatEncoder::emitAbs(x86::Assembler &a, const x86::Vec &dst,
                              const x86::Vec &src) {
  a.emit(x86::Inst::kIdVandps, dst, src, c_.magnitudeMask);
}

void X86FloatEncoder::emitEncodeMagnitude(x86::Assembler &a,
                                          const x86::Vec &magnitude,
                                          const asmjit::Operand &signMask,
                                          const x86::Vec &t,
                                          const x86::Vec &code) {
  emitCodes(a, t, magnitude, signMask, asmjit::Operand(), code);
}

std::optional<KernelSpec> foldDecodedExponent(const KernelSpec &spec) {
  if (spec.storage.kind != StorageType::Kind::Float ||
      spec.storage.floatFormat != FloatType::F8E4M3FN || spec.params.runtime)
    return std::nullopt;
  KernelSpec folded = spec;
  for (int64_t zero : spec.params.zeroPoints)
    if (zero != 0)
      return std::nullopt;
  for (double &scale : folded.params.scales) {
    // (F · 2^-8) · (s · 2^8) is the product F · s when s · 2^8 is exact.
    double up = std::ldexp(roundToValueType(scale, spec.expressed), 8);
    if (!std::isfinite(static_cast<float>(up)) ||
        roundToValueType(up, spec.expressed) != up)
      return std::nullopt;
    scale = up;
  }
  return folded;
}

X86FloatDecoder::X86FloatDecoder(const KernelSpec &spec, const X86Isa &isa,
                                 bool exponentFolded)
    : storage_(spec.storage), isa_(isa), exponentFolded_(exponentFolded),
      constants_(isa, {reg::kLow, reg::kHigh, reg::kHalf, reg::kSign}) {}

void X86FloatDecoder::emitConstants(x86::Assembler &a) {
  switch (storage_.floatFormat) {
  case FloatType::F8E5M2:
    return;
  case FloatType::F8E4M3FN:
    // The first two constants always get spare registers.
    byte80_ = constants_.place(a, 0x80808080u).as<x86::Vec>();
    byte01_ = constants_.place(a, 0x01010101u).as<x86::Vec>();
    if (!exponentFolded_)
      up8_ = constants_.place(a, floatBits(256.0f));
    return;
  default:
    signBit_ = constants_.place(a, 0x80000000u);
    return;
  }
}

void X86FloatDecoder::emitLoadValues(x86::Assembler &a, const x86::Vec &v,
                                     const x86::Vec &t, const x86::Mem &src) {
  x86::Xmm half = v.xmm(), work = t.xmm();
  switch (storage_.floatFormat) {
  case FloatType::F8E5M2:
    a.vpmovzxbw(half, src);
    a.vpsllw(half, half, 8);
    break;
  case FloatType::F8E4M3FN:
    a.vmovq(work, src);
    a.vpaddb(half, work, byte01_.xmm());
    a.vpand(half, half, byte80_.xmm());
    a.vpunpcklbw(half, half, work); // Byte pairs (y, c).
    a.vpmaddubsw(half, byte80_.xmm(), half);
    break;
  default:
    emitLoadStored(a, isa_, storage_, v, src, false);
    emitDecodeFp4(a, v, t);
    return;
  }
  emitWidenWords(a, v);
}

bool X86FloatDecoder::decodesBlocks() const {
  return storage_.floatFormat == FloatType::F8E4M3FN ||
         storage_.floatFormat == FloatType::F8E5M2;
}

void X86FloatDecoder::emitLoadBlock(x86::Assembler &a,
                                    const std::array<x86::Vec, 4> &v,
                                    const std::array<x86::Vec, 4> &t,
                                    const x86::Mem &src) {
  // Codes 16·j .. 16·j + 15 are the high bytes of the words of v[2·j]
  // (the first 8) and v[2·j + 1]; low[j] holds their low bytes: zeros for
  // f8E5M2, y for f8E4M3FN.
  std::array<x86::Xmm, 2> low = {t[0].xmm(), t[1].xmm()};
  if (storage_.floatFormat == FloatType::F8E5M2) {
    a.vpxor(low[0], low[0], low[0]);
    low[1] = low[0];
  } else {
    // Two 128-bit halves rather than one 256-bit op and an extract: the
    // extract would take a slot of the shuffle pipes, the bottleneck on
    // Zen 1 (measured).
    for (unsigned j = 0; j < 2; ++j) {
      x86::Mem codes = src.cloneAdjusted(int32_t(16 * j));
      codes.setSize(16);
      a.vpaddb(low[j], byte01_.xmm(), codes);
      a.vpand(low[j], low[j], byte80_.xmm());
    }
  }
  for (unsigned j = 0; j < 2; ++j) {
    x86::Mem codes = src.cloneAdjusted(int32_t(16 * j));
    codes.setSize(16);
    a.vpunpcklbw(v[2 * j].xmm(), low[j], codes);
    a.vpunpckhbw(v[2 * j + 1].xmm(), low[j], codes);
  }
  for (const x86::Vec &r : v) {
    if (storage_.floatFormat == FloatType::F8E4M3FN)
      a.vpmaddubsw(r.xmm(), byte80_.xmm(), r.xmm());
    emitWidenWords(a, r);
  }
}

void X86FloatDecoder::emitWidenWords(x86::Assembler &a, const x86::Vec &v) {
  a.vcvtph2ps(v, v.xmm());
  if (storage_.floatFormat == FloatType::F8E4M3FN && !exponentFolded_)
    a.emit(x86::Inst::kIdVmulps, v, v, up8_); // Exact.
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
  a.emit(x86::Inst::kIdVpand, v, v, signBit_);
  a.vorps(v, v, t);
}

} // namespace qjit::asmjit_backend
