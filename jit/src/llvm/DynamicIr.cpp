//===- DynamicIr.cpp - The parameters of a dynamic qcast in IR ------------===//
//
// Ranges: a run sharing one group is reduced in four accumulator pairs of
// full vectors (the min/max chains are the loop's latency), then in one
// vector, then element by element, first over its raw values and only
// again without ±inf if one turned up; a run of consecutive groups updates
// their entries lane for lane. Minimum and maximum of a set do not depend
// on the order they are taken in, and with NaN, ±inf and -0 out of the
// set (the reference never takes -0 for a bound either: it starts at +0
// and replaces it only when strictly beyond it) any grouping of the
// reductions gives the reference's range.
//
//===----------------------------------------------------------------------===//
#include "DynamicIr.h"

#include "ElementIo.h"
#include "qjit/internal/DynamicParameters.h"

#include <llvm/IR/MDBuilder.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>

namespace qjit::llvmjit {

namespace {

/// Vectors per step of a one-group reduction.
constexpr unsigned kAccumulators = 4;

class RangeEmitter {
public:
  RangeEmitter(IrContext &ir, llvm::Value *src, const DynamicArrays &arrays)
      : ir_(ir), b_(ir.builder), src_(src), arrays_(arrays) {
    unsigned bits = ir.compute->getPrimitiveSizeInBits();
    lanes_ = std::max(1u, ir.target.vectorBits / bits);
    elementBytes_ = bits / 8;
    bytes_ = b_.getInt64(elementBytes_);
  }

  void clear(int64_t count) {
    llvm::Value *size = b_.CreateMul(b_.getInt64(count), bytes_);
    // All-zero bytes are +0 in both compute types.
    llvm::MaybeAlign align(elementBytes_);
    b_.CreateMemSet(arrays_.low, b_.getInt8(0), size, align);
    b_.CreateMemSet(arrays_.high, b_.getInt8(0), size, align);
  }

  void emitRun(llvm::Value *first, llvm::Value *count, llvm::Value *param,
               bool perElement) {
    llvm::Value *end = b_.CreateAdd(first, count);
    if (perElement)
      emitConsecutiveGroups(first, end, param);
    else
      emitOneGroup(first, end, param);
  }

private:
  llvm::Value *element(llvm::Value *base, llvm::Value *index, unsigned lanes) {
    return ir_.load(ir_.compute,
                    ir_.byteAddress(base, b_.CreateMul(index, bytes_)),
                    Lanes{lanes});
  }
  void setElement(llvm::Value *base, llvm::Value *index, llvm::Value *value) {
    ir_.store(value, ir_.byteAddress(base, b_.CreateMul(index, bytes_)),
              Lanes{});
  }
  /// x where it is finite (x - x == 0), else +0: NaN and ±inf take no
  /// part. -0 becomes +0 (x + 0), so no operand of minimum() and maximum()
  /// is NaN or -0 and their instructions give exactly the reference's
  /// strict comparisons.
  llvm::Value *finiteOrZero(llvm::Value *x) {
    llvm::Value *zero = llvm::Constant::getNullValue(x->getType());
    llvm::Value *finite = b_.CreateFCmpOEQ(b_.CreateFSub(x, x), zero);
    return b_.CreateSelect(finite, b_.CreateFAdd(x, zero), zero);
  }
  /// Bounds updated in memory: min and max as intrinsics, since a compare
  /// and select whose operand is a load from the address it is stored to
  /// becomes a masked store, which Zen executes microcoded (that range
  /// pass ran at 0.6 el/ns).
  llvm::Value *minimum(llvm::Value *x, llvm::Value *lo) {
    return b_.CreateBinaryIntrinsic(llvm::Intrinsic::minnum, x, lo,
                                    noNaNsOrSignedZeros());
  }
  llvm::Value *maximum(llvm::Value *x, llvm::Value *hi) {
    return b_.CreateBinaryIntrinsic(llvm::Intrinsic::maxnum, x, hi,
                                    noNaNsOrSignedZeros());
  }
  static llvm::FastMathFlags noNaNsOrSignedZeros() {
    llvm::FastMathFlags flags;
    flags.setNoNaNs();
    flags.setNoSignedZeros();
    return flags;
  }
  /// One lane of `v` combined by `op` in halving steps (log2 lanes).
  llvm::Value *
  across(llvm::Value *v,
         const std::function<llvm::Value *(llvm::Value *, llvm::Value *)> &op) {
    for (unsigned width = lanes_; width > 1; width /= 2) {
      llvm::SmallVector<int, 64> low, high;
      for (unsigned lane = 0; lane < width / 2; ++lane) {
        low.push_back(static_cast<int>(lane));
        high.push_back(static_cast<int>(lane + width / 2));
      }
      v = op(b_.CreateShuffleVector(v, low), b_.CreateShuffleVector(v, high));
    }
    return b_.CreateExtractElement(v, uint64_t(0));
  }
  /// x where `predicate`(x, bound) holds, else bound: the reference's
  /// strict comparison exactly (a NaN x or a zero of the other sign never
  /// replaces the bound), and one min or max instruction on x86.
  llvm::Value *ordered(llvm::CmpInst::Predicate predicate, llvm::Value *x,
                       llvm::Value *bound) {
    return b_.CreateSelect(b_.CreateFCmp(predicate, x, bound), x, bound);
  }
  llvm::Value *fits(llvm::Value *e, llvm::Value *end, unsigned lanes) {
    return b_.CreateICmpUGE(b_.CreateSub(end, e), b_.getInt64(lanes));
  }

