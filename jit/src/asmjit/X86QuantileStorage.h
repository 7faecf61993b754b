//===- X86QuantileStorage.h - Quantile tables on x86 lanes ------*- C++ -*-===//
//
// docs/semantics.md 8.4 between the generators' container loads and stores:
// qcast turns f32 lanes into i32 stored values, dcast i32 stored values into
// f32 table entries. Tables are read from constant tables after the code:
// register permutes up to 64 entries (vpermilps up to 4, a vpermps per 8
// and a blend per further index bit; one-byte dcast blocks through vpshufb
// byte planes), eight scalar loads per vector beyond (indices always
// within the table); the nearest entry is a binary search over
// QuantileSearch's exact thresholds, one index bit per step, each step
// comparing with the threshold its lane's prefix selects.
//
// These kernels are AVX2 code (ymm, VEX) at every ISA level: the tables are
// built for 8-lane permutes (x86KernelIsa); except qcast of at most 16
// positions to one-byte or packed containers, whose search at AVX-512
// reads 16-entry tables with one vpermps per step, its comparisons in
// k-registers (x86SearchesQuantileOnZmm, emitEncodeZmm). Packed storage
// (1, 2 or 4 bits) loads and stores its codes through X86PackedCodes,
// except: dcast of 4-bit codes (NF4 and packed f4E2M1FN, whose 16 codes
// decode as a table too), whole blocks through byte planes; qcast of 4-bit
// tables of 9 to 16 distinct entries with one baked scale
// (x86EncodesPackedTable), whose 32-element blocks search through vpshufb
// lookups and pack their nibbles (emitEncodeNibbles) while heads and tails
// go through X86PackedCodes.
//
//===----------------------------------------------------------------------===//
#ifndef QJIT_JIT_ASMJIT_X86QUANTILESTORAGE_H
#define QJIT_JIT_ASMJIT_X86QUANTILESTORAGE_H

#include "X86Isa.h"

#include "qjit/KernelSpec.h"
#include "qjit/internal/Backend.h"

#include <array>
#include <cstdint>
#include <functional>
#include <span>
#include <vector>

namespace qjit::asmjit_backend {

/// True for the quantile storage the x86 generators handle: at most
/// kMaxQuantileEntries table entries (every table of storage up to 16 bits;
/// the constant tables after the code grow with the entries).
bool x86SupportsQuantile(const StorageSpec &storage);
constexpr size_t kMaxQuantileEntries = size_t(1) << 16;

/// True for the packed storage whose dcast X86QuantileDecoder handles: 4-bit
/// quantile tables and f4E2M1FN (its codes' values as a 16-entry table).
bool x86DecodesPackedTable(const KernelSpec &spec);
/// Of those, the ones whose AVX-512 kernels look their codes up in zmm
/// lanes (f32 compute and results): each vector's 16 nibbles broadcast,
/// placed in its dwords' low bits (vpmultishiftqb, or vpshufb and
/// vpsrlvd without VBMI) and replaced by their entries (vpermps).
bool x86LooksUpNibblesOnZmm(const KernelSpec &spec);

/// True for the packed qcast X86QuantileEncoder::emitEncodeNibbles handles:
/// 4-bit codes of 9 to 16 distinct entries (any order, signed or not), one
/// baked scale that moves the thresholds to the input side.
bool x86EncodesPackedTable(const KernelSpec &spec);

/// Packed 4-bit table qcast outside emitEncodeNibbles that searches per
/// vector and packs through X86PackedCodes, with runtime parameters or at
/// most 8 distinct entries: the PackedTableSearchPerVector fit condition
/// (plan/KernelFits.def). The other table kernels fit Specialized (a
/// 256-entry u8 table measured 7x llvm in qcast, 1.35-1.6x in dcast, at
/// 1M elements on Zen 1).
bool x86SearchesPackedTablePerVector(const KernelSpec &spec);

/// f32 quantile qcast to one-byte or packed containers whose search has at
/// most 16 positions: AVX-512 code at that level (emitEncodeZmm).
bool x86SearchesQuantileOnZmm(const KernelSpec &spec);

/// Constant 32-bit tables placed after the code, read as whole vectors.
class X86LookupTables {
public:
  /// Adds `words`, repeated to fill whole 8-word vectors; returns its
  /// byte offset.
  int32_t add(const std::vector<uint32_t> &words);
  x86::Mem at(int32_t offset) const { return x86::ptr(label_, offset); }
  void emitConstants(x86::Assembler &a) { label_ = a.newLabel(); }
  void emitData(x86::Assembler &a);

private:
  asmjit::Label label_;
  std::vector<uint32_t> words_;
};

/// qcast: f32 lanes → i32 stored values of the nearest entries.
class X86QuantileEncoder {
public:
  /// `zmm`: also the tables of emitEncodeZmm (x86SearchesQuantileOnZmm).
  explicit X86QuantileEncoder(const KernelSpec &spec, bool zmm = false);

