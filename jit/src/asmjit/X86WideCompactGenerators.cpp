//===- X86WideCompactGenerators.cpp - f64 lanes, compact storage ----------===//
//
// docs/semantics.md section 8 with C = f64: eight elements per vector, the
// arithmetic on two ymm halves of four f64 lanes, the storage work reusing
// the f32-lane pieces where that is exact.
//
// qcast to float storage: v = fl(u + z_C) in f64, then v is narrowed to f32
// rounding to odd (the 29 low fraction bits dropped, the lowest kept bit
// set when any of them was set; nonzero v below 2^-100 in magnitude (which
// encode as the zero of their sign) are first raised to ±2^-100, so every
// finite v converts to an f32-normal value or to its own ±0, and beyond
// FLT_MAX the conversion gives ±FLT_MAX or ±inf, which overflow like v).
// Rounding to odd onto 24 bits and then to nearest-even onto the format's at
// most 4 bits is the one rounding RNE_F(v) (p
// + 2 bits suffice), and comparisons with the format's bounds and half-quanta
// (f32 values of few bits) keep their outcome, so X86FloatEncoder's code
// of the f32 lane is the reference's code of v. f4E2M1FN's NaN lanes
// become z_C before the narrowing (u's NaN lanes 0), as the reference does.
//
// qcast to quantile storage: the stored value of v (NaN lanes z_C) is a
// count over QuantileSearch's f64 thresholds: min + tableIndex[0] plus, per
// threshold v reaches, the step of tableIndex there (1 for sorted tables),
// accumulated in 64-bit lanes whose low dwords are the stored values. With
// one baked scale the thresholds move to the input side (no division) and
// NaN lanes add the step to the zero point's stored value. Tables of more
// than kMaxCounted positions search instead, one position bit per step:
// the step's threshold loaded by the prefix (scalar loads), the stored
// value of the position loaded last; NaN lanes (input side) take the
// zero point's path, comparing true exactly at its one bits.
//
// dcast: float codes decode to their exact values in f32 lanes
// (X86FloatDecoder, unfolded), widen exactly to f64, then (F − z_C) · s
// in f64; quantile stored values clamp to [min, max] and look up their
// f64 entries τ (scalar loads), then (τ − z_C) · s, or directly the
// results of one baked scale and zero point (computed with the same f64
// operations). Packed codes load and store through
// X86PackedCodes, the kernel frame handling heads and tails.
//
// AVX2 (VEX, ymm) code at every ISA level, like the other wide kernels.
//
//===----------------------------------------------------------------------===//
#include "X86WideCompact.h"

#include "X86Conversions.h"
#include "X86FloatStorage.h"
#include "X86KernelFrame.h"
#include "X86PackedCodes.h"
#include "X86QuantileStorage.h"
#include "X86WideParameters.h"

#include "plan/QuantileInputThresholds.h"

#include "qjit/internal/QuantileSearch.h"

#include <algorithm>
#include <bit>
#include <cstdint>
#include <limits>
#include <optional>
#include <utility>
#include <vector>

