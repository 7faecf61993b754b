//===- CompactArith.cpp - qcast / dcast of float and quantile storage -----===//
//
// Float storage, qcast: v = u + z is clamped to the format bounds [lo, hi]
// (format values, exact in C), then rounded to the format by integer
// arithmetic on its bits: in the format's normal range, round-half-even of
// the low mantissa bits (a carry moves into the exponent, as it must); in
// its subnormal range, one float addition of K = 2^(emin − M + p) whose
// ulp is the format's subnormal quantum, so the FPU's nearest-even rounding
// counts quanta. dcast: normal codes rebias their exponent, subnormal codes
// convert their fraction exactly and scale by the quantum.
//
//===----------------------------------------------------------------------===//
#include "CompactArith.h"

#include "TableLookup.h"

#include "qjit/FloatStorage.h"
#include "qjit/QuantileSearch.h"

#include <algorithm>
#include <cmath>

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

/// The compute type's bit layout.
struct ComputeBits {
  llvm::IntegerType *integer;
  unsigned width, mantissa, bias;
};

ComputeBits computeBits(IrContext &ir) {
  if (ir.spec.compute == ValueType::F64)
    return {ir.i64, 64, 52, 1023};
  return {ir.i32, 32, 23, 127};
}

/// v = fl(u + z) with u = x / s or x · fl(1/s) (QuantArith's plan without
/// the FMA division, see adaptPlanToCompactStorage).
llvm::Value *shiftedScaled(IrContext &ir, const QuantPlan &plan, llvm::Value *x,
                           const ParamValues &params) {
  llvm::IRBuilder<> &b = ir.builder;
  llvm::Value *u = plan.scaling == Scaling::Multiply
                       ? b.CreateFMul(x, params.reciprocal)
                       : b.CreateFDiv(x, params.scale);
  return b.CreateFAdd(u, params.zeroCompute);
}

llvm::Value *replaceNaN(IrContext &ir, llvm::Value *v, llvm::Value *with) {
  return ir.builder.CreateSelect(ir.builder.CreateFCmpUNO(v, v), with, v);
}

llvm::Value *quantizeToFloat(IrContext &ir, const QuantPlan &plan,
                             llvm::Value *x, const ParamValues &params,
                             unsigned lanes) {
  llvm::IRBuilder<> &b = ir.builder;
  const StorageSpec &storage = ir.spec.storage;
  FloatStorageFormat format = floatStorageFormat(storage.floatFormat);
  FloatStorageBounds bounds = floatStorageBounds(storage);
  ComputeBits c = computeBits(ir);
  auto integer = [&](int64_t value) {
    return ir.intConstant(c.integer, value, lanes);
  };
  int M = static_cast<int>(format.mantissaBits);
  int shift = static_cast<int>(c.mantissa) - M;

  llvm::Value *v = shiftedScaled(ir, plan, x, params);
  llvm::Value *isNaN = nullptr;
  if (format.hasNaN)
    isNaN = b.CreateFCmpUNO(v, v);
  else
    v = replaceNaN(ir, v, params.zeroCompute);
  llvm::Value *clamped =
      b.CreateSelect(b.CreateFCmpOGT(v, ir.computeConstant(bounds.hi, lanes)),
                     ir.computeConstant(bounds.hi, lanes), v);
  clamped = b.CreateSelect(
      b.CreateFCmpOLT(clamped, ir.computeConstant(bounds.lo, lanes)),
      ir.computeConstant(bounds.lo, lanes), clamped);
  llvm::Type *intLanes = ir.vectorOf(c.integer, lanes);
  llvm::Value *magnitude = ir.unary(llvm::Intrinsic::fabs, clamped);
  llvm::Value *bits = b.CreateBitCast(magnitude, intLanes);

  // Normal range: round the mantissa to M bits, half to even, and rebias.
  llvm::Value *odd =
      b.CreateAnd(b.CreateLShr(bits, integer(shift)), integer(1));
  llvm::Value *rounded = b.CreateAdd(
      bits, b.CreateAdd(odd, integer((int64_t(1) << (shift - 1)) - 1)));
  llvm::Value *normal =
      b.CreateSub(b.CreateLShr(rounded, integer(shift)),
                  integer(int64_t(int(c.bias) - format.bias) << M));
  // Subnormal range: count quanta with one nearest-even addition.
  double magic = std::ldexp(1.0, format.minNormalExponent() - M +
                                     static_cast<int>(c.mantissa));
  llvm::Value *magicValue = ir.computeConstant(magic, lanes);
  llvm::Value *subnormal = b.CreateSub(
      b.CreateBitCast(b.CreateFAdd(magnitude, magicValue), intLanes),
      b.CreateBitCast(magicValue, intLanes));
  llvm::Value *isSubnormal = b.CreateFCmpOLT(
      magnitude,
      ir.computeConstant(std::ldexp(1.0, format.minNormalExponent()), lanes));
  llvm::Value *code = b.CreateSelect(isSubnormal, subnormal, normal);

  llvm::Type *i32Lanes = ir.vectorOf(ir.i32, lanes);
  auto sign = [&](llvm::Value *value) {
    llvm::Value *top =
        b.CreateLShr(b.CreateBitCast(value, intLanes), integer(c.width - 1));
    return b.CreateShl(b.CreateTrunc(top, i32Lanes),
                       ir.intConstant(ir.i32, format.bits - 1, lanes));
  };
  llvm::Value *result =
      b.CreateOr(b.CreateTrunc(code, i32Lanes), sign(clamped));
  if (!ir.spec.knobs.saturate) {
    // RNE beyond the largest finite value: above its upper half-quantum,
    // or on it when the tie goes to the (even) next binade.
    int top = std::ilogb(format.largest);
    double threshold = format.largest + std::ldexp(1.0, top - M - 1);
    bool tieOverflows = (encodeFloatStorage(format, format.largest) & 1) != 0;
    llvm::Value *absolute = ir.unary(llvm::Intrinsic::fabs, v);
    llvm::Value *limit = ir.computeConstant(threshold, lanes);
    llvm::Value *overflow = tieOverflows ? b.CreateFCmpOGE(absolute, limit)
                                         : b.CreateFCmpOGT(absolute, limit);
    uint32_t special =
        format.hasInfinity ? format.positiveInfinity : format.positiveNaN;
    result = b.CreateSelect(
        overflow, b.CreateOr(sign(v), ir.intConstant(ir.i32, special, lanes)),
        result);
  }
  if (isNaN)
    result = b.CreateSelect(
        isNaN, ir.intConstant(ir.i32, format.positiveNaN, lanes), result);
  return result;
}

