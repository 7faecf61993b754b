//===- X86DequantizeGenerator.cpp - dcast: stored → expressed -------------===//
//
// Per vector: i32 lanes from the containers, converted to f32 (exact for
// the at most 24-bit values handled here), (q − z) then · s, each one f32
// rounding, then one rounding to the expressed format. Packed storage
// loads its codes through X86PackedCodes, a group of four vectors at once
// in the unrolled loop (one 16-byte load for 4-bit codes).
//
//===----------------------------------------------------------------------===//
#include "X86Conversions.h"
#include "X86Generators.h"
#include "X86KernelFrame.h"
#include "X86PackedCodes.h"
#include "X86Parameters.h"

#include <array>
#include <optional>

namespace qjit::asmjit_backend {

namespace {

class X86DequantizeGenerator final : public X86VectorBody {
public:
  X86DequantizeGenerator(const KernelSpec &spec, const X86Isa &isa)
      : spec_(spec), isa_(isa), params_(spec, isa, ScaleUse::Multiply) {
    if (spec.storage.packed)
      packed_.emplace(spec.storage.bits, spec.storage.isSigned);
  }

  void generate(x86::Assembler &a) { emitX86Kernel(a, isa_, spec_, *this); }

  unsigned lanes() const override { return isa_.vectorBytes() / 4; }
  unsigned srcBytes() const override { return spec_.storage.containerBytes(); }
  unsigned dstBytes() const override { return valueTypeBytes(spec_.expressed); }
  unsigned srcPackedBits() const override {
    return packed_ ? packed_->bits() : 0;
  }

  void emitConstants(x86::Assembler &) override {}
  void emitParameters(x86::Assembler &a) override { params_.emitLoad(a); }
  unsigned parameterBytes() const override { return params_.parameterBytes(); }
  void emitData(x86::Assembler &a) override {
    params_.emitData(a);
    if (packed_)
      packed_->emitData(a);
  }

  void emitVector(x86::Assembler &a, unsigned slot, const x86::Mem &src,
                  const x86::Mem &dst, bool masked) override {
    x86::Vec v = isa_.vec(reg::kWork + slot);
    if (packed_)
      packed_->emitLoad(a, v, src);
    else
      emitLoadStored(a, isa_, spec_.storage, v, src, masked);
    emitDequantize(a, slot, v, dst, masked);
  }

  void emitUnrolled(x86::Assembler &a, const x86::Mem &src,
                    const x86::Mem &dst) override {
    if (!packed_) {
      X86VectorBody::emitUnrolled(a, src, dst);
      return;
    }
    std::array<x86::Vec, reg::kUnroll> v;
    for (unsigned j = 0; j < reg::kUnroll; ++j)
      v[j] = isa_.vec(reg::kWork + j);
    packed_->emitLoadGroup(a, v, isa_.vec(reg::kTemp), isa_.vec(reg::kTemp + 1),
                           src);
    for (unsigned j = 0; j < reg::kUnroll; ++j)
      emitDequantize(a, j, v[j],
                     dst.cloneAdjusted(int32_t(j) * dstVectorBytes()), false);
  }

  /// i32 lanes of stored values in `v` to expressed values at `dst`.
  void emitDequantize(x86::Assembler &a, unsigned slot, const x86::Vec &v,
                      const x86::Mem &dst, bool masked) {
    a.vcvtdq2ps(v, v);
    if (!params_.zeroPointsAreZero())
      a.emit(x86::Inst::kIdVsubps, v, v, params_.zeroPoint(slot));
    a.emit(x86::Inst::kIdVmulps, v, v, params_.scale(slot));
    if (streamingStores_)
      a.vmovntps(dst, v);
    else
      emitStoreExpressed(a, isa_, spec_.expressed, dst, v, masked);
  }

  /// f32 outputs are the widest ones (4 bytes per 1-byte input).
  bool canStreamStores() const override {
    return spec_.expressed == ValueType::F32;
  }

private:
  const KernelSpec &spec_;
  X86Isa isa_;
  X86Parameters params_;
  std::optional<X86PackedCodes> packed_;
};

} // namespace

void generateX86Dequantize(x86::Assembler &a, const X86Isa &isa,
                           const KernelSpec &spec) {
  X86DequantizeGenerator(spec, isa).generate(a);
}

} // namespace qjit::asmjit_backend
