//===- X86PackedCodes.cpp - Packed sub-byte codes <-> i32 lanes -----------===//
//
// Loads broadcast a vector's `bits` bytes to every dword and shift each
// lane's code to the top (vpsllvd), then back down with sign or zero
// extension: two shifts for 8 codes. The 4-bit group load splits 16 bytes
// into low and high nibbles (signed ones sign-extended by a vpshufb
// table), interleaves them into 32 bytes in element order and widens 8
// bytes per vector (vpmovsx/zxbd), like an 8-bit load.
// Biased 4-bit loads skip the widening and the int → float conversion
// (both on the pipes the conversion's stores and subtractions need): a
// byte shuffle puts each code's byte in the low byte of its lane, a mask
// keeps its nibble in bits 0-3 (even elements) or 4-7 (odd ones), and the
// exponent of 2^23 or 2^19 makes the lane the float 2^23 + code or
// 2^19 + code (a mantissa unit is 1, or 1/16 for the nibble 4 bits up).
// Signed codes are biased by 8 (the nibble's top bit flipped), so the
// float is laneBias + q. The group load first spreads each lane's 8 bytes
// as low and high nibbles (16 bytes), then places one nibble per lane.
// Top loads place each signed nibble in bits 28-31 of its lane instead
// (an i32 q · 2^28): the spread bytes meant for low nibbles are multiplied
// by 16 as words, both halves masked to their top nibbles.
// Stores pack lanes to bytes (saturating packs and a dword permutation, as
// 8-bit storage does), then merge neighbouring codes with multiply-adds
// (4 and 2 bits) or collect the low bits with vpmovmskb (1 bit).
//
//===----------------------------------------------------------------------===//
#include "X86PackedCodes.h"

#include "X86Conversions.h"

#include "../X86PackOrder.h"

#include <cstdint>

