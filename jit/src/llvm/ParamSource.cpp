//===- ParamSource.cpp - Where a kernel's scales and zero points come from ===//
#include "ParamSource.h"

#include "ElementIo.h"

#include "plan/PlanLimits.h"

#include "qjit/internal/HostFloat.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace qjit::llvmjit {

namespace {

/// Offsets of KernelParams' fields (three pointers).
constexpr uint64_t kScalesOffset = 8, kZeroPointsOffset = 16;
/// Enough zeros for the widest contiguous read of a null zero-point array.
constexpr unsigned kZeroRun = 64;
/// Entries past the last parameter in a baked table: one block's lanes
/// (KernelIr stages partial blocks through whole-block code).
constexpr size_t kReadSlack = 64;

double toCompute(const KernelSpec &spec, double value) {
  return spec.compute == ValueType::F64
             ? value
             : static_cast<double>(static_cast<float>(value));
}

/// Runtime scales index.. (lanes of them) in a ScaleFormat other than
/// Expressed, as their exact values in the compute type (docs/semantics.md
/// 2.3): each format widens to f32 exactly, and f32 to f64.
llvm::Value *loadFormattedScales(IrContext &ir, llvm::Value *address,
                                 Lanes lanes) {
  llvm::IRBuilder<> &b = ir.builder;
  unsigned n = lanes.count;
  llvm::Type *f32 = llvm::Type::getFloatTy(ir.context);
  llvm::Value *value = nullptr;
  switch (ir.spec.params.scaleFormat) {
  case ScaleFormat::Expressed: // The caller widens expressed scales.
  case ScaleFormat::F32:
    value = ir.load(f32, address, lanes);
    break;
  case ScaleFormat::F16:
    value = b.CreateFPExt(
        ir.load(llvm::Type::getHalfTy(ir.context), address, lanes),
        ir.vectorOf(f32, n));
    break;
  case ScaleFormat::BF16: {
    llvm::Value *bits =
        b.CreateZExt(ir.load(ir.i16, address, lanes), ir.vectorOf(ir.i32, n));
    bits = b.CreateShl(bits, ir.intConstant(ir.i32, 16, n));
    value = b.CreateBitCast(bits, ir.vectorOf(f32, n));
    break;
  }
  case ScaleFormat::E8M0: {
    // b in 1..254 is the f32 exponent field of 2^(b - 127); b = 0 is the
    // subnormal 2^-127 (fraction 0x400000) and b = 255 NaN.
    llvm::Value *code = ir.load(ir.i8, address, lanes);
    llvm::Value *bits = b.CreateShl(b.CreateZExt(code, ir.vectorOf(ir.i32, n)),
                                    ir.intConstant(ir.i32, 23, n));
    bits = b.CreateSelect(b.CreateICmpEQ(code, ir.intConstant(ir.i8, 0, n)),
                          ir.intConstant(ir.i32, 0x00400000, n), bits);
    bits = b.CreateSelect(b.CreateICmpEQ(code, ir.intConstant(ir.i8, 0xFF, n)),
                          ir.intConstant(ir.i32, 0x7FC00000, n), bits);
    value = b.CreateBitCast(bits, ir.vectorOf(f32, n));
    break;
  }
  }
  return ir.compute == f32 ? value
                           : b.CreateFPExt(value, ir.vectorOf(ir.compute, n));
}

} // namespace

ParamSource::ParamSource(IrContext &ir, const QuantPlan &plan,
                         llvm::Value *kernelParams)
    : ir_(ir), plan_(plan) {
  scale_.element = reciprocal_.element = limit_.element = zeroCompute_.element =
      ir.compute;
  zeroSum_.element = plan.sum == SumKind::Narrow ? ir.i32 : ir.i64;
  zeroNaN_.element = ir.i32;
  if (!ir.spec.params.runtime) {
    bake();
    return;
  }
  llvm::IRBuilder<> &b = ir.builder;
  scales_ = b.CreateLoad(
      ir.ptr, ir.byteAddress(kernelParams, b.getInt64(kScalesOffset)));
  llvm::Value *zeroPoints = b.CreateLoad(
      ir.ptr, ir.byteAddress(kernelParams, b.getInt64(kZeroPointsOffset)));
  auto *zerosType = llvm::ArrayType::get(ir.i64, kZeroRun);
  auto *zeros = new llvm::GlobalVariable(
      ir.module, zerosType, true, llvm::GlobalValue::PrivateLinkage,
      llvm::Constant::getNullValue(zerosType), "qjit.zero_points");
  llvm::Value *isNull = b.CreateIsNull(zeroPoints);
  zeroPoints_ = b.CreateSelect(isNull, zeros, zeroPoints);
  zeroStride_ = b.CreateSelect(isNull, b.getInt64(0), b.getInt64(1));
}