  /// True: emitEncode takes the input x itself, compared with thresholds
  /// moved to the input side (QuantileInputThresholds.h), NaN lanes
  /// included. False: it takes v = fl(u + z) with NaN lanes already z.
  bool searchesInput() const { return searchesInput_; }

  void emitConstants(x86::Assembler &a) { tables_.emitConstants(a); }
  /// f32 lanes values[j] → i32 stored values in positions[j] (values[j]
  /// clobbered). The vectors' search steps are interleaved: their
  /// dependency chains then overlap even in a small scheduler (Zen 1
  /// holds few 256-bit µops).
  void emitEncode(x86::Assembler &a, std::span<const x86::Vec> values,
                  std::span<const x86::Vec> positions) const;
  void emitData(x86::Assembler &a) { tables_.emitData(a); }

  /// AVX-512: emitEncode on zmm lanes, every step one vpermps of a 16-entry
  /// table indexed by the position so far, a comparison into k-register
  /// k(2 + j) and a masked addition of the step's bit. scratch[j] is
  /// clobbered.
  void emitEncodeZmm(x86::Assembler &a, std::span<const x86::Vec> values,
                     std::span<const x86::Vec> positions,
                     std::span<const x86::Vec> scratch) const;

  /// x86EncodesPackedTable: the three tables emitEncodeNibbles reads from
  /// registers (vpshufb reads its table from a register only), loaded
  /// once per run.
  static constexpr size_t kNibbleTables = 3;
  using NibbleTables = std::array<x86::Vec, kNibbleTables>;
  void emitNibbleTables(x86::Assembler &a, const NibbleTables &tables) const;
  /// x86EncodesPackedTable: the 32 f32 inputs in values[0..3] (elements
  /// 0-7, ...) → their 16 packed bytes at `dst`, without a variable
  /// vpermilps / vpermps: steps 1-2 of the search pick the group of four
  /// positions, whose three thresholds are compared at once, every lookup a
  /// vpshufb of a table of four thresholds' byte planes; vpmaddubsw pairs
  /// the nibbles, one pack narrows and one vpshufb orders them. values[],
  /// controls[], masks[] and `temp` are clobbered; `tables` as
  /// emitNibbleTables left them.
  void emitEncodeNibbles(x86::Assembler &a,
                         const std::array<x86::Vec, 4> &values,
                         const std::array<x86::Vec, 4> &controls,
                         const std::array<x86::Vec, 4> &masks,
                         const x86::Vec &temp, const NibbleTables &tables,
                         const x86::Mem &dst) const;

private:
  bool searchesInput_;
  unsigned size_; ///< Positions searched: a power of two >= 2.
  /// Per search step: the offset of its candidate thresholds, and the
  /// vcmpps predicate (NaN lanes compare as the NaN position's bit).
  std::vector<int32_t> candidates_;
  std::vector<uint8_t> predicates_;
  int32_t lastPosition_ = -1; ///< Clamp (+inf padding), if any.
  /// emitEncodeZmm: per step, the candidate at each position (16 words),
  /// then the step's bit (16 words).
  std::vector<int32_t> zmmCandidates_, zmmBits_;
  bool identity_;      ///< Stored value = position + storage min.
  int32_t stored_ = 0; ///< The min (identity) or position → stored.
  bool addMin_;
  /// x86EncodesPackedTable: the planes of the step-2 and group
  /// thresholds, the byte constants of the controls, then the byte weights
  /// and order of the nibble pairing; else −1.
  int32_t nibbles_ = -1;
  /// x86EncodesPackedTable: the vcmpps predicates of the group thresholds.
  std::array<uint8_t, 3> groupPredicates_ = {};
  /// x86EncodesPackedTable: the code of each of the 16 positions (bytes),
  /// when they are not the positions themselves; else −1.
  int32_t nibbleCodes_ = -1;
  X86LookupTables tables_;
};

/// dcast: i32 stored values → f32 table entries (quantile storage, or the
/// values of packed f4E2M1FN codes).
class X86QuantileDecoder {
public:
  explicit X86QuantileDecoder(const KernelSpec &spec);

