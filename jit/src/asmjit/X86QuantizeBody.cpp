//===- X86QuantizeBody.cpp - What every f32 qcast body shares -------------===//
//
// The scaling never writes MXCSR and keeps the `divide` contract bit for
// bit: vdivps is IEEE division, and a multiply happens only for exact
// reciprocals or the `reciprocal` knob (X86Parameters). NaN lanes of u
// become 0, which then yields the (clamped) zero point like the
// reference (docs/semantics.md 2.1).
//
//===----------------------------------------------------------------------===//
#include "X86QuantizeBody.h"

#include "../X86PackOrder.h"

#include <utility>

namespace qjit::asmjit_backend {

ScaleUse quantizeScaleUse(const KernelSpec &spec) {
  return spec.knobs.scaleOp == ScaleOp::Divide ? ScaleUse::Divide
                                               : ScaleUse::MultiplyByReciprocal;
}

X86QuantizeBody::X86QuantizeBody(const KernelSpec &spec, const X86Isa &isa,
                                 X86Parameters params)
    : spec_(spec), isa_(isa), params_(std::move(params)) {
  if (spec.storage.packed)
    packed_.emplace(spec.storage.bits, spec.storage.isSigned);
}

void X86QuantizeBody::useRuntimeTablesWhereTheyApply() {
  if (X86RuntimeTables::applies(spec_, lanes()))
    runtimeTables_.emplace(spec_, lanes());
}

void X86QuantizeBody::emitParameters(x86::Assembler &a) {
  if (runtimeTables_)
    runtimeTables_->emitLoad(a);
  else
    params_.emitLoad(a);
}

void X86QuantizeBody::emitRuntimeTablesFill(x86::Assembler &a,
                                            const x86::Vec &threshold) {
  if (runtimeTables_)
    runtimeTables_->emitFill(a, params_, threshold);
}

void X86QuantizeBody::emitData(x86::Assembler &a) {
  // Out-of-line code first: it may create the parameter data's labels.
  emitOutOfLine(a);
  params_.emitData(a);
  emitStorageData(a);
  if (packed_)
    packed_->emitData(a);
  if (!packsFour())
    return;
  a.align(asmjit::AlignMode::kData, kDataAlignment);
  a.bind(dataLabel_);
  for (unsigned lane = 0; lane < 8; ++lane)
    a.embedUInt32(quantize::kBelowHalf);
  for (uint32_t index : kPackedDwordOrder)
    a.embedUInt32(index);
  if (isa_.avx512()) {
    for (uint32_t index : kZmmPackedDwordOrder)
      a.embedUInt32(index);
    a.embedUInt32(quantize::kFixupNanToZero);
    return;
  }
  emitPackDataTail(a);
}

asmjit::Operand X86QuantizeBody::divisorOf(x86::Assembler &, unsigned slot,
                                           const x86::Vec &) {
  return runtimeTables_ ? runtimeTables_->scale(slot) : params_.scale(slot);
}

void X86QuantizeBody::emitScale(x86::Assembler &a, unsigned slot,
                                const x86::Vec &v, const x86::Vec &t,
                                bool nanToZero) {
  asmjit::Operand scale = divisorOf(a, slot, t);
  asmjit::InstId op = params_.scaleInstruction();
  if (!isa_.avx512() || !nanToZero) {
    a.emit(op, v, v, scale);
    if (!nanToZero)
      return;
    a.vcmpps(t, v, v, quantize::kOrdered);
    a.vandps(v, v, t);
    return;
  }
  x86::KReg ordered = reg::nanMask(slot);
  if (params_.bakedOperandsFinite()) {
    // A finite, positive operand: u is NaN exactly when x is, so the
    // NaN mask folds into the scaling as zero-masking.
    a.vcmpps(ordered, v, v, quantize::kOrdered);
    a.k(ordered).z().emit(op, v, v, scale);
    return;
  }
  a.emit(op, v, v, scale);
  if (dataLabel_.isValid()) {
    // One µop where a compare and a zero-masking move take two.
    a.vfixupimmps(v, v, dataAt(kNanToZeroOffset)._1to16(), 0);
    return;
  }
  a.vcmpps(ordered, v, v, quantize::kOrdered);
  a.k(ordered).z().vmovaps(v, v);
}

void X86QuantizeBody::emitPackFour(x86::Assembler &a,
                                   const x86::Vec (&result)[reg::kUnroll],
                                   const x86::Vec &temp, const x86::Vec &temp2,
                                   const x86::Mem &dst) {
  a.vpackssdw(result[0], result[0], result[1]);
  a.vpackssdw(result[2], result[2], result[3]);
  emitPackWords(a, result[0], result[2], temp, temp2, dst);
}

void X86QuantizeBody::emitRunRest(x86::Assembler &a, const x86::Mem &src,
                                  const x86::Mem &dst, unsigned count) {
  unsigned v = 0;
  if (encodesPairs() && packed_ && isa_.avx512() && packsFour())
    for (; v + 2 <= count; v += 2) {
      PairCodes codes =
          emitPairCodes(a, src.cloneAdjusted(int32_t(v) * srcVectorBytes()));
      emitPackedStoreTwo(a, dst.cloneAdjusted(int32_t(v) * dstVectorBytes()),
                         codes.first, codes.second, codes.free);
    }
  X86VectorBody::emitRunRest(
      a, src.cloneAdjusted(int32_t(v) * srcVectorBytes()),
      dst.cloneAdjusted(int32_t(v) * dstVectorBytes()), count - v);
}

void X86QuantizeBody::emitPackedStoreTwo(x86::Assembler &a, const x86::Mem &dst,
                                         const x86::Vec &first,
                                         const x86::Vec &second,
                                         const x86::Vec &temp) {
  // Packed with themselves, the words of the two vectors give bytes whose
  // first 8 dwords are those of four vectors' packs (first, second,
  // first, second): kZmmPackedDwordOrder's first half orders them.
  a.vpackssdw(first, first, second);
  packsSigned() ? a.vpacksswb(first, first, first)
                : a.vpackuswb(first, first, first);
  a.vmovdqu32(temp, dataAt(kZmmOrderOffset));
  a.vpermd(first, temp, first);
  packed_->emitStoreBytesEvex(a, dst, first.ymm(), packedEvexConstants());
}

void X86QuantizeBody::emitPackWords(x86::Assembler &a, const x86::Vec &low,
                                    const x86::Vec &high, const x86::Vec &temp,
                                    const x86::Vec &temp2,
                                    const x86::Mem &dst) {
  packsSigned() ? a.vpacksswb(low, low, high) : a.vpackuswb(low, low, high);
  isa_.avx512() ? a.vmovdqu32(temp, dataAt(kZmmOrderOffset))
                : a.vmovdqu(temp, dataAt(kPackOrderOffset));
  a.vpermd(low, temp, low);
  if (packed_ && isa_.avx512())
    packed_->emitStoreBytesEvex(a, dst, low, packedEvexConstants());
  else if (packed_)
    packed_->emitStoreBytes(a, dst, low, temp2);
  else
    streamingStores_ ? a.vmovntdq(dst, low)
    : isa_.avx512()  ? a.vmovdqu32(dst, low)
                     : a.vmovdqu(dst, low);
}

} // namespace qjit::asmjit_backend
