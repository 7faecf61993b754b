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

#include "ElementIo.h"
#include "TableLookup.h"

#include "qjit/FloatStorage.h"
#include "qjit/HostFloat.h"
#include "qjit/QuantileSearch.h"

#include <llvm/IR/IntrinsicsX86.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
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

/// The number of thresholds at or below v (lanes of C, not NaN). With
/// register permutes: a binary search, one bit of the position per step,
/// each step comparing with the threshold its lane's prefix selects (a
/// table lookup); the table is padded with NaN thresholds, which compare
/// false. Otherwise: one comparison per threshold, counted.
llvm::Value *searchPosition(IrContext &ir, const QuantileSearch &search,
                            llvm::Value *v, unsigned lanes) {
  llvm::IRBuilder<> &b = ir.builder;
  llvm::Type *i32Lanes = ir.vectorOf(ir.i32, lanes);
  llvm::Value *position = ir.intConstant(ir.i32, 0, lanes);
  uint64_t size = llvm::PowerOf2Ceil(std::max<size_t>(search.values.size(), 2));
  bool permutes = ir.target.isX86 && ir.target.vectorBits >= 256 &&
                  lanes % 8 == 0 && ir.spec.compute == ValueType::F32 &&
                  size <= 64 && search.thresholds.size() > 2;
  if (!permutes) {
    for (double threshold : search.thresholds)
      position = b.CreateSub(
          position,
          b.CreateSExt(b.CreateFCmpOGE(v, ir.computeConstant(threshold, lanes)),
                       i32Lanes));
    return position;
  }
  std::vector<double> thresholds(size - 1,
                                 std::numeric_limits<double>::quiet_NaN());
  std::copy(search.thresholds.begin(), search.thresholds.end(),
            thresholds.begin());
  for (uint64_t bit = size / 2; bit >= 1; bit /= 2) {
    // Candidates p + bit with p a multiple of 2·bit: threshold p + bit − 1.
    std::vector<double> candidates;
    for (uint64_t p = 0; p < size; p += 2 * bit)
      candidates.push_back(thresholds[p + bit - 1]);
    llvm::Value *threshold =
        candidates.size() == 1
            ? ir.computeConstant(candidates[0], lanes)
            : emitTableLookup(
                  ir, ir.compute, candidates,
                  b.CreateLShr(
                      position,
                      ir.intConstant(ir.i32, llvm::Log2_64(2 * bit), lanes)),
                  lanes);
    llvm::Value *above = b.CreateSExt(b.CreateFCmpOGE(v, threshold), i32Lanes);
    position = b.CreateOr(
        position,
        b.CreateAnd(above, ir.intConstant(ir.i32, int64_t(bit), lanes)));
  }
  return position;
}

