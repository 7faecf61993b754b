//===- ParserTest.cpp - What the parser builds from each family -----------===//
#include "TypeTestUtil.h"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <tuple>

namespace qjit {
namespace {

using testing::parseOk;
using Family = QuantType::Family;
using Granularity = QuantType::Granularity;

TEST(ParserTest, PerTensorUniform) {
  TypeDescriptor type = parseOk("!quant.uniform<i8:f32, 2.0:10>");
  EXPECT_FALSE(type.tensor);
  const QuantType &q = type.element;
  EXPECT_EQ(q.family, Family::Uniform);
  EXPECT_EQ(q.granularity, Granularity::PerTensor);
  EXPECT_EQ(q.storage.kind, StorageType::Kind::Integer);
  EXPECT_EQ(q.storage.width, 8u);
  EXPECT_TRUE(q.storage.isSigned);
  EXPECT_EQ(q.storage.min, -128);
  EXPECT_EQ(q.storage.max, 127);
  EXPECT_EQ(q.expressed, FloatType::F32);
  EXPECT_EQ(q.scales, std::vector<double>{2.0});
  EXPECT_EQ(q.zeroPoints, std::vector<int64_t>{10});
}

TEST(ParserTest, StorageSpellings) {
  EXPECT_EQ(parseOk("!quant.uniform<si8:f32, 1.0>").element.storage,
            parseOk("!quant.uniform<i8:f32, 1.0>").element.storage);
  EXPECT_EQ(parseOk("!quant.uniform<ui8:f32, 1.0>").element.storage,
            parseOk("!quant.uniform<u8:f32, 1.0>").element.storage);
  StorageType u4 = parseOk("!quant.uniform<u4<1:14>:f32, 1.0>").element.storage;
  EXPECT_FALSE(u4.isSigned);
  EXPECT_EQ(u4.width, 4u);
  EXPECT_EQ(u4.min, 1);
  EXPECT_EQ(u4.max, 14);
  EXPECT_FALSE(u4.hasDefaultBounds());
  StorageType i32 = parseOk("!quant.uniform<i32:f32, 1.0>").element.storage;
  EXPECT_EQ(i32.min, INT32_MIN);
  EXPECT_EQ(i32.max, INT32_MAX);
  EXPECT_EQ(parseOk("!quant.uniform<u32:f32, 1.0>").element.storage.max,
            4294967295);
  EXPECT_EQ(parseOk("!quant.uniform<u08:f32, 1.0>").element.storage.width, 8u);
  StorageType hexBounds =
      parseOk("!quant.uniform<u8<0x10:0xF0>:f32, 1.0>").element.storage;
  EXPECT_EQ(hexBounds.min, 16);
  EXPECT_EQ(hexBounds.max, 240);
}

TEST(ParserTest, FloatStorage) {
  struct Case {
    const char *name;
    FloatType type;
    int64_t limit;
  };
  for (Case c : {Case{"f8E4M3FN", FloatType::F8E4M3FN, 448},
                 Case{"f8E5M2", FloatType::F8E5M2, 57344},
                 Case{"f4E2M1FN", FloatType::F4E2M1FN, 6}}) {
    StorageType storage =
        parseOk(std::string("!quant.uniform<") + c.name + ":f32, 1.0>")
            .element.storage;
    EXPECT_EQ(storage.kind, StorageType::Kind::Float) << c.name;
    EXPECT_EQ(storage.floatType, c.type) << c.name;
    EXPECT_EQ(storage.min, -c.limit) << c.name;
    EXPECT_EQ(storage.max, c.limit) << c.name;
  }
  StorageType bounded =
      parseOk("!quant.uniform<f8E4M3FN<-100:100>:f32, 1.0>").element.storage;
  EXPECT_EQ(bounded.min, -100);
  EXPECT_EQ(bounded.max, 100);
}

TEST(ParserTest, EveryMlirFloatNameIsAnExpressedType) {
  for (std::string_view name :
       {"f4E2M1FN", "f6E2M3FN", "f6E3M2FN", "f8E3M4", "f8E4M3", "f8E4M3FN",
        "f8E4M3FNUZ", "f8E4M3B11FNUZ", "f8E5M2", "f8E5M2FNUZ", "f8E8M0FNU",
        "bf16", "f16", "tf32", "f32", "f64", "f80", "f128"}) {
    TypeDescriptor type = parseOk("!quant.any<i8:" + std::string(name) + ">");
    EXPECT_EQ(type.element.expressed, floatTypeFromName(name)) << name;
  }
}

TEST(ParserTest, ScaleLiterals) {
  auto scale = [](std::string_view literal) {
    return parseOk("!quant.uniform<i8:f64, " + std::string(literal) + ">")
        .element.scales.at(0);
  };
  EXPECT_EQ(scale("2."), 2.0);
  EXPECT_EQ(scale("1.0e-3"), 1.0e-3);
  EXPECT_EQ(scale("1.5E+2"), 150.0);
  EXPECT_EQ(scale("01.50"), 1.5);
  // A hex literal is the raw bit pattern of a double.
  EXPECT_EQ(scale("0x3FF8000000000000"), 1.5);
  EXPECT_EQ(scale("0x0000000000000001"), std::bit_cast<double>(uint64_t{1}));
}

TEST(ParserTest, ZeroPointsAreDecimalOrHexIntegers) {
  auto zeroPoint = [](std::string_view literal) {
    return parseOk("!quant.uniform<i8:f32, 1.0:" + std::string(literal) + ">")
        .element.zeroPoints.at(0);
  };
  EXPECT_EQ(zeroPoint("-0x10"), -16);
  EXPECT_EQ(zeroPoint("300"), 300); // Outside i8: accepted, never wrapped.
  EXPECT_EQ(zeroPoint("-9223372036854775808"), INT64_MIN);
  EXPECT_EQ(zeroPoint("9223372036854775807"), INT64_MAX);
}

TEST(ParserTest, PerAxisUniform) {
  const QuantType q =
      parseOk("!quant.uniform<i8<-8:7>:f16:1, {2.0, 3.0:4}>").element;
  EXPECT_EQ(q.granularity, Granularity::PerAxis);
  EXPECT_EQ(q.axis, 1);
  EXPECT_EQ(q.expressed, FloatType::F16);
  EXPECT_EQ(q.scales, (std::vector<double>{2.0, 3.0}));
  EXPECT_EQ(q.zeroPoints, (std::vector<int64_t>{0, 4}));
  EXPECT_TRUE(q.scaleShape.empty());
}

TEST(ParserTest, NestedPerAxisListsAreFlattenedAsInMlir) {
  const QuantType q =
      parseOk("!quant.uniform<i8:f32:1, {{1.0, 2.0}, {3.0, 4.0}}>").element;
  EXPECT_EQ(q.scales, (std::vector<double>{1.0, 2.0, 3.0, 4.0}));
  EXPECT_TRUE(q.scaleShape.empty());
}

TEST(ParserTest, SubChannelUniform) {
  const QuantType q = parseOk("!quant.uniform<u8:f32:{0:1, 1:2}, "
                              "{{2.0:120, 3.0:127}, {4.0, 5.0}}>")
                          .element;
  EXPECT_EQ(q.granularity, Granularity::SubChannel);
  EXPECT_EQ(q.blockSizes, (std::vector<BlockSize>{{0, 1}, {1, 2}}));
  EXPECT_EQ(q.scaleShape, (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(q.scales, (std::vector<double>{2.0, 3.0, 4.0, 5.0}));
  EXPECT_EQ(q.zeroPoints, (std::vector<int64_t>{120, 127, 0, 0}));
}

TEST(ParserTest, SubChannelAllowsEmptyBlockSpecAndFlatList) {
  const QuantType q = parseOk("!quant.uniform<u8:f32:{}, {1.0}>").element;
  EXPECT_TRUE(q.blockSizes.empty());
  EXPECT_EQ(q.scaleShape, std::vector<int64_t>{1});
}

TEST(ParserTest, SubChannelScalesAreHeldInTheExpressedType) {
  // As MLIR stores them: rounded to f16.
  const QuantType q = parseOk("!quant.uniform<i8:f16:{0:1}, {{0.1}}>").element;
  EXPECT_EQ(q.scales.at(0), 0.0999755859375);
}

TEST(ParserTest, AnyAndCalibrated) {
  const QuantType any = parseOk("!quant.any<i8<-8:7>>").element;
  EXPECT_EQ(any.family, Family::Any);
  EXPECT_FALSE(any.expressed);
  EXPECT_EQ(any.storage.min, -8);
  EXPECT_EQ(parseOk("!quant.any<u4:f32>").element.expressed, FloatType::F32);

  const QuantType cal = parseOk("!quant.calibrated<f32<-1.0:1.5>>").element;
  EXPECT_EQ(cal.family, Family::Calibrated);
  EXPECT_EQ(cal.expressed, FloatType::F32);
  EXPECT_EQ(cal.calibratedMin, -1.0);
  EXPECT_EQ(cal.calibratedMax, 1.5);
}

TEST(ParserTest, Quantile) {
  const QuantType q =
      parseOk("!quant.quantile<ui2:f16, {-1.0, -0.5, 0.5, 1.0}>").element;
  EXPECT_EQ(q.family, Family::Quantile);
  EXPECT_EQ(q.storage.width, 2u);
  EXPECT_FALSE(q.storage.isSigned);
  EXPECT_EQ(q.expressed, FloatType::F16);
  EXPECT_EQ(q.table, (std::vector<double>{-1.0, -0.5, 0.5, 1.0}));

  const QuantType bounded =
      parseOk("!quant.quantile<ui4:f16, {-1.0, -0.5, 0.0, 0.5, 1.0}, <0:4>>")
          .element;
  EXPECT_EQ(bounded.storage.min, 0);
  EXPECT_EQ(bounded.storage.max, 4);
  EXPECT_EQ(bounded.table.size(), 5u);
}

TEST(ParserTest, QuantileWithAnIntegerTable) {
  const QuantType q =
      parseOk("!quant.quantile<ui2:si8, {-128.0, -0.0, 1.0, 127.0}>").element;
  EXPECT_FALSE(q.expressed);
  ASSERT_TRUE(q.integerTable);
  EXPECT_EQ(q.integerTable->width, 8u);
  EXPECT_TRUE(q.integerTable->isSigned);
  EXPECT_TRUE(q.integerTable->signednessPrefix);
  EXPECT_EQ(q.table, (std::vector<double>{-128.0, 0.0, 1.0, 127.0}));
  EXPECT_FALSE(std::signbit(q.table[1])) << "an integer's zero is +0";

  for (auto [name, isSigned, prefix, min, max] :
       {std::tuple{"i1", true, false, int64_t{-1}, int64_t{0}},
        std::tuple{"ui32", false, true, int64_t{0}, int64_t{4294967295}},
        std::tuple{"si32", true, true, int64_t{-2147483648},
                   int64_t{2147483647}}}) {
    const QuantType t =
        parseOk(std::string("!quant.quantile<u1:") + name + ", {0.0, 0.0}>")
            .element;
    ASSERT_TRUE(t.integerTable) << name;
    EXPECT_EQ(t.integerTable->isSigned, isSigned) << name;
    EXPECT_EQ(t.integerTable->signednessPrefix, prefix) << name;
    EXPECT_EQ(t.integerTable->minValue(), min) << name;
    EXPECT_EQ(t.integerTable->maxValue(), max) << name;
    EXPECT_EQ(integerTypeName(*t.integerTable), name);
  }
}

TEST(ParserTest, QuantileAsUniformStorage) {
  const QuantType q = parseOk("!quant.uniform<!quant.quantile<ui2:f16, "
                              "{-1.0, -0.5, 0.5, 1.0}><1:3>:f32, 2.0:1>")
                          .element;
  ASSERT_EQ(q.storage.kind, StorageType::Kind::Quantile);
  ASSERT_TRUE(q.storage.quantile);
  EXPECT_EQ(q.storage.quantile->table.size(), 4u);
  EXPECT_EQ(q.storage.width, 2u);
  EXPECT_FALSE(q.storage.isSigned);
  EXPECT_EQ(q.storage.defaultMin(), 0);
  EXPECT_EQ(q.storage.defaultMax(), 3);
  EXPECT_EQ(q.storage.min, 1);
  EXPECT_EQ(q.storage.max, 3);
}

TEST(ParserTest, PrettyFormAndWhitespace) {
  TypeDescriptor plain = parseOk("!quant.uniform<i8<-3:4>:f32, 1.0:2>");
  EXPECT_EQ(parseOk("!quant<uniform<i8<-3:4>:f32, 1.0:2>>"), plain);
  EXPECT_EQ(parseOk("!quant< uniform <i8<-3:4>:f32, 1.0:2> >"), plain);
  EXPECT_EQ(parseOk("  !quant.uniform< i8 < -3 : 4 > :\n f32 ,\t1.0 : 2 >\n"),
            plain);
}

TEST(ParserTest, TensorShapes) {
  TypeDescriptor ranked = parseOk("tensor<2x?x3x!quant.uniform<i8:f32, 1.0>>");
  ASSERT_TRUE(ranked.tensor);
  EXPECT_TRUE(ranked.tensor->ranked);
  EXPECT_EQ(ranked.tensor->dims,
            (std::vector<int64_t>{2, TensorShape::kDynamic, 3}));

  TypeDescriptor unranked = parseOk("tensor<*x!quant.uniform<i8:f32, 1.0>>");
  ASSERT_TRUE(unranked.tensor);
  EXPECT_FALSE(unranked.tensor->ranked);

  TypeDescriptor scalar = parseOk("tensor<!quant.uniform<i8:f32, 1.0>>");
  ASSERT_TRUE(scalar.tensor);
  EXPECT_TRUE(scalar.tensor->dims.empty());

  EXPECT_EQ(parseOk("tensor< 2 x 3 x !quant.any<i8>>").tensor->dims,
            (std::vector<int64_t>{2, 3}));
  // `0x3` in a shape is 0, x, 3 (not hex), as in MLIR.
  EXPECT_EQ(parseOk("tensor<0x3x!quant.any<i8>>").tensor->dims,
            (std::vector<int64_t>{0, 3}));
}

} // namespace
} // namespace qjit
