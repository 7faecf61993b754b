//===- X86QuantileQuantizeBody.cpp - Quantile (lookup table) qcast --------===//
//
// The search of X86QuantileStorage.h takes x itself (thresholds moved to
// the input) or v = u + z; one-byte containers pack a main-loop
// iteration's four vectors into one 32-byte store. Packed 4-bit tables
// with one baked scale (x86EncodesPackedTable) finish the search of a
// main-loop iteration on packed bytes instead (X86NibbleQuantileBody);
// heads and tails still store through X86PackedCodes. AVX2 code, or at
// AVX-512 the zmm search (x86SearchesQuantileOnZmm), packed codes stored
// through X86PackedCodes' EVEX forms.
//
//===----------------------------------------------------------------------===//
#include "X86Conversions.h"
#include "X86QuantileStorage.h"
#include "X86QuantizeBody.h"
#include "X86QuantizeForms.h"

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <utility>

namespace qjit::asmjit_backend {

namespace {

class X86QuantileQuantizeBody : public X86QuantizeBody {
public:
  X86QuantileQuantizeBody(const KernelSpec &spec, const X86Isa &isa,
                          X86Parameters params)
      : X86QuantizeBody(spec, isa, std::move(params)),
        quantile_(spec, isa.avx512()) {}

  void emitConstants(x86::Assembler &a) override {
    if (packsFour())
      beginPackData(a);
    emitPackedEvexConstants(a);
    quantile_.emitConstants(a);
  }
  X86ParameterGroups *parameterGroups() override { return nullptr; }

  void emitUnrolled(x86::Assembler &a, const x86::Mem &src,
                    const x86::Mem &dst) override {
    if (!packsFour()) {
      X86VectorBody::emitUnrolled(a, src, dst);
      return;
    }
    x86::Vec values[reg::kUnroll], stored[reg::kUnroll];
    emitSearchVectors(a, src, values, stored);
    emitPackFour(a, stored, values[0], values[1], dst);
  }

  void emitVector(x86::Assembler &a, unsigned slot, const x86::Mem &src,
                  const x86::Mem &dst, bool masked) override {
    x86::Vec v = isa_.vec(reg::kWork + slot), t = isa_.vec(reg::kTemp + slot);
    emitLoadExpressed(a, isa_, spec_.expressed, v, src, masked);
    emitQuantileInput(a, slot, v, t);
    emitEncode(a, std::span(&v, 1), std::span(&t, 1));
    if (packed_)
      emitPackedStore(a, dst, t, v);
    else
      emitStoreStored(a, isa_, spec_.storage, dst, t, v, masked,
                      Narrowing::Truncate);
  }

  bool encodesPairs() const override { return true; }
  PairCodes emitPairCodes(x86::Assembler &a, const x86::Mem &src) override {
    x86::Vec values[2], stored[2];
    emitSearchVectors(a, src, values, stored);
    return {stored[0], stored[1], values[0]};
  }

  /// The search of `values` into `positions` (zmm: X86QuantileEncoder::
  /// emitEncodeZmm, its scratch in zmm16 and up).
  void emitEncode(x86::Assembler &a, std::span<const x86::Vec> values,
                  std::span<const x86::Vec> positions) {
    if (!isa_.avx512()) {
      quantile_.emitEncode(a, values, positions);
      return;
    }
    const x86::Vec scratch[reg::kUnroll] = {x86::zmm(16), x86::zmm(17),
                                            x86::zmm(18), x86::zmm(19)};
    quantile_.emitEncodeZmm(a, values, positions, scratch);
  }

protected:
  /// One-byte containers: a main-loop iteration packs its four vectors
  /// into one 32-byte store.
  bool packsFour() const override {
    return spec_.storage.containerBytes() == 1;
  }
  void emitStorageData(x86::Assembler &a) override { quantile_.emitData(a); }

  X86QuantileEncoder quantile_;

private:
  /// The N full vectors at `src` in slots 0..N-1 searched: their positions
  /// in `stored`, `values` free after.
  template <size_t N>
  void emitSearchVectors(x86::Assembler &a, const x86::Mem &src,
                         x86::Vec (&values)[N], x86::Vec (&stored)[N]) {
    for (unsigned j = 0; j < N; ++j) {
      values[j] = isa_.vec(reg::kWork + j);
      stored[j] = isa_.vec(reg::kTemp + j);
      emitLoadExpressed(a, isa_, spec_.expressed, values[j],
                        src.cloneAdjusted(int32_t(j) * srcVectorBytes()),
                        false);
      emitQuantileInput(a, j, values[j], stored[j]);
    }
    emitEncode(a, values, stored);
  }

  /// x of `slot` in `v` → what the search takes: x itself, or v = u + z
  /// (`t` clobbered).
  void emitQuantileInput(x86::Assembler &a, unsigned slot, const x86::Vec &v,
                         const x86::Vec &t) {
    if (quantile_.searchesInput())
      return;
    emitScale(a, slot, v, t); // NaN lanes of u are 0: v = z.
    if (!params_.zeroPointsAreZero())
      a.emit(x86::Inst::kIdVaddps, v, v, zeroPointOf(slot));
  }
};

/// x86EncodesPackedTable: the search of a main-loop iteration reads x
/// itself and ends on packed bytes (X86QuantileEncoder::emitEncodeNibbles).
class X86NibbleQuantileBody final : public X86QuantileQuantizeBody {
public:
  using X86QuantileQuantizeBody::X86QuantileQuantizeBody;

  /// The parameter registers hold the search's tables, reloaded per run
  /// (heads and tails clobber kLow and kHigh at most).
  void emitParameters(x86::Assembler &a) override {
    quantile_.emitNibbleTables(a, nibbleTables());
  }

  void emitUnrolled(x86::Assembler &a, const x86::Mem &src,
                    const x86::Mem &dst) override {
    std::array<x86::Vec, reg::kUnroll> values, positions;
    for (unsigned j = 0; j < reg::kUnroll; ++j) {
      values[j] = isa_.vec(reg::kWork + j);
      positions[j] = isa_.vec(reg::kTemp + j);
      emitLoadExpressed(a, isa_, spec_.expressed, values[j],
                        src.cloneAdjusted(int32_t(j) * srcVectorBytes()),
                        false);
    }
    const std::array<x86::Vec, reg::kUnroll> masks = {
        isa_.vec(reg::kHigh), isa_.vec(reg::kHalf), isa_.vec(reg::kSign),
        isa_.vec(reg::kScalar)};
    quantile_.emitEncodeNibbles(a, values, positions, masks,
                                isa_.vec(reg::kLow), nibbleTables(), dst);
  }

private:
  X86QuantileEncoder::NibbleTables nibbleTables() const {
    return {isa_.vec(reg::kScale), isa_.vec(reg::kZeroPoint),
            isa_.vec(reg::kScalar2)};
  }
};

} // namespace

void generateX86QuantileQuantize(x86::Assembler &a, const X86Isa &isa,
                                 const KernelSpec &spec, X86Parameters params,
                                 const X86QuantizeForm &form,
                                 const X86FrameOptions &options) {
  if (form.loop == X86QuantizeLoop::PackedTableSearch) {
    X86NibbleQuantileBody(spec, isa, std::move(params)).generate(a, options);
    return;
  }
  X86QuantileQuantizeBody(spec, isa, std::move(params)).generate(a, options);
}

} // namespace qjit::asmjit_backend
