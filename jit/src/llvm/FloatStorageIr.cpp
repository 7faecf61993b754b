//===- FloatStorageIr.cpp - fp8 / fp4 codes on lanes ----------------------===//
//
// Encoding: v is clamped to the format bounds [lo, hi] (format values,
// exact in C), then rounded to the format by one float addition of a
// per-lane K whose ulp is the format's quantum in |v|'s binade, so the
// FPU's nearest-even rounding counts quanta (subnormals included). Decoding:
// normal codes rebias their exponent, subnormal codes convert their fraction
// exactly and scale by the quantum; fp8 vectors on targets with vector half
// conversions go through binary16 instead.
//
//===----------------------------------------------------------------------===//
#include "FloatStorageIr.h"

#include "TableLookup.h"

#include "qjit/internal/FloatStorage.h"
#include "qjit/internal/HostFloat.h"

#include <llvm/Analysis/VectorUtils.h>
#include <llvm/IR/IntrinsicsX86.h>

#include <cmath>
#include <limits>

namespace qjit::llvmjit {

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

} // namespace

llvm::Value *emitFloatEncode(IrContext &ir, llvm::Value *v, llvm::Value *zero,
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

  if (!format.hasNaN)
    v = b.CreateSelect(b.CreateFCmpUNO(v, v), zero, v);
  llvm::Value *low = ir.computeConstant(bounds.lo, lanes);
  llvm::Value *high = ir.computeConstant(bounds.hi, lanes);
  llvm::Type *intLanes = ir.vectorOf(c.integer, lanes);
  // The code takes the sign of the clamped v, which is v's own when the
  // bounds straddle zero. The clamps keep NaN lanes NaN.
  llvm::Value *signOf = v;
  llvm::Value *magnitude;
  if (bounds.lo == -bounds.hi && bounds.hi > 0) {
    magnitude = ir.unary(llvm::Intrinsic::fabs, v);
    magnitude =
        b.CreateSelect(b.CreateFCmpOGT(magnitude, high), high, magnitude);
  } else {
    llvm::Value *clamped = b.CreateSelect(b.CreateFCmpOGT(v, high), high, v);
    clamped = b.CreateSelect(b.CreateFCmpOLT(clamped, low), low, clamped);
    magnitude = ir.unary(llvm::Intrinsic::fabs, clamped);
    signOf = clamped;
  }
  llvm::Value *bits = b.CreateBitCast(magnitude, intLanes);

  // RNE to the format by one addition: with e = max(E - Emin, 0) << the
  // mantissa width (E |v|'s exponent field, Emin the format's smallest
  // normal one), bits - e is |v| moved down to the smallest normal binade
  // (or |v| itself below it), where the format's quantum is the ulp of
  // K = 2^(emin + mantissa(C) - M): adding K rounds to quanta, ties to the
  // even code, and its low bits count them (a carry into the next binade
  // included). The code adds e's binades. e's subtraction saturates in
  // the top 16-bit word, where the exponent field is.
  llvm::Value *exponent =
      b.CreateAnd(bits, integer(int64_t(c.bias * 2 + 1) << c.mantissa));
  int64_t smallestNormal = int64_t(int(c.bias) + format.minNormalExponent())
                           << c.mantissa;
  llvm::Type *words =
      ir.vectorOf(ir.builder.getInt16Ty(), lanes * c.width / 16);
  llvm::Value *binades = b.CreateBitCast(
      b.CreateBinaryIntrinsic(llvm::Intrinsic::usub_sat,
                              b.CreateBitCast(exponent, words),
                              b.CreateBitCast(integer(smallestNormal), words)),
      intLanes);
  int64_t magicBits = smallestNormal + (int64_t(shift) << c.mantissa);
  llvm::Value *moved =
      b.CreateBitCast(b.CreateSub(bits, binades), magnitude->getType());
  llvm::Value *sum = b.CreateFAdd(
      moved, b.CreateBitCast(integer(magicBits), magnitude->getType()));
  // K + the code's magnitude; a NaN lane's bits give one far above every
  // finite code, which the minimum makes the NaN code.
  llvm::Value *code = b.CreateAdd(b.CreateBitCast(sum, intLanes),
                                  b.CreateLShr(binades, integer(shift)));
  code = b.CreateTrunc(b.CreateSub(code, integer(magicBits)),
                       ir.vectorOf(ir.i32, lanes));
  if (format.hasNaN)
    code = b.CreateBinaryIntrinsic(
        llvm::Intrinsic::umin, code,
        ir.intConstant(ir.i32, format.positiveNaN, lanes));

  // 8-bit codes are kept sign-extended (stores truncate them), which lets
  // byte stores use signed saturating packs.
  int64_t signValue = format.bits == 8 ? -128 : int64_t(format.signBit());
  // The sign bit, −0 included; NaN lanes keep the positive NaN code.
  auto isNegative = [&](llvm::Value *value) {
    llvm::Value *signBit =
        b.CreateICmpSLT(b.CreateBitCast(value, intLanes), integer(0));
    return b.CreateAnd(signBit, b.CreateFCmpORD(value, value));
  };
  auto withSign = [&](llvm::Value *negative, llvm::Value *magnitudeCode) {
    return b.CreateSelect(
        negative,
        b.CreateOr(magnitudeCode, ir.intConstant(ir.i32, signValue, lanes)),
        magnitudeCode);
  };
  llvm::Value *result = withSign(isNegative(signOf), code);
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
        overflow,
        withSign(isNegative(v), ir.intConstant(ir.i32, special, lanes)),
        result);
  }
  return result;
}

