//===- X86QuantileStorage.cpp - Quantile tables on x86 lanes --------------===//
#include "X86QuantileStorage.h"

#include "X86Parameters.h"

#include "plan/QuantileInputThresholds.h"

#include "qjit/internal/FloatStorage.h"
#include "qjit/internal/HostFloat.h"
#include "qjit/internal/QuantileSearch.h"

#include <algorithm>
#include <bit>
#include <limits>
#include <span>

namespace qjit::asmjit_backend {

namespace {

constexpr uint8_t kGreaterEqual = 0x1d;     ///< vcmpps GE_OQ: false for NaN.
constexpr uint8_t kNotLessUnordered = 0x05; ///< vcmpps NLT_UQ: true for NaN.
constexpr unsigned kSlice = 8;              ///< Entries one vpermps reads.
constexpr unsigned kZmmPositions = 16;      ///< Entries one zmm vpermps reads.
constexpr unsigned kInLane = 4;             ///< Entries one vpermilps reads.
/// Lookups of more entries load each lane's entry: the register permutes
/// of tables up to 64 entries (8 vpermps and 7 blends at 64), and of at
/// most 16 entries in the searches of larger tables (measured: a 256-entry
/// qcast 1.6x faster than with permutes up to 64; vpgatherdd is slower
/// than scalar loads on Zen 1, 0.5x for that dcast).
constexpr unsigned kMaxPermuted = 64;
constexpr unsigned kMaxPermutedInLargeTables = 16;
unsigned maxPermuted(size_t entries) {
  return entries > kMaxPermuted ? kMaxPermutedInLargeTables : kMaxPermuted;
}

/// Registers free while a quantile vector converts: the integer path's
/// clamp and rounding constants (unused here) and the scalars of runtime
/// parameter loads (used at run starts only).
const x86::Vec kScratch[] = {x86::ymm(reg::kLow),    x86::ymm(reg::kHigh),
                             x86::ymm(reg::kHalf),   x86::ymm(reg::kSign),
                             x86::ymm(reg::kScalar), x86::ymm(reg::kScalar2)};

/// dst = the entry of each lane's index, within [0, n), in the table at
/// `table`: eight scalar loads (index pairs moved out as 64-bit words) into
/// scratch[1] and scratch[2], joined into `dst` (may be `index`; scratch[0]
/// holds the high indices). Clobbers the three scratch GP registers.
void emitScalarLookup(x86::Assembler &a, const X86LookupTables &tables,
                      const x86::Vec &dst, const x86::Vec &index, int32_t table,
                      std::span<const x86::Vec> scratch) {
  x86::Xmm high = scratch[0].xmm();
  x86::Xmm out[2] = {scratch[1].xmm(), scratch[2].xmm()};
  x86::Gp pair = reg::scratch2, entry = reg::scratch3;
  a.lea(reg::scratch, tables.at(table));
  a.vextracti128(high, index, 1);
  const x86::Xmm sources[2] = {index.xmm(), high};
  for (unsigned h = 0; h < 2; ++h)
    for (unsigned q = 0; q < 2; ++q) {
      q == 0 ? a.vmovq(pair, sources[h]) : a.vpextrq(pair, sources[h], 1);
      a.mov(entry.r32(), pair.r32());
      x86::Mem low = x86::dword_ptr(reg::scratch, entry, 2);
      q == 0 ? a.vmovd(out[h], low) : a.vpinsrd(out[h], out[h], low, 2);
      a.shr(pair, 32);
      a.vpinsrd(out[h], out[h], x86::dword_ptr(reg::scratch, pair, 2),
                2 * q + 1);
    }
  a.vinserti128(dst, out[0].ymm(), out[1], 1);
}

/// dst = the entry of each lane's index in the n entries (a power of two)
/// at `table`: one vpermilps up to 4 entries, else a vpermps per 8 entries
/// and a blend per further index bit, moved to the sign for vblendvps
/// (these read the index's low log2(n) bits), up to `maxPermuted` entries;
/// beyond, emitScalarLookup (the index must be within [0, n)). `dst` may be
/// `index`; the scratch registers needed grow with n (5 for 64 entries
/// read in place, 3 for scalar loads).
void emitLookup(x86::Assembler &a, const X86LookupTables &tables,
                const x86::Vec &dst, const x86::Vec &index, int32_t table,
                unsigned n, std::span<const x86::Vec> scratch,
                unsigned maxPermuted) {
  if (n > maxPermuted) {
    emitScalarLookup(a, tables, dst, index, table, scratch);
    return;
  }
  if (n <= kInLane) {
    // In-lane vpermilps costs a fraction of a lane-crossing vpermps on
    // Zen 1 (the table repeats in both halves).
    x86::Vec values = dst == index ? scratch[0] : dst;
    a.vmovaps(values, tables.at(table));
    a.vpermilps(dst, values, index);
    return;
  }
  if (n <= kSlice) {
    a.vpermps(dst, index, tables.at(table));
    return;
  }
  unsigned half = n / 2;
  x86::Vec low = dst;
  if (dst == index) {
    low = scratch[0];
    scratch = scratch.subspan(1);
  }
  emitLookup(a, tables, low, index, table, half, scratch, maxPermuted);
  x86::Vec high = scratch[0];
  emitLookup(a, tables, high, index, table + static_cast<int32_t>(4 * half),
             half, scratch.subspan(1), maxPermuted);
  x86::Vec select = scratch[1];
  a.vpslld(select, index, 31 - std::countr_zero(half));
  a.vblendvps(dst, low, high, select);
}

/// Byte k of the 16 entries (`entries` repeated) in words 8k..8k+7: the
/// same 16 bytes in both 128-bit halves, as vpshufb reads them.
std::vector<uint32_t> bytePlanes(const std::vector<uint32_t> &entries) {
  std::vector<uint32_t> planes(32, 0);
  for (unsigned k = 0; k < 4; ++k)
    for (unsigned e = 0; e < 32; ++e) {
      uint32_t byte = (entries[e % 16 % entries.size()] >> (8 * k)) & 0xff;
      planes[8 * k + e / 4] |= byte << (8 * (e % 4));
    }
  return planes;
}

/// The mask of a container's low `bits` bits in every byte, then the
/// vpermd order that puts elements 0-3, 8-11, 16-19, 24-27 in the low
/// half and 4-7, 12-15, 20-23, 28-31 in the high one: the in-lane
/// unpacks then leave each vector's elements in order.
std::vector<uint32_t> bytePlaneSources(unsigned bits) {
  std::vector<uint32_t> words(8, ((1u << bits) - 1) * 0x01010101u);
  for (uint32_t index : {0u, 2u, 4u, 6u, 1u, 3u, 5u, 7u})
    words.push_back(index);
  return words;
}

/// Packed 4-bit codes: the mask of a nibble in every byte; the vpshufb
/// order that puts bytes 0, 1, 4, 5, 8, 9, 12, 13 (elements 0-3, 8-11,
/// 16-19, 24-27) first in the low half and bytes 2, 3, 6, 7, ... in the
/// high one, so that their nibbles interleave into the order of
/// bytePlaneSources; then 2^12 in every word (vpmulhuw by it shifts each
/// word right by 4).
std::vector<uint32_t> packedBytePlaneSources() {
  std::vector<uint32_t> words(8, 0x0f0f0f0fu);
  for (uint32_t pair : {0x05040100u, 0x0d0c0908u, 0x05040100u, 0x0d0c0908u,
                        0x07060302u, 0x0f0e0b0au, 0x07060302u, 0x0f0e0b0au})
    words.push_back(pair);
  words.resize(24, 0x10001000u);
  return words;
}

/// emitEncodeNibbles' tables: byte k of entry e (of 4) at byte
/// kPlaneBase[k] + e of a 16-byte vpshufb table, so that one control
/// vector, kPlaneBase + e in every byte of a lane, reads entry e, and
/// adding to every byte moves to another entry. Byte 3's plane comes
/// first: the control's top byte is then e itself (its >> 22 is 4e).
constexpr uint8_t kPlaneBase[4] = {4, 8, 12, 0};
std::vector<uint32_t> thresholdPlanes(const std::array<uint32_t, 4> &entries) {
  std::vector<uint32_t> words(4, 0);
  for (unsigned k = 0; k < 4; ++k)
    for (unsigned e = 0; e < 4; ++e) {
      unsigned byte = kPlaneBase[k] + e;
      words[byte / 4] |= ((entries[e] >> (8 * k)) & 0xff) << (8 * (byte % 4));
    }
  return words;
}
uint32_t planeBases() {
  uint32_t word = 0;
  for (unsigned k = 0; k < 4; ++k)
    word |= uint32_t(kPlaneBase[k]) << (8 * k);
  return word;
}

/// The stored value `value` as a table word (bit pattern of the i32 lane).
uint32_t storedWord(int64_t value) { return static_cast<uint32_t>(value); }

/// The values of stored values 0, 1, ...: f4E2M1FN codes decode exactly
/// like a table (semantics.md 8.3).
std::vector<double> floatCodeValues(const StorageSpec &storage) {
  FloatStorageFormat format = floatStorageFormat(storage.floatFormat);
  std::vector<double> values;
  for (uint32_t code = 0; code < (1u << storage.bits); ++code)
    values.push_back(decodeFloatStorage(format, code));
  return values;
}

} // namespace

bool x86SupportsQuantile(const StorageSpec &storage) {
  // Packed tables (1, 2 or 4 bits) store and load their codes through
  // X86PackedCodes; x86QuantileFit says which of those forms are slower
  // than llvm's.
  return storage.kind == StorageType::Kind::Quantile &&
         !storage.table.empty() && storage.table.size() <= kMaxQuantileEntries;
}

bool x86DecodesPackedTable(const KernelSpec &spec) {
  const StorageSpec &storage = spec.storage;
  bool table =
      (storage.kind == StorageType::Kind::Quantile && !storage.table.empty()) ||
      (storage.kind == StorageType::Kind::Float &&
       storage.floatFormat == FloatType::F4E2M1FN);
  return spec.op == KernelOp::DCast && storage.packed && storage.bits == 4 &&
         table;
}

bool x86LooksUpNibblesOnZmm(const KernelSpec &spec) {
  return x86DecodesPackedTable(spec) && spec.compute == ValueType::F32 &&
         spec.expressed == ValueType::F32;
}

bool x86EncodesPackedTable(const KernelSpec &spec) {
  const StorageSpec &storage = spec.storage;
  if (spec.op != KernelOp::QCast || !storage.packed || storage.bits != 4 ||
      storage.kind != StorageType::Kind::Quantile ||
      spec.layout.kind != LayoutSpec::Kind::PerTensor || spec.params.runtime ||
      spec.compute != ValueType::F32 ||
      !plan::quantileThresholdsMoveToInput(spec))
    return false;
  // Four search steps (9 to 16 distinct entries); a byte shuffle maps the
  // positions to their codes.
  size_t positions =
      buildQuantileSearch(storage.table, spec.compute).values.size();
  return positions > 8 && positions <= 16;
}

bool x86SearchesQuantileOnZmm(const KernelSpec &spec) {
  const StorageSpec &storage = spec.storage;
  return spec.op == KernelOp::QCast &&
         storage.kind == StorageType::Kind::Quantile &&
         spec.compute == ValueType::F32 &&
         (storage.packed || storage.containerBytes() == 1) &&
         !storage.table.empty() &&
         buildQuantileSearch(storage.table, spec.compute).values.size() <=
             kZmmPositions;
}

bool x86SearchesPackedTablePerVector(const KernelSpec &spec) {
  const StorageSpec &storage = spec.storage;
  if (spec.op != KernelOp::QCast || !storage.packed || storage.bits != 4 ||
      storage.kind != StorageType::Kind::Quantile ||
      x86EncodesPackedTable(spec))
    return false;
  return spec.params.runtime ||
         buildQuantileSearch(storage.table, spec.compute).values.size() <= 8;
}

int32_t X86LookupTables::add(const std::vector<uint32_t> &words) {
  auto offset = static_cast<int32_t>(4 * words_.size());
  size_t count = std::max<size_t>(kSlice, words.size());
  for (size_t k = 0; k < count; ++k)
    words_.push_back(words[k % words.size()]);
  return offset;
}

void X86LookupTables::emitData(x86::Assembler &a) {
  a.align(asmjit::AlignMode::kData, 64); // zmm tables too.
  a.bind(label_);
  for (uint32_t word : words_)
    a.embedUInt32(word);
}

X86QuantileEncoder::X86QuantileEncoder(const KernelSpec &spec, bool zmm)
    : searchesInput_(plan::quantileThresholdsMoveToInput(spec)) {
  const StorageSpec &storage = spec.storage;
  QuantileSearch search = buildQuantileSearch(storage.table, spec.compute);
  std::vector<double> thresholds =
      searchesInput_ ? plan::quantileInputThresholds(spec, search.thresholds)
                     : search.thresholds;
  size_t positions = search.values.size();
  size_ = std::bit_ceil(std::max<size_t>(positions, 2));
  // +inf thresholds pad the search: only +inf lanes pass them, and those
  // must end at the last position (a clamp, or the padded stored values).
  std::vector<uint32_t> padded(
      size_ - 1, floatBits(std::numeric_limits<float>::infinity()));
  for (size_t j = 0; j < thresholds.size(); ++j)
    padded[j] = floatBits(static_cast<float>(thresholds[j]));
  // NaN stores the entry nearest the zero point (8.4): NaN lanes compare
  // true exactly at the steps where that position has a one bit.
  size_t nanPosition =
      searchesInput_
          ? search.positionOf(static_cast<double>(spec.params.zeroPoints[0]))
          : 0;
  // Step `bit` picks between positions p and p + bit, p a multiple of
  // 2 · bit: threshold p + bit − 1, looked up by p / (2 · bit).
  for (unsigned bit = size_ / 2; bit >= 1; bit /= 2) {
    std::vector<uint32_t> candidates;
    for (unsigned p = 0; p < size_; p += 2 * bit)
      candidates.push_back(padded[p + bit - 1]);
    candidates_.push_back(tables_.add(candidates));
    predicates_.push_back((nanPosition & bit) ? kNotLessUnordered
                                              : kGreaterEqual);
    if (zmm) {
      // Indexed by the position so far p, a multiple of 2 · bit.
      std::vector<uint32_t> atPosition(kZmmPositions, padded[bit - 1]);
      for (unsigned p = 0; p < size_; p += 2 * bit)
        atPosition[p] = padded[p + bit - 1];
      zmmCandidates_.push_back(tables_.add(atPosition));
      zmmBits_.push_back(
          tables_.add(std::vector<uint32_t>(kZmmPositions, bit)));
    }
  }
  identity_ = true;
  std::vector<uint32_t> stored;
  for (size_t p = 0; p < search.tableIndex.size(); ++p) {
    identity_ = identity_ && search.tableIndex[p] == static_cast<int64_t>(p);
    stored.push_back(storedWord(storage.min + search.tableIndex[p]));
  }
  addMin_ = identity_ && storage.min != 0;
  if (x86EncodesPackedTable(spec)) {
    // Group p (positions 4p..4p+3, from steps 1-2) ends at thresholds
    // 4p..4p+2, its entry p in three tables; step 2 reads thresholds 3 and
    // 11 as entries 0 and 2 (2 · step 1's bit).
    std::array<uint32_t, 4> stepTwo = {padded[3], padded[3], padded[11],
                                       padded[11]};
    nibbles_ = tables_.add(thresholdPlanes(stepTwo));
    for (unsigned k = 0; k < 3; ++k) {
      std::array<uint32_t, 4> group;
      for (unsigned p = 0; p < 4; ++p)
        group[p] = padded[4 * p + k];
      tables_.add(thresholdPlanes(group));
      // NaN counts this threshold when its position is past it.
      groupPredicates_[k] =
          (nanPosition & 3) > k ? kNotLessUnordered : kGreaterEqual;
    }
    tables_.add({0x02020202u});
    tables_.add({planeBases()});
    tables_.add({0x10011001u}); // vpmaddubsw: low nibble + 16 · high.
    // Words of element pairs 0-3, 8-11 (low half), 4-7, 12-15 (high).
    tables_.add({0x09080100u, 0x0b0a0302u, 0x0d0c0504u, 0x0f0e0706u});
    // Positions that are not the codes themselves (a signed or offset
    // range, an unsorted table, fewer than 16 positions, whose +inf
    // padding clamps to the last): each position's code, for vpshufb.
    std::vector<uint32_t> codes(4, 0);
    bool identityCodes = true;
    for (size_t p = 0; p < 16; ++p) {
      int64_t index = search.tableIndex[std::min(p, positions - 1)];
      auto code = static_cast<uint32_t>((storage.min + index) & 0xf);
      identityCodes = identityCodes && code == p;
      codes[p / 4] |= code << (8 * (p % 4));
    }
    if (!identityCodes)
      nibbleCodes_ = tables_.add(codes);
  }
  // 16 words each, for emitEncodeZmm too.
  if (identity_) {
    stored_ = tables_.add(
        std::vector<uint32_t>(kZmmPositions, storedWord(storage.min)));
    if (positions < size_)
      lastPosition_ = tables_.add(std::vector<uint32_t>(
          kZmmPositions, static_cast<uint32_t>(positions - 1)));
    return;
  }
  stored.resize(std::max<size_t>(size_, zmm ? kZmmPositions : 0),
                stored.back());
  stored_ = tables_.add(stored);
}

void X86QuantileEncoder::emitEncodeZmm(
    x86::Assembler &a, std::span<const x86::Vec> values,
    std::span<const x86::Vec> positions,
    std::span<const x86::Vec> scratch) const {
  // Positions are built from the top bit down, p + bit per passed step:
  // step `bit`'s table holds at p the threshold between p and p + bit.
  for (size_t j = 0; j < values.size(); ++j) {
    x86::KReg above = x86::k(2 + static_cast<uint32_t>(j));
    a.vcmpps(above, values[j], tables_.at(zmmCandidates_[0]), predicates_[0]);
    a.k(above).z().vmovdqu32(positions[j], tables_.at(zmmBits_[0]));
  }
  for (size_t step = 1; step < zmmCandidates_.size(); ++step)
    for (size_t j = 0; j < values.size(); ++j) {
      x86::KReg above = x86::k(2 + static_cast<uint32_t>(j));
      a.vpermps(scratch[j], positions[j], tables_.at(zmmCandidates_[step]));
      a.vcmpps(above, values[j], scratch[j], predicates_[step]);
      a.k(above).vpaddd(positions[j], positions[j], tables_.at(zmmBits_[step]));
    }
  for (size_t j = 0; j < values.size(); ++j) {
    const x86::Vec &position = positions[j];
    if (lastPosition_ >= 0)
      a.vpminsd(position, position, tables_.at(lastPosition_));
    if (!identity_)
      a.vpermd(position, position, tables_.at(stored_));
    else if (addMin_)
      a.vpaddd(position, position, tables_.at(stored_));
  }
}

void X86QuantileEncoder::emitEncode(x86::Assembler &a,
                                    std::span<const x86::Vec> values,
                                    std::span<const x86::Vec> positions) const {
  // The position is built from its top bit down: 2 · position + bit per
  // step, so it indexes the next step's candidates directly.
  x86::Vec above = kScratch[0];
  std::span<const x86::Vec> scratch(kScratch);
  for (size_t j = 0; j < values.size(); ++j) {
    a.vcmpps(above, values[j], tables_.at(candidates_[0]), predicates_[0]);
    a.vpsrld(positions[j], above, 31);
  }
  for (size_t step = 1; step < candidates_.size(); ++step)
    for (size_t j = 0; j < values.size(); ++j) {
      x86::Vec position = positions[j];
      emitLookup(a, tables_, above, position, candidates_[step], 1u << step,
                 scratch.subspan(1), maxPermuted(size_));
      a.vcmpps(above, values[j], above, predicates_[step]);
      a.vpaddd(position, position, position);
      a.vpsubd(position, position, above); // above is −1 or 0.
    }
  for (size_t j = 0; j < values.size(); ++j) {
    x86::Vec position = positions[j];
    if (lastPosition_ >= 0)
      a.vpminsd(position, position, tables_.at(lastPosition_));
    if (identity_) {
      if (addMin_)
        a.vpaddd(position, position, tables_.at(stored_));
      continue;
    }
    const x86::Vec free[] = {values[j],   kScratch[0], kScratch[1],
                             kScratch[2], kScratch[3], kScratch[4]};
    emitLookup(a, tables_, position, position, stored_, size_, free,
               maxPermuted(size_));
  }
}

namespace {
/// Offsets from X86QuantileEncoder::nibbles_, in the constructor's order.
enum NibbleTable : int32_t {
  kStepTwo = 0,     ///< Thresholds 3, 11 (planes).
  kGroups = 32,     ///< Thresholds 4p, 4p + 1, 4p + 2 (planes), 32 apart.
  kTwos = 128,      ///< 2 in every byte.
  kBases = 160,     ///< kPlaneBase in every word.
  kWeights = 192,   ///< vpmaddubsw's 1, 16.
  kPairOrder = 224, ///< vpshufb's order of the paired bytes.
};
} // namespace

void X86QuantileEncoder::emitNibbleTables(x86::Assembler &a,
                                          const NibbleTables &tables) const {
  for (size_t k = 0; k < kNibbleTables; ++k)
    a.vmovdqa(tables[k],
              tables_.at(nibbles_ + kGroups + static_cast<int32_t>(32 * k)));
}

void X86QuantileEncoder::emitEncodeNibbles(
    x86::Assembler &a, const std::array<x86::Vec, 4> &values,
    const std::array<x86::Vec, 4> &controls,
    const std::array<x86::Vec, 4> &masks, const x86::Vec &temp,
    const NibbleTables &tables, const x86::Mem &dst) const {
  // Zen 1 issues a 256-bit variable vpermilps / vpermps once per 4
  // cycles, vpshufb every cycle: every lookup is a vpshufb of a plane
  // table (thresholdPlanes), its control kPlaneBase + e in every byte
  // (at most 15: bit 7, which would zero the byte, stays clear), e built
  // by byte adds of the masks (−1 or 0). Steps 1-2 compare with X7, then
  // X3 or X11, as the binary search does: the group p = 2 · bit1 + bit2
  // has X(4p−1) <= x < X(4p+3). The X are sorted (+inf padding last), so
  // x reaches every X below 4p, none from 4p + 3 on, and its position
  // #{j : x >= Xj} is 4p + how many of X(4p), X(4p+1), X(4p+2) it
  // reaches: three compares at once. NaN lanes take steps 1-2 by
  // nanPosition's bits 3 and 2 and reach the first nanPosition % 4 of the
  // three (groupPredicates_), so they end at nanPosition.
  x86::Vec stepTwo = temp;
  a.vmovdqa(stepTwo, tables_.at(nibbles_ + kStepTwo));
  for (unsigned j = 0; j < 4; ++j)
    a.vcmpps(masks[j], values[j], tables_.at(candidates_[0]), predicates_[0]);
  for (unsigned j = 0; j < 4; ++j) {
    a.vpand(controls[j], masks[j], tables_.at(nibbles_ + kTwos));
    a.vpaddb(controls[j], controls[j], tables_.at(nibbles_ + kBases));
  }
  for (unsigned j = 0; j < 4; ++j) {
    a.vpshufb(masks[j], stepTwo, controls[j]);
    a.vcmpps(masks[j], values[j], masks[j], predicates_[1]);
    a.vpsubb(controls[j], controls[j], masks[j]); // e = p.
  }
  // masks[j] = −(how many of X(4p), X(4p+1) x reaches), values[j] the
  // mask of X(4p+2).
  for (unsigned j = 0; j < 4; ++j) {
    a.vpshufb(masks[j], tables[1], controls[j]);
    a.vcmpps(masks[j], values[j], masks[j], groupPredicates_[1]);
    a.vpshufb(temp, tables[0], controls[j]);
    a.vcmpps(temp, values[j], temp, groupPredicates_[0]);
    a.vpaddd(masks[j], masks[j], temp);
    a.vpshufb(temp, tables[2], controls[j]);
    a.vcmpps(values[j], values[j], temp, groupPredicates_[2]);
  }
  // control >> 22 = 4p: its top byte is p (kPlaneBase), the byte below
  // it < 64. Then − masks − mask = the position, 0 to 15.
  x86::Vec codes = controls[0];
  for (unsigned j = 0; j < 4; ++j) {
    a.vpsrld(controls[j], controls[j], 22);
    a.vpsubd(controls[j], controls[j], masks[j]);
    a.vpsubd(controls[j], controls[j], values[j]);
  }
  a.vpackssdw(controls[0], controls[0], controls[1]);
  a.vpackssdw(controls[2], controls[2], controls[3]);
  a.vpacksswb(codes, controls[0], controls[2]);
  if (nibbleCodes_ >= 0) {
    a.vmovdqa(temp, tables_.at(nibbleCodes_));
    a.vpshufb(codes, temp, codes);
  }
  a.vpmaddubsw(codes, codes, tables_.at(nibbles_ + kWeights));
  a.vextracti128(temp.xmm(), codes, 1);
  a.vpackuswb(codes.xmm(), codes.xmm(), temp.xmm());
  a.vpshufb(codes.xmm(), codes.xmm(), tables_.at(nibbles_ + kPairOrder));
  x86::Mem bytes = dst;
  bytes.setSize(16);
  a.vmovdqu(bytes, codes.xmm());
}

X86QuantileDecoder::X86QuantileDecoder(const KernelSpec &spec)
    : storage_(spec.storage), expressed_(spec.expressed),
      table_(storage_.kind == StorageType::Kind::Float
                 ? floatCodeValues(storage_)
                 : storage_.table),
      min_(storage_.kind == StorageType::Kind::Float ? 0 : storage_.min),
      bakesParameters_(!spec.params.runtime &&
                       spec.layout.kind == LayoutSpec::Kind::PerTensor),
      direct_(spec.storage.bits <= 6) {
  const std::vector<double> &table = table_;
  float scale = 1, zero = 0;
  if (bakesParameters_) {
    scale = static_cast<float>(bakedScale(spec, 0));
    zero = static_cast<float>(spec.params.zeroPoints[0]);
  }
  auto last = static_cast<int64_t>(table.size()) - 1;
  auto word = [&](int64_t k) {
    float entry = static_cast<float>(table[static_cast<size_t>(k)]);
    if (!bakesParameters_)
      return floatBits(entry);
    float difference = entry - zero; // Two roundings, as the reference.
    float result = difference * scale;
    return floatBits(result);
  };
  std::vector<uint32_t> entries;
  if (direct_) {
    // An entry for each value of the low `bits` bits (the only ones a
    // lookup reads): out-of-bounds values hold the nearest bound's, so no
    // lane needs a clamp.
    size_ = std::max(1u << storage_.bits, 2u);
    int64_t values = int64_t(1) << storage_.bits;
    for (int64_t field = 0; field < int64_t(size_); ++field) {
      int64_t q = field % values;
      if (storage_.isSigned && q >= values / 2)
        q -= values;
      entries.push_back(word(std::clamp(q - min_, int64_t(0), last)));
    }
  } else {
    size_ = std::bit_ceil(std::max<size_t>(table.size(), 2));
    for (int64_t k = 0; k < int64_t(size_); ++k)
      entries.push_back(word(std::min(k, last)));
    bounds_ = tables_.add({storedWord(storage_.min)});
    tables_.add({storedWord(storage_.max)});
  }
  entries_ = tables_.add(entries);
  if (direct_ && size_ == 16)
    nibbleEntries_ = entries;
  bool byteCodes =
      storage_.packed ? storage_.bits == 4 : storage_.containerBytes() == 1;
  if (byteCodes && direct_ && size_ <= 16) {
    if (halfResults()) // The results rounded as the reference stores them.
      for (uint32_t &entry : entries)
        entry = expressed_ == ValueType::F16
                    ? doubleToHalfBits(std::bit_cast<float>(entry))
                    : doubleToBfloat16Bits(std::bit_cast<float>(entry));
    bytePlanes_ = tables_.add(bytePlanes(entries));
    tables_.add(storage_.packed ? packedBytePlaneSources()
                                : bytePlaneSources(storage_.bits));
  }
}

void X86QuantileDecoder::emitDecode(x86::Assembler &a, const x86::Vec &q,
                                    const x86::Vec &temp) const {
  if (!direct_) {
    // Clamp to [min, max] in the storage's own order, then index.
    bool unsigned32 = !storage_.isSigned && storage_.bits == 32;
    x86::Mem min = tables_.at(bounds_), max = tables_.at(bounds_ + 32);
    unsigned32 ? a.vpmaxud(q, q, min) : a.vpmaxsd(q, q, min);
    unsigned32 ? a.vpminud(q, q, max) : a.vpminsd(q, q, max);
    a.vpsubd(q, q, min);
  }
  const x86::Vec free[] = {temp,        kScratch[0], kScratch[1],
                           kScratch[2], kScratch[3], kScratch[4]};
  emitLookup(a, tables_, q, q, entries_, size_, free, maxPermuted(size_));
}

void X86QuantileDecoder::emitDecodeBytePlanes(
    x86::Assembler &a, const x86::Mem &src, const std::array<x86::Vec, 4> &out,
    const std::array<x86::Vec, 4> &temp) const {
  int32_t mask = bytePlanes_ + 128, order = bytePlanes_ + 160;
  x86::Vec values = temp[0];
  if (storage_.packed) {
    // Both halves get the 16 bytes; each keeps the 8 of its elements,
    // whose low and high nibbles (the word shift brings each byte's high
    // nibble down) interleave into one code per byte.
    x86::Mem bytes = src;
    bytes.setSize(16);
    a.vbroadcasti128(values, bytes);
    a.vpshufb(values, values, tables_.at(order));
    a.vpmulhuw(temp[1], values, tables_.at(bytePlanes_ + 192));
    a.vpunpcklbw(values, values, temp[1]);
  } else {
    a.vmovdqu(out[0], tables_.at(order));
    a.vpermd(values, out[0], src);
  }
  a.vpand(values, values, tables_.at(mask));
  for (unsigned k = 0; k < 4; ++k) {
    a.vmovdqu(out[k], tables_.at(bytePlanes_ + static_cast<int32_t>(32 * k)));
    a.vpshufb(out[k], out[k], values);
  }
  a.vpunpcklbw(temp[1], out[0], out[1]); // Bytes 0, 1 of elements 0-7, ...
  a.vpunpckhbw(temp[2], out[0], out[1]);
  a.vpunpcklbw(temp[3], out[2], out[3]); // Bytes 2, 3.
  a.vpunpckhbw(temp[0], out[2], out[3]);
  a.vpunpcklwd(out[0], temp[1], temp[3]);
  a.vpunpckhwd(out[1], temp[1], temp[3]);
  a.vpunpcklwd(out[2], temp[2], temp[0]);
  a.vpunpckhwd(out[3], temp[2], temp[0]);
}

bool X86QuantileDecoder::halfResults() const {
  return storage_.packed && bakesParameters_ &&
         (expressed_ == ValueType::F16 || expressed_ == ValueType::BF16);
}

bool X86QuantileDecoder::decodesPackedBlocks() const {
  return bytePlanes_ >= 0 && storage_.packed &&
         (expressed_ == ValueType::F32 || halfResults());
}

void X86QuantileDecoder::emitDecodePackedBlock(
    x86::Assembler &a, const x86::Mem &src, const std::array<x86::Vec, 4> &out,
    const std::array<x86::Vec, 4> &temp,
    const std::function<void(unsigned, const x86::Xmm &)> &finish) const {
  const int32_t mask = bytePlanes_ + 128, shift = bytePlanes_ + 192;
  const x86::Xmm codes[2] = {temp[0].xmm(), temp[1].xmm()};
  // Byte k of elements 0-7 and 8-15 (words), then of 4 elements (dwords).
  const std::array<x86::Xmm, 4> words = {temp[2].xmm(), temp[3].xmm(),
                                         kScratch[0].xmm(), kScratch[1].xmm()};
  x86::Mem bytes = src;
  bytes.setSize(16);
  a.vmovdqu(codes[0], bytes);
  a.vpmulhuw(words[0], codes[0], tables_.at(shift)); // High nibbles down.
  a.vpunpckhbw(codes[1], codes[0], words[0]);        // Elements 16-31.
  a.vpunpcklbw(codes[0], codes[0], words[0]);        // Elements 0-15.
  for (unsigned half = 0; half < 2; ++half) {
    a.vpand(codes[half], codes[half], tables_.at(mask));
    if (halfResults()) { // Two planes: bytes 0 and 1 of the results.
      for (unsigned k = 0; k < 2; ++k) {
        x86::Xmm plane = out[k].xmm();
        a.vmovdqa(plane,
                  tables_.at(bytePlanes_ + static_cast<int32_t>(32 * k)));
        a.vpshufb(plane, plane, codes[half]);
      }
      a.vpunpckhbw(out[2].xmm(), out[0].xmm(), out[1].xmm());
      a.vpunpcklbw(out[0].xmm(), out[0].xmm(), out[1].xmm());
      finish(16 * half, out[0].xmm());
      finish(16 * half + 8, out[2].xmm());
      continue;
    }
    for (unsigned k = 0; k < 4; ++k) {
      x86::Xmm plane = out[k].xmm();
      a.vmovdqa(plane, tables_.at(bytePlanes_ + static_cast<int32_t>(32 * k)));
      a.vpshufb(plane, plane, codes[half]);
    }
    a.vpunpcklbw(words[0], out[0].xmm(), out[1].xmm());
    a.vpunpckhbw(words[1], out[0].xmm(), out[1].xmm());
    a.vpunpcklbw(words[2], out[2].xmm(), out[3].xmm());
    a.vpunpckhbw(words[3], out[2].xmm(), out[3].xmm());
    a.vpunpcklwd(out[0].xmm(), words[0], words[2]);
    a.vpunpckhwd(out[1].xmm(), words[0], words[2]);
    a.vpunpcklwd(out[2].xmm(), words[1], words[3]);
    a.vpunpckhwd(out[3].xmm(), words[1], words[3]);
    for (unsigned k = 0; k < 4; ++k)
      finish(16 * half + 4 * k, out[k].xmm());
  }
}

} // namespace qjit::asmjit_backend