  /// A run of one group: first without looking at the values (NaN never
  /// replaces a bound: see ordered()), then again, leaving ±inf out, only
  /// if an infinity reached a bound, which it does exactly when the run
  /// holds one.
  void emitOneGroup(llvm::Value *first, llvm::Value *end, llvm::Value *param) {
    llvm::Value *lo = element(arrays_.low, param, 1);
    llvm::Value *hi = element(arrays_.high, param, 1);
    auto [anyLo, anyHi] = reduceGroup(first, end, lo, hi, /*finite=*/false);
    llvm::Value *infinite = b_.CreateOr(
        b_.CreateFCmpOEQ(anyLo,
                         llvm::ConstantFP::getInfinity(ir_.compute, true)),
        b_.CreateFCmpOEQ(anyHi, llvm::ConstantFP::getInfinity(ir_.compute)));
    llvm::BasicBlock *fast = b_.GetInsertBlock();
    llvm::Function *function = fast->getParent();
    auto *retry = llvm::BasicBlock::Create(ir_.context, "infinite", function);
    auto *join = llvm::BasicBlock::Create(ir_.context, "ranged", function);
    b_.CreateCondBr(infinite, retry, join,
                    llvm::MDBuilder(ir_.context).createUnlikelyBranchWeights());
    b_.SetInsertPoint(retry);
    auto [finiteLo, finiteHi] = reduceGroup(first, end, lo, hi, true);
    llvm::BasicBlock *retried = b_.GetInsertBlock();
    b_.CreateBr(join);
    b_.SetInsertPoint(join);
    llvm::PHINode *newLo = b_.CreatePHI(ir_.compute, 2);
    llvm::PHINode *newHi = b_.CreatePHI(ir_.compute, 2);
    newLo->addIncoming(anyLo, fast);
    newLo->addIncoming(finiteLo, retried);
    newHi->addIncoming(anyHi, fast);
    newHi->addIncoming(finiteHi, retried);
    setElement(arrays_.low, param, newLo);
    setElement(arrays_.high, param, newHi);
  }

