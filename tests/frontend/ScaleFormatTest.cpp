//===- ScaleFormatTest.cpp - Runtime scales in their own formats ----------===//
//
// docs/semantics.md 2.3: the value of each scale code (decodeScale, the one
// decoder the reference, the tool and the Python module share), and how
// lowering treats LoweringOptions::scaleFormat: the expressed type's own
// format is Expressed, other formats need runtime parameters (a dynamic
// qcast writes f16 or bf16 of f32 values, f32 of f64), and the canonical
// string names them.
//
//===----------------------------------------------------------------------===//
#include "qjit/KernelSpec.h"
#include "qjit/TypeParser.h"
#include "qjit/internal/HostFloat.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <string>

namespace qjit {
namespace {

double decodeByte(uint8_t code) {
  return decodeScale(ScaleFormat::E8M0, ValueType::F32, &code, 0);
}

double decodeBits(ScaleFormat format, uint16_t bits) {
  return decodeScale(format, ValueType::F32, &bits, 0);
}

TEST(ScaleFormat, E8M0CodesArePowersOfTwo) {
  EXPECT_EQ(decodeByte(127), 1.0);
  EXPECT_EQ(decodeByte(128), 2.0);
  EXPECT_EQ(decodeByte(126), 0.5);
  EXPECT_EQ(decodeByte(1), std::ldexp(1.0, -126));
  EXPECT_EQ(decodeByte(254), std::ldexp(1.0, 127));
  // 2^-127 is an f32 subnormal, still exact.
  EXPECT_EQ(decodeByte(0), std::ldexp(1.0, -127));
  EXPECT_EQ(e8m0BitsToFloat(0), std::ldexp(1.0f, -127));
  EXPECT_TRUE(std::isnan(decodeByte(255)));
}

TEST(ScaleFormat, HalfCodesKeepSubnormalsInfinitiesAndNaN) {
  EXPECT_EQ(decodeBits(ScaleFormat::F16, 0x3C00), 1.0);
  EXPECT_EQ(decodeBits(ScaleFormat::F16, 0x0001), std::ldexp(1.0, -24));
  EXPECT_EQ(decodeBits(ScaleFormat::F16, 0x03FF), 1023 * std::ldexp(1.0, -24));
  EXPECT_EQ(decodeBits(ScaleFormat::F16, 0x7C00), INFINITY);
  EXPECT_EQ(decodeBits(ScaleFormat::F16, 0xFC00), -INFINITY);
  EXPECT_TRUE(std::isnan(decodeBits(ScaleFormat::F16, 0x7E00)));
}

TEST(ScaleFormat, Bfloat16CodesAreTheTopOfAnF32) {
  EXPECT_EQ(decodeBits(ScaleFormat::BF16, 0x3F80), 1.0);
  EXPECT_EQ(decodeBits(ScaleFormat::BF16, 0x3FC0), 1.5);
  EXPECT_EQ(decodeBits(ScaleFormat::BF16, 0x0001), std::ldexp(1.0, -133));
  EXPECT_EQ(decodeBits(ScaleFormat::BF16, 0xFF80), -INFINITY);
  EXPECT_TRUE(std::isnan(decodeBits(ScaleFormat::BF16, 0x7FC1)));
}

TEST(ScaleFormat, ExpressedReadsTheExpressedFormat) {
  double wide = 0.1;
  EXPECT_EQ(decodeScale(ScaleFormat::Expressed, ValueType::F64, &wide, 0), 0.1);
  float values[] = {0.25f, 3.0f};
  EXPECT_EQ(decodeScale(ScaleFormat::Expressed, ValueType::F32, values, 1),
            3.0);
  EXPECT_EQ(decodeScale(ScaleFormat::F32, ValueType::F64, values, 0), 0.25);
  uint16_t half = 0x4000;
  EXPECT_EQ(decodeScale(ScaleFormat::Expressed, ValueType::F16, &half, 0), 2.0);
}

TEST(ScaleFormat, NamesRoundTrip) {
  for (ScaleFormat format :
       {ScaleFormat::Expressed, ScaleFormat::F32, ScaleFormat::F16,
        ScaleFormat::BF16, ScaleFormat::E8M0}) {
    Expected<ScaleFormat> parsed = parseScaleFormat(scaleFormatName(format));
    ASSERT_TRUE(parsed);
    EXPECT_EQ(*parsed, format);
  }
  EXPECT_FALSE(parseScaleFormat("fp8"));
}

Expected<KernelSpec> lower(const std::string &text, KernelOp op,
                           ScaleFormat format, bool runtime = true,
                           DynamicScheme dynamic = DynamicScheme::None) {
  Expected<TypeDescriptor> type = parseTypeOrError(text);
  EXPECT_TRUE(type) << type.status().message();
  LoweringOptions options;
  options.runtimeParameters = runtime;
  options.scaleFormat = format;
  options.dynamicScheme = dynamic;
  return lowerToKernelSpec(*type, op, options);
}

TEST(ScaleFormat, TheExpressedTypesOwnFormatIsExpressed) {
  struct Case {
    const char *type;
    ScaleFormat own;
  };
  for (Case c : {Case{"!quant.uniform<i8:f32, 1.0>", ScaleFormat::F32},
                 Case{"!quant.uniform<i8:f16, 1.0>", ScaleFormat::F16},
                 Case{"!quant.uniform<i8:bf16, 1.0>", ScaleFormat::BF16}}) {
    Expected<KernelSpec> own = lower(c.type, KernelOp::DCast, c.own);
    Expected<KernelSpec> plain =
        lower(c.type, KernelOp::DCast, ScaleFormat::Expressed);
    ASSERT_TRUE(own) << own.status().message();
    ASSERT_TRUE(plain) << plain.status().message();
    EXPECT_EQ(own->params.scaleFormat, ScaleFormat::Expressed);
    EXPECT_EQ(own->canonicalString(), plain->canonicalString());
    EXPECT_EQ(own->hash(), plain->hash());
  }
}

TEST(ScaleFormat, CanonicalStringNamesOtherFormats) {
  const char *mxfp4 =
      "tensor<2x64x!quant.uniform<f4E2M1FN:f32:{0:1, 1:32}, ?>>";
  Expected<KernelSpec> e8m0 = lower(mxfp4, KernelOp::DCast, ScaleFormat::E8M0);
  Expected<KernelSpec> f32 = lower(mxfp4, KernelOp::DCast, ScaleFormat::F32);
  ASSERT_TRUE(e8m0) << e8m0.status().message();
  ASSERT_TRUE(f32) << f32.status().message();
  EXPECT_EQ(e8m0->params.scaleFormat, ScaleFormat::E8M0);
  EXPECT_NE(e8m0->canonicalString().find(" params=runtime(scales=e8m0) "),
            std::string::npos)
      << e8m0->canonicalString();
  EXPECT_NE(f32->canonicalString().find(" params=runtime "), std::string::npos)
      << f32->canonicalString();
  EXPECT_NE(e8m0->kernelName(), f32->kernelName());
  EXPECT_FALSE(*e8m0 == *f32);
  EXPECT_TRUE(verifyKernelSpec(*e8m0));

  Expected<KernelSpec> f16 =
      lower("!quant.uniform<i8:f64, 1.0>", KernelOp::QCast, ScaleFormat::F16);
  ASSERT_TRUE(f16) << f16.status().message();
  EXPECT_NE(f16->canonicalString().find("params=runtime(scales=f16)"),
            std::string::npos);
}

TEST(ScaleFormat, ScastReadsNoScales) {
  Expected<KernelSpec> scast =
      lower("!quant.uniform<i8:f32, 1.0>", KernelOp::SCast, ScaleFormat::E8M0,
            /*runtime=*/false);
  ASSERT_TRUE(scast) << scast.status().message();
  EXPECT_EQ(scast->params.scaleFormat, ScaleFormat::Expressed);
}

TEST(ScaleFormatErrors, OtherFormatsNeedRuntimeParameters) {
  Expected<KernelSpec> baked =
      lower("!quant.uniform<i8:f32, 1.0>", KernelOp::DCast, ScaleFormat::E8M0,
            /*runtime=*/false);
  ASSERT_FALSE(baked);
  EXPECT_EQ(baked.status().code(), ErrorCode::InvalidArgument);
  EXPECT_NE(baked.status().message().find("runtime parameters"),
            std::string::npos)
      << baked.status().message();
}

TEST(ScaleFormat, DynamicQcastWritesF16OrBf16OfF32AndF32OfF64) {
  // docs/semantics.md 11.7, named in the canonical string.
  for (ScaleFormat format : {ScaleFormat::F16, ScaleFormat::BF16}) {
    Expected<KernelSpec> spec =
        lower("!quant.uniform<i8:f32, ?>", KernelOp::QCast, format,
              /*runtime=*/true, DynamicScheme::AbsMax);
    ASSERT_TRUE(spec) << spec.status().message();
    EXPECT_NE(spec->canonicalString().find(
                  "params=dynamic(absmax,scales=" +
                  std::string(scaleFormatName(format)) + ")"),
              std::string::npos)
        << spec->canonicalString();
  }
  EXPECT_TRUE(lower("!quant.uniform<i8:f64, ?>", KernelOp::QCast,
                    ScaleFormat::F32, true, DynamicScheme::MinMax));
  // Its own format is no other format.
  Expected<KernelSpec> own =
      lower("!quant.uniform<i8:f32, ?>", KernelOp::QCast, ScaleFormat::F32,
            true, DynamicScheme::AbsMax);
  ASSERT_TRUE(own);
  EXPECT_EQ(own->params.scaleFormat, ScaleFormat::Expressed);
}

TEST(ScaleFormatErrors, DynamicQcastWritesE8m0InMxOnlyAndNoHalfOfF64) {
  // E8M0 scales are the mx scheme's (11.8), which writes nothing else.
  Expected<KernelSpec> absmax =
      lower("!quant.uniform<i8:f32, ?>", KernelOp::QCast, ScaleFormat::E8M0,
            /*runtime=*/true, DynamicScheme::AbsMax);
  ASSERT_FALSE(absmax);
  EXPECT_EQ(absmax.status().code(), ErrorCode::InvalidArgument);
  EXPECT_NE(absmax.status().message().find("--dynamic=mx"), std::string::npos)
      << absmax.status().message();
  Expected<KernelSpec> mx =
      lower("!quant.uniform<i8:f32, ?>", KernelOp::QCast, ScaleFormat::F16,
            /*runtime=*/true, DynamicScheme::Mx);
  ASSERT_FALSE(mx);
  EXPECT_EQ(mx.status().code(), ErrorCode::InvalidArgument);
  EXPECT_NE(mx.status().message().find("e8m0"), std::string::npos);
  for (ScaleFormat format : {ScaleFormat::Expressed, ScaleFormat::E8M0}) {
    Expected<KernelSpec> e8m0 =
        lower("!quant.uniform<i8:f32, ?>", KernelOp::QCast, format,
              /*runtime=*/true, DynamicScheme::Mx);
    ASSERT_TRUE(e8m0) << e8m0.status().message();
    EXPECT_EQ(e8m0->params.scaleFormat, ScaleFormat::E8M0);
  }
  Expected<KernelSpec> half =
      lower("!quant.uniform<i8:f64, ?>", KernelOp::QCast, ScaleFormat::F16,
            /*runtime=*/true, DynamicScheme::AbsMax);
  ASSERT_FALSE(half);
  EXPECT_NE(half.status().message().find("f32 of f64"), std::string::npos)
      << half.status().message();
}

TEST(ScaleFormatErrors, VerifierRejectsWhatLoweringNormalizes) {
  Expected<KernelSpec> spec = lower("!quant.uniform<i8:f32, 1.0>",
                                    KernelOp::DCast, ScaleFormat::Expressed);
  ASSERT_TRUE(spec);
  KernelSpec own = *spec;
  own.params.scaleFormat = ScaleFormat::F32;
  EXPECT_FALSE(verifyKernelSpec(own));
  KernelSpec baked = *lower("!quant.uniform<i8:f32, 1.0>", KernelOp::DCast,
                            ScaleFormat::Expressed, /*runtime=*/false);
  baked.params.scaleFormat = ScaleFormat::E8M0;
  EXPECT_FALSE(verifyKernelSpec(baked));
}

} // namespace
} // namespace qjit