namespace qjit::asmjit_backend {

namespace {

constexpr uint8_t kUnordered = 3;              ///< vcmppd: either is NaN.
constexpr uint8_t kOrdered = 7;                ///< vcmppd: neither is NaN.
constexpr uint8_t kGreaterEqualOrdered = 0x1d; ///< vcmppd GE_OQ.
constexpr uint8_t kLessOrdered = 0x11;         ///< vcmppd LT_OQ.

/// Work registers (the wide parameters use 8, 9 and 15, the float
/// encoder and decoder 10 to 15 besides the `t` they are given).
constexpr unsigned kHalf0 = 0, kHalf1 = 1, kTemp0 = 2, kTemp1 = 3, kMask0 = 4;
/// qcast finishes a vector in its two halves and registers 10 to 15 (the
/// encoder's constants and scratch, or the quantile count's), so that an
/// unrolled step can hold the four vectors' halves in 0 to 7.
constexpr unsigned kFinishTemp = reg::kScalar; ///< Free outside the encoder.
/// The parameter loads' scratch (X86WideParameters), free in a finish
/// until the encoder clobbers it.
constexpr unsigned kFinishTemp2 = wide::kScratch;
constexpr unsigned kCount0 = 10, kCount1 = 11, kCountMask0 = 12,
                   kCountMask1 = 13, kThreshold = 14, kStep = 15;

constexpr uint64_t kDroppedBits = (uint64_t(1) << 29) - 1; ///< f64 → f32.
/// Positions counted threshold by threshold; larger tables are searched.
constexpr size_t kMaxCounted = 64;
constexpr uint8_t kNotLessUnordered = 0x05; ///< vcmppd NLT_UQ: NaN true.

/// 64-bit constants each filling a 32-byte vector, after the code.
class WideConstants {
public:
  int32_t add(uint64_t value) {
    values_.push_back(value);
    return static_cast<int32_t>((values_.size() - 1) * 32);
  }
  x86::Mem at(int32_t offset) const { return x86::ptr(label_, offset); }
  void emitConstants(x86::Assembler &a) { label_ = a.newLabel(); }
  void emitData(x86::Assembler &a) {
    if (values_.empty())
      return;
    a.align(asmjit::AlignMode::kData, 32);
    a.bind(label_);
    for (uint64_t value : values_)
      a.embedUInt64(value, 4);
  }

private:
  asmjit::Label label_;
  std::vector<uint64_t> values_;
};

std::optional<X86PackedCodes> packedCodes(const StorageSpec &storage) {
  if (!storage.packed)
    return std::nullopt;
  return X86PackedCodes(storage.bits,
                        storage.isSigned &&
                            storage.kind == StorageType::Kind::Quantile);
}

class X86WideCompactQuantize final : public X86VectorBody {
public:
  explicit X86WideCompactQuantize(const KernelSpec &spec)
      : spec_(spec),
        params_(spec, spec.knobs.scaleOp == ScaleOp::Reciprocal, false),
        packed_(packedCodes(spec.storage)) {
    if (spec.storage.kind == StorageType::Kind::Float) {
      encoder_.emplace(spec, X86Isa(IsaLevel::Avx2));
      dropped_ = constants_.add(kDroppedBits);
      kept_ = constants_.add(~kDroppedBits);
      signs_ = constants_.add(uint64_t(1) << 63);
      tiny_ = constants_.add(std::bit_cast<uint64_t>(0x1p-100));
      allOnes_ = constants_.add(~uint64_t(0));
      return;
    }
    QuantileSearch search =
        buildQuantileSearch(spec.storage.table, spec.compute);
    // With one baked scale: x itself against the moved thresholds, NaN
    // lanes taking the stored value of v = z_C.
    searchesInput_ = plan::quantileThresholdsMoveToInput(spec);
    thresholds_ = searchesInput_
                      ? plan::quantileInputThresholds(spec, search.thresholds)
                      : search.thresholds;
    size_t nanPosition =
        searchesInput_
            ? search.positionOf(static_cast<double>(spec.params.zeroPoints[0]))
            : 0;
    if (search.values.size() > kMaxCounted) {
      buildSearch(search, nanPosition);
      return;
    }
    uint64_t first = static_cast<uint64_t>(spec.storage.min) +
                     static_cast<uint64_t>(search.tableIndex[0]);
    base_ = constants_.add(first);
    if (searchesInput_) // NaN lanes (below every threshold) add the step.
      nanStep_ = constants_.add(
          static_cast<uint64_t>(spec.storage.min) +
          static_cast<uint64_t>(search.tableIndex[nanPosition]) - first);
    for (size_t j = 1; j < search.tableIndex.size(); ++j) {
      int64_t step = search.tableIndex[j] - search.tableIndex[j - 1];
      steps_.push_back(static_cast<uint64_t>(step));
      unitSteps_ = unitSteps_ && step == 1;
    }
  }

  void generate(x86::Assembler &a) {
    emitX86Kernel(a, X86Isa(IsaLevel::Avx2), spec_, *this);
  }