  /// lo and hi over elements [first, end) and the given bounds; with
  /// `finite`, NaN and ±inf elements count as 0 (finiteOrZero).
  std::pair<llvm::Value *, llvm::Value *>
  reduceGroup(llvm::Value *first, llvm::Value *end, llvm::Value *lo,
              llvm::Value *hi, bool finite) {
    auto load = [&](llvm::Value *e, unsigned lanes) {
      llvm::Value *x = element(src_, e, lanes);
      return finite ? finiteOrZero(x) : x;
    };
    auto lower = [&](llvm::Value *x, llvm::Value *bound) {
      return ordered(llvm::CmpInst::FCMP_OLT, x, bound);
    };
    auto higher = [&](llvm::Value *x, llvm::Value *bound) {
      return ordered(llvm::CmpInst::FCMP_OGT, x, bound);
    };
    llvm::Value *e = first;
    if (lanes_ > 1) {
      llvm::Value *zero =
          llvm::Constant::getNullValue(ir_.vectorOf(ir_.compute, lanes_));
      LoopState state = {e};
      for (unsigned k = 0; k < 2 * kAccumulators; ++k)
        state.push_back(zero);
      unsigned step = lanes_ * kAccumulators;
      state = emitWhile(
          ir_, state, [&](const LoopState &s) { return fits(s[0], end, step); },
          [&](const LoopState &s) -> LoopState {
            LoopState next(1 + 2 * kAccumulators);
            next[0] = b_.CreateAdd(s[0], b_.getInt64(step));
            for (unsigned k = 0; k < kAccumulators; ++k) {
              llvm::Value *x =
                  load(b_.CreateAdd(s[0], b_.getInt64(k * lanes_)), lanes_);
              next[1 + k] = lower(x, s[1 + k]);
              next[1 + kAccumulators + k] = higher(x, s[1 + kAccumulators + k]);
            }
            return next;
          });
      llvm::Value *vectorLo = state[1], *vectorHi = state[1 + kAccumulators];
      for (unsigned k = 1; k < kAccumulators; ++k) {
        vectorLo = lower(state[1 + k], vectorLo);
        vectorHi = higher(state[1 + kAccumulators + k], vectorHi);
      }
      state = emitWhile(
          ir_, {state[0], vectorLo, vectorHi},
          [&](const LoopState &s) { return fits(s[0], end, lanes_); },
          [&](const LoopState &s) -> LoopState {
            llvm::Value *x = load(s[0], lanes_);
            return {b_.CreateAdd(s[0], b_.getInt64(lanes_)), lower(x, s[1]),
                    higher(x, s[2])};
          });
      e = state[0];
      lo = lower(across(state[1], lower), lo);
      hi = higher(across(state[2], higher), hi);
    }
    LoopState last = emitWhile(
        ir_, {e, lo, hi},
        [&](const LoopState &s) { return b_.CreateICmpULT(s[0], end); },
        [&](const LoopState &s) -> LoopState {
          llvm::Value *x = load(s[0], 1);
          return {b_.CreateAdd(s[0], b_.getInt64(1)), lower(x, s[1]),
                  higher(x, s[2])};
        });
    return {last[1], last[2]};
  }

  void emitConsecutiveGroups(llvm::Value *first, llvm::Value *end,
                             llvm::Value *param) {
    auto update = [&](llvm::Value *e, unsigned lanes) {
      llvm::Value *k = b_.CreateAdd(param, b_.CreateSub(e, first));
      llvm::Value *x = finiteOrZero(element(src_, e, lanes));
      llvm::Value *loAt = ir_.byteAddress(arrays_.low, b_.CreateMul(k, bytes_));
      llvm::Value *hiAt =
          ir_.byteAddress(arrays_.high, b_.CreateMul(k, bytes_));
      ir_.store(minimum(x, ir_.load(ir_.compute, loAt, Lanes{lanes})), loAt,
                Lanes{});
      ir_.store(maximum(x, ir_.load(ir_.compute, hiAt, Lanes{lanes})), hiAt,
                Lanes{});
      return b_.CreateAdd(e, b_.getInt64(lanes));
    };
    llvm::Value *e = first;
    if (lanes_ > 1)
      e = emitWhile(
          ir_, {e}, [&](const LoopState &s) { return fits(s[0], end, lanes_); },
          [&](const LoopState &s) -> LoopState {
            return {update(s[0], lanes_)};
          })[0];
    emitWhile(
        ir_, {e},
        [&](const LoopState &s) { return b_.CreateICmpULT(s[0], end); },
        [&](const LoopState &s) -> LoopState { return {update(s[0], 1)}; });
  }

