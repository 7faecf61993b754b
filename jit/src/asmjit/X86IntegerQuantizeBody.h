//===- X86IntegerQuantizeBody.h - Integer qcast, exact scaling --*- C++ -*-===//
//
// Per vector, in f32: u = x op s (X86QuantizeBody::emitScale), the zero
// point added before or after rounding, then the clamp to the integral
// bounds, which commutes with rounding and so happens in f32 before the
// final conversion. Rounding never writes MXCSR: embedded {rn-sae},
// rounding immediates, truncating converts, or vcvtps2dq in the default
// nearest-even mode. AVX-512's saturating narrows clamp to the container
// for free where the conversion stays in range (the constructor). Packed codes
// convert a main-loop iteration's four vectors before one group store.
// (Storage wider than 24 bits, f64 values and zero points f32 cannot add
// exactly after rounding take X86WideGenerators instead.)
//
// X86CheckedQuantizeBody.cpp builds the checked-reciprocal forms on this
// one: their divisions are these vectors.
//
//===----------------------------------------------------------------------===//
#ifndef QJIT_JIT_ASMJIT_X86INTEGERQUANTIZEBODY_H
#define QJIT_JIT_ASMJIT_X86INTEGERQUANTIZEBODY_H

#include "X86QuantizeBody.h"

namespace qjit::asmjit_backend {

class X86IntegerQuantizeBody : public X86QuantizeBody {
public:
  X86IntegerQuantizeBody(const KernelSpec &spec, const X86Isa &isa,
                         X86Parameters params);

  void emitConstants(x86::Assembler &a) override;
  void emitUnrolled(x86::Assembler &a, const x86::Mem &src,
                    const x86::Mem &dst) override;
  void emitVector(x86::Assembler &a, unsigned slot, const x86::Mem &src,
                  const x86::Mem &dst, bool masked) override {
    emitExactVector(a, slot, src, dst, masked);
  }

protected:
  /// The clamps' constants, vec(reg::kLow) and vec(reg::kHigh).
  void emitClampConstants(x86::Assembler &a);
  /// One vector stored by the exact scaling.
  void emitExactVector(x86::Assembler &a, unsigned slot, const x86::Mem &src,
                       const x86::Mem &dst, bool masked);
  /// Expressed values at `src` to i32 stored values in vec(kWork + slot)
  /// (within the bounds on AVX2; AVX-512 stores may saturate them).
  void emitQuantize(x86::Assembler &a, unsigned slot, const x86::Mem &src,
                    bool masked);
  /// Where emitAddHalfAway finds pred(0.5): vec(reg::kHalf) here.
  virtual asmjit::Operand halfAway() const { return isa_.vec(reg::kHalf); }

private:
  void emitClamp(x86::Assembler &a, const x86::Vec &v);
  /// v + copysign(pred(0.5), v): truncating that rounds half away from
  /// zero exactly (the sum rounds across an integer only on a tie or
  /// beyond; pred(0.5) keeps 0.49999997 below 1).
  void emitAddHalfAway(x86::Assembler &a, const x86::Vec &v, const x86::Vec &t);
  /// f32 lanes (in range) → i32 lanes, rounded per the knob.
  void emitConvert(x86::Assembler &a, const x86::Vec &v, const x86::Vec &t);
  /// f32 lanes → integral f32 lanes (±inf stay), rounded per the knob.
  void emitRoundToIntegral(x86::Assembler &a, const x86::Vec &v,
                           const x86::Vec &t);

  /// Which f32 clamps the store needs (see the .cpp).
  bool clampLow_ = true, clampHigh_ = true;
};

} // namespace qjit::asmjit_backend

#endif // QJIT_JIT_ASMJIT_X86INTEGERQUANTIZEBODY_H