void ParamSource::bake() {
  const KernelSpec &spec = ir_.spec;
  count_ = spec.params.scales.size();
  bool f64 = spec.compute == ValueType::F64;
  for (size_t k = 0; k < count_; ++k) {
    double scale = toCompute(spec, bakedScale(spec, k));
    int64_t zero = spec.params.zeroPoints[k];
    scale_.reals.push_back(scale);
    reciprocal_.reals.push_back(
        f64 ? 1.0 / scale
            : static_cast<double>(1.0f / static_cast<float>(scale)));
    limit_.reals.push_back(std::ldexp(std::fabs(scale), 40));
    zeroCompute_.reals.push_back(
        f64 ? static_cast<double>(zero)
            : static_cast<double>(static_cast<float>(zero)));
    zeroSum_.integers.push_back(plan_.sum != SumKind::Narrow
                                    ? zero
                                    : std::clamp(zero, -plan::kNarrowZeroLimit,
                                                 plan::kNarrowZeroLimit));
    zeroNaN_.integers.push_back(
        std::clamp(zero, spec.storage.min, spec.storage.max));
  }
  if (count_ == 1)
    return; // Immediates.
  for (Table *table :
       {&scale_, &reciprocal_, &limit_, &zeroCompute_, &zeroSum_, &zeroNaN_}) {
    llvm::SmallVector<llvm::Constant *, 64> entries;
    // A partial block at the end reads a whole block of entries (its lanes
    // past the end are discarded): the table repeats its first entries.
    for (size_t k = 0; k < count_ + kReadSlack; ++k)
      entries.push_back(
          table->element->isFloatingPointTy()
              ? llvm::ConstantFP::get(table->element, table->reals[k % count_])
              : static_cast<llvm::Constant *>(llvm::ConstantInt::getSigned(
                    llvm::cast<llvm::IntegerType>(table->element),
                    table->integers[k % count_])));
    auto *type = llvm::ArrayType::get(table->element, entries.size());
    table->global = new llvm::GlobalVariable(
        ir_.module, type, true, llvm::GlobalValue::PrivateLinkage,
        llvm::ConstantArray::get(type, entries), "qjit.params");
    table->global->setAlignment(llvm::Align(64));
  }
}

llvm::Value *ParamSource::tableRead(Table &table, llvm::Value *index,
                                    Lanes lanes) {
  if (!table.global) {
    llvm::Value *value = table.element->isFloatingPointTy()
                             ? static_cast<llvm::Value *>(llvm::ConstantFP::get(
                                   table.element, table.reals[0]))
                             : llvm::ConstantInt::getSigned(
                                   llvm::cast<llvm::IntegerType>(table.element),
                                   table.integers[0]);
    return ir_.splat(value, lanes.count);
  }
  llvm::IRBuilder<> &b = ir_.builder;
  llvm::Value *address =
      b.CreateInBoundsGEP(table.element, table.global, index);
  return ir_.load(table.element, address, lanes);
}