  IrContext &ir_;
  llvm::IRBuilder<> &b_;
  llvm::Value *src_;
  DynamicArrays arrays_;
  unsigned lanes_ = 1;
  unsigned elementBytes_ = 4;
  llvm::Value *bytes_ = nullptr;
};

/// The parameters of `lanes` groups from their ranges, as
/// DynamicParameters.cpp computes one group's; every constant is the value
/// the reference computes for it in C++ (with the same conversions).
class ParameterEmitter {
public:
  ParameterEmitter(IrContext &ir, const KernelSpec &spec, unsigned lanes)
      : ir_(ir), b_(ir.builder), spec_(spec),
        f64_(spec.compute == ValueType::F64), lanes_(lanes) {}

  /// (scales, zero points as i64) of the ranges [lo, hi] (lanes each).
  std::pair<llvm::Value *, llvm::Value *> choose(llvm::Value *lo,
                                                 llvm::Value *hi) {
    if (spec_.params.dynamic == DynamicScheme::AbsMax)
      return absMax(lo, hi);
    if (spec_.params.dynamic == DynamicScheme::Mx)
      return {mxScale(lo, hi), zero()};
    if (spec_.params.dynamicRule == DynamicRule::PyTorch)
      return pytorchMinMax(lo, hi);
    if (spec_.params.dynamicRule == DynamicRule::Xnnpack)
      return xnnpackMinMax(lo, hi);
    return minMax(lo, hi);
  }

private:
  /// A compute constant of the value C++ computes in C (float or double).
  llvm::Value *constant(double value) {
    return llvm::ConstantFP::get(ir_.vectorOf(ir_.compute, lanes_),
                                 f64_ ? value : static_cast<float>(value));
  }
  llvm::Type *f64Type() { return ir_.vectorOf(b_.getDoubleTy(), lanes_); }
  llvm::Type *f32Type() { return ir_.vectorOf(b_.getFloatTy(), lanes_); }
  llvm::Type *i64Type() { return ir_.vectorOf(ir_.i64, lanes_); }
  llvm::Value *f64(double value) {
    return llvm::ConstantFP::get(f64Type(), value);
  }
  llvm::Value *f32(float value) {
    return llvm::ConstantFP::get(f32Type(), value);
  }
  llvm::Value *i64(int64_t value) {
    return ir_.intConstant(ir_.i64, value, lanes_);
  }
  /// std::max(a, b): b where a < b, else a.
  llvm::Value *stdMax(llvm::Value *a, llvm::Value *b) {
    return b_.CreateSelect(b_.CreateFCmpOLT(a, b), b, a);
  }
  llvm::Value *zero() { return i64(0); }

  std::pair<llvm::Value *, llvm::Value *> absMax(llvm::Value *lo,
                                                 llvm::Value *hi) {
    double q = largestStoredMagnitude(spec_.storage);
    double qC = f64_ ? q : static_cast<double>(static_cast<float>(q));
    // hi first, as DynamicParameters.cpp: +0 for an all-zero group.
    llvm::Value *amax = stdMax(hi, b_.CreateFNeg(lo));
    if (spec_.params.dynamicRule == DynamicRule::PyTorch) {
      llvm::Value *floor = constant(static_cast<double>(kPyTorchSmallestAmax));
      return {b_.CreateFDiv(stdMax(amax, floor), constant(qC)), zero()};
    }
    llvm::Value *scale = b_.CreateFDiv(amax, constant(qC));
    if (spec_.params.dynamicRule == DynamicRule::Vllm) // f32 values
      return {stdMax(scale, f32(kVllmSmallestScale)), zero()};
    if (spec_.params.dynamicRule == DynamicRule::Ggml)
      return {scale, zero()}; // d = 0 stays.
    llvm::Value *isZero = b_.CreateFCmpOEQ(scale, constant(0));
    return {b_.CreateSelect(isZero, constant(1), scale), zero()};
  }

