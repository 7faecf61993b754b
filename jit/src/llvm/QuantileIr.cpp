//===- QuantileIr.cpp - Quantile tables on lanes --------------------------===//
#include "QuantileIr.h"

#include "TableLookup.h"

#include "QuantileInputThresholds.h"

#include "qjit/QuantileSearch.h"

#include <algorithm>
#include <limits>
#include <optional>

namespace qjit::llvmjit {

/// The smallest stored value the storage's `bits` can hold.
int64_t lowestStored(const StorageSpec &storage) {
  return storage.isSigned ? -(int64_t(1) << (storage.bits - 1)) : 0;
}

namespace {

/// The number of thresholds at or below v (lanes of C); NaN lanes get
/// `nanPosition` when given (else v must not be NaN). With register
/// permutes: a binary search, one bit of the position per step, each step
/// comparing with the threshold its lane's prefix selects (a table
/// lookup); the table is padded with NaN thresholds, which compare false.
/// Otherwise: one comparison per threshold, counted. A NaN lane compares
/// true (unordered or >=) exactly where nanPosition's path goes up, so it
/// needs no select (unless padding, which must compare false, exists).
llvm::Value *searchPosition(IrContext &ir, const QuantileSearch &search,
                            llvm::Value *v, unsigned lanes,
                            std::optional<size_t> nanPosition) {
  llvm::IRBuilder<> &b = ir.builder;
  llvm::Type *i32Lanes = ir.vectorOf(ir.i32, lanes);
  auto atLeast = [&](llvm::Value *threshold, bool nanAbove) {
    return nanAbove ? b.CreateFCmpUGE(v, threshold)
                    : b.CreateFCmpOGE(v, threshold);
  };
  uint64_t size = llvm::PowerOf2Ceil(std::max<size_t>(search.values.size(), 2));
  bool permutes = ir.target.isX86 && ir.target.vectorBits >= 256 &&
                  lanes % 8 == 0 && ir.spec.compute == ValueType::F32 &&
                  size <= 64 && search.thresholds.size() > 2;
  if (!permutes) {
    llvm::Value *position = ir.intConstant(ir.i32, 0, lanes);
    for (size_t j = 0; j < search.thresholds.size(); ++j)
      position = b.CreateSub(
          position,
          b.CreateSExt(atLeast(ir.computeConstant(search.thresholds[j], lanes),
                               nanPosition && j < *nanPosition),
                       i32Lanes));
    return position;
  }
  // NaN's path, or 0 with padding (NaN lanes are then selected below).
  bool padded = search.thresholds.size() + 1 < size;
  uint64_t nanPath = nanPosition && !padded ? *nanPosition : 0;
  std::vector<double> thresholds(size - 1,
                                 std::numeric_limits<double>::quiet_NaN());
  std::copy(search.thresholds.begin(), search.thresholds.end(),
            thresholds.begin());
  // The prefix p of the position decided so far (its high bits) indexes
  // the next step's candidates directly: p' = 2p + above, two operations
  // per step and no shifts. The first step compares with one threshold and
  // the second picks between two by the first's mask (a blend).
  llvm::Value *prefix = nullptr, *firstAbove = nullptr;
  for (uint64_t bit = size / 2; bit >= 1; bit /= 2) {
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
    llvm::Value *above = atLeast(threshold, (nanPath & bit) != 0);
    llvm::Value *minusAbove = b.CreateSExt(above, i32Lanes);
    if (!firstAbove)
      firstAbove = above;
    else if (!prefix) // 2·(first bit) is −2·mask = mask & 2.
      prefix = b.CreateSub(b.CreateAnd(b.CreateSExt(firstAbove, i32Lanes),
                                       ir.intConstant(ir.i32, 2, lanes)),
                           minusAbove);
    else
      prefix = b.CreateSub(b.CreateAdd(prefix, prefix), minusAbove);
  }
  llvm::Value *position = prefix;
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
  if (!quantileThresholdsMoveToInput(spec))
    return nullptr;
  QuantileSearch search = buildQuantileSearch(spec.storage.table, spec.compute);
  QuantileSearch moved = search;
  moved.thresholds = quantileInputThresholds(spec, search.thresholds);
  // NaN stores the entry nearest the zero point (8.4).
  size_t nanPosition =
      search.positionOf(static_cast<double>(spec.params.zeroPoints[0]));
  return storedOfPosition(
      ir, search, searchPosition(ir, moved, x, lanes, nanPosition), lanes);
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
    index = b.CreateSub(q, ir.intConstant(ir.i32, storage.min, lanes));
    index = b.CreateBinaryIntrinsic(llvm::Intrinsic::smax, index,
                                    ir.intConstant(ir.i32, 0, lanes));
    index = b.CreateBinaryIntrinsic(llvm::Intrinsic::smin, index,
                                    ir.intConstant(ir.i32, last, lanes));
  }
  if (entries.size() < 2)
    entries.resize(2, entries.back());
  return emitTableLookup(ir, ir.compute, entries, index, lanes);
}

} // namespace qjit::llvmjit