ParamValues ParamSource::runtimeRead(llvm::Value *index, Lanes lanes) {
  IrContext &ir = ir_;
  llvm::IRBuilder<> &b = ir.builder;
  const KernelSpec &spec = ir.spec;
  unsigned n = lanes.count;
  ParamValues values;
  llvm::Value *scaleAddress = ir.byteAddress(
      scales_, b.CreateMul(index, b.getInt64(runtimeScaleBytes(spec))));
  // The scale in C (s_C) from here on: the reciprocal and its check too.
  llvm::Value *scale =
      spec.params.scaleFormat == ScaleFormat::Expressed
          ? widenExpressed(
                ir, ir.load(expressedMemoryType(ir), scaleAddress, lanes), n)
          : loadFormattedScales(ir, scaleAddress, lanes);
  llvm::Value *zeroAddress =
      b.CreateInBoundsGEP(ir.i64, zeroPoints_, b.CreateMul(index, zeroStride_));
  llvm::Value *zero = ir.load(ir.i64, zeroAddress, lanes);
  if (plan_.needScale)
    values.scale = scale;
  if (plan_.needReciprocal)
    values.reciprocal = b.CreateFDiv(ir.computeConstant(1.0, n), scale);
  if (plan_.checked) {
    // Outside the proof's range (CheckedReciprocal.h) the reciprocal is
    // NaN: every lane then fails the check and divides. NaN s fails too.
    llvm::Value *magnitude = ir.unary(llvm::Intrinsic::fabs, scale);
    int64_t limit = plan_.checkedZeroLimit;
    llvm::Value *checkable = b.CreateAnd(
        b.CreateAnd(b.CreateFCmpOGE(magnitude, ir.computeConstant(0x1p-60, n)),
                    b.CreateFCmpOLE(magnitude, ir.computeConstant(0x1p60, n))),
        b.CreateAnd(b.CreateICmpSGE(zero, ir.intConstant(ir.i64, -limit, n)),
                    b.CreateICmpSLE(zero, ir.intConstant(ir.i64, limit, n))));
    values.reciprocal = b.CreateSelect(
        checkable, values.reciprocal,
        ir.computeConstant(std::numeric_limits<double>::quiet_NaN(), n));
  }
  if (plan_.needZeroCompute)
    values.zeroCompute = b.CreateSIToFP(zero, ir.vectorOf(ir.compute, n));
  auto clamp = [&](int64_t low, int64_t high) {
    llvm::Value *v = b.CreateBinaryIntrinsic(llvm::Intrinsic::smax, zero,
                                             ir.intConstant(ir.i64, low, n));
    return b.CreateBinaryIntrinsic(llvm::Intrinsic::smin, v,
                                   ir.intConstant(ir.i64, high, n));
  };
  if (plan_.needZeroSum)
    values.zeroSum = plan_.sum != SumKind::Narrow
                         ? zero
                         : b.CreateTrunc(clamp(-plan::kNarrowZeroLimit,
                                               plan::kNarrowZeroLimit),
                                         ir.vectorOf(ir.i32, n));
  if (plan_.needZeroNaN)
    values.zeroNaN = b.CreateTrunc(clamp(spec.storage.min, spec.storage.max),
                                   ir.vectorOf(ir.i32, n));
  return values;
}

ParamValues ParamSource::contiguous(llvm::Value *index, Lanes lanes) {
  if (ir_.spec.params.runtime)
    return runtimeRead(index, lanes);
  ParamValues values;
  if (plan_.needScale)
    values.scale = tableRead(scale_, index, lanes);
  if (plan_.needReciprocal)
    values.reciprocal = tableRead(reciprocal_, index, lanes);
  if (plan_.needLimit)
    values.limit = tableRead(limit_, index, lanes);
  if (plan_.needZeroCompute)
    values.zeroCompute = tableRead(zeroCompute_, index, lanes);
  if (plan_.needZeroSum)
    values.zeroSum = tableRead(zeroSum_, index, lanes);
  if (plan_.needZeroNaN)
    values.zeroNaN = tableRead(zeroNaN_, index, lanes);
  return values;
}

ParamValues ParamSource::scalar(llvm::Value *index) {
  return contiguous(index, Lanes{1});
}

ParamValues ParamSource::splat(const ParamValues &scalars, unsigned lanes) {
  auto widen = [&](llvm::Value *value) {
    return value ? ir_.splat(value, lanes) : nullptr;
  };
  return {widen(scalars.scale),   widen(scalars.reciprocal),
          widen(scalars.limit),   widen(scalars.zeroCompute),
          widen(scalars.zeroSum), widen(scalars.zeroNaN)};
}

} // namespace qjit::llvmjit