  /// DynamicParameters.cpp mxScaleExponent (f32 values) on the bits of
  /// amax or v: for a finite w >= 0 they are its biased exponent b (0 for
  /// zero and subnormals) and fraction f, and 2^E is the f32 of bits
  /// (E + 127) << 23, or 0x400000 for E = -127.
  llvm::Value *mxScale(llvm::Value *lo, llvm::Value *hi) {
    llvm::Type *i32 = ir_.vectorOf(b_.getInt32Ty(), lanes_);
    auto i32Constant = [&](int64_t value) {
      return ir_.intConstant(b_.getInt32Ty(), value, lanes_);
    };
    double largest = largestStoredMagnitude(spec_.storage);
    // fabs: -lo is -0 for lo = +0, and its sign bit is no exponent bit.
    llvm::Value *amax =
        ir_.unary(llvm::Intrinsic::fabs, stdMax(b_.CreateFNeg(lo), hi));
    llvm::Value *exponent;
    if (spec_.params.scaleRounding == ScaleRounding::Floor) {
      // b - 127 - emax; zero and subnormal amax clamp to -127 below.
      llvm::Value *biased = b_.CreateLShr(b_.CreateBitCast(amax, i32), 23);
      exponent = b_.CreateSub(biased, i32Constant(127 + std::ilogb(largest)));
    } else {
      llvm::Value *v =
          b_.CreateFDiv(amax, constant(static_cast<float>(largest)));
      llvm::Value *bits = b_.CreateBitCast(v, i32);
      llvm::Value *biased = b_.CreateLShr(bits, 23);
      llvm::Value *fraction = b_.CreateAnd(bits, i32Constant(0x7FFFFF));
      llvm::Value *subnormal = b_.CreateICmpEQ(biased, i32Constant(0));
      llvm::Value *normalUp =
          spec_.params.scaleRounding == ScaleRounding::Ceil
              ? b_.CreateICmpNE(fraction, i32Constant(0))
              : b_.CreateICmpUGE(fraction, i32Constant(0x400000));
      llvm::Value *up = b_.CreateSelect(
          subnormal, b_.CreateICmpUGT(fraction, i32Constant(0x400000)),
          normalUp);
      exponent =
          b_.CreateAdd(b_.CreateSelect(subnormal, i32Constant(-127),
                                       b_.CreateSub(biased, i32Constant(127))),
                       b_.CreateZExt(up, i32));
    }
    exponent = b_.CreateBinaryIntrinsic(llvm::Intrinsic::smax, exponent,
                                        i32Constant(-127));
    exponent = b_.CreateBinaryIntrinsic(llvm::Intrinsic::smin, exponent,
                                        i32Constant(127));
    llvm::Value *scaleBits = b_.CreateSelect(
        b_.CreateICmpEQ(exponent, i32Constant(-127)), i32Constant(0x400000),
        b_.CreateShl(b_.CreateAdd(exponent, i32Constant(127)), 23));
    return b_.CreateBitCast(scaleBits, f32Type());
  }

  llvm::Value *clampZero(llvm::Value *z) {
    z = b_.CreateBinaryIntrinsic(llvm::Intrinsic::smax, z,
                                 i64(spec_.storage.min));
    return b_.CreateBinaryIntrinsic(llvm::Intrinsic::smin, z,
                                    i64(spec_.storage.max));
  }

