//===- QuantArith.h - qcast and dcast arithmetic on lanes -------*- C++ -*-===//
//
// The arithmetic of docs/semantics.md on `lanes` values at once, bit-exact
// to the scalar reference. planQuantization() makes every decision that
// depends only on the spec (how to divide, which bounds are representable,
// how wide the zero-point sum must be); the emit functions then only
// follow the plan.
//
//===----------------------------------------------------------------------===//
#ifndef QJIT_JIT_LLVM_QUANTARITH_H
#define QJIT_JIT_LLVM_QUANTARITH_H

#include "IrContext.h"

namespace qjit::llvmjit {

/// How u = x / s (or x · fl(1/s)) is computed.
enum class Scaling {
  Divide,    ///< IEEE division.
  Multiply,  ///< x · reciprocal: the `reciprocal` knob, or exact 1/s.
  Markstein, ///< Division by reciprocal and two exact FMA corrections.
};

/// How an after-rounding kernel forms the exact sum round(u) + z.
enum class SumKind {
  /// i32, round(u) limited to ±2^24 and z to ±plan::kNarrowZeroLimit
  /// (PlanLimits.h): storage of
  /// at most 16 bits with baked zero points that small.
  Narrow,
  /// i64 saturating, round(u) limited to ±2^62: wider storage with baked
  /// zero points within ±2^61.
  Wide,
  /// f64, z split into two exact halves (any int64 z; runtime zero points
  /// and larger baked ones).
  Split,
};

struct QuantPlan {
  Scaling scaling = Scaling::Divide;
  bool needScale = false, needReciprocal = false, needLimit = false;
  bool needZeroCompute = false, needZeroSum = false, needZeroNaN = false;
  /// After-rounding: how round(u) + z is summed exactly.
  SumKind sum = SumKind::Narrow;
  /// Before-rounding: the bounds as compute values (the nearest inside the
  /// bounds) and whether they are exact; storage above INT32_MAX converts
  /// unsigned.
  double lowBound = 0, highBound = 0;
  bool lowExact = true, highExact = true;
  bool unsignedConvert = false;
  /// Divide by checking a reciprocal multiply (CheckedReciprocal.h): full
  /// unmasked vectors try emitCheckedQuantize first.
  bool checked = false;
  /// Checked, before rounding, with hardware FMA: w = RN(x·y + z).
  bool checkedFused = false;
  /// Checked and fused, bracketing the rounding (CheckedReciprocalPlan).
  bool bracket = false;
  double checkedLimit = 0, checkedThreshold = 0;
  /// Checked runtime parameters: a run whose |s| is outside [2^-60, 2^60]
  /// or whose |z| is above this gets a NaN reciprocal, so its lanes divide.
  int64_t checkedZeroLimit = 0;
};

QuantPlan planQuantization(const KernelSpec &spec, const VectorTarget &target);

/// The parameters of each lane (scalars when broadcast to one lane count
/// is not needed). Unneeded ones are null.
struct ParamValues {
  llvm::Value *scale = nullptr;       ///< s, compute type.
  llvm::Value *reciprocal = nullptr;  ///< fl(1/s), compute type.
  llvm::Value *limit = nullptr;       ///< Markstein input bound |s|·2^40.
  llvm::Value *zeroCompute = nullptr; ///< C(z).
  llvm::Value *zeroSum = nullptr;     ///< z: i32 (limited, Narrow) or i64.
  llvm::Value *zeroNaN = nullptr;     ///< clamp(z, min, max) as i32.
};

/// Stored values (i32 lanes, in [min, max]) of expressed values x (compute
/// type lanes).
llvm::Value *emitQuantize(IrContext &ir, const QuantPlan &plan, llvm::Value *x,
                          const ParamValues &params, unsigned lanes);
/// The checked-reciprocal attempt of emitQuantize (plan.checked): the
/// stored values of the lanes, valid only in the lanes where `exact` (i1
/// lanes) is true; emitQuantize must be used for the others.
struct CheckedQuantize {
  llvm::Value *stored = nullptr;
  llvm::Value *exact = nullptr;
};
CheckedQuantize emitCheckedQuantize(IrContext &ir, const QuantPlan &plan,
                                    llvm::Value *x, const ParamValues &params,
                                    unsigned lanes);
/// The checked attempt of four AVX2 vectors with nearest-even rounding
/// before clamping, FMA and an 8-bit container's full range
/// (CheckedReciprocal.h, "bracket"): `bytes` the 32 stored bytes in
/// element order (<8 x i32>), `exact` whether every lane passes.
struct BracketedQuantize {
  llvm::Value *bytes = nullptr;
  llvm::Value *exact = nullptr;
};
BracketedQuantize emitBracketedQuantize(IrContext &ir, const QuantPlan &plan,
                                        llvm::ArrayRef<llvm::Value *> x,
                                        llvm::ArrayRef<ParamValues> params,
                                        unsigned lanes, bool signedBytes);
/// Expressed values (compute type lanes) of stored values q (i32 lanes).
llvm::Value *emitDequantize(IrContext &ir, llvm::Value *q,
                            const ParamValues &params, unsigned lanes);

} // namespace qjit::llvmjit

#endif
