//===- VerifierTest.cpp - Every rule, its message and its column ----------===//
#include "TypeTestUtil.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace qjit {
namespace {

using ::testing::HasSubstr;
using testing::parseError;
using testing::parseOk;

struct RejectCase {
  const char *text;
  unsigned column;
  const char *message; ///< A substring of the expected message.
};

void PrintTo(const RejectCase &c, std::ostream *os) { *os << c.text; }

class RejectTest : public ::testing::TestWithParam<RejectCase> {};

TEST_P(RejectTest, ReportsTheRuleAtTheOffendingToken) {
  const RejectCase &c = GetParam();
  Diagnostic diagnostic = parseError(c.text);
  EXPECT_EQ(diagnostic.line, 1u);
  EXPECT_EQ(diagnostic.column, c.column) << diagnostic.render();
  EXPECT_THAT(diagnostic.message, HasSubstr(c.message));
}

// Columns are 1-based bytes; each message names the offending value.
const RejectCase kTypeRules[] = {
    // Storage.
    {"!quant.uniform<i33:f32, 1.0>", 16, "'i33' has an unsupported width"},
    {"!quant.uniform<i0:f32, 1.0>", 16, "'i0' has an unsupported width"},
    {"!quant.uniform<u:f32, 1.0>", 16, "illegal storage type 'u'"},
    {"!quant.uniform<int8:f32, 1.0>", 16, "illegal storage type 'int8'"},
    {"!quant.uniform<f32:f32, 1.0>", 16,
     "float type 'f32' cannot be a storage"},
    {"!quant.uniform<i8<-129:0>:f32, 1.0>", 19,
     "storage minimum '-129' is below the range of i8 [-128, 127]"},
    {"!quant.uniform<u8<0:256>:f32, 1.0>", 21,
     "storage maximum '256' is above the range of u8 [0, 255]"},
    {"!quant.uniform<i8<3:3>:f32, 1.0>", 21,
     "storage maximum '3' must be greater than the minimum 3"},
    {"!quant.uniform<f8E4M3FN<-449:0>:f32, 1.0>", 25,
     "storage minimum '-449' is below the range of f8E4M3FN [-448, 448]"},
    // Expressed type.
    {"!quant.uniform<i8:i32, 1.0>", 19, "expected an expressed type"},
    {"!quant.any<i8:foo>", 15, "found 'foo'"},
    // Scales.
    {"!quant.uniform<i8:f32, 0x7FF8000000000000>", 24,
     "scale '0x7FF8000000000000' is NaN"},
    {"!quant.uniform<i8:f32, 1.0e400>", 24, "scale '1.0e400' is infinite"},
    {"!quant.uniform<i8:f32, -1.0>", 24,
     "scale '-1.0' must be greater than zero"},
    {"!quant.uniform<i8:f32, 0.0>", 24,
     "scale '0.0' must be greater than zero"},
    {"!quant.uniform<i8:f80, 0.0>", 24,
     "scale '0.0' must be greater than zero"},
    {"!quant.uniform<i8:f16, 70000.0>", 24,
     "scale '70000.0' is outside the range of f16"},
    {"!quant.uniform<i8:f32, 1.0e-46>", 24,
     "scale '1.0e-46' is outside the range of f32"},
    {"!quant.uniform<i8:f32:0, {1.0, 0x7FF0000000000000}>", 32,
     "scale '0x7FF0000000000000' is infinite"},
    {"!quant.uniform<i8:f16:{0:1}, {{1.0}, {65520.0}}>", 39,
     "scale '65520.0' is outside the range of f16"},
    // Literals.
    {"!quant.uniform<i8:f32, 2>", 24, "scale '2' is not a float literal"},
    {"!quant.uniform<i8:f32, 1e-3>", 24, "scale '1e-3' is not a float literal"},
    {"!quant.uniform<i8:f32, 0X3F>", 24, "scale '0X3F' is not a float literal"},
    {"!quant.uniform<i8<-1.5:1>:f32, 1.0>", 19,
     "expected storage minimum (an integer), found float literal '-1.5'"},
    {"!quant.uniform<i8:f32, -0x3FF0000000000000>", 24,
     "must not have a leading '-'"},
    {"!quant.uniform<i8:f32, 0x10000000000000000>", 24,
     "wider than the 64 bits"},
    {"!quant.uniform<i8:f32, nan>", 24,
     "expected scale (a float literal), found 'nan'"},
    {"!quant.uniform<i8:f32, 1.0:9223372036854775808>", 28,
     "does not fit in 64 bits"},
    {"!quant.uniform<i8:f32, 1.0:+3>", 28,
     "expected zero point (an integer), found '+'"},
    {"!quant.uniform<i8:f32:2147483648, {1.0}>", 23, "does not fit in 32 bits"},
    // Axes and blocks.
    {"!quant.uniform<i8:f32:-1, {1.0}>", 23,
     "quantized axis '-1' must not be negative"},
    {"!quant.uniform<i8:f32:{-1:2}, {{1.0}}>", 24,
     "block axis '-1' must not be negative"},
    {"!quant.uniform<i8:f32:{0:1, 0:2}, {{1.0}}>", 29,
     "duplicate block axis '0'"},
    {"!quant.uniform<i8:f32:{0:0}, {{1.0}}>", 26,
     "block size '0' for axis 0 must be positive"},
    {"!quant.uniform<i8:f32:{0:1}, {{1.0}, {2.0, 3.0}}>", 38,
     "inconsistent scale list: element 1 has shape [2] but element 0 has [1]"},
    {"!quant.uniform<i8:f32:1, {1.0, {2.0}}>", 32, "inconsistent scale list"},
    {"!quant.uniform<i8:f32:{0:1}, {}>", 31,
     "expected scale (a float literal), found '}'"},
    // Calibrated.
    {"!quant.calibrated<f32<1.0:-1.0>>", 27,
     "calibrated maximum '-1.0' must be greater than the minimum '1.0'"},
    {"!quant.calibrated<f32<0x7FF0000000000000:0x7FF0000000000000>>", 42,
     "calibrated maximum '0x7FF0000000000000' must be greater than the "
     "minimum '0x7FF0000000000000'"},
    // Quantile.
    {"!quant.quantile<ui2:f16, {-1.0, 1.0}>", 26,
     "quantile table has 2 entries but storage u2 [0, 3] has 4 values"},
    {"!quant.quantile<ui1:f16, {-1.0, 70000.0}>", 33,
     "table entry '70000.0' is outside the range of f16"},
    {"!quant.quantile<f4E2M1FN:f16, {-1.0, 0.0, 1.0}, <-6:6>>", 31,
     "quantile table has 3 entries but storage f4E2M1FN [-6, 6] has 13 values"},
    {"!quant.quantile<ui1:i8, {-1.0, 0.5}>", 32,
     "table entry '0.5' is not a value of i8: it is not an integer"},
    {"!quant.quantile<ui1:ui8, {-1.0, 1.0}>", 27,
     "table entry '-1.0' is not a value of ui8, whose range is [0, 255]"},
    {"!quant.quantile<ui1:si8, {-129.0, 1.0}>", 27,
     "table entry '-129.0' is not a value of si8, whose range is [-128, 127]"},
    {"!quant.quantile<ui1:i8, {0x7FF8000000000000, 1.0}>", 26,
     "table entry '0x7FF8000000000000' is not finite"},
    {"!quant.quantile<ui4:tensor<1xf32>, {1.0, 0.0, -1.0}>", 21,
     "quantile type must be a float or integer type, found 'tensor'"},
    {"!quant.quantile<ui1:u8, {0.0, 1.0}>", 21,
     "quantile type must be a float or integer type, found 'u8'"},
    {"!quant.quantile<ui1:i64, {0.0, 1.0}>", 21,
     "table type 'i64' has an unsupported width; integer table types are 1 "
     "to 32 bits wide"},
    {"!quant.quantile<ui2<0:1>:f16, {-1.0, 1.0}>", 20,
     "bounds go after the table"},
    {"!quant.uniform<!quant.any<i8>:f32, 1.0>", 16,
     "only a !quant.quantile type can be used as storage"},
    {"!quant.uniform<!quant.quantile<ui1:f16, {-1.0, 1.0}><0:2>:f32, 1.0>", 56,
     "storage maximum '2' is above the range of the quantile storage [0, 1]"},
    // Syntax.
    {"!quant.uniform <i8:f32, 1.0>", 16,
     "expected '<' right after '!quant.uniform'"},
    {"!quant <uniform<i8:f32, 1.0>>", 8, "expected '<' right after '!quant'"},
    {"!quant.foo<i8>", 8, "unknown quant type 'foo'"},
    {"!quant.__", 8, "unknown quant type '__'"},
    {"!quant.<i8:f32, 1.0>", 8, "after '!quant.', found '<'"},
    {"!foo.bar<i8>", 1, "unknown type '!foo.bar'"},
    {"!quant.uniform<i8:f32, 1.0>x", 28,
     "unexpected 'x' after the end of the type"},
    {"!quant.uniform<i8:f32, 1.0", 27,
     "expected '>' to close the type, found end of input"},
    {"", 1, "expected a !quant type or tensor<...>, found end of input"},
};
INSTANTIATE_TEST_SUITE_P(TypeRules, RejectTest,
                         ::testing::ValuesIn(kTypeRules));

const RejectCase kTensorRules[] = {
    {"tensor<2x3x!quant.uniform<i8:f32:5, {1.0}>>", 34,
     "quantized axis 5 is out of range for a rank-2 tensor"},
    {"tensor<2x3x!quant.uniform<i8:f32:1, {1.0, 2.0}>>", 10,
     "tensor dimension 1 has size 3 but the type has 2 scales"},
    {"tensor<!quant.uniform<i8:f32:0, {1.0}>>", 1, "rank-0 tensor (a scalar)"},
    {"tensor<*x!quant.uniform<i8:f32:{0:1}, {{1.0}}>>", 8,
     "a sub-channel type needs a ranked tensor"},
    {"tensor<!quant.uniform<i8:f32:{}, {1.0}>>", 1, "rank-0 tensor (a scalar)"},
    {"tensor<0x3x!quant.uniform<i8:f32:{0:1}, {{1.0}}>>", 8,
     "tensor dimension 0 has size 0"},
    {"tensor<6x2x!quant.uniform<i8:f32:{2:1}, {{1.0}}>>", 35,
     "block axis 2 is out of range for a rank-2 tensor"},
    {"tensor<6x2x!quant.uniform<i8:f32:{0:4}, {{1.0}, {2.0}}>>", 37,
     "block size 4 does not divide tensor dimension 0 of size 6"},
    {"tensor<6x2x!quant.uniform<i8:f32:{0:3}, {{1.0, 2.0}}>>", 41,
     "the scale list has 1 entries along axis 0 but the tensor shape and "
     "block sizes need 2"},
    {"tensor<6x2x!quant.uniform<i8:f32:{0:3}, {{1.0, 2.0}, {3.0, 4.0}}>>", 41,
     "the scale list has 2 entries along axis 1 but the tensor shape and "
     "block sizes need 1 (axis 1 has no block size: one block spans it)"},
    {"tensor<6x2x!quant.uniform<i8:f32:{0:3}, {1.0, 2.0}>>", 41,
     "the scale list has rank 1 but the tensor has rank 2"},
    {"tensor<2x*x!quant.any<i8>>", 10, "expected a !quant element type"},
    {"tensor<2x3xf32>", 12,
     "expected a !quant element type in the tensor, found 'f32'"},
    {"tensor<2x!quant.any<i8>, \"enc\">", 24, "unexpected ',' in tensor<...>"},
    {"tensor<2 3x!quant.any<i8>>", 10,
     "expected 'x' after tensor dimension '2', found '3'"},
    {"tensor<2x3>", 11, "expected 'x' after tensor dimension '3', found '>'"},
    {"tensor<99999999999999999999x!quant.any<i8>>", 8,
     "does not fit in 64 bits"},
};
INSTANTIATE_TEST_SUITE_P(TensorRules, RejectTest,
                         ::testing::ValuesIn(kTensorRules));

TEST(VerifierTest, TensorRulesAcceptWhatMlirAccepts) {
  parseOk("tensor<2x?x!quant.uniform<i8:f32:1, {1.0, 2.0, 3.0}>>");
  parseOk("tensor<*x!quant.uniform<i8:f32:1, {1.0, 2.0, 3.0}>>");
  parseOk("tensor<6x2x!quant.uniform<i8:f32:{0:3}, {{1.0}, {2.0}}>>");
  parseOk("tensor<?x2x!quant.uniform<i8:f32:{0:3}, {{1.0}, {2.0}, {3.0}}>>");
  parseOk("tensor<6x2x!quant.uniform<i8:f32:{}, {{1.0}}>>");
  parseOk("tensor<0x3x!quant.uniform<i8:f32, 1.0>>");
  // Per-axis and sub-channel types on their own are types, not scalars.
  parseOk("!quant.uniform<i8:f32:3, {1.0}>");
  parseOk("!quant.uniform<i8:f32:{4:2}, {1.0}>");
}

TEST(VerifierTest, ErrorsOnLaterLinesReportLineAndColumn) {
  Diagnostic diagnostic = parseError("!quant.uniform<i8:f32,\n  -1.0>");
  EXPECT_EQ(diagnostic.line, 2u);
  EXPECT_EQ(diagnostic.column, 3u);
  EXPECT_EQ(diagnostic.sourceLine, "  -1.0>");
}

TEST(VerifierTest, VerifyElementOfTensorChecksAShapeGivenLater) {
  QuantType perAxis = parseOk("!quant.uniform<i8:f32:1, {1.0, 2.0}>").element;
  EXPECT_TRUE(verifyElementOfTensor(perAxis, TensorShape{true, {4, 2}}).isOk());
  Status bad = verifyElementOfTensor(perAxis, TensorShape{true, {4, 3}});
  EXPECT_EQ(bad.code(), ErrorCode::InvalidType);
  EXPECT_THAT(bad.message(), HasSubstr("has size 3 but the type has 2 scales"));
}

TEST(VerifierTest, VerifyElementOfTensorRejectsHandBuiltNonsense) {
  QuantType perAxis = parseOk("!quant.uniform<i8:f32:0, {1.0}>").element;
  perAxis.axis = -1;
  EXPECT_FALSE(verifyElementOfTensor(perAxis, TensorShape{true, {1}}).isOk());

  QuantType blocked = parseOk("!quant.uniform<i8:f32:{0:1}, {1.0}>").element;
  blocked.blockSizes[0].size = 0;
  EXPECT_FALSE(verifyElementOfTensor(blocked, TensorShape{true, {1}}).isOk());
  blocked = parseOk("!quant.uniform<i8:f32:{0:1}, {1.0}>").element;
  blocked.scaleShape = {INT64_MAX, 2};
  EXPECT_THAT(verifyElementOfTensor(blocked, TensorShape{true, {1}}).message(),
              HasSubstr("malformed quant type"));

  QuantType noExpressed = perAxis;
  noExpressed.expressed.reset();
  EXPECT_FALSE(
      verifyElementOfTensor(noExpressed, TensorShape{true, {1}}).isOk());
}

TEST(VerifierTest, AQuantileHasExactlyOneTableType) {
  QuantType quantile = parseOk("!quant.quantile<ui1:f16, {-1.0, 1.0}>").element;
  QuantType neither = quantile;
  neither.expressed.reset();
  EXPECT_THAT(verifyElementOfTensor(neither, TensorShape{true, {1}}).message(),
              HasSubstr("quantile type must be a float or integer type"));
  QuantType both = quantile;
  both.integerTable = IntegerType{8, true, false};
  EXPECT_THAT(verifyElementOfTensor(both, TensorShape{true, {1}}).message(),
              HasSubstr("malformed quant type"));
  QuantType wide = neither;
  wide.integerTable = IntegerType{33, true, false};
  EXPECT_THAT(verifyElementOfTensor(wide, TensorShape{true, {1}}).message(),
              HasSubstr("malformed quant type"));
  QuantType uniform = parseOk("!quant.uniform<i8:f32, 1.0>").element;
  uniform.integerTable = IntegerType{8, true, false};
  EXPECT_THAT(verifyElementOfTensor(uniform, TensorShape{true, {1}}).message(),
              HasSubstr("malformed quant type"));
}

} // namespace
} // namespace qjit