  std::pair<llvm::Value *, llvm::Value *> minMax(llvm::Value *lo,
                                                 llvm::Value *hi) {
    const StorageSpec &storage = spec_.storage;
    int64_t span = storage.max - storage.min;
    double spanC = f64_ ? static_cast<double>(span)
                        : static_cast<double>(static_cast<float>(span));
    double largest =
        f64_ ? std::numeric_limits<double>::max()
             : static_cast<double>(std::numeric_limits<float>::max());
    llvm::Value *scale = b_.CreateFDiv(b_.CreateFSub(hi, lo), constant(spanC));
    scale = b_.CreateSelect(b_.CreateFCmpOEQ(scale, constant(0)), constant(1),
                            scale);
    // hi - lo >= 0, so the only infinity is +inf.
    scale = b_.CreateSelect(
        b_.CreateFCmpOEQ(scale,
                         constant(std::numeric_limits<double>::infinity())),
        constant(largest), scale);
    llvm::Value *offset =
        ir_.unary(llvm::Intrinsic::roundeven, b_.CreateFDiv(lo, scale));
    llvm::Value *z =
        b_.CreateSub(i64(storage.min), b_.CreateFPToSI(offset, i64Type()));
    return {scale, clampZero(z)};
  }

  /// DynamicParameters.cpp chooseXnnpackMinMax (f32 values, i8 storage):
  /// minMax()'s parameters in the lanes where the multiplier is 0 or ∞.
  std::pair<llvm::Value *, llvm::Value *> xnnpackMinMax(llvm::Value *lo,
                                                        llvm::Value *hi) {
    const float qmin = -128.0f, qmax = 127.0f;
    llvm::Value *multiplier =
        b_.CreateSelect(b_.CreateFCmpOEQ(lo, hi), f32(1),
                        b_.CreateFDiv(f32(255), b_.CreateFSub(hi, lo)));
    llvm::Value *degenerate = b_.CreateOr(
        b_.CreateFCmpOEQ(multiplier, f32(0)),
        b_.CreateFCmpOEQ(multiplier,
                         f32(std::numeric_limits<float>::infinity())));
    llvm::Value *descaledMin = b_.CreateFMul(lo, multiplier);
    llvm::Value *descaledMax = b_.CreateFMul(hi, multiplier);
    llvm::Value *fromMinError = b_.CreateFAdd(f32(qmin), descaledMin);
    llvm::Value *fromMaxError = b_.CreateFAdd(f32(qmax), descaledMax);
    llvm::Value *zero = b_.CreateSelect(
        b_.CreateFCmpOGT(b_.CreateFAdd(fromMinError, fromMaxError), f32(0)),
        b_.CreateFSub(f32(qmin), descaledMin),
        b_.CreateFSub(f32(qmax), descaledMax));
    // std::max(zero, qmin), then std::min(.., qmax): NaN-free here.
    zero = b_.CreateSelect(b_.CreateFCmpOLT(zero, f32(qmin)), f32(qmin), zero);
    zero = b_.CreateSelect(b_.CreateFCmpOLT(f32(qmax), zero), f32(qmax), zero);
    llvm::Value *zeroPoint =
        b_.CreateFPToSI(ir_.unary(llvm::Intrinsic::roundeven, zero), i64Type());
    llvm::Value *scale = b_.CreateFDiv(f32(1), multiplier);
    auto [fallbackScale, fallbackZero] = minMax(lo, hi);
    return {b_.CreateSelect(degenerate, fallbackScale, scale),
            b_.CreateSelect(degenerate, fallbackZero, zeroPoint)};
  }

