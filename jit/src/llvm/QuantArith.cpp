//===- QuantArith.cpp - qcast and dcast arithmetic on lanes ---------------===//
//
// Exact division without a divider (Scaling::Markstein) is
// plan/MarksteinDivision.h's two-correction form: the decision and the
// proof are there.
//
//===----------------------------------------------------------------------===//
#include "QuantArith.h"

#include "ElementIo.h"

#include "plan/ExactReciprocal.h"
#include "plan/KernelPlan.h"
#include "plan/MarksteinDivision.h"
#include "plan/PlanLimits.h"

#include "qjit/internal/HostFloat.h"

#include <llvm/IR/Intrinsics.h>
#include <llvm/IR/IntrinsicsX86.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>

namespace qjit::llvmjit {

namespace {

/// Whether every zero point is baked and within ±limit.
bool zeroPointsWithin(const KernelSpec &spec, int64_t limit) {
  return !spec.params.runtime &&
         std::all_of(spec.params.zeroPoints.begin(),
                     spec.params.zeroPoints.end(),
                     [&](int64_t z) { return z >= -limit && z <= limit; });
}

} // namespace

QuantPlan planQuantization(const KernelSpec &spec, const VectorTarget &target) {
  QuantPlan plan;
  if (spec.op == KernelOp::DCast) {
    plan.needScale = plan.needZeroCompute = true;
    return plan;
  }
  if (spec.op != KernelOp::QCast)
    return plan;
  const plan::KernelPlan kernel = plan::planKernel(spec);
  // Runtime parameters derive the reciprocal and its check once per run:
  // only long runs amortize that (KernelPlan::runtimeRunsAreLong).
  const bool checkable = target.vectorBits > 0 && kernel.checked &&
                         (!spec.params.runtime || kernel.runtimeRunsAreLong);
  if (kernel.scaling != plan::Scaling::Divide) {
    plan.scaling = Scaling::Multiply;
  } else if (target.fmaDivision && plan::marksteinCoversSpec(spec) &&
             !(target.isX86 && checkable)) {
    // x86 multiplies and checks where it can: the check divides only the
    // vectors near a rounding boundary, where Markstein corrects every
    // one (i8 per-tensor qcast, AVX-512, 4K: 8.6 -> 16.2 el/ns, AMD Zen 5
    // VM, 2026-12-05; llvm-mca models 1.9-2.1x on sapphirerapids, znver4
    // and znver5). AArch64 keeps Markstein (not measured there).
    plan.scaling = Scaling::Markstein;
  }
  if (plan.scaling == Scaling::Divide && checkable) {
    plan.checked = true;
    plan.checkedFused =
        target.fma && spec.knobs.zeroPoint == ZeroPointOrder::BeforeRounding;
    plan.bracket = plan.checkedFused && kernel.checked->bracket;
    plan.checkedLimit = kernel.checked->limit;
    plan.checkedThreshold = kernel.checked->threshold;
    plan.checkedZeroLimit = kernel.checked->zeroPointLimit;
  }
  plan.needScale = plan.scaling != Scaling::Multiply;
  plan.needReciprocal = plan.scaling != Scaling::Divide || plan.checked;
  plan.needLimit = plan.scaling == Scaling::Markstein;
  plan.needZeroNaN = true;
  if (spec.knobs.zeroPoint == ZeroPointOrder::BeforeRounding) {
    plan.needZeroCompute = true;
    plan.lowBound = kernel.low.value;
    plan.lowExact = kernel.low.exact;
    plan.highBound = kernel.high.value;
    plan.highExact = kernel.high.exact;
    plan.unsignedConvert = spec.storage.max > INT32_MAX;
  } else {
    plan.needZeroSum = true;
    bool wide = spec.storage.bits > 16;
    int64_t zeroLimit = wide ? int64_t(1) << 61 : plan::kNarrowZeroLimit;
    plan.sum = !zeroPointsWithin(spec, zeroLimit) ? SumKind::Split
               : wide                             ? SumKind::Wide
                                                  : SumKind::Narrow;
    plan.needZeroCompute = plan.checked;
  }
  return plan;
}

namespace {

/// v limited to [low, high]; NaN lanes stay NaN (masked later).
llvm::Value *clampKeepingNaN(IrContext &ir, llvm::Value *v, llvm::Value *low,
                             llvm::Value *high) {
  llvm::IRBuilder<> &b = ir.builder;
  v = b.CreateSelect(b.CreateFCmpOGT(v, high), high, v);
  return b.CreateSelect(b.CreateFCmpOLT(v, low), low, v);
}

llvm::Value *fma(IrContext &ir, llvm::Value *a, llvm::Value *b,
                 llvm::Value *c) {
  return ir.builder.CreateIntrinsic(llvm::Intrinsic::fma, {a->getType()},
                                    {a, b, c});
}

llvm::Value *scaleInput(IrContext &ir, const QuantPlan &plan, llvm::Value *x,
                        const ParamValues &params) {
  llvm::IRBuilder<> &b = ir.builder;
  switch (plan.scaling) {
  case Scaling::Divide:
    return b.CreateFDiv(x, params.scale);
  case Scaling::Multiply:
    return b.CreateFMul(x, params.reciprocal);
  case Scaling::Markstein: {
    llvm::Value *limited =
        clampKeepingNaN(ir, x, b.CreateFNeg(params.limit), params.limit);
    llvm::Value *negScale = b.CreateFNeg(params.scale);
    llvm::Value *q0 = b.CreateFMul(limited, params.reciprocal);
    llvm::Value *e0 = fma(ir, negScale, q0, limited);
    llvm::Value *q1 = fma(ir, e0, params.reciprocal, q0);
    llvm::Value *e1 = fma(ir, negScale, q1, limited);
    return fma(ir, e1, params.reciprocal, q1);
  }
  }
  return nullptr;
}

/// Rounds to an integral value by the spec's mode. Toward zero needs no
/// instruction: the float-to-int conversion truncates, and truncation
/// commutes with clamping to integral bounds.
llvm::Value *roundIntegral(IrContext &ir, llvm::Value *v) {
  switch (ir.spec.knobs.rounding) {
  case RoundingMode::NearestEven:
    return ir.unary(llvm::Intrinsic::roundeven, v);
  case RoundingMode::NearestAway:
    return ir.unary(llvm::Intrinsic::round, v);
  case RoundingMode::TowardZero:
    return v;
  }
  return v;
}

/// clamp(r + z, min, max) as i32 lanes for integral (or infinite) r and
/// any i64 z, exactly. z = h + l with h = z & ~(2^32 - 1) (at most 32
/// significant bits) and l = z & (2^32 - 1), both exact in f64. Where
/// |r + z| <= 2^33, r + h = (r + z) - l is an integer below 2^35, so
/// t = fl(fl(r + h) + l) = r + z exactly. Elsewhere rounding is monotone
/// and every integer of magnitude below 2^53 is an f64, so a true sum
/// beyond a bound stays beyond it: the clamp sees the right side.
llvm::Value *splitSum(IrContext &ir, llvm::Value *r, llvm::Value *zero,
                      unsigned lanes) {
  llvm::IRBuilder<> &b = ir.builder;
  const StorageSpec &storage = ir.spec.storage;
  llvm::Type *f64Lanes = ir.vectorOf(b.getDoubleTy(), lanes);
  llvm::Type *i32Lanes = ir.vectorOf(ir.i32, lanes);
  llvm::Value *high = b.CreateTrunc(
      b.CreateAShr(zero, ir.intConstant(ir.i64, 32, lanes)), i32Lanes);
  llvm::Value *low = b.CreateTrunc(zero, i32Lanes);
  auto constant = [&](double value) {
    return llvm::ConstantFP::get(f64Lanes, value);
  };
  llvm::Value *h =
      b.CreateFMul(b.CreateSIToFP(high, f64Lanes), constant(0x1p32));
  llvm::Value *l = b.CreateUIToFP(low, f64Lanes);
  llvm::Value *wide = r->getType() == f64Lanes ? r : b.CreateFPExt(r, f64Lanes);
  llvm::Value *t = b.CreateFAdd(b.CreateFAdd(wide, h), l);
  // The bounds (|bound| <= 2^32) are exact in f64.
  t = clampKeepingNaN(ir, t, constant(static_cast<double>(storage.min)),
                      constant(static_cast<double>(storage.max)));
  if (storage.max > INT32_MAX)
    return b.CreateTrunc(b.CreateFPToSI(t, ir.vectorOf(ir.i64, lanes)),
                         i32Lanes);
  return b.CreateFPToSI(t, i32Lanes);
}

} // namespace

llvm::Value *emitQuantize(IrContext &ir, const QuantPlan &plan, llvm::Value *x,
                          const ParamValues &params, unsigned lanes) {
  llvm::IRBuilder<> &b = ir.builder;
  const StorageSpec &storage = ir.spec.storage;
  llvm::Type *i32Lanes = ir.vectorOf(ir.i32, lanes);
  llvm::Value *u = scaleInput(ir, plan, x, params);
  llvm::Value *isNaN = b.CreateFCmpUNO(u, u);
  llvm::Value *q;
  if (ir.spec.knobs.zeroPoint == ZeroPointOrder::BeforeRounding) {
    llvm::Value *r = roundIntegral(ir, b.CreateFAdd(u, params.zeroCompute));
    llvm::Value *low = ir.computeConstant(plan.lowBound, lanes);
    llvm::Value *high = ir.computeConstant(plan.highBound, lanes);
    llvm::Value *clamped = clampKeepingNaN(ir, r, low, high);
    q = plan.unsignedConvert ? b.CreateFPToUI(clamped, i32Lanes)
                             : b.CreateFPToSI(clamped, i32Lanes);
    // A bound the compute type cannot hold: beyond its nearest inside
    // value there is no other integral value before the bound itself.
    if (!plan.highExact)
      q = b.CreateSelect(b.CreateFCmpOGT(r, high),
                         ir.intConstant(ir.i32, storage.max, lanes), q);
    if (!plan.lowExact)
      q = b.CreateSelect(b.CreateFCmpOLT(r, low),
                         ir.intConstant(ir.i32, storage.min, lanes), q);
  } else if (plan.sum == SumKind::Split) {
    // toward-zero's roundIntegral leaves truncation to the conversion.
    llvm::Value *r = ir.spec.knobs.rounding == RoundingMode::TowardZero
                         ? ir.unary(llvm::Intrinsic::trunc, u)
                         : roundIntegral(ir, u);
    q = splitSum(ir, r, params.zeroSum, lanes);
  } else {
    // round(u) + z exactly: round(u) is first limited to a range wide
    // enough that the limit never changes which side saturates.
    llvm::Value *r = roundIntegral(ir, u);
    bool wide = plan.sum == SumKind::Wide;
    llvm::IntegerType *sumType = wide ? ir.i64 : ir.i32;
    double limit = wide ? 0x1p62 : plan::kNarrowRoundedLimit;
    llvm::Value *limited =
        clampKeepingNaN(ir, r, ir.computeConstant(-limit, lanes),
                        ir.computeConstant(limit, lanes));
    llvm::Value *rounded = b.CreateFPToSI(limited, ir.vectorOf(sumType, lanes));
    llvm::Value *sum = wide ? b.CreateBinaryIntrinsic(llvm::Intrinsic::sadd_sat,
                                                      rounded, params.zeroSum)
                            : b.CreateAdd(rounded, params.zeroSum);
    sum = b.CreateBinaryIntrinsic(llvm::Intrinsic::smax, sum,
                                  ir.intConstant(sumType, storage.min, lanes));
    sum = b.CreateBinaryIntrinsic(llvm::Intrinsic::smin, sum,
                                  ir.intConstant(sumType, storage.max, lanes));
    q = b.CreateTrunc(sum, i32Lanes);
  }
  return b.CreateSelect(isNaN, params.zeroNaN, q);
}

CheckedQuantize emitCheckedQuantize(IrContext &ir, const QuantPlan &plan,
                                    llvm::Value *x, const ParamValues &params,
                                    unsigned lanes) {
  llvm::IRBuilder<> &b = ir.builder;
  const StorageSpec &storage = ir.spec.storage;
  llvm::Value *low =
      ir.computeConstant(static_cast<double>(storage.min), lanes);
  llvm::Value *high =
      ir.computeConstant(static_cast<double>(storage.max), lanes);
  bool before = ir.spec.knobs.zeroPoint == ZeroPointOrder::BeforeRounding;
  llvm::Value *w;
  if (plan.checkedFused) // One rounding: the proof allows it.
    w = b.CreateIntrinsic(llvm::Intrinsic::fma, {x->getType()},
                          {x, params.reciprocal, params.zeroCompute});
  else if (before)
    w = b.CreateFAdd(b.CreateFMul(x, params.reciprocal), params.zeroCompute);
  else
    w = b.CreateFMul(x, params.reciprocal);
  w = before ? clampKeepingNaN(ir, w, low, high)
             : clampKeepingNaN(ir, w,
                               ir.computeConstant(-plan.checkedLimit, lanes),
                               ir.computeConstant(plan.checkedLimit, lanes));
  llvm::Value *n = ir.unary(llvm::Intrinsic::roundeven, w);
  llvm::Value *distance = ir.unary(llvm::Intrinsic::fabs, b.CreateFSub(w, n));
  // Ordered: NaN lanes fail.
  llvm::Value *passes = b.CreateFCmpOLT(
      distance, ir.computeConstant(plan.checkedThreshold, lanes));
  if (!before)
    n = clampKeepingNaN(ir, b.CreateFAdd(n, params.zeroCompute), low, high);
  return {b.CreateFPToSI(n, ir.vectorOf(ir.i32, lanes)), passes};
}

BracketedQuantize emitBracketedQuantize(IrContext &ir, const QuantPlan &plan,
                                        llvm::ArrayRef<llvm::Value *> x,
                                        llvm::ArrayRef<ParamValues> params,
                                        unsigned lanes, bool signedBytes) {
  // a = RN(x·y + (z − m)) and b = RN(x·y + (z + m)) must round to the same
  // integer. The conversions (RNE in the default environment, like the
  // FMA) of a and −b narrowed to i16 with saturation sum with saturation
  // to zero exactly when RNE(a) = RNE(b) is within ±32767; NaN, ±inf and
  // |x·y| >= 2^31 convert to INT32_MIN (−32768, never zero).
  llvm::IRBuilder<> &b = ir.builder;
  llvm::Value *margin =
      ir.computeConstant(0.5 - plan.checkedThreshold, lanes); // 2^-20·L.
  llvm::SmallVector<llvm::Value *, 4> low, high;
  for (size_t j = 0; j < x.size(); ++j) {
    // z ± m are exact: |z| < L.
    llvm::Value *lowZero = b.CreateFSub(params[j].zeroCompute, margin);
    llvm::Value *highZero =
        b.CreateFNeg(b.CreateFAdd(params[j].zeroCompute, margin));
    llvm::Value *below = fma(ir, x[j], params[j].reciprocal, lowZero);
    llvm::Value *aboveNegated =
        fma(ir, b.CreateFNeg(x[j]), params[j].reciprocal, highZero);
    low.push_back(
        b.CreateIntrinsic(llvm::Intrinsic::x86_avx_cvt_ps2dq_256, {}, {below}));
    high.push_back(b.CreateIntrinsic(llvm::Intrinsic::x86_avx_cvt_ps2dq_256, {},
                                     {aboveNegated}));
  }
  auto words = [&](llvm::ArrayRef<llvm::Value *> v, size_t j) {
    return b.CreateIntrinsic(llvm::Intrinsic::x86_avx2_packssdw, {},
                             {v[j], v[j + 1]});
  };
  llvm::Value *lowWords[2] = {words(low, 0), words(low, 2)};
  llvm::Value *sum = nullptr;
  for (size_t k = 0; k < 2; ++k) {
    llvm::Value *part = b.CreateBinaryIntrinsic(
        llvm::Intrinsic::sadd_sat, words(high, 2 * k), lowWords[k]);
    sum = sum ? b.CreateOr(sum, part) : part;
  }
  llvm::Value *exact = b.CreateICmpEQ(
      b.CreateOrReduce(b.CreateBitCast(sum, ir.vectorOf(b.getInt64Ty(), 4))),
      b.getInt64(0));
  llvm::Value *bytes = bytesInElementOrder(
      ir, b.CreateIntrinsic(signedBytes ? llvm::Intrinsic::x86_avx2_packsswb
                                        : llvm::Intrinsic::x86_avx2_packuswb,
                            {}, {lowWords[0], lowWords[1]}));
  return {bytes, exact};
}

llvm::Value *emitDequantize(IrContext &ir, llvm::Value *q,
                            const ParamValues &params, unsigned lanes) {
  llvm::IRBuilder<> &b = ir.builder;
  llvm::Type *computeLanes = ir.vectorOf(ir.compute, lanes);
  bool unsignedValues = !ir.spec.storage.isSigned && ir.spec.storage.bits == 32;
  llvm::Value *value = unsignedValues ? b.CreateUIToFP(q, computeLanes)
                                      : b.CreateSIToFP(q, computeLanes);
  return b.CreateFMul(b.CreateFSub(value, params.zeroCompute), params.scale);
}

} // namespace qjit::llvmjit