  unsigned lanes() const override { return 8; }
  unsigned srcBytes() const override { return valueTypeBytes(spec_.expressed); }
  unsigned dstBytes() const override { return spec_.storage.containerBytes(); }
  unsigned dstPackedBits() const override {
    return packed_ ? packed_->bits() : 0;
  }

  void emitConstants(x86::Assembler &a) override {
    constants_.emitConstants(a);
    tables_ = a.newLabel();
    if (encoder_)
      encoder_->emitConstants(a);
  }
  void emitParameters(x86::Assembler &a) override { params_.emitLoad(a); }
  void emitData(x86::Assembler &a) override {
    constants_.emitData(a);
    params_.emitData(a);
    if (encoder_)
      encoder_->emitData(a);
    if (packed_)
      packed_->emitData(a);
    a.align(asmjit::AlignMode::kData, 8);
    a.bind(tables_);
    for (double threshold : thresholds_)
      a.embedDouble(threshold);
    if (!unitSteps_)
      for (uint64_t step : steps_)
        a.embedUInt64(step);
    for (uint64_t stored : searchStored_)
      a.embedUInt64(stored);
  }

  void emitVector(x86::Assembler &a, unsigned, const x86::Mem &src,
                  const x86::Mem &dst, bool) override {
    x86::Ymm half0 = x86::ymm(kHalf0), half1 = x86::ymm(kHalf1);
    emitScaled(a, half0, half1, src);
    emitFinish(a, half0, half1, dst);
  }

  /// All divisions first (registers 0 to 7): the divider bounds these
  /// kernels, and its latency then overlaps the other vectors' work.
  void emitUnrolled(x86::Assembler &a, const x86::Mem &src,
                    const x86::Mem &dst) override {
    for (unsigned j = 0; j < reg::kUnroll; ++j)
      emitScaled(a, x86::ymm(2 * j), x86::ymm(2 * j + 1),
                 src.cloneAdjusted(int32_t(j) * srcVectorBytes()));
    for (unsigned j = 0; j < reg::kUnroll; ++j)
      emitFinish(a, x86::ymm(2 * j), x86::ymm(2 * j + 1),
                 dst.cloneAdjusted(int32_t(j) * dstVectorBytes()));
  }

private:
  /// The halves of the vector at `src`, u = x / s (or x · fl(1/s)).
  void emitScaled(x86::Assembler &a, const x86::Ymm &half0,
                  const x86::Ymm &half1, const x86::Mem &src) {
    x86::Ymm scale = x86::ymm(wide::kScale);
    bool divide = spec_.knobs.scaleOp == ScaleOp::Divide;
    a.vmovupd(half0, src);
    a.vmovupd(half1, src.cloneAdjusted(32));
    if (searchesInput_)
      return;
    divide ? a.vdivpd(half0, half0, scale) : a.vmulpd(half0, half0, scale);
    divide ? a.vdivpd(half1, half1, scale) : a.vmulpd(half1, half1, scale);
  }

  /// u in half0 and half1 → codes or stored values at `dst` (both
  /// halves, registers 10 to 15 clobbered).
  void emitFinish(x86::Assembler &a, const x86::Ymm &half0,
                  const x86::Ymm &half1, const x86::Mem &dst) {
    x86::Ymm t = x86::ymm(kFinishTemp);
    emitShifted(a, half0, t);
    emitShifted(a, half1, t);
    StorageSpec codes = spec_.storage;
    if (encoder_) {
      x86::Ymm sign = x86::ymm(kFinishTemp2);
      emitKeepNonZero(a, half0, t, sign);
      emitKeepNonZero(a, half1, t, sign);
      emitNarrowToOdd(a, half0, t);
      emitNarrowToOdd(a, half1, t);
      a.vinsertf128(half0, half0, half1.xmm(), 1);
      encoder_->emitEncode(a, half0, half1);
      codes.isSigned = encoder_->signedCodes();
    } else if (searches()) {
      emitSearch(a, half0, half1);
    } else {
      emitCount(a, half0, half1);
    }
    if (packed_)
      packed_->emitStore(a, dst, half0, half1);
    else
      emitStoreStored(a, X86Isa(IsaLevel::Avx2), codes, dst, half0, half1,
                      false,
                      encoder_ ? Narrowing::Saturate : Narrowing::Truncate);
  }