  /// DynamicParameters.cpp choosePyTorchMinMax (f32 values).
  std::pair<llvm::Value *, llvm::Value *> pytorchMinMax(llvm::Value *lo,
                                                        llvm::Value *hi) {
    constexpr float kSmallScale = 6.1e-5f;
    const double qmin = static_cast<double>(spec_.storage.min);
    const double qmax = static_cast<double>(spec_.storage.max);
    const float spanF =
        static_cast<float>(spec_.storage.max - spec_.storage.min);
    auto wide = [&](llvm::Value *v) { return b_.CreateFPExt(v, f64Type()); };
    auto narrow = [&](llvm::Value *v) {
      return b_.CreateFPTrunc(v, f32Type());
    };

    llvm::Value *scale =
        b_.CreateFDiv(b_.CreateFSub(wide(hi), wide(lo)), f64(qmax - qmin));
    llvm::Value *scaleF = narrow(scale);
    llvm::Value *useDefault = b_.CreateOr(
        b_.CreateFCmpOEQ(scaleF, f32(0)),
        b_.CreateFCmpOEQ(b_.CreateFDiv(f32(1), scaleF),
                         f32(std::numeric_limits<float>::infinity())));
    scale = b_.CreateSelect(useDefault, f64(0.1), scale);

    llvm::Value *small =
        b_.CreateFCmpOLT(scale, f64(static_cast<double>(kSmallScale)));
    llvm::Value *original = narrow(scale);
    llvm::Value *amplifier = b_.CreateFDiv(f32(kSmallScale), original);
    llvm::Value *loZero = b_.CreateFCmpOEQ(lo, f32(0));
    llvm::Value *hiZero = b_.CreateFCmpOEQ(hi, f32(0));
    llvm::Value *smallHi = b_.CreateSelect(
        loZero, f32(kSmallScale * spanF),
        b_.CreateSelect(hiZero, hi, b_.CreateFMul(hi, amplifier)));
    llvm::Value *smallLo =
        b_.CreateSelect(loZero, lo,
                        b_.CreateSelect(hiZero, f32(-kSmallScale * spanF),
                                        b_.CreateFMul(lo, amplifier)));
    lo = b_.CreateSelect(small, smallLo, lo);
    hi = b_.CreateSelect(small, smallHi, hi);
    scale =
        b_.CreateSelect(small, f64(static_cast<double>(kSmallScale)), scale);

    llvm::Value *loRatio = b_.CreateFDiv(wide(lo), scale);
    llvm::Value *hiRatio = b_.CreateFDiv(wide(hi), scale);
    llvm::Value *fromMin = b_.CreateFSub(f64(qmin), loRatio);
    llvm::Value *fromMax = b_.CreateFSub(f64(qmax), hiRatio);
    llvm::Value *fromMinError = b_.CreateFSub(
        f64(std::abs(qmin)), ir_.unary(llvm::Intrinsic::fabs, loRatio));
    llvm::Value *fromMaxError = b_.CreateFSub(
        f64(std::abs(qmax)), ir_.unary(llvm::Intrinsic::fabs, hiRatio));
    llvm::Value *initial = b_.CreateSelect(
        b_.CreateFCmpOLT(fromMinError, fromMaxError), fromMin, fromMax);
    // Within [qmin, qmax] the rounded value converts exactly; outside it
    // the selects below take the bound.
    llvm::Value *rounded = b_.CreateFPToSI(
        ir_.unary(llvm::Intrinsic::roundeven,
                  b_.CreateSelect(
                      b_.CreateFCmpOLT(initial, f64(qmin)), f64(qmin),
                      b_.CreateSelect(b_.CreateFCmpOGT(initial, f64(qmax)),
                                      f64(qmax), initial))),
        i64Type());
    return {narrow(scale), rounded};
  }