llvm::Value *quantizeToQuantile(IrContext &ir, const QuantPlan &plan,
                                llvm::Value *x, const ParamValues &params,
                                unsigned lanes) {
  llvm::IRBuilder<> &b = ir.builder;
  const StorageSpec &storage = ir.spec.storage;
  QuantileSearch search = buildQuantileSearch(storage.table, ir.spec.compute);
  llvm::Value *v =
      replaceNaN(ir, shiftedScaled(ir, plan, x, params), params.zeroCompute);
  llvm::Value *position = searchPosition(ir, search, v, lanes);
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
  float scale = static_cast<float>(
      roundToValueType(spec.params.scales[0], spec.expressed));
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

/// Lanes the byte-plane lookup converts at once (one 16-byte load).
constexpr unsigned kPlaneLanes = 32;

/// A baked result table of 16 f32 entries for packed 4-bit storage, read
/// with byte shuffles (AVX2's vpshufb, cheap on every x86) instead of
/// 32-bit permutes: byte k of every entry forms a 16-byte plane that one
/// vpshufb indexes by the nibbles; interleaving the four planes' results
/// rebuilds the f32 bits.
bool planeLookupApplies(IrContext &ir, Lanes lanes,
                        const std::vector<double> &results) {
  const StorageSpec &storage = ir.spec.storage;
  return ir.target.isX86 && ir.target.vectorBits >= 256 && storage.packed &&
         storage.bits == 4 && results.size() == 16 &&
         lanes.count == kPlaneLanes && !lanes.mask;
}

/// AVX2's in-lane unpack (punpckl* / punpckh*) of two 256-bit vectors of
/// `count` elements: per 128-bit half, the low or high halves interleaved.
llvm::Value *unpackInLanes(IrContext &ir, llvm::Value *a, llvm::Value *b,
                           unsigned count, bool high) {
  llvm::SmallVector<int, 64> mask;
  unsigned half = count / 2, quarter = count / 4;
  for (unsigned lane = 0; lane < 2; ++lane)
    for (unsigned i = 0; i < quarter; ++i) {
      int from = static_cast<int>(lane * half + (high ? quarter : 0) + i);
      mask.push_back(from);
      mask.push_back(from + static_cast<int>(count));
    }
  return ir.builder.CreateShuffleVector(a, b, mask);
}

llvm::Value *planeLookup(IrContext &ir, llvm::Value *src, llvm::Value *index,
                         const std::vector<double> &results) {
  llvm::IRBuilder<> &b = ir.builder;
  llvm::Value *packed =
      ir.load(ir.i8, ir.byteAddress(src, b.CreateLShr(index, 1)), Lanes{16});
  llvm::Value *low = b.CreateAnd(packed, ir.intConstant(ir.i8, 0x0F, 16));
  llvm::Value *high = b.CreateLShr(packed, ir.intConstant(ir.i8, 4, 16));
  // Nibble order such that the in-lane unpacks below leave elements in
  // order: the low 128 bits hold elements 0-3, 8-11, 16-19, 24-27, the
  // high ones 4-7, 12-15, 20-23, 28-31. Element e is nibble e % 2 of
  // byte e / 2.
  llvm::SmallVector<int, kPlaneLanes> order;
  for (unsigned lane = 0; lane < 2; ++lane)
    for (unsigned group = 0; group < 4; ++group)
      for (unsigned i = 0; i < 4; ++i) {
        unsigned e = 8 * group + 4 * lane + i;
        order.push_back(static_cast<int>(e / 2 + (e % 2 ? 16 : 0)));
      }
  llvm::Value *nibbles = b.CreateShuffleVector(low, high, order);
  std::vector<llvm::Value *> planes;
  for (unsigned k = 0; k < 4; ++k) {
    llvm::SmallVector<llvm::Constant *, kPlaneLanes> plane;
    for (unsigned e = 0; e < kPlaneLanes; ++e) {
      float entry = static_cast<float>(results[e % 16]);
      uint32_t word;
      std::memcpy(&word, &entry, 4);
      plane.push_back(b.getInt8(static_cast<uint8_t>(word >> (8 * k))));
    }
    planes.push_back(
        b.CreateIntrinsic(llvm::Intrinsic::x86_avx2_pshuf_b, {},
                          {llvm::ConstantVector::get(plane), nibbles}));
  }
  llvm::Type *words = ir.vectorOf(ir.i16, 16);
  std::vector<llvm::Value *> outputs;
  for (bool highBytes : {false, true}) {
    llvm::Value *low16 = b.CreateBitCast(
        unpackInLanes(ir, planes[0], planes[1], 32, highBytes), words);
    llvm::Value *high16 = b.CreateBitCast(
        unpackInLanes(ir, planes[2], planes[3], 32, highBytes), words);
    for (bool highWords : {false, true})
      outputs.push_back(unpackInLanes(ir, low16, high16, 16, highWords));
  }
  auto concatenate = [&](llvm::Value *x, llvm::Value *y) {
    unsigned count =
        llvm::cast<llvm::FixedVectorType>(x->getType())->getNumElements();
    llvm::SmallVector<int, 64> both;
    for (unsigned i = 0; i < 2 * count; ++i)
      both.push_back(static_cast<int>(i));
    return b.CreateShuffleVector(x, y, both);
  };
  return b.CreateBitCast(concatenate(concatenate(outputs[0], outputs[1]),
                                     concatenate(outputs[2], outputs[3])),
                         ir.vectorOf(ir.compute, kPlaneLanes));
}

/// fp8 codes converted through binary16 (F16C's vcvtph2ps, AArch64's
/// fcvtl): the code's bits, moved into a half, are its value times 2^-k.
bool halfConversionApplies(IrContext &ir, unsigned lanes) {
  const StorageSpec &storage = ir.spec.storage;
  return storage.kind == StorageType::Kind::Float && storage.bits == 8 &&
         ir.spec.compute == ValueType::F32 && lanes % 8 == 0 &&
         (!ir.target.isX86 || ir.target.vectorBits >= 256);
}

struct HalfCodes {
  llvm::Value *values;   ///< f32 lanes: F(code) · 2^-exponentShift.
  int exponentShift = 0; ///< k.
};

/// f8E5M2 is the top byte of a binary16 (same bias, inf, NaN): F exactly.
/// f8E4M3FN's magnitude bits shifted left 7 are a binary16 of bias 15,
/// i.e. F · 2^-8, subnormals included; its NaN (0x7F / 0xFF) becomes a
/// binary16 quiet NaN.
HalfCodes halfCodes(IrContext &ir, llvm::Value *src, llvm::Value *index,
                    Lanes lanes) {
  llvm::IRBuilder<> &b = ir.builder;
  unsigned n = lanes.count;
  auto i16 = [&](int64_t value) { return ir.intConstant(ir.i16, value, n); };
  llvm::Value *bytes = ir.load(ir.i8, ir.byteAddress(src, index), lanes);
  llvm::Type *i16Lanes = ir.vectorOf(ir.i16, n);
  llvm::Value *half;
  HalfCodes codes;
  if (ir.spec.storage.floatFormat == FloatType::F8E5M2) {
    half = b.CreateShl(b.CreateZExt(bytes, i16Lanes), i16(8));
  } else {
    llvm::Value *extended = b.CreateSExt(bytes, i16Lanes);
    half = b.CreateAnd(b.CreateShl(extended, i16(7)), i16(0xBF80));
    llvm::Value *isNaN =
        b.CreateICmpEQ(b.CreateAnd(extended, i16(0x7F)), i16(0x7F));
    // 0x3F80 (and the sign) becomes the quiet NaN 0x7E00, the reference's.
    half = b.CreateXor(
        half, b.CreateAnd(b.CreateSExt(isNaN, i16Lanes), i16(0x3F80 ^ 0x7E00)));
    codes.exponentShift = 8;
  }
  codes.values =
      b.CreateFPExt(b.CreateBitCast(half, ir.vectorOf(b.getHalfTy(), n)),
                    ir.vectorOf(ir.compute, n));
  return codes;
}

/// Baked scales s with s·2^k exact and finite for every parameter.
bool scalesFold(IrContext &ir, int exponentShift) {
  if (ir.spec.params.runtime)
    return false;
  for (double scale : ir.spec.params.scales)
    if (std::fabs(roundToValueType(scale, ir.spec.expressed)) >
        std::ldexp(1.0, 100 - exponentShift))
      return false;
  return true;
}

} // namespace