  /// v = fl(u + z_C) in place; NaN lanes of u become 0 first (so v = z_C)
  /// unless the encoder encodes NaN itself.
  void emitShifted(x86::Assembler &a, const x86::Ymm &v, const x86::Ymm &t) {
    if (searchesInput_)
      return;
    if (!encoder_ || !encoder_->encodesNaN()) {
      a.vcmppd(t, v, v, kOrdered);
      a.vandpd(v, v, t);
    }
    a.vaddpd(v, v, x86::ymm(wide::kZeroPoint));
  }

  /// The four f64 lanes of v → f32 rounded to odd, in v's low 128 bits.
  void emitNarrowToOdd(x86::Assembler &a, const x86::Ymm &v,
                       const x86::Ymm &t) {
    x86::Mem dropped = constants_.at(dropped_);
    // t's bit 29 is set exactly when a dropped bit is (the carry of
    // adding 2^29 − 1); the dropped bits are then cleared.
    a.vpand(t, v, dropped);
    a.vpaddq(t, t, dropped);
    a.vpor(v, v, t);
    a.vpand(v, v, constants_.at(kept_));
    a.vcvtpd2ps(v.xmm(), v);
  }

  /// |v| = max(|v|, 2^-100) on the nonzero f64 lanes of v, ±0 kept: the
  /// narrowing is then exact or rounds f32-normal values, never to a zero
  /// the reference does not have (a v of −0 is its sum when z = 0, which
  /// adds −0, and stores the negative zero code unless min clamps it).
  /// Every |v| < 2^-17 encodes as the zero of v's sign in every format.
  void emitKeepNonZero(x86::Assembler &a, const x86::Ymm &v, const x86::Ymm &t,
                       const x86::Ymm &sign) {
    x86::Mem tiny = constants_.at(tiny_);
    a.vandpd(sign, v, constants_.at(signs_));
    a.vxorpd(v, v, sign);
    // |v| one ulp down is all ones (NaN, compares false) exactly for ±0,
    // and below 2^-100 exactly for the other |v| ≤ 2^-100.
    a.vpaddq(t, v, constants_.at(allOnes_));
    a.vcmppd(t, t, tiny, kLessOrdered);
    a.vblendvpd(v, v, tiny, t);
    a.vorpd(v, v, sign);
  }

  bool searches() const { return !predicates_.empty(); }

  /// Tables of more than kMaxCounted positions: thresholds_ becomes the
  /// candidates of each search step (step `bit` picks between positions p
  /// and p + bit, p a multiple of 2 · bit: threshold p + bit − 1, at
  /// p / (2 · bit)), padded with +inf (only +inf lanes pass those, onto
  /// stored values padded with the last); searchStored_ the stored value
  /// of each position.
  void buildSearch(const QuantileSearch &search, size_t nanPosition) {
    std::vector<double> moved = thresholds_;
    size_t positions = search.values.size();
    size_t size = std::bit_ceil(positions);
    moved.resize(size - 1, std::numeric_limits<double>::infinity());
    thresholds_.clear();
    for (size_t bit = size / 2; bit >= 1; bit /= 2) {
      candidates_.push_back(static_cast<int32_t>(8 * thresholds_.size()));
      for (size_t p = 0; p < size; p += 2 * bit)
        thresholds_.push_back(moved[p + bit - 1]);
      predicates_.push_back((nanPosition & bit) ? kNotLessUnordered
                                                : kGreaterEqualOrdered);
    }
    stored_ = static_cast<int32_t>(8 * thresholds_.size());
    for (size_t p = 0; p < size; ++p)
      searchStored_.push_back(
          static_cast<uint64_t>(spec_.storage.min) +
          static_cast<uint64_t>(search.tableIndex[std::min(p, positions - 1)]));
  }