  IrContext &ir_;
  llvm::IRBuilder<> &b_;
  const KernelSpec &spec_;
  bool f64_;
  unsigned lanes_;
};

} // namespace

void emitDynamicParameters(IrContext &ir, const KernelSpec &dynamicSpec,
                           llvm::Value *src,
                           const std::vector<LoopLevel> &levels,
                           const DynamicArrays &arrays) {
  llvm::IRBuilder<> &b = ir.builder;
  int64_t count = dynamicSpec.layout.parameterCount();
  RangeEmitter ranges(ir, src, arrays);
  ranges.clear(count);
  emitLoopNest(ir, levels,
               [&](llvm::Value *first, llvm::Value *runCount,
                   llvm::Value *param, bool perElement) {
                 ranges.emitRun(first, runCount, param, perElement);
               });

  // Groups are independent: full vectors of them, then one at a time.
  unsigned computeBits = ir.compute->getPrimitiveSizeInBits();
  unsigned lanes = std::max(1u, ir.target.vectorBits / computeBits);
  uint64_t bytes = computeBits / 8;
  llvm::Value *total = b.getInt64(count);
  // 11.7: scales in another format are rounded to it once (bf16 by integer
  // operations, f16 and f32 by fptrunc); the quantize pass reads them back.
  ValueType written =
      scaleValueType(dynamicSpec).value_or(dynamicSpec.expressed);
  uint64_t scaleBytes = valueTypeBytes(written);
  bool e8m0 = dynamicSpec.params.scaleFormat == ScaleFormat::E8M0;
  if (e8m0)
    scaleBytes = 1;
  auto format = [&](llvm::Value *scale, unsigned width) -> llvm::Value * {
    // mx: the power of two 2^E as its byte E + 127, the f32's exponent
    // field (2^-127, the subnormal 0x400000, gives 0).
    if (e8m0)
      return b.CreateTrunc(
          b.CreateLShr(
              b.CreateBitCast(scale, ir.vectorOf(b.getInt32Ty(), width)), 23),
          ir.vectorOf(b.getInt8Ty(), width));
    if (written == dynamicSpec.compute)
      return scale;
    switch (written) {
    case ValueType::BF16:
      return roundToBfloat16(ir, scale, width);
    case ValueType::F16:
      return b.CreateFPTrunc(
          scale, ir.vectorOf(llvm::Type::getHalfTy(ir.context), width));
    case ValueType::F32:
      return b.CreateFPTrunc(scale, ir.vectorOf(b.getFloatTy(), width));
    case ValueType::F64:
      return scale;
    }
    return scale;
  };
  auto groups = [&](llvm::Value *k, unsigned width) {
    llvm::Value *offset = b.CreateMul(k, b.getInt64(bytes));
    llvm::Value *lo =
        ir.load(ir.compute, ir.byteAddress(arrays.low, offset), Lanes{width});
    llvm::Value *hi =
        ir.load(ir.compute, ir.byteAddress(arrays.high, offset), Lanes{width});
    auto [scale, zeroPoint] =
        ParameterEmitter(ir, dynamicSpec, width).choose(lo, hi);
    // ggml: the quantizing pass reads the unrounded scales from `low`
    // (its group's range is read above).
    if (quantizesWithUnroundedScale(dynamicSpec))
      ir.store(scale, ir.byteAddress(arrays.low, offset), Lanes{});
    ir.store(
        format(scale, width),
        ir.byteAddress(arrays.scales, b.CreateMul(k, b.getInt64(scaleBytes))),
        Lanes{});
    ir.store(zeroPoint,
             ir.byteAddress(arrays.zeroPoints, b.CreateMul(k, b.getInt64(8))),
             Lanes{});
    return b.CreateAdd(k, b.getInt64(width));
  };
  llvm::Value *k = b.getInt64(0);
  if (lanes > 1)
    k = emitWhile(
        ir, {k},
        [&](const LoopState &s) {
          return b.CreateICmpUGE(b.CreateSub(total, s[0]), b.getInt64(lanes));
        },
        [&](const LoopState &s) -> LoopState {
          return {groups(s[0], lanes)};
        })[0];
  emitWhile(
      ir, {k}, [&](const LoopState &s) { return b.CreateICmpULT(s[0], total); },
      [&](const LoopState &s) -> LoopState { return {groups(s[0], 1)}; });
}

} // namespace qjit::llvmjit