llvm::Value *emitCompactQuantize(IrContext &ir, const QuantPlan &plan,
                                 llvm::Value *x, const ParamValues &params,
                                 unsigned lanes) {
  if (ir.spec.storage.kind == StorageType::Kind::Float)
    return quantizeToFloat(ir, plan, x, params, lanes);
  return quantizeToQuantile(ir, plan, x, params, lanes);
}

llvm::Value *emitCompactDequantize(IrContext &ir, llvm::Value *src,
                                   llvm::Value *index, Lanes lanes,
                                   const ParamValues &params) {
  llvm::IRBuilder<> &b = ir.builder;
  unsigned n = lanes.count;
  if (std::optional<std::vector<double>> results = bakedResultTable(ir)) {
    if (planeLookupApplies(ir, lanes, *results))
      return planeLookup(ir, src, index, *results);
    return emitTableLookup(ir, ir.compute, *results,
                           storedIndex(ir, loadStored(ir, src, index, lanes)),
                           n);
  }
  if (halfConversionApplies(ir, n)) {
    HalfCodes codes = halfCodes(ir, src, index, lanes);
    // y = (F·2^k − z)·s, F·2^k exact; with baked scales folded as
    // (F − z/2^k)·(s·2^k), the same real product (see halfCodes).
    double up = std::ldexp(1.0, codes.exponentShift);
    if (scalesFold(ir, codes.exponentShift)) {
      llvm::Value *zero =
          b.CreateFMul(params.zeroCompute, ir.computeConstant(1 / up, n));
      llvm::Value *scale =
          b.CreateFMul(params.scale, ir.computeConstant(up, n));
      return b.CreateFMul(b.CreateFSub(codes.values, zero), scale);
    }
    llvm::Value *value =
        codes.exponentShift == 0
            ? codes.values
            : b.CreateFMul(codes.values, ir.computeConstant(up, n));
    return b.CreateFMul(b.CreateFSub(value, params.zeroCompute), params.scale);
  }
  llvm::Value *q = loadStored(ir, src, index, lanes);
  llvm::Value *value = ir.spec.storage.kind == StorageType::Kind::Float
                           ? dequantizeFloat(ir, q, n)
                           : dequantizeQuantile(ir, q, n);
  return b.CreateFMul(b.CreateFSub(value, params.zeroCompute), params.scale);
}

} // namespace qjit::llvmjit