  /// The searched stored values of v in half0 and half1 → i32 lanes of
  /// half0. The position is built from its top bit down (2 · position +
  /// bit per step), so it indexes the next step's candidates directly.
  void emitSearch(x86::Assembler &a, const x86::Ymm &half0,
                  const x86::Ymm &half1) {
    x86::Ymm half[2] = {half0, half1};
    x86::Ymm position[2] = {x86::ymm(kCount0), x86::ymm(kCount1)};
    x86::Ymm found[2] = {x86::ymm(kCountMask0), x86::ymm(kCountMask1)};
    x86::Ymm upperHalf[2] = {x86::ymm(kThreshold), x86::ymm(kStep)};
    a.vbroadcastsd(found[0], x86::qword_ptr(tables_, candidates_[0]));
    for (unsigned h = 0; h < 2; ++h) {
      a.vcmppd(found[1], half[h], found[0], predicates_[0]);
      a.vpsrlq(position[h], found[1], 63);
    }
    // Scalar loads of each lane's qword (1.25x faster than vgatherqpd on
    // Zen 1 for a 256-entry table).
    auto load = [&](int32_t offset) {
      a.lea(reg::scratch, x86::ptr(tables_, offset));
      x86::Gp first = reg::scratch2, second = reg::scratch3;
      for (unsigned h = 0; h < 2; ++h) {
        x86::Xmm upper = upperHalf[h].xmm(), lower = found[h].xmm();
        a.vextracti128(upper, position[h], 1);
        for (auto [part, indices] :
             {std::pair{upper, upper}, std::pair{lower, position[h].xmm()}}) {
          a.vmovq(first, indices);
          a.vpextrq(second, indices, 1);
          a.vmovsd(part, x86::qword_ptr(reg::scratch, first, 3));
          a.vmovhpd(part, part, x86::qword_ptr(reg::scratch, second, 3));
        }
        a.vinsertf128(found[h], found[h], upper, 1);
      }
    };
    for (size_t step = 1; step < candidates_.size(); ++step) {
      load(candidates_[step]);
      for (unsigned h = 0; h < 2; ++h) {
        a.vcmppd(found[h], half[h], found[h], predicates_[step]);
        a.vpaddq(position[h], position[h], position[h]);
        a.vpsubq(position[h], position[h], found[h]); // found is −1 or 0.
      }
    }
    load(stored_);
    a.vshufps(half[0], found[0], found[1], 0x88);
    a.vpermpd(half[0], half[0], 0xd8);
  }

  /// The quantile stored values of v in half0 and half1 → i32 lanes of
  /// half0.
  void emitCount(x86::Assembler &a, const x86::Ymm &half0,
                 const x86::Ymm &half1) {
    x86::Ymm half[2] = {half0, half1};
    x86::Ymm count[2] = {x86::ymm(kCount0), x86::ymm(kCount1)};
    x86::Ymm mask[2] = {x86::ymm(kCountMask0), x86::ymm(kCountMask1)};
    x86::Ymm threshold = x86::ymm(kThreshold), step = x86::ymm(kStep);
    a.vmovdqa(count[0], constants_.at(base_));
    a.vmovdqa(count[1], count[0]);
    int32_t steps = static_cast<int32_t>(thresholds_.size() * 8);
    for (size_t j = 0; j < thresholds_.size(); ++j) {
      int32_t offset = static_cast<int32_t>(j * 8);
      a.vbroadcastsd(threshold, x86::qword_ptr(tables_, offset));
      if (!unitSteps_)
        a.vpbroadcastq(step, x86::qword_ptr(tables_, steps + offset));
      for (unsigned h = 0; h < 2; ++h) {
        a.vcmppd(mask[h], half[h], threshold, kGreaterEqualOrdered);
        if (unitSteps_) {
          a.vpsubq(count[h], count[h], mask[h]); // −(−1).
        } else {
          a.vpand(mask[h], mask[h], step);
          a.vpaddq(count[h], count[h], mask[h]);
        }
      }
    }
    if (searchesInput_)
      for (unsigned h = 0; h < 2; ++h) {
        a.vcmppd(mask[h], half[h], half[h], kUnordered);
        a.vpand(mask[h], mask[h], constants_.at(nanStep_));
        a.vpaddq(count[h], count[h], mask[h]);
      }
    // Low dwords in element order: per 128-bit lane (0, 1, 4, 5) and
    // (2, 3, 6, 7), then the qwords reordered.
    a.vshufps(half[0], count[0], count[1], 0x88);
    a.vpermpd(half[0], half[0], 0xd8);
  }

