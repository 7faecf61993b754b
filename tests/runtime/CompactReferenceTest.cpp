//===- CompactReferenceTest.cpp - Float and quantile storage reference ----===//
//
// docs/semantics.md section 8 against independent oracles: llvm::APFloat's
// Float8E4M3FN / Float8E5M2 / Float4E2M1FN semantics for float storage
// (every code for dcast; edges, ties and random values for qcast) and a
// brute-force nearest-entry search in exact (IEEE quad) arithmetic for
// quantile tables.
//
//===----------------------------------------------------------------------===//
#include "Nf4Table.h"
#include "ReferenceTestSupport.h"
#include "TestSeed.h"

#include "qjit/TypeParser.h"

#include <llvm/ADT/APFloat.h>
#include <llvm/ADT/APInt.h>

#include <cmath>
#include <limits>
#include <random>

namespace qjit::testing {
namespace {

const llvm::fltSemantics &semanticsOf(FloatType format) {
  switch (format) {
  case FloatType::F8E5M2:
    return llvm::APFloat::Float8E5M2();
  case FloatType::F4E2M1FN:
    return llvm::APFloat::Float4E2M1FN();
  default:
    return llvm::APFloat::Float8E4M3FN();
  }
}

unsigned formatBits(FloatType format) {
  return format == FloatType::F4E2M1FN ? 4 : 8;
}

double oracleValue(FloatType format, uint32_t code) {
  llvm::APFloat value(semanticsOf(format),
                      llvm::APInt(formatBits(format), code));
  bool losesInfo = false;
  value.convert(llvm::APFloat::IEEEdouble(), llvm::APFloat::rmNearestTiesToEven,
                &losesInfo);
  return value.convertToDouble();
}

double largestOf(FloatType format) {
  return llvm::APFloat::getLargest(semanticsOf(format)).convertToDouble();
}

/// The code section 8.2 gives for v (scale 1, zero point 0, default bounds)
/// through APFloat's own conversion.
uint32_t oracleCode(FloatType format, double v, bool saturate) {
  double largest = largestOf(format);
  uint32_t signBit = 1u << (formatBits(format) - 1);
  if (std::isnan(v))
    return format == FloatType::F8E5M2     ? 0x7E
           : format == FloatType::F8E4M3FN ? 0x7F
                                           : 0; // f4: the zero point, 0.
  bool fourBit = format == FloatType::F4E2M1FN;
  if (saturate || fourBit)
    v = std::fmax(-largest, std::fmin(largest, v));
  llvm::APFloat value(v);
  bool losesInfo = false;
  value.convert(semanticsOf(format), llvm::APFloat::rmNearestTiesToEven,
                &losesInfo);
  if (value.isNaN()) // f8E4M3FN overflow: NaN with v's sign (8.2).
    return (std::signbit(v) ? signBit : 0) | 0x7F;
  return static_cast<uint32_t>(value.bitcastToAPInt().getZExtValue());
}

StorageSpec floatStorage(FloatType format, bool packed = false) {
  StorageSpec storage;
  storage.kind = StorageType::Kind::Float;
  storage.floatFormat = format;
  storage.bits = formatBits(format);
  storage.isSigned = false;
  auto largest = static_cast<int64_t>(largestOf(format));
  storage.min = -largest;
  storage.max = largest;
  storage.packed = packed;
  return storage;
}

std::vector<uint32_t> quantizeF32(const KernelSpec &spec,
                                  const std::vector<float> &values) {
  std::vector<uint8_t> out(values.size(), 0xAA);
  EXPECT_TRUE(runReference(spec, values.data(), out.data(), values.size()));
  return {out.begin(), out.end()};
}

constexpr FloatType kFormats[] = {FloatType::F8E4M3FN, FloatType::F8E5M2,
                                  FloatType::F4E2M1FN};

TEST(CompactReference, DequantizeEveryCodeMatchesAPFloat) {
  for (FloatType format : kFormats) {
    SCOPED_TRACE(std::string(floatTypeName(format)));
    uint32_t codes = 1u << formatBits(format);
    std::vector<uint8_t> stored(codes);
    for (uint32_t c = 0; c < codes; ++c)
      stored[c] = static_cast<uint8_t>(c);
    for (auto [scale, zeroPoint] :
         {std::pair{1.0, int64_t(0)}, std::pair{0.375, int64_t(3)}}) {
      KernelSpec spec = perTensorSpec(KernelOp::DCast, floatStorage(format),
                                      ValueType::F32, scale, zeroPoint);
      std::vector<float> out(codes);
      ASSERT_TRUE(runReference(spec, stored.data(), out.data(), codes));
      for (uint32_t c = 0; c < codes; ++c) {
        double value = oracleValue(format, c);
        float want = (static_cast<float>(value) - float(zeroPoint)) *
                     static_cast<float>(scale);
        if (std::isnan(want))
          EXPECT_TRUE(std::isnan(out[c])) << "code " << c;
        else
          EXPECT_EQ(std::bit_cast<uint32_t>(out[c]),
                    std::bit_cast<uint32_t>(want))
              << "code " << c << " value " << value;
      }
    }
  }
}

/// Edge values, both signs, and the midpoint of every pair of adjacent
/// codes with its neighbours in f32.
std::vector<float> edgeInputs(FloatType format) {
  std::vector<float> values = {448,
                               464,
                               465,
                               480,
                               57344,
                               59392,
                               61439,
                               61440,
                               65536,
                               6,
                               7,
                               8,
                               0.25f,
                               0.75f,
                               0x1p-9f,
                               0x1p-10f,
                               0x1p-11f,
                               0x1p-16f,
                               0x1p-17f,
                               1e-30f,
                               0,
                               1e30f,
                               std::numeric_limits<float>::infinity(),
                               std::numeric_limits<float>::denorm_min()};
  uint32_t half = 1u << (formatBits(format) - 1);
  for (uint32_t c = 0; c + 1 < half; ++c) {
    double a = oracleValue(format, c), b = oracleValue(format, c + 1);
    if (!std::isfinite(a) || !std::isfinite(b))
      continue;
    float mid = static_cast<float>((a + b) / 2); // Exact.
    values.insert(values.end(),
                  {mid, std::nextafter(mid, 0.0f), std::nextafter(mid, 1e9f)});
  }
  size_t count = values.size();
  for (size_t i = 0; i < count; ++i)
    values.push_back(-values[i]);
  return values;
}

TEST(CompactReference, QuantizeEdgesMatchAPFloat) {
  for (FloatType format : kFormats)
    for (bool saturate : {true, false}) {
      SCOPED_TRACE(std::string(floatTypeName(format)) +
                   (saturate ? " saturate" : " no-saturate"));
      QuantKnobs knobs;
      knobs.saturate = saturate || format == FloatType::F4E2M1FN;
      KernelSpec spec = perTensorSpec(KernelOp::QCast, floatStorage(format),
                                      ValueType::F32, 1.0, 0, knobs);
      std::vector<float> inputs = edgeInputs(format);
      inputs.push_back(std::numeric_limits<float>::quiet_NaN());
      std::vector<uint32_t> codes = quantizeF32(spec, inputs);
      for (size_t i = 0; i < inputs.size(); ++i) {
        // A zero point of 0 is not added: -0 stays -0 (8.2, step 2).
        double v = static_cast<double>(inputs[i]);
        EXPECT_EQ(codes[i], oracleCode(format, v, saturate))
            << "x = " << inputs[i];
      }
    }
}

TEST(CompactReference, QuantizeNamedEdges) {
  auto code = [](FloatType format, bool saturate, float x) {
    QuantKnobs knobs;
    knobs.saturate = saturate;
    KernelSpec spec = perTensorSpec(KernelOp::QCast, floatStorage(format),
                                    ValueType::F32, 1.0, 0, knobs);
    return quantizeF32(spec, {x})[0];
  };
  float inf = std::numeric_limits<float>::infinity();
  EXPECT_EQ(code(FloatType::F8E4M3FN, true, 464), 0x7Eu);  // tie → 448
  EXPECT_EQ(code(FloatType::F8E4M3FN, true, 465), 0x7Eu);  // saturates
  EXPECT_EQ(code(FloatType::F8E4M3FN, false, 464), 0x7Eu); // tie → 448
  EXPECT_EQ(code(FloatType::F8E4M3FN, false, 465), 0x7Fu); // NaN
  EXPECT_EQ(code(FloatType::F8E4M3FN, false, -465), 0xFFu);
  EXPECT_EQ(code(FloatType::F8E4M3FN, true, inf), 0x7Eu);  // 448
  EXPECT_EQ(code(FloatType::F8E4M3FN, true, -inf), 0xFEu); // -448
  EXPECT_EQ(code(FloatType::F8E5M2, false, 61439), 0x7Bu); // 57344
  EXPECT_EQ(code(FloatType::F8E5M2, false, 61440), 0x7Cu); // tie → +inf
  EXPECT_EQ(code(FloatType::F8E5M2, true, 61440), 0x7Bu);
  EXPECT_EQ(code(FloatType::F8E5M2, false, -inf), 0xFCu);
  EXPECT_EQ(code(FloatType::F8E4M3FN, true, -0x1p-11f), 0x80u); // -0
  // -0 with zero point 0: -0, as ONNX QuantizeLinear, PyTorch's
  // to(float8_e4m3fn) and MLIR's lowering store it (8.2, step 2).
  EXPECT_EQ(code(FloatType::F8E4M3FN, true, -0.0f), 0x80u);
  EXPECT_EQ(code(FloatType::F4E2M1FN, true, 7), 0x7u); // 6
}

TEST(CompactReference, QuantizeRandomMatchesAPFloat) {
  std::mt19937_64 rng(testSeed());
  std::uniform_int_distribution<uint32_t> bits;
  for (FloatType format : kFormats)
    for (bool saturate : {true, false}) {
      QuantKnobs knobs;
      knobs.saturate = saturate || format == FloatType::F4E2M1FN;
      KernelSpec spec = perTensorSpec(KernelOp::QCast, floatStorage(format),
                                      ValueType::F32, 1.0, 0, knobs);
      // Random f32 values with exponents around the format's range.
      std::vector<float> inputs;
      for (int i = 0; i < 4000; ++i) {
        uint32_t word = bits(rng);
        int exponent = static_cast<int>(word % 40) - 22;
        float mantissa = 1.0f + float(bits(rng) & 0x7FFFFF) * 0x1p-23f;
        inputs.push_back(
            std::ldexp(word & 0x80000000u ? -mantissa : mantissa, exponent));
      }
      std::vector<uint32_t> codes = quantizeF32(spec, inputs);
      for (size_t i = 0; i < inputs.size(); ++i)
        ASSERT_EQ(codes[i], oracleCode(format, inputs[i], saturate))
            << floatTypeName(format) << " x = " << inputs[i];
    }
}

TEST(CompactReference, ExplicitBoundsNarrowTheFormat) {
  KernelSpec spec =
      perTensorSpec(KernelOp::QCast, floatStorage(FloatType::F8E4M3FN),
                    ValueType::F32, 1.0, 0);
  spec.storage.min = -100;
  spec.storage.max = 100;
  std::vector<float> inputs = {100, 200, -1000, 90, 1000};
  std::vector<uint32_t> codes = quantizeF32(spec, inputs);
  EXPECT_EQ(oracleValue(FloatType::F8E4M3FN, codes[0]), 96);
  EXPECT_EQ(oracleValue(FloatType::F8E4M3FN, codes[1]), 96);
  EXPECT_EQ(oracleValue(FloatType::F8E4M3FN, codes[2]), -96);
  EXPECT_EQ(oracleValue(FloatType::F8E4M3FN, codes[3]), 88);
  spec.knobs.saturate = false; // Format overflow → NaN, else the bounds.
  codes = quantizeF32(spec, inputs);
  EXPECT_EQ(codes[1], codes[0]);
  EXPECT_EQ(codes[4], 0x7Fu);
}

TEST(CompactReference, NaNAndZeroPoint) {
  QuantKnobs knobs;
  float nan = std::numeric_limits<float>::quiet_NaN();
  KernelSpec spec =
      perTensorSpec(KernelOp::QCast, floatStorage(FloatType::F4E2M1FN),
                    ValueType::F32, 0.5, 3, knobs);
  // f4E2M1FN has no NaN: NaN stores the zero point, 3 (code 0x5).
  EXPECT_EQ(quantizeF32(spec, {nan, 1.0f})[0], 0x5u);
  EXPECT_EQ(quantizeF32(spec, {nan, 1.0f})[1], 0x6u); // 1/0.5 + 3 = 5 → 4
  spec.storage = floatStorage(FloatType::F8E5M2);
  EXPECT_EQ(quantizeF32(spec, {nan})[0], 0x7Eu);
}

TEST(CompactReference, PackedFp4) {
  KernelSpec spec = perTensorSpec(
      KernelOp::QCast, floatStorage(FloatType::F4E2M1FN, /*packed=*/true),
      ValueType::F32, 1.0, 0);
  std::vector<float> in = {0.5f, -6.0f, 3.0f};
  std::vector<uint8_t> out(2, 0xFF);
  ASSERT_TRUE(runReference(spec, in.data(), out.data(), in.size()));
  EXPECT_EQ(out[0], 0xF1); // -6 = 0xF (high nibble), 0.5 = 0x1
  EXPECT_EQ(out[1], 0x05); // 3 = 0x5, zero tail
  spec.op = KernelOp::DCast;
  spec.knobs = {};
  std::vector<float> back(3);
  ASSERT_TRUE(runReference(spec, out.data(), back.data(), 3));
  EXPECT_EQ(back, in);
}

// --- Quantile ---------------------------------------------------------------

std::vector<double> asFloats(std::vector<double> table) {
  for (double &entry : table)
    entry = static_cast<float>(entry);
  return table;
}

StorageSpec quantileStorage(const std::vector<double> &table, unsigned bits,
                            int64_t min, bool packed) {
  StorageSpec storage = integerStorage(bits, false, packed);
  storage.kind = StorageType::Kind::Quantile;
  storage.min = min;
  storage.max = min + static_cast<int64_t>(table.size()) - 1;
  storage.table = table;
  return storage;
}

/// The lowest index of the entries nearest v, by exact distances.
size_t nearestIndex(const std::vector<double> &table, double v) {
  auto distance = [&](double entry) {
    llvm::APFloat d(llvm::APFloat::IEEEquad(), llvm::APInt(128, 0));
    d = llvm::APFloat(entry);
    bool losesInfo = false;
    d.convert(llvm::APFloat::IEEEquad(), llvm::APFloat::rmNearestTiesToEven,
              &losesInfo);
    llvm::APFloat w(v);
    w.convert(llvm::APFloat::IEEEquad(), llvm::APFloat::rmNearestTiesToEven,
              &losesInfo);
    d.subtract(w, llvm::APFloat::rmNearestTiesToEven);
    d.clearSign();
    return d;
  };
  size_t best = 0;
  for (size_t k = 1; k < table.size(); ++k)
    if (distance(table[k]).compare(distance(table[best])) ==
        llvm::APFloat::cmpLessThan)
      best = k;
  return best;
}

void checkQuantileQcast(const std::vector<double> &table, uint64_t seed) {
  KernelSpec spec =
      perTensorSpec(KernelOp::QCast, quantileStorage(table, 4, 0, false),
                    ValueType::F32, 1.0, 0);
  std::vector<float> inputs = {0, -0.0f, 2, -2, 1e-20f, -1e-20f};
  for (size_t a = 0; a < table.size(); ++a)
    for (size_t b = 0; b < table.size(); ++b) {
      float mid = static_cast<float>((table[a] + table[b]) / 2);
      inputs.insert(inputs.end(), {mid, std::nextafter(mid, -2.0f),
                                   std::nextafter(mid, 2.0f)});
    }
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> uniform(-1.5f, 1.5f);
  for (int i = 0; i < 2000; ++i)
    inputs.push_back(uniform(rng));
  std::vector<uint32_t> stored = quantizeF32(spec, inputs);
  for (size_t i = 0; i < inputs.size(); ++i)
    ASSERT_EQ(stored[i], nearestIndex(table, double(inputs[i] + 0.0f)))
        << "x = " << inputs[i];
  float inf = std::numeric_limits<float>::infinity();
  std::vector<uint32_t> ends =
      quantizeF32(spec, {inf, -inf, std::numeric_limits<float>::quiet_NaN()});
  EXPECT_EQ(ends[0], nearestIndex(table, 1e30));
  EXPECT_EQ(ends[1], nearestIndex(table, -1e30));
  EXPECT_EQ(ends[2], nearestIndex(table, 0.0)); // the zero point
}

TEST(CompactReference, QuantileNearestEntryNf4) {
  checkQuantileQcast(asFloats(nf4Table()), testSeed());
}

TEST(CompactReference, QuantileUnsortedWithDuplicatesTiesToLowerIndex) {
  std::vector<double> table = {0.5,  -1, 0.5,  0,  2,     -1, 0.25, 1,
                               -0.5, 3,  0.75, -2, 0.125, 1,  0,    -3};
  checkQuantileQcast(table, testSeed());
  // Exactly between entries 0 (0.5) and 6 (0.25): the lower index, 0.
  KernelSpec spec =
      perTensorSpec(KernelOp::QCast, quantileStorage(table, 4, 0, false),
                    ValueType::F32, 1.0, 0);
  EXPECT_EQ(quantizeF32(spec, {0.375f})[0], 0u);
  EXPECT_EQ(quantizeF32(spec, {0.0625f})[0], 3u); // 0 (index 3) vs 0.125
}

TEST(CompactReference, QuantileDequantizeClampsOutOfBounds) {
  std::vector<double> table = {-1, -0.5, 0.5, 1, 2};
  KernelSpec spec =
      perTensorSpec(KernelOp::DCast, quantileStorage(table, 4, 2, false),
                    ValueType::F32, 2.0, 1);
  std::vector<uint8_t> stored = {0, 2, 3, 6, 7, 15, 0x13};
  std::vector<float> out(stored.size());
  ASSERT_TRUE(runReference(spec, stored.data(), out.data(), stored.size()));
  // (t - 1) * 2; stored 0 → entry 0, 7 and 15 → entry 4; 0x13 reads 3.
  EXPECT_EQ(out, (std::vector<float>{-4, -4, -3, 2, 2, 2, -3}));
}

TEST(CompactReference, VerifyRejectsMalformedCompactStorage) {
  auto verify = [](KernelSpec spec) { return verifyKernelSpec(spec).code(); };
  KernelSpec fp8 =
      perTensorSpec(KernelOp::QCast, floatStorage(FloatType::F8E4M3FN),
                    ValueType::F32, 1.0, 0);
  EXPECT_EQ(verify(fp8), ErrorCode::Ok);
  KernelSpec bad = fp8;
  bad.storage.isSigned = true; // Codes are unsigned bit patterns.
  EXPECT_EQ(verify(bad), ErrorCode::InvalidArgument);
  bad = fp8;
  bad.storage.max = 449;
  EXPECT_EQ(verify(bad), ErrorCode::InvalidArgument);
  bad = fp8;
  bad.storage.floatFormat = FloatType::F8E4M3FNUZ;
  EXPECT_EQ(verify(bad), ErrorCode::InvalidArgument);
  bad = perTensorSpec(KernelOp::QCast, integerStorage(8, true), ValueType::F32,
                      1.0, 0);
  bad.knobs.saturate = false; // Integers always saturate.
  EXPECT_EQ(verify(bad), ErrorCode::InvalidArgument);
  bad = perTensorSpec(KernelOp::QCast, floatStorage(FloatType::F4E2M1FN, true),
                      ValueType::F32, 1.0, 0);
  bad.knobs.saturate = false; // f4E2M1FN cannot overflow to anything.
  EXPECT_EQ(verify(bad), ErrorCode::InvalidArgument);
  bad = perTensorSpec(KernelOp::DCast, quantileStorage({-1, 0, 1}, 2, 0, false),
                      ValueType::F32, 1.0, 0);
  EXPECT_EQ(verify(bad), ErrorCode::Ok);
  bad.storage.table[1] = std::numeric_limits<double>::quiet_NaN();
  EXPECT_EQ(verify(bad), ErrorCode::InvalidArgument);
  bad.storage.table = {-1, 0}; // One entry per stored value in [0, 2].
  EXPECT_EQ(verify(bad), ErrorCode::InvalidArgument);
}

TEST(CompactReference, LoweringPrintsAndNormalizes) {
  auto spec = [](std::string_view text, KernelOp op, LoweringOptions options) {
    Expected<TypeDescriptor> type = parseTypeOrError(text);
    EXPECT_TRUE(type) << type.status().message();
    Expected<KernelSpec> lowered = lowerToKernelSpec(*type, op, options);
    EXPECT_TRUE(lowered) << lowered.status().message();
    return lowered ? lowered->canonicalString() : std::string();
  };
  LoweringOptions onnx;
  onnx.knobs = knobsForPreset(SemanticsPreset::Onnx);
  onnx.knobs.saturate = false;
  EXPECT_EQ(spec("!quant.uniform<f8E4M3FN:f32, 0.5>", KernelOp::QCast, onnx),
            "qcast storage=f8E4M3FN<-448:448> unpacked expressed=f32 "
            "compute=f32 layout=per-tensor scales=[0.5] zero-points=[0] "
            "knobs=divide,before-rounding,nearest-even,no-saturate "
            "shape=none");
  EXPECT_EQ(spec("!quant.uniform<f4E2M1FN:f16, 0.5>", KernelOp::QCast, onnx),
            "qcast storage=f4E2M1FN<-6:6> packed expressed=f16 compute=f32 "
            "layout=per-tensor scales=[0.5] zero-points=[0] "
            "knobs=divide,before-rounding,nearest-even,saturate shape=none");
  EXPECT_EQ(spec("!quant.quantile<u2:f16, {-1.0, -0.1, 0.5, 1.0}>",
                 KernelOp::DCast, {}),
            "dcast storage=quantile-u2<0:3> packed "
            "table=[-1,-0.0999755859375,0.5,1] expressed=f16 compute=f32 "
            "layout=per-tensor scales=[1] zero-points=[0] "
            "knobs=divide,before-rounding,nearest-even shape=none");
  EXPECT_EQ(
      spec("!quant.uniform<!quant.quantile<i2:f32, {-1.0, 0.1, 0.5, 1.0}>:f64, "
           "2.0:1>",
           KernelOp::QCast, onnx),
      "qcast storage=quantile-i2<-2:1> packed table=[-1,0.10000000149011612,"
      "0.5,1] expressed=f64 compute=f64 layout=per-tensor scales=[2] "
      "zero-points=[1] knobs=divide,before-rounding,nearest-even shape=none");
  Expected<TypeDescriptor> other =
      parseTypeOrError("!quant.uniform<f8E4M3FNUZ:f32, 0.5>");
  if (other) { // MLIR spells it; kernels do not store it.
    EXPECT_EQ(lowerToKernelSpec(*other, KernelOp::QCast).status().code(),
              ErrorCode::Unsupported);
  }
}

} // namespace
} // namespace qjit::testing
