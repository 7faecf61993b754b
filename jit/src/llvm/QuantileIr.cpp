//===- QuantileIr.cpp - Quantile tables on lanes --------------------------===//
#include "QuantileIr.h"

#include "ElementIo.h"
#include "TableLookup.h"

#include "plan/QuantileInputThresholds.h"

#include "qjit/internal/QuantileSearch.h"

#include <algorithm>
#include <limits>
#include <optional>

namespace qjit::llvmjit {

/// The smallest stored value the storage's `bits` can hold.
int64_t lowestStored(const StorageSpec &storage) {
  return storage.isSigned ? -(int64_t(1) << (storage.bits - 1)) : 0;
}

namespace {

/// Whether searchPosition's binary search with register permutes applies:
/// AVX2 f32 lanes in whole 8-lane chunks, more than two thresholds.
bool permutedSearchApplies(IrContext &ir, const QuantileSearch &search,
                           unsigned lanes) {
  return ir.target.isX86 && ir.target.vectorBits >= 256 && lanes % 8 == 0 &&
         ir.spec.compute == ValueType::F32 && search.values.size() <= 64 &&
         search.thresholds.size() > 2;
}

/// The binary search's steps but the last: position = 2 · prefix − minusLast.
struct SearchSteps {
  llvm::Value *prefix;    ///< i32 lanes: the position's high bits.
  llvm::Value *minusLast; ///< i32 lanes: −1 where the last step goes up.
};

/// The binary search with register permutes over thresholds padded with
/// NaN to size − 1 (a power of two; padding compares false): one bit of
/// the position per step, each step comparing with the threshold its
/// lane's prefix selects. The prefix p decided so far (the high bits)
/// indexes the next step's candidates directly: p' = 2p + above, two
/// operations per step and no shifts; the second step picks between two
/// candidates by the first's mask (a blend). A NaN lane compares true
/// (unordered or >=) exactly where `nanPath` goes up.
SearchSteps permutedSearch(IrContext &ir, const std::vector<double> &thresholds,
                           uint64_t size, uint64_t nanPath, llvm::Value *v,
                           unsigned lanes) {
  llvm::IRBuilder<> &b = ir.builder;
  llvm::Type *i32Lanes = ir.vectorOf(ir.i32, lanes);
  llvm::Value *prefix = nullptr, *firstAbove = nullptr, *minusFirst = nullptr,
              *minusAbove = nullptr;
  for (uint64_t bit = size / 2; bit >= 1; bit /= 2) {
    if (prefix) // p' = 2p + above
      prefix = b.CreateSub(b.CreateAdd(prefix, prefix), minusAbove);
    else if (minusAbove != minusFirst) // 2 · (first bit) is mask & 2.
      prefix =
          b.CreateSub(b.CreateAnd(minusFirst, ir.intConstant(ir.i32, 2, lanes)),
                      minusAbove);
    // Candidates p + bit with p a multiple of 2·bit: threshold p + bit − 1.
    std::vector<double> candidates;
    for (uint64_t p = 0; p < size; p += 2 * bit)
      candidates.push_back(thresholds[p + bit - 1]);
    llvm::Value *threshold;
    if (candidates.size() == 1)
      threshold = ir.computeConstant(candidates[0], lanes);
    else if (candidates.size() == 2)
      threshold =
          b.CreateSelect(firstAbove, ir.computeConstant(candidates[1], lanes),
                         ir.computeConstant(candidates[0], lanes));
    else
      threshold = emitTableLookup(ir, ir.compute, candidates, prefix, lanes);
    llvm::Value *above = (nanPath & bit) ? b.CreateFCmpUGE(v, threshold)
                                         : b.CreateFCmpOGE(v, threshold);
    minusAbove = b.CreateSExt(above, i32Lanes);
    if (!firstAbove) {
      firstAbove = above;
      minusFirst = minusAbove;
    }
  }
  if (!prefix) // Two steps: the prefix is the first bit.
    prefix = b.CreateNeg(minusFirst);
  return {prefix, minusAbove};
}

/// The number of thresholds at or below v (lanes of C); NaN lanes get
/// `nanPosition` when given (else v must not be NaN). A binary search
/// (permutedSearch) where it applies, else one comparison per threshold,
/// counted.
llvm::Value *searchPosition(IrContext &ir, const QuantileSearch &search,
                            llvm::Value *v, unsigned lanes,
                            std::optional<size_t> nanPosition) {
  llvm::IRBuilder<> &b = ir.builder;
  if (!permutedSearchApplies(ir, search, lanes)) {
    llvm::Value *position = ir.intConstant(ir.i32, 0, lanes);
    for (size_t j = 0; j < search.thresholds.size(); ++j) {
      llvm::Value *threshold = ir.computeConstant(search.thresholds[j], lanes);
      position = b.CreateSub(position,
                             b.CreateSExt(nanPosition && j < *nanPosition
                                              ? b.CreateFCmpUGE(v, threshold)
                                              : b.CreateFCmpOGE(v, threshold),
                                          ir.vectorOf(ir.i32, lanes)));
    }
    return position;
  }
  uint64_t size = llvm::PowerOf2Ceil(search.values.size());
  std::vector<double> thresholds(size - 1,
                                 std::numeric_limits<double>::quiet_NaN());
  std::copy(search.thresholds.begin(), search.thresholds.end(),
            thresholds.begin());
  // NaN's path, or 0 with padding (NaN lanes are then selected below).
  bool padded = search.thresholds.size() + 1 < size;
  SearchSteps steps =
      permutedSearch(ir, thresholds, size,
                     nanPosition && !padded ? *nanPosition : 0, v, lanes);
  llvm::Value *position =
      b.CreateSub(b.CreateAdd(steps.prefix, steps.prefix), steps.minusLast);
  if (nanPosition && padded)
    position = b.CreateSelect(
        b.CreateFCmpUNO(v, v),
        ir.intConstant(ir.i32, static_cast<int64_t>(*nanPosition), lanes),
        position);
  return position;
}

} // namespace

namespace {

/// Stored values (i32 lanes) of positions in search.values.
llvm::Value *storedOfPosition(IrContext &ir, const QuantileSearch &search,
                              llvm::Value *position, unsigned lanes) {
  llvm::IRBuilder<> &b = ir.builder;
  const StorageSpec &storage = ir.spec.storage;
  bool identity = true;
  std::vector<double> stored;
  for (size_t p = 0; p < search.tableIndex.size(); ++p) {
    identity = identity && search.tableIndex[p] == static_cast<int64_t>(p);
    stored.push_back(double(storage.min + search.tableIndex[p]));
  }
  if (identity)
    return b.CreateAdd(position, ir.intConstant(ir.i32, storage.min, lanes));
  stored.resize(llvm::PowerOf2Ceil(stored.size()), stored.back());
  return emitTableLookup(ir, ir.i32, stored, position, lanes);
}

} // namespace

llvm::Value *emitQuantileEncode(IrContext &ir, llvm::Value *v,
                                llvm::Value *zero, unsigned lanes) {
  llvm::IRBuilder<> &b = ir.builder;
  QuantileSearch search =
      buildQuantileSearch(ir.spec.storage.table, ir.spec.compute);
  v = b.CreateSelect(b.CreateFCmpUNO(v, v), zero, v);
  return storedOfPosition(
      ir, search, searchPosition(ir, search, v, lanes, std::nullopt), lanes);
}

llvm::Value *emitQuantileEncodeFromInput(IrContext &ir, llvm::Value *x,
                                         unsigned lanes) {
  const KernelSpec &spec = ir.spec;
  if (!plan::quantileThresholdsMoveToInput(spec))
    return nullptr;
  QuantileSearch search = buildQuantileSearch(spec.storage.table, spec.compute);
  QuantileSearch moved = search;
  moved.thresholds = plan::quantileInputThresholds(spec, search.thresholds);
  // NaN stores the entry nearest the zero point (8.4).
  size_t nanPosition =
      search.positionOf(static_cast<double>(spec.params.zeroPoints[0]));
  return storedOfPosition(
      ir, search, searchPosition(ir, moved, x, lanes, nanPosition), lanes);
}

std::vector<llvm::Value *>
emitQuantileNibblesFromInput(IrContext &ir, llvm::Value *x, Lanes lanes) {
  const KernelSpec &spec = ir.spec;
  const StorageSpec &storage = spec.storage;
  if (!ir.target.isX86 || ir.target.vectorBits != 256 ||
      lanes.count % 32 != 0 || lanes.mask || !storage.packed ||
      storage.bits != 4 || storage.min != 0 ||
      !plan::quantileThresholdsMoveToInput(spec))
    return {};
  QuantileSearch search = buildQuantileSearch(storage.table, spec.compute);
  for (size_t p = 0; p < search.tableIndex.size(); ++p)
    if (search.tableIndex[p] != static_cast<int64_t>(p))
      return {}; // Stored values are not the positions.
  // Without padding, so that NaN lanes follow their path.
  if (search.values.size() != 16 ||
      !permutedSearchApplies(ir, search, lanes.count))
    return {};
  std::vector<double> thresholds =
      plan::quantileInputThresholds(spec, search.thresholds);
  size_t nanPosition =
      search.positionOf(static_cast<double>(spec.params.zeroPoints[0]));
  SearchSteps steps =
      permutedSearch(ir, thresholds, 16, nanPosition, x, lanes.count);
  // The last step joins in bytes, 32 lanes per operation: 2p − minusLast.
  llvm::IRBuilder<> &b = ir.builder;
  auto bytes = [&](llvm::Value *wide, int group) {
    llvm::SmallVector<llvm::Value *, 4> quarters;
    for (int first = 32 * group; first < 32 * group + 32; first += 8)
      quarters.push_back(b.CreateShuffleVector(
          wide, {first, first + 1, first + 2, first + 3, first + 4, first + 5,
                 first + 6, first + 7}));
    return packBytesInPackOrder(ir, quarters, true);
  };
  std::vector<llvm::Value *> groups;
  for (int group = 0; group < int(lanes.count / 32); ++group) {
    llvm::Value *prefix = bytes(steps.prefix, group);
    groups.push_back(b.CreateSub(b.CreateAdd(prefix, prefix),
                                 bytes(steps.minusLast, group)));
  }
  return groups;
}

llvm::Value *emitQuantileDecode(IrContext &ir, llvm::Value *q, unsigned lanes) {
  llvm::IRBuilder<> &b = ir.builder;
  const StorageSpec &storage = ir.spec.storage;
  int64_t last = static_cast<int64_t>(storage.table.size()) - 1;
  std::vector<double> entries;
  llvm::Value *index;
  if (storage.bits <= kMaxDirectBits) {
    // Every container value has an entry: out-of-bounds values read the
    // nearest bound's, so no clamp is needed per lane.
    int64_t lowest = lowestStored(storage);
    for (int64_t k = 0; k < (int64_t(1) << storage.bits); ++k)
      entries.push_back(storage.table[size_t(
          std::clamp(lowest + k - storage.min, int64_t(0), last))]);
    index = b.CreateSub(q, ir.intConstant(ir.i32, lowest, lanes));
  } else {
    entries = storage.table;
    entries.resize(llvm::PowerOf2Ceil(entries.size()), entries.back());
    // Clamp to [min, max] in the storage's own order before subtracting:
    // q − min wraps around in i32 for 32-bit storage.
    // (u32 bounds above INT32_MAX as their i32 bit patterns.)
    bool unsigned32 = !storage.isSigned && storage.bits == 32;
    auto bound = [&](int64_t value) {
      return ir.intConstant(
          ir.i32, static_cast<int32_t>(static_cast<uint32_t>(value)), lanes);
    };
    llvm::Value *min = bound(storage.min);
    index = b.CreateBinaryIntrinsic(
        unsigned32 ? llvm::Intrinsic::umax : llvm::Intrinsic::smax, q, min);
    index = b.CreateBinaryIntrinsic(unsigned32 ? llvm::Intrinsic::umin
                                               : llvm::Intrinsic::smin,
                                    index, bound(storage.max));
    index = b.CreateSub(index, min);
  }
  if (entries.size() < 2)
    entries.resize(2, entries.back());
  return emitTableLookup(ir, ir.compute, entries, index, lanes);
}

} // namespace qjit::llvmjit
