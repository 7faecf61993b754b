//===- CompactArith.cpp - qcast / dcast of float and quantile storage -----===//
//
// Chooses, per spec, how compact storages convert: a baked per-tensor dcast
// of at most 64 stored values is one table lookup of precomputed results;
// fp8 dcast goes through binary16 where vectors convert halves; everything
// else decodes or encodes codes (FloatStorageIr) or table positions
// (QuantileIr) around the usual scale and zero-point arithmetic.
//
//===----------------------------------------------------------------------===//
#include "CompactArith.h"

#include "ElementIo.h"
#include "FloatStorageIr.h"
#include "QuantileIr.h"
#include "TableLookup.h"

#include "qjit/internal/FloatStorage.h"
#include "qjit/internal/HostFloat.h"

#include <algorithm>
#include <optional>

namespace qjit::llvmjit {

bool isCompactStorage(const StorageSpec &storage) {
  return storage.kind != StorageType::Kind::Integer;
}

void adaptPlanToCompactStorage(QuantPlan &plan, const KernelSpec &spec) {
  if (!isCompactStorage(spec.storage) || plan.scaling != Scaling::Markstein)
    return;
  plan.scaling = Scaling::Divide;
  plan.needScale = true;
  plan.needReciprocal = false;
  plan.needLimit = false;
}

namespace {

/// v = fl(u + z) with u = x / s or x · fl(1/s) (QuantArith's plan without
/// the FMA division, see adaptPlanToCompactStorage). A zero point of 0 is
/// not added (docs/semantics.md 8.2 step 2): adding −0 instead is u itself
/// for every u, −0 included, and folds away for baked parameters.
llvm::Value *shiftedScaled(IrContext &ir, const QuantPlan &plan, llvm::Value *x,
                           const ParamValues &params) {
  llvm::IRBuilder<> &b = ir.builder;
  llvm::Value *u = plan.scaling == Scaling::Multiply
                       ? b.CreateFMul(x, params.reciprocal)
                       : b.CreateFDiv(x, params.scale);
  llvm::Value *z = params.zeroCompute;
  llvm::Value *positiveZero = llvm::ConstantFP::get(z->getType(), 0.0);
  llvm::Value *addend =
      b.CreateSelect(b.CreateFCmpOEQ(z, positiveZero),
                     llvm::ConstantFP::getNegativeZero(z->getType()), z);
  return b.CreateFAdd(u, addend);
}

/// q − lowest: the position of a stored value in a direct table.
llvm::Value *storedIndex(IrContext &ir, llvm::Value *q) {
  unsigned n =
      q->getType()->isVectorTy()
          ? llvm::cast<llvm::FixedVectorType>(q->getType())->getNumElements()
          : 1;
  return ir.builder.CreateSub(
      q, ir.intConstant(ir.i32, lowestStored(ir.spec.storage), n));
}

/// One scale and zero point baked in, and at most 64 possible stored
/// values: every result fl(fl(F(q) − z)·s) is a table entry, computed here
/// with the kernel's own IEEE operations in C, so the kernel only looks up.
std::optional<std::vector<double>> bakedResultTable(IrContext &ir) {
  const KernelSpec &spec = ir.spec;
  const StorageSpec &storage = spec.storage;
  if (spec.params.runtime || spec.layout.kind != LayoutSpec::Kind::PerTensor ||
      storage.bits > kMaxDirectBits || spec.compute != ValueType::F32)
    return std::nullopt;
  float scale = static_cast<float>(bakedScale(spec, 0));
  float zero = static_cast<float>(spec.params.zeroPoints[0]);
  std::vector<double> results;
  int64_t lowest = lowestStored(storage);
  for (int64_t k = 0; k < (int64_t(1) << storage.bits); ++k) {
    int64_t stored = lowest + k;
    float value;
    if (storage.kind == StorageType::Kind::Float) {
      value = static_cast<float>(decodeFloatStorage(
          floatStorageFormat(storage.floatFormat), uint32_t(stored)));
    } else {
      int64_t last = static_cast<int64_t>(storage.table.size()) - 1;
      value = static_cast<float>(storage.table[size_t(
          std::clamp(stored - storage.min, int64_t(0), last))]);
    }
    float difference = value - zero;
    float product = difference * scale;
    results.push_back(product);
  }
  if (results.size() < 2)
    results.resize(2, results.back());
  return results;
}

} // namespace

llvm::Value *emitCompactQuantize(IrContext &ir, const QuantPlan &plan,
                                 llvm::Value *x, const ParamValues &params,
                                 unsigned lanes) {
  if (ir.spec.storage.kind == StorageType::Kind::Quantile)
    if (llvm::Value *stored = emitQuantileEncodeFromInput(ir, x, lanes))
      return stored;
  llvm::Value *v = shiftedScaled(ir, plan, x, params);
  if (ir.spec.storage.kind == StorageType::Kind::Float)
    return emitFloatEncode(ir, v, params.zeroCompute, lanes);
  return emitQuantileEncode(ir, v, params.zeroCompute, lanes);
}

llvm::Value *emitCompactDequantize(IrContext &ir, llvm::Value *src,
                                   llvm::Value *index, Lanes lanes,
                                   const ParamValues &params) {
  llvm::IRBuilder<> &b = ir.builder;
  unsigned n = lanes.count;
  if (std::optional<std::vector<double>> results = bakedResultTable(ir)) {
    if (nibbleLookupApplies(ir, lanes, *results)) {
      // The lookup indexes by the raw nibble n; a signed code's entry
      // (k = q − lowest = sext(n) + 8) sits at n ^ 8.
      std::vector<double> byNibble = *results;
      if (ir.spec.storage.isSigned)
        for (size_t n = 0; n < byNibble.size(); ++n)
          byNibble[n] = (*results)[n ^ 8];
      return emitNibbleLookup(ir, src, index, byNibble);
    }
    return emitTableLookup(ir, ir.compute, *results,
                           storedIndex(ir, loadStored(ir, src, index, lanes)),
                           n);
  }
  if (llvm::Value *y =
          emitFp8DequantizeThroughHalf(ir, src, index, lanes, params))
    return y;
  llvm::Value *q = loadStored(ir, src, index, lanes);
  llvm::Value *value = ir.spec.storage.kind == StorageType::Kind::Float
                           ? emitFloatDecode(ir, q, n)
                           : emitQuantileDecode(ir, q, n);
  return b.CreateFMul(b.CreateFSub(value, params.zeroCompute), params.scale);
}

} // namespace qjit::llvmjit