llvm::Value *emitFloatDecode(IrContext &ir, llvm::Value *q, unsigned lanes) {
  llvm::IRBuilder<> &b = ir.builder;
  FloatStorageFormat format = floatStorageFormat(ir.spec.storage.floatFormat);
  auto i32 = [&](int64_t value) {
    return ir.intConstant(ir.i32, value, lanes);
  };
  llvm::Type *f32 = llvm::Type::getFloatTy(ir.context);
  llvm::Type *f32Lanes = ir.vectorOf(f32, lanes);
  int M = static_cast<int>(format.mantissaBits);
  uint32_t signBit = format.signBit();

  // f4E2M1FN: its 16 values are a table, one permute per vector on x86
  // (MXFP4 dcast with E8M0 block scales, 64K elements: 9.7 el/ns with the
  // bit operations below, 18.3 with the table; AMD EPYC Zen 5, AVX-512).
  // Elsewhere a table would be a gather.
  if (format.bits <= 4 && ir.spec.compute == ValueType::F32 &&
      ir.target.isX86 && ir.target.vectorBits >= 256) {
    std::vector<double> values;
    for (uint32_t code = 0; code < (1u << format.bits); ++code)
      values.push_back(decodeFloatStorage(format, code));
    return emitTableLookup(ir, f32, values,
                           b.CreateAnd(q, i32((1 << format.bits) - 1)), lanes);
  }

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

namespace {

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

/// x86: the binary16 words s << 15 | n << 14 | m << 7 of f8E4M3FN codes
/// (sign s, magnitude m, NaN flag n), as 128·c + 128·y for the code c and
/// y = (c + 1) & 0x80 as signed bytes (bit 7 of y is s xor n; see
/// X86FloatStorage.cpp): one pmaddubsw per 8 codes.
llvm::Value *e4m3HalfWords(IrContext &ir, llvm::Value *bytes, unsigned n) {
  llvm::IRBuilder<> &b = ir.builder;
  llvm::Value *carries =
      b.CreateAnd(b.CreateAdd(bytes, ir.intConstant(ir.i8, 1, n)),
                  ir.intConstant(ir.i8, 0x80, n));
  llvm::Value *weights = ir.intConstant(ir.i8, 0x80, 16);
  llvm::SmallVector<llvm::Value *, 8> words;
  for (unsigned first = 0; first < n; first += 8) {
    llvm::SmallVector<int, 16> pairs;
    for (unsigned i = first; i < first + 8; ++i) {
      pairs.push_back(static_cast<int>(i));
      pairs.push_back(static_cast<int>(n + i));
    }
    words.push_back(b.CreateIntrinsic(
        llvm::Intrinsic::x86_ssse3_pmadd_ub_sw_128, {},
        {weights, b.CreateShuffleVector(bytes, carries, pairs)}));
  }
  return llvm::concatenateVectors(b, words);
}

/// f8E5M2 is the top byte of a binary16 (same bias, inf, NaN): F exactly.
/// f8E4M3FN's magnitude bits shifted left 7 are a binary16 of bias 15,
/// i.e. F · 2^-8, subnormals included; its NaN (0x7F / 0xFF) becomes a
/// binary16 NaN.
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
  } else if (ir.target.isX86) {
    half = e4m3HalfWords(ir, bytes, n);
    codes.exponentShift = 8;
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

llvm::Value *emitFp8DequantizeThroughHalf(IrContext &ir, llvm::Value *src,
                                          llvm::Value *index, Lanes lanes,
                                          const ParamValues &params) {
  llvm::IRBuilder<> &b = ir.builder;
  unsigned n = lanes.count;
  if (!halfConversionApplies(ir, n))
    return nullptr;
  HalfCodes codes = halfCodes(ir, src, index, lanes);
  // y = (F·2^k − z)·s, F·2^k exact; with baked scales folded as
  // (F − z/2^k)·(s·2^k), the same real product (see halfCodes).
  double up = std::ldexp(1.0, codes.exponentShift);
  if (scalesFold(ir, codes.exponentShift)) {
    llvm::Value *zero =
        b.CreateFMul(params.zeroCompute, ir.computeConstant(1 / up, n));
    llvm::Value *scale = b.CreateFMul(params.scale, ir.computeConstant(up, n));
    return b.CreateFMul(b.CreateFSub(codes.values, zero), scale);
  }
  llvm::Value *value =
      codes.exponentShift == 0
          ? codes.values
          : b.CreateFMul(codes.values, ir.computeConstant(up, n));
  return b.CreateFMul(b.CreateFSub(value, params.zeroCompute), params.scale);
}

} // namespace qjit::llvmjit