  /// True: the table holds the results fl(fl(τ − z) · s) of the one baked
  /// scale and zero point (computed here with the same f32 operations), so
  /// nothing follows the lookup.
  bool bakesParameters() const { return bakesParameters_; }

  void emitConstants(x86::Assembler &a) { tables_.emitConstants(a); }
  /// `q`: stored values as emitLoadStored leaves them; replaced by the
  /// entries. `temp` is clobbered.
  void emitDecode(x86::Assembler &a, const x86::Vec &q,
                  const x86::Vec &temp) const;

  /// True for one-byte containers or packed 4-bit codes, and at most 16
  /// entries: then emitDecodeBytePlanes can decode 32 values at once.
  bool decodesBytePlanes() const { return bytePlanes_ >= 0; }
  /// The 32 containers at `src` (packed: the 16 bytes holding them) →
  /// their entries in out[0..3] (elements 0-7, ..., 24-31): each byte of
  /// the entries is one vpshufb of the stored values' low bits, and
  /// in-lane unpacks interleave the four (the values are first permuted,
  /// or the packed bytes shuffled before their nibbles interleave, so that
  /// they come out in order). `temp` is clobbered.
  void emitDecodeBytePlanes(x86::Assembler &a, const x86::Mem &src,
                            const std::array<x86::Vec, 4> &out,
                            const std::array<x86::Vec, 4> &temp) const;
  /// True for packed 4-bit codes and f32 results, or f16 / bf16 results
  /// of baked parameters: then emitDecodePackedBlock decodes 32 elements
  /// at once.
  bool decodesPackedBlocks() const;
  /// True when the byte planes hold the f16 / bf16 bits of the results
  /// (packed codes, baked parameters, 16-bit expressed values).
  bool halfResults() const;
  /// The 32 codes of the 16 bytes at `src` → their entries in 128-bit
  /// registers: on Zen 1 every 256-bit shuffle and store is two 128-bit
  /// ones (the shuffle and store units are the bottleneck), and the
  /// 128-bit form needs no lane fix-up. `finish(first, entries)` is called
  /// with elements first..first+3 (f32), or with first..first+7 as final
  /// 16-bit results (halfResults()), to store them. `out`, `temp`,
  /// vec(reg::kLow) and vec(reg::kHigh) are clobbered.
  void emitDecodePackedBlock(
      x86::Assembler &a, const x86::Mem &src,
      const std::array<x86::Vec, 4> &out, const std::array<x86::Vec, 4> &temp,
      const std::function<void(unsigned, const x86::Xmm &)> &finish) const;
  void emitData(x86::Assembler &a) { tables_.emitData(a); }
  /// The f32 entries (baked: results) of the 16 values of a nibble, for
  /// x86LooksUpNibblesOnZmm's kernels.
  const std::vector<uint32_t> &nibbleEntries() const { return nibbleEntries_; }

private:
  const StorageSpec &storage_;
  ValueType expressed_;
  std::vector<double> table_; ///< The entries of stored values min_, ...
  int64_t min_;
  bool bakesParameters_;
  bool direct_;        ///< One entry per value of the storage's bits.
  unsigned size_;      ///< Entries looked up: a power of two >= 2.
  int32_t entries_;    ///< Offset of the entries.
  int32_t bounds_ = 0; ///< Not direct: min, then max, then the table.
  /// decodesBytePlanes(): the four planes (byte k of the 16 entries, in
  /// both halves), the low-bits mask and vpermd's order (packed: vpshufb's
  /// byte order); else −1.
  int32_t bytePlanes_ = -1;
  std::vector<uint32_t> nibbleEntries_; ///< Direct 4-bit tables only.
  X86LookupTables tables_;
};

} // namespace qjit::asmjit_backend

#endif // QJIT_JIT_ASMJIT_X86QUANTILESTORAGE_H
