//===- X86ByteDequantizeBody.cpp - AVX-512 8-bit dcast, no convert --------===//
//
// i8 dcast at 4K: 22.5 -> 28.0 el/ns (XNNPACK 21.4), u8 22.8 -> 29.3
// (Xeon SPR-class VM, 2026-12). Heads, tails and single vectors widen and
// convert as usual.
//
//===----------------------------------------------------------------------===//
#include "X86ByteDequantizeBody.h"

#include "X86Conversions.h"
#include "X86KernelFrame.h"
#include "X86Parameters.h"

#include <array>
#include <cmath>
#include <cstdint>

namespace qjit::asmjit_backend {

namespace {

namespace dq {
constexpr unsigned kScale = reg::kScale;
constexpr unsigned kZero = reg::kZeroPoint; ///< z in f32 (single vectors).
constexpr unsigned kBits = 10;              ///< The bits of 2^23.
constexpr unsigned kBiasedZero = 11;        ///< 2^23 (+ 128) + z.
constexpr unsigned kSignFlip = 12;          ///< 0x80 per byte (signed).
constexpr unsigned kBytes = 13;             ///< The unrolled step's bytes.
constexpr unsigned kIndex = 16;             ///< zmm16-19: vpermb indices.
inline const x86::KReg kLowBytes = x86::k6; ///< Byte 0 of each dword.
} // namespace dq

x86::Zmm zmm(unsigned id) { return x86::zmm(id); }

class X86ByteDequantizeBody final : public X86VectorBody {
public:
  X86ByteDequantizeBody(const KernelSpec &spec, const X86Isa &isa)
      : spec_(spec), isa_(isa), scale_(static_cast<float>(bakedScale(spec, 0))),
        zero_(spec.params.zeroPoints[0]) {}

  void generate(x86::Assembler &a) { emitX86Kernel(a, isa_, spec_, *this); }

  unsigned lanes() const override { return 16; }
  unsigned srcBytes() const override { return 1; }
  unsigned dstBytes() const override { return 4; }
  bool canStreamStores() const override { return true; }

  void emitConstants(x86::Assembler &a) override {
    indices_ = a.newLabel();
    bool isSigned = spec_.storage.isSigned;
    emitBroadcastImmediate(a, isa_, zmm(dq::kScale), floatBits(scale_));
    emitBroadcastImmediate(a, isa_, zmm(dq::kZero),
                           floatBits(static_cast<float>(zero_)));
    emitBroadcastImmediate(a, isa_, zmm(dq::kBits), floatBits(0x1p23f));
    emitBroadcastImmediate(
        a, isa_, zmm(dq::kBiasedZero),
        floatBits(static_cast<float>(0x1p23 + (isSigned ? 128 : 0) +
                                     static_cast<double>(zero_))));
    if (isSigned)
      emitBroadcastImmediate(a, isa_, zmm(dq::kSignFlip), 0x80808080u);
    for (unsigned j = 0; j < reg::kUnroll; ++j)
      a.vmovdqu8(zmm(dq::kIndex + j), x86::ptr(indices_, int32_t(j) * 64));
    a.mov(reg::scratch, 0x1111111111111111);
    a.kmovq(dq::kLowBytes, reg::scratch);
  }
  void emitParameters(x86::Assembler &) override {}

  void emitUnrolled(x86::Assembler &a, const x86::Mem &src,
                    const x86::Mem &dst) override {
    x86::Zmm bytes = zmm(dq::kBytes);
    if (spec_.storage.isSigned)
      a.vpxord(bytes, zmm(dq::kSignFlip), src); // q + 128, unsigned.
    else
      a.vmovdqu8(bytes, src);
    for (unsigned j = 0; j < reg::kUnroll; ++j) {
      a.vmovdqa32(zmm(j), zmm(dq::kBits));
      a.k(dq::kLowBytes).vpermb(zmm(j), zmm(dq::kIndex + j), bytes);
    }
    for (unsigned j = 0; j < reg::kUnroll; ++j) {
      a.vsubps(zmm(j), zmm(j), zmm(dq::kBiasedZero)); // q − z, exact.
      a.vmulps(zmm(j), zmm(j), zmm(dq::kScale));
      x86::Mem at = dst.cloneAdjusted(int32_t(j) * 64);
      streamingStores_ ? a.vmovntps(at, zmm(j)) : a.vmovups(at, zmm(j));
    }
  }

  void emitVector(x86::Assembler &a, unsigned slot, const x86::Mem &src,
                  const x86::Mem &dst, bool masked) override {
    x86::Zmm v = zmm(reg::kWork + slot);
    emitLoadStored(a, isa_, spec_.storage, v, src, masked);
    a.vcvtdq2ps(v, v);
    a.vsubps(v, v, zmm(dq::kZero));
    a.vmulps(v, v, zmm(dq::kScale));
    if (masked)
      a.k(reg::tailMask).vmovups(dst, v);
    else
      a.vmovups(dst, v);
  }

  void emitData(x86::Assembler &a) override {
    a.align(asmjit::AlignMode::kData, 64);
    a.bind(indices_);
    // Vector j's dword i takes byte 16·j + i in its low byte (one embed:
    // byte by byte cost 2 us of compile time).
    std::array<uint8_t, 64 * reg::kUnroll> indices{};
    for (unsigned b = 0; b < indices.size(); b += 4)
      indices[b] = static_cast<uint8_t>(b / 64 * 16 + b % 64 / 4);
    a.embed(indices.data(), indices.size());
  }

private:
  const KernelSpec &spec_;
  X86Isa isa_;
  float scale_;
  int64_t zero_;
  asmjit::Label indices_;
};

} // namespace

bool x86ByteDequantizeApplies(const KernelSpec &spec, const X86Isa &isa) {
  const StorageSpec &s = spec.storage;
  return isa.vbmi() && spec.op == KernelOp::DCast &&
         s.kind == StorageType::Kind::Integer && !s.packed &&
         s.containerBytes() == 1 && spec.expressed == ValueType::F32 &&
         spec.compute == ValueType::F32 && !spec.params.runtime &&
         spec.layout.kind == LayoutSpec::Kind::PerTensor &&
         spec.params.scales.size() == 1 &&
         // Not std::abs: zero points may be INT64_MIN.
         spec.params.zeroPoints[0] > -(int64_t(1) << 22) &&
         spec.params.zeroPoints[0] < (int64_t(1) << 22);
}

void generateX86ByteDequantize(x86::Assembler &a, const X86Isa &isa,
                               const KernelSpec &spec) {
  X86ByteDequantizeBody(spec, isa).generate(a);
}

} // namespace qjit::asmjit_backend