  const KernelSpec &spec_;
  X86WideParameters params_;
  std::optional<X86PackedCodes> packed_;
  std::optional<X86FloatEncoder> encoder_;
  WideConstants constants_;
  int32_t dropped_ = 0, kept_ = 0, signs_ = 0, tiny_ = 0, allOnes_ = 0;
  /// Quantile storage: thresholds, then (unless every step is 1) the
  /// tableIndex steps, 8 bytes each at tables_; searches(): the candidates
  /// of each step, then searchStored_.
  std::vector<double> thresholds_;
  std::vector<uint64_t> steps_;
  std::vector<int32_t> candidates_; ///< searches(): each step's offset.
  std::vector<uint8_t> predicates_; ///< searches(): each step's vcmppd.
  std::vector<uint64_t> searchStored_;
  int32_t stored_ = 0;
  bool unitSteps_ = true;
  int32_t base_ = 0;
  /// One baked scale: the search reads x (QuantileInputThresholds.h).
  bool searchesInput_ = false;
  int32_t nanStep_ = 0;
  asmjit::Label tables_;
};

class X86WideCompactDequantize final : public X86VectorBody {
public:
  explicit X86WideCompactDequantize(const KernelSpec &spec)
      : spec_(spec), params_(spec, false, false),
        packed_(packedCodes(spec.storage)) {
    if (spec.storage.kind == StorageType::Kind::Float) {
      decoder_.emplace(spec, X86Isa(IsaLevel::Avx2), false);
      return;
    }
    const StorageSpec &storage = spec.storage;
    min_ = constants_.add(uint64_t(static_cast<uint32_t>(storage.min)) *
                          0x100000001u);
    max_ = constants_.add(uint64_t(static_cast<uint32_t>(storage.max)) *
                          0x100000001u);
    entries_ = storage.table;
    // One scale and zero point: the table holds the results, computed with
    // the reference's f64 operations.
    bakesParameters_ = !spec.params.runtime && spec.params.scales.size() == 1;
    if (bakesParameters_) {
      double scale = spec.params.scales[0];
      double zero = static_cast<double>(spec.params.zeroPoints[0]);
      for (double &entry : entries_)
        entry = (entry - zero) * scale;
    }
  }

  void generate(x86::Assembler &a) {
    emitX86Kernel(a, X86Isa(IsaLevel::Avx2), spec_, *this);
  }

  unsigned lanes() const override { return 8; }
  unsigned srcBytes() const override { return spec_.storage.containerBytes(); }
  unsigned dstBytes() const override { return valueTypeBytes(spec_.expressed); }
  unsigned srcPackedBits() const override {
    return packed_ ? packed_->bits() : 0;
  }

  void emitConstants(x86::Assembler &a) override {
    constants_.emitConstants(a);
    table_ = a.newLabel();
    if (decoder_)
      decoder_->emitConstants(a);
  }
  void emitParameters(x86::Assembler &a) override { params_.emitLoad(a); }
  void emitData(x86::Assembler &a) override {
    constants_.emitData(a);
    params_.emitData(a);
    if (decoder_)
      decoder_->emitData(a);
    if (packed_)
      packed_->emitData(a);
    a.align(asmjit::AlignMode::kData, 8);
    a.bind(table_);
    for (double entry : entries_)
      a.embedDouble(entry);
  }

