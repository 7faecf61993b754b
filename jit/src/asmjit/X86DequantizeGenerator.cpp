//===- X86DequantizeGenerator.cpp - dcast: stored → expressed -------------===//
//
// Per vector: i32 lanes from the containers, converted to f32 (exact for
// the at most 24-bit values handled here), (q − z) then · s, each one f32
// rounding, then one rounding to the expressed format. Float storage
// loads the codes' exact values instead (X86FloatStorage.h).
//
//===----------------------------------------------------------------------===//
#include "X86Conversions.h"
#include "X86FloatStorage.h"
#include "X86Generators.h"
#include "X86KernelFrame.h"
#include "X86Parameters.h"

#include <optional>

namespace qjit::asmjit_backend {

namespace {

class X86DequantizeGenerator final : public X86VectorBody {
public:
  X86DequantizeGenerator(const KernelSpec &spec, const X86Isa &isa)
      : spec_(spec), isa_(isa), folded_(foldDecodedExponent(spec)),
        params_(folded_ ? *folded_ : spec, isa, ScaleUse::Multiply) {
    if (spec.storage.kind == StorageType::Kind::Float)
      floatDecoder_.emplace(spec, isa, folded_.has_value());
  }

  void generate(x86::Assembler &a) { emitX86Kernel(a, isa_, spec_, *this); }

  unsigned lanes() const override { return isa_.vectorBytes() / 4; }
  unsigned srcBytes() const override { return spec_.storage.containerBytes(); }
  unsigned dstBytes() const override { return valueTypeBytes(spec_.expressed); }

  void emitConstants(x86::Assembler &a) override {
    if (floatDecoder_)
      floatDecoder_->emitConstants(a);
  }
  void emitParameters(x86::Assembler &a) override { params_.emitLoad(a); }
  unsigned parameterBytes() const override { return params_.parameterBytes(); }
  void emitData(x86::Assembler &a) override {
    params_.emitData(a);
    if (floatDecoder_)
      floatDecoder_->emitData(a);
  }

  void emitVector(x86::Assembler &a, unsigned slot, const x86::Mem &src,
                  const x86::Mem &dst, bool masked) override {
    x86::Vec v = isa_.vec(reg::kWork + slot);
    if (floatDecoder_) {
      floatDecoder_->emitLoadValues(a, v, isa_.vec(reg::kTemp + slot), src);
    } else {
      emitLoadStored(a, isa_, spec_.storage, v, src, masked);
      a.vcvtdq2ps(v, v);
    }
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
  /// Baked f8E4M3FN parameters with the decoder's 2^-8 folded in.
  std::optional<KernelSpec> folded_;
  X86Parameters params_;
  std::optional<X86FloatDecoder> floatDecoder_; ///< Float storage only.
};

} // namespace

void generateX86Dequantize(x86::Assembler &a, const X86Isa &isa,
                           const KernelSpec &spec) {
  X86DequantizeGenerator(spec, isa).generate(a);
}

} // namespace qjit::asmjit_backend