namespace qjit::asmjit_backend {

namespace {
/// Offsets in the constant block (32 bytes each).
constexpr int32_t kShiftCounts = 0;      ///< Dwords 32 - bits - bits·i.
constexpr int32_t kPermutation = 32;     ///< kPackedDwordOrder.
constexpr int32_t kCodeMask = 64;        ///< Bytes 2^bits - 1.
constexpr int32_t kByteWeights = 96;     ///< Bytes 1, 2^bits, 1, 2^bits, ...
constexpr int32_t kWordWeights = 128;    ///< Words 1, 16, ... (2-bit codes).
constexpr int32_t kSignedNibbles = 160;  ///< Bytes n sign-extended, n < 16.
constexpr int32_t kSpread = 192;         ///< Per lane: its 8 bytes, twice.
constexpr int32_t kSplitMask = 224;      ///< Per lane: 0x0f ×8, 0xf0 ×8.
constexpr int32_t kPlace = 256;          ///< 4 × 32: vector j's nibble bytes.
constexpr int32_t kPlaceVector = 384;    ///< One vector's bytes from a dword.
constexpr int32_t kLaneMask = 416;       ///< Dwords 0x0f, 0xf0, ...
constexpr int32_t kExponents = 448;      ///< Dwords of 2^23, 2^19, ... + bias.
constexpr int32_t kTopWeights = 480;     ///< Per lane: words 16 ×4, 1 ×4.
constexpr int32_t kTopMask = 512;        ///< Bytes 0xf0.
constexpr int32_t kTopPlace = 544;       ///< 4 × 32: kPlace, in byte 3.
constexpr int32_t kTopPlaceVector = 672; ///< kPlaceVector, in byte 3.
constexpr int32_t kTopShifts = 704;      ///< Dwords 4, 0, 4, 0, ...
constexpr int32_t kDataBytes = 736;

/// Exponent fields of 2^23 (even lanes) and 2^19 (odd lanes).
constexpr uint32_t kEvenExponent = 0x4b000000u;
constexpr uint32_t kOddExponent = 0x49000000u;
} // namespace

X86PackedCodes::X86PackedCodes(unsigned bits, bool isSigned)
    : bits_(bits), isSigned_(isSigned) {}

x86::Mem X86PackedCodes::data(x86::Assembler &a, int32_t offset) {
  if (!data_.isValid())
    data_ = a.newLabel();
  return x86::ptr(data_, offset);
}

void X86PackedCodes::emitLoad(x86::Assembler &a, const x86::Vec &v,
                              const x86::Mem &src) {
  x86::Mem m = src;
  m.setSize(bits_);
  if (bits_ == 4)
    a.vpbroadcastd(v, m);
  else if (bits_ == 2)
    a.vpbroadcastw(v, m);
  else
    a.vpbroadcastb(v, m);
  a.vpsllvd(v, v, data(a, kShiftCounts));
  isSigned_ ? a.vpsrad(v, v, 32 - bits_) : a.vpsrld(v, v, 32 - bits_);
}

void X86PackedCodes::emitLoadGroup(x86::Assembler &a,
                                   const std::array<x86::Vec, 4> &v,
                                   const x86::Vec &t0, const x86::Vec &t1,
                                   const x86::Mem &src) {
  if (bits_ != 4) {
    for (unsigned j = 0; j < 4; ++j)
      emitLoad(a, v[j], src.cloneAdjusted(int32_t(j * bits_)));
    return;
  }
  x86::Xmm low = t0.xmm(), high = t1.xmm();
  a.vmovdqu(low, src);
  a.vpsrlw(high, low, 4);
  a.vpand(low, low, data(a, kCodeMask));
  a.vpand(high, high, data(a, kCodeMask));
  if (isSigned_) {
    // Each nibble's byte, sign-extended, from a 16-entry table.
    a.vmovdqu(v[1].xmm(), data(a, kSignedNibbles));
    a.vpshufb(low, v[1].xmm(), low);
    a.vpshufb(high, v[1].xmm(), high);
  }
  a.vpunpcklbw(v[0].xmm(), low, high); // Codes 0..15, one per byte.
  a.vpunpckhbw(v[2].xmm(), low, high); // Codes 16..31.
  a.vpshufd(v[1].xmm(), v[0].xmm(), 0xee);
  a.vpshufd(v[3].xmm(), v[2].xmm(), 0xee);
  for (const x86::Vec &r : v)
    isSigned_ ? a.vpmovsxbd(r, r.xmm()) : a.vpmovzxbd(r, r.xmm());
}

std::array<float, 8> X86PackedCodes::laneBiases() const {
  std::array<float, 8> biases;
  float signBias = isSigned_ ? 8.0f : 0.0f;
  for (unsigned i = 0; i < 8; ++i)
    biases[i] = (i % 2 ? 0x1p19f : 0x1p23f) + signBias;
  return biases;
}

void X86PackedCodes::emitLoadBiased(x86::Assembler &a, const x86::Vec &v,
                                    const x86::Mem &src) {
  x86::Mem m = src;
  m.setSize(4);
  a.vpbroadcastd(v, m);
  a.vpshufb(v, v, data(a, kPlaceVector));
  a.vpand(v, v, data(a, kLaneMask));
  a.vpxor(v, v, data(a, kExponents));
}

void X86PackedCodes::emitLoadBiasedGroup(x86::Assembler &a,
                                         const std::array<x86::Vec, 4> &v,
                                         const x86::Vec &t,
                                         const x86::Mem &src) {
  x86::Mem m = src;
  m.setSize(16);
  a.vbroadcasti128(t, m);
  a.vpshufb(t, t, data(a, kSpread));
  a.vpand(t, t, data(a, kSplitMask));
  for (unsigned j = 0; j < 4; ++j) {
    a.vpshufb(v[j], t, data(a, kPlace + 32 * int32_t(j)));
    a.vpxor(v[j], v[j], data(a, kExponents));
  }
}

void X86PackedCodes::emitLoadTop(x86::Assembler &a, const x86::Vec &v,
                                 const x86::Mem &src) {
  x86::Mem m = src;
  m.setSize(4);
  a.vpbroadcastd(v, m);
  a.vpshufb(v, v, data(a, kTopPlaceVector));
  a.vpsllvd(v, v, data(a, kTopShifts)); // Low nibbles up (the high one out).
  a.vpand(v, v, data(a, kTopMask));
}

void X86PackedCodes::emitLoadTopNibbles(x86::Assembler &a, const x86::Vec &t,
                                        const x86::Mem &src) {
  x86::Mem m = src;
  m.setSize(16);
  a.vbroadcasti128(t, m);
  a.vpshufb(t, t, data(a, kSpread));
  // Bytes 0-7 of each half · 16 as words: each byte's low nibble on top
  // (the byte below it brings its high nibble into the low bits, which
  // the mask clears); bytes 8-15 keep their high nibbles.
  a.vpmullw(t, t, data(a, kTopWeights));
  a.vpand(t, t, data(a, kTopMask));
}

void X86PackedCodes::emitPlaceTopNibbles(x86::Assembler &a,
                                         const std::array<x86::Vec, 4> &v,
                                         const x86::Vec &t) {
  for (unsigned j = 0; j < 4; ++j)
    a.vpshufb(v[j], t, data(a, kTopPlace + 32 * int32_t(j)));
}

void X86PackedCodes::emitStore(x86::Assembler &a, const x86::Mem &dst,
                               const x86::Vec &v, const x86::Vec &temp) {
  x86::Mem m = dst;
  if (bits_ == 1) {
    a.vpslld(v, v, 31);
    a.vmovmskps(reg::scratch.r32(), v);
    m.setSize(1);
    a.mov(m, reg::scratch.r8());
    return;
  }
  // Lane i's code to bits [bits·i, bits·(i+1)), zeros elsewhere; then OR
  // the 8 lanes together.
  a.vpslld(v, v, 32 - bits_);
  a.vpsrlvd(v, v, data(a, kShiftCounts));
  x86::Xmm x = v.xmm(), t = temp.xmm();
  a.vextracti128(t, v, 1);
  a.vpor(x, x, t);
  a.vpshufd(t, x, 0x4e);
  a.vpor(x, x, t);
  a.vpshufd(t, x, 0xb1);
  a.vpor(x, x, t);
  if (bits_ == 4) {
    a.vmovd(dst, x);
  } else {
    m.setSize(2);
    a.vpextrw(m, x, 0);
  }
}

void X86PackedCodes::emitStoreGroup(x86::Assembler &a, const x86::Mem &dst,
                                    const std::array<x86::Vec, 4> &v) {
  a.vpackssdw(v[0], v[0], v[1]);
  a.vpackssdw(v[2], v[2], v[3]);
  a.vpacksswb(v[0], v[0], v[2]);
  a.vmovdqu(v[1], data(a, kPermutation));
  a.vpermd(v[0], v[1], v[0]);
  emitStoreBytes(a, dst, v[0], v[1]);
}

void X86PackedCodes::emitStoreBytes(x86::Assembler &a, const x86::Mem &dst,
                                    const x86::Vec &bytes,
                                    const x86::Vec &temp) {
  x86::Mem m = dst;
  if (bits_ == 1) {
    // Bit 0 of each byte to its top bit (the word shift carries nothing
    // into a byte's top bit but that byte's own bit 0).
    a.vpsllw(bytes, bytes, 7);
    a.vpmovmskb(reg::scratch.r32(), bytes);
    m.setSize(4);
    a.mov(m, reg::scratch.r32());
    return;
  }
  a.vpand(bytes, bytes, data(a, kCodeMask));
  a.vpmaddubsw(bytes, bytes, data(a, kByteWeights)); // Pairs into words.
  if (bits_ == 4) {
    a.vpackuswb(bytes, bytes, bytes);
    a.vpermq(bytes, bytes, 0x08); // Each lane's low 8 bytes.
    a.vmovdqu(dst, bytes.xmm());
    return;
  }
  a.vpmaddwd(bytes, bytes, data(a, kWordWeights)); // Pairs of words: 4 codes.
  a.vpackssdw(bytes, bytes, bytes);
  a.vpackuswb(bytes, bytes, bytes);
  a.vmovdqu(temp, data(a, kPermutation));
  a.vpermd(bytes, temp, bytes); // Each lane's low 4 bytes.
  a.vmovq(dst, bytes.xmm());
}

void X86PackedCodes::emitEvexConstants(x86::Assembler &a, const X86Isa &isa,
                                       const EvexConstants &c) {
  if (bits_ == 1)
    return;
  emitBroadcastImmediate(a, isa, c.codeMask, ((1u << bits_) - 1) * 0x01010101u);
  emitBroadcastImmediate(a, isa, c.byteWeights,
                         (1u | (1u << bits_) << 8) * 0x00010001u);
  if (bits_ == 2)
    emitBroadcastImmediate(a, isa, c.wordWeights, 1u | (16u << 16));
}

void X86PackedCodes::emitStoreBytesEvex(x86::Assembler &a, const x86::Mem &dst,
                                        const x86::Vec &bytes,
                                        const EvexConstants &c) {
  const bool zmm = bytes.isZmm();
  const uint32_t codes = bytes.size();
  x86::Mem m = dst;
  m.setSize(codes * bits_ / 8);
  if (bits_ == 1) {
    // Bit 0 of each byte to its top bit (the word shift carries nothing
    // into a byte's top bit but that byte's own bit 0).
    a.vpsllw(bytes, bytes, 7);
    if (zmm) {
      a.vpmovb2m(x86::k3, bytes);
      a.kmovq(reg::scratch, x86::k3);
      a.mov(m, reg::scratch);
    } else {
      a.vpmovmskb(reg::scratch.r32(), bytes);
      bytes.isYmm() ? a.mov(m, reg::scratch.r32())
                    : a.mov(m, reg::scratch.r16());
    }
    return;
  }
  auto sized = [&](const x86::Zmm &v) -> x86::Vec {
    return zmm             ? x86::Vec(v)
           : bytes.isYmm() ? x86::Vec(v.ymm())
                           : x86::Vec(v.xmm());
  };
  a.vpandd(bytes, bytes, sized(c.codeMask));
  a.vpmaddubsw(bytes, bytes, sized(c.byteWeights)); // Pairs into words.
  if (bits_ == 4) {
    a.vpmovwb(m, bytes);
    return;
  }
  a.vpmaddwd(bytes, bytes, sized(c.wordWeights)); // Pairs of words: 4 codes.
  a.vpmovdb(m, bytes);
}

void X86PackedCodes::emitData(x86::Assembler &a) {
  if (!data_.isValid())
    return;
  uint8_t block[kDataBytes] = {};
  auto putDword = [&](int32_t offset, unsigned i, uint32_t value) {
    for (unsigned b = 0; b < 4; ++b)
      block[offset + 4 * i + b] = static_cast<uint8_t>(value >> (8 * b));
  };
  for (unsigned i = 0; i < 8; ++i) {
    putDword(kShiftCounts, i, 32 - bits_ - bits_ * i);
    putDword(kPermutation, i, kPackedDwordOrder[i]);
    putDword(kWordWeights, i, 1u | (16u << 16));
  }
  for (unsigned i = 0; i < 32; ++i) {
    block[kCodeMask + i] = static_cast<uint8_t>((1u << bits_) - 1);
    block[kByteWeights + i] = static_cast<uint8_t>(i % 2 ? 1u << bits_ : 1u);
  }
  for (unsigned n = 0; n < 16; ++n)
    block[kSignedNibbles + n] = static_cast<uint8_t>(n < 8 ? n : n - 16);
  // Biased loads. Lane half L (128 bits) of vector j holds elements
  // 8j + 4L + d, d < 4: code byte 4j + 2L + d/2, its low nibble for even
  // d. kSpread gives half L the bytes 2L + {0, 1, 4, 5, 8, 9, 12, 13} (as
  // low, then high nibbles), where byte 4j + 2L + d/2 is entry 2j + d/2.
  const uint8_t spread[8] = {0, 1, 4, 5, 8, 9, 12, 13};
  constexpr uint8_t kZeroByte = 0x80; // vpshufb: a zero byte.
  for (unsigned half = 0; half < 2; ++half) {
    for (unsigned k = 0; k < 16; ++k) {
      block[kSpread + 16 * half + k] =
          static_cast<uint8_t>(2 * half + spread[k % 8]);
      block[kSplitMask + 16 * half + k] = k < 8 ? 0x0f : 0xf0;
    }
    for (unsigned d = 0; d < 4; ++d) {
      unsigned lane = 4 * half + d;
      for (unsigned j = 0; j < 4; ++j) {
        uint8_t *place = block + kPlace + 32 * j + 4 * lane;
        place[0] = static_cast<uint8_t>((d % 2 ? 8 : 0) + 2 * j + d / 2);
        place[1] = place[2] = place[3] = kZeroByte;
        uint8_t *top = block + kTopPlace + 32 * j + 4 * lane;
        top[0] = top[1] = top[2] = kZeroByte;
        top[3] = place[0];
      }
      uint8_t *place = block + kPlaceVector + 4 * lane;
      place[0] = static_cast<uint8_t>(2 * half + d / 2);
      place[1] = place[2] = place[3] = kZeroByte;
      uint8_t *top = block + kTopPlaceVector + 4 * lane;
      top[0] = top[1] = top[2] = kZeroByte;
      top[3] = place[0];
    }
  }
  for (unsigned i = 0; i < 32; ++i)
    block[kTopMask + i] = 0xf0;
  for (unsigned i = 0; i < 16; ++i) {
    uint32_t weight = i % 8 < 4 ? 16u : 1u;
    block[kTopWeights + 2 * i] = static_cast<uint8_t>(weight);
  }
  uint32_t signBias = isSigned_ ? 8u : 0u;
  for (unsigned i = 0; i < 8; ++i) {
    bool odd = i % 2;
    putDword(kTopShifts, i, odd ? 0u : 4u);
    putDword(kLaneMask, i, odd ? 0xf0u : 0x0fu);
    putDword(kExponents, i,
             odd ? kOddExponent | signBias << 4 : kEvenExponent | signBias);
  }
  a.align(asmjit::AlignMode::kData, 32);
  a.bind(data_);
  a.embed(block, sizeof(block));
}

} // namespace qjit::asmjit_backend