  void emitVector(x86::Assembler &a, unsigned, const x86::Mem &src,
                  const x86::Mem &dst, bool) override {
    x86::Ymm half0 = x86::ymm(kHalf0), half1 = x86::ymm(kHalf1);
    x86::Ymm t = x86::ymm(kTemp0);
    if (decoder_) {
      if (packed_) {
        packed_->emitLoad(a, half0, src);
        decoder_->emitDecodeFp4(a, half0, t);
      } else {
        decoder_->emitLoadValues(a, half0, t, src);
      }
      a.vextractf128(half1.xmm(), half0, 1);
      a.vcvtps2pd(half0, half0.xmm());
      a.vcvtps2pd(half1, half1.xmm());
    } else {
      emitEntries(a, src);
    }
    for (const x86::Ymm &v : {half0, half1}) {
      if (bakesParameters_)
        break;
      a.vsubpd(v, v, x86::ymm(wide::kZeroPoint));
      a.vmulpd(v, v, x86::ymm(wide::kScale));
    }
    emitStoreF64Pair(a, dst, half0, half1, streamingStores_);
  }

  /// f64 outputs are the widest ones (8 bytes per 1-byte input).
  bool canStreamStores() const override { return true; }

private:
  /// The f64 entries τ of the stored values at `src` (those outside
  /// [min, max] read as the nearest bound's) into half0 and half1.
  void emitEntries(x86::Assembler &a, const x86::Mem &src) {
    const StorageSpec &storage = spec_.storage;
    x86::Ymm q = x86::ymm(kTemp0), high = x86::ymm(kTemp1);
    if (packed_)
      packed_->emitLoad(a, q, src);
    else
      emitLoadStored(a, X86Isa(IsaLevel::Avx2), storage, q, src, false);
    // i32 lanes order like the stored values: signed ones sign-extended,
    // unsigned ones (zero-extended, or u32) compared unsigned.
    if (storage.isSigned) {
      a.vpmaxsd(q, q, constants_.at(min_));
      a.vpminsd(q, q, constants_.at(max_));
    } else {
      a.vpmaxud(q, q, constants_.at(min_));
      a.vpminud(q, q, constants_.at(max_));
    }
    a.vpsubd(q, q, constants_.at(min_)); // The index, within the table.
    // Scalar loads (two indices per 64-bit extract): Zen 1's vgatherdpd
    // and vpermps + blends measured slower.
    a.vpslld(q, q, 3);
    a.vextracti128(high.xmm(), q, 1);
    a.lea(reg::scratch, x86::ptr(table_));
    x86::Gp pair = reg::scratch2, index = reg::scratch3;
    x86::Xmm upper = x86::xmm(kMask0);
    for (auto [out, offsets] : {std::pair{x86::ymm(kHalf0), q.xmm()},
                                std::pair{x86::ymm(kHalf1), high.xmm()}}) {
      for (unsigned j = 0; j < 2; ++j) {
        x86::Xmm v = j == 0 ? out.xmm() : upper;
        j == 0 ? a.vmovq(pair, offsets) : a.vpextrq(pair, offsets, 1);
        a.mov(index.r32(), pair.r32());
        a.vmovsd(v, x86::qword_ptr(reg::scratch, index));
        a.shr(pair, 32);
        a.vmovhpd(v, v, x86::qword_ptr(reg::scratch, pair));
      }
      a.vinsertf128(out, out, upper, 1);
    }
  }

  const KernelSpec &spec_;
  X86WideParameters params_;
  std::optional<X86PackedCodes> packed_;
  std::optional<X86FloatDecoder> decoder_;
  WideConstants constants_;
  int32_t min_ = 0, max_ = 0;
  /// Quantile storage: τ, or the results of one baked scale and zero
  /// point.
  std::vector<double> entries_;
  bool bakesParameters_ = false;
  asmjit::Label table_;
};

} // namespace

bool x86WideSupportsCompact(const StorageSpec &storage) {
  if (storage.kind == StorageType::Kind::Float)
    return true;
  return x86SupportsQuantile(storage);
}

void generateX86WideCompact(x86::Assembler &a, const KernelSpec &spec) {
  if (spec.op == KernelOp::QCast)
    X86WideCompactQuantize(spec).generate(a);
  else
    X86WideCompactDequantize(spec).generate(a);
}

} // namespace qjit::asmjit_backend