llvm::Value *dequantizeFloat(IrContext &ir, llvm::Value *q, unsigned lanes) {
  llvm::IRBuilder<> &b = ir.builder;
  FloatStorageFormat format = floatStorageFormat(ir.spec.storage.floatFormat);
  auto i32 = [&](int64_t value) {
    return ir.intConstant(ir.i32, value, lanes);
  };
  llvm::Type *f32 = llvm::Type::getFloatTy(ir.context);
  llvm::Type *f32Lanes = ir.vectorOf(f32, lanes);
  int M = static_cast<int>(format.mantissaBits);
  uint32_t signBit = format.signBit();

  llvm::Value *magnitude = b.CreateAnd(q, i32(signBit - 1));
  llvm::Value *sign =
      b.CreateShl(b.CreateAnd(q, i32(signBit)), i32(32 - format.bits));
  llvm::Value *normal =
      b.CreateBitCast(b.CreateAdd(b.CreateShl(magnitude, i32(23 - M)),
                                  i32(int64_t(127 - format.bias) << 23)),
                      f32Lanes);
  llvm::Value *subnormal = b.CreateFMul(
      b.CreateSIToFP(magnitude, f32Lanes),
      llvm::ConstantFP::get(f32Lanes,
                            std::ldexp(1.0, format.minNormalExponent() - M)));
  llvm::Value *value = b.CreateSelect(
      b.CreateICmpULT(magnitude, i32(int64_t(1) << M)), subnormal, normal);
  llvm::Value *nan = llvm::ConstantFP::getNaN(f32Lanes);
  if (format.hasInfinity) {
    value =
        b.CreateSelect(b.CreateICmpEQ(magnitude, i32(format.positiveInfinity)),
                       llvm::ConstantFP::getInfinity(f32Lanes), value);
    value = b.CreateSelect(
        b.CreateICmpUGT(magnitude, i32(format.positiveInfinity)), nan, value);
  } else if (format.hasNaN) {
    value =
        b.CreateSelect(b.CreateICmpEQ(magnitude, i32(signBit - 1)), nan, value);
  }
  value = b.CreateBitCast(
      b.CreateOr(b.CreateBitCast(value, ir.vectorOf(ir.i32, lanes)), sign),
      f32Lanes);
  if (ir.spec.compute == ValueType::F64)
    value = b.CreateFPExt(value, ir.vectorOf(ir.compute, lanes));
  return value;
}

/// The smallest stored value the storage's `bits` can hold.
int64_t lowestStored(const StorageSpec &storage) {
  return storage.isSigned ? -(int64_t(1) << (storage.bits - 1)) : 0;
}

/// Quantile tables up to this many stored values are read by the stored
/// value itself (one entry per possible container value).
constexpr unsigned kMaxDirectBits = 6;

llvm::Value *quantizeToQuantile(IrContext &ir, const QuantPlan &plan,
                                llvm::Value *x, const ParamValues &params,
                                unsigned lanes) {
  llvm::IRBuilder<> &b = ir.builder;
  const StorageSpec &storage = ir.spec.storage;
  QuantileSearch search = buildQuantileSearch(storage.table, ir.spec.compute);
  llvm::Value *v =
      replaceNaN(ir, shiftedScaled(ir, plan, x, params), params.zeroCompute);
  llvm::Value *position = ir.intConstant(ir.i32, 0, lanes);
  llvm::Type *i32Lanes = ir.vectorOf(ir.i32, lanes);
  for (double threshold : search.thresholds)
    position = b.CreateSub(
        position,
        b.CreateSExt(b.CreateFCmpOGE(v, ir.computeConstant(threshold, lanes)),
                     i32Lanes));
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

llvm::Value *dequantizeQuantile(IrContext &ir, llvm::Value *q, unsigned lanes) {
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

} // namespace

llvm::Value *emitCompactQuantize(IrContext &ir, const QuantPlan &plan,
                                 llvm::Value *x, const ParamValues &params,
                                 unsigned lanes) {
  if (ir.spec.storage.kind == StorageType::Kind::Float)
    return quantizeToFloat(ir, plan, x, params, lanes);
  return quantizeToQuantile(ir, plan, x, params, lanes);
}

llvm::Value *emitCompactDequantize(IrContext &ir, llvm::Value *q,
                                   const ParamValues &params, unsigned lanes) {
  llvm::Value *value = ir.spec.storage.kind == StorageType::Kind::Float
                           ? dequantizeFloat(ir, q, lanes)
                           : dequantizeQuantile(ir, q, lanes);
  llvm::IRBuilder<> &b = ir.builder;
  return b.CreateFMul(b.CreateFSub(value, params.zeroCompute), params.scale);
}

} // namespace qjit::llvmjit
