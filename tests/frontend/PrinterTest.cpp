//===- PrinterTest.cpp - Canonical prints, as mlir-opt 22 prints them -----===//
//
// Expected strings come from mlir-opt 22 (`"test.op"() : () -> (TYPE)` with
// --allow-unregistered-dialect) unless a comment says qjit differs on
// purpose.
//
//===----------------------------------------------------------------------===//
#include "TypeTestUtil.h"

#include <gtest/gtest.h>

namespace qjit {
namespace {

using testing::canonical;
using testing::parseOk;

struct PrintCase {
  const char *text;
  const char *expected;
};

void PrintTo(const PrintCase &c, std::ostream *os) { *os << c.text; }

class PrintTest : public ::testing::TestWithParam<PrintCase> {};

TEST_P(PrintTest, MatchesMlirOpt) {
  EXPECT_EQ(canonical(GetParam().text), GetParam().expected);
}

TEST_P(PrintTest, ReparsesToTheSameType) {
  TypeDescriptor type = parseOk(GetParam().text);
  EXPECT_EQ(parseOk(printType(type)), type);
}

const PrintCase kPrints[] = {
    // Storage spelling and bounds.
    {"!quant.uniform<si8:f32, 2.0:10>",
     "!quant.uniform<i8:f32, 2.000000e+00:10>"},
    {"!quant.uniform<ui8:f32, 2.0:10>",
     "!quant.uniform<u8:f32, 2.000000e+00:10>"},
    {"!quant.uniform<u08:f32, 1.0>", "!quant.uniform<u8:f32, 1.000000e+00>"},
    {"!quant.uniform<i8<-128:127>:f32, 1.0>",
     "!quant.uniform<i8:f32, 1.000000e+00>"},
    {"!quant.uniform<u8<0x10:0xF0>:f32, 1.0>",
     "!quant.uniform<u8<16:240>:f32, 1.000000e+00>"},
    {"!quant.uniform<i1<-1:0>:f32, 1.0>",
     "!quant.uniform<i1:f32, 1.000000e+00>"},
    {"!quant.uniform<u32<0:4294967295>:f32, 0.1>",
     "!quant.uniform<u32:f32, 1.000000e-01>"},
    // Zero points: omitted when 0, never wrapped.
    {"!quant.uniform<i8:f32, 1.0:0>", "!quant.uniform<i8:f32, 1.000000e+00>"},
    {"!quant.uniform<i8:f32, 1.0:-0x10>",
     "!quant.uniform<i8:f32, 1.000000e+00:-16>"},
    {"!quant.uniform<i8:f32, 1.0:300>",
     "!quant.uniform<i8:f32, 1.000000e+00:300>"},
    // MLIR's float printing rule: 6-digit scientific if exact, else the
    // shortest round-trip digits, else the hex bits.
    {"!quant.uniform<i8:f32, 0.1234567>", "!quant.uniform<i8:f32, 0.1234567>"},
    {"!quant.uniform<i8:f16, 1.0e-7>",
     "!quant.uniform<i8:f16, 9.9999999999999995E-8>"},
    {"!quant.uniform<i8:f32, 123456789.0>",
     "!quant.uniform<i8:f32, 0x419D6F3454000000>"},
    {"!quant.uniform<i8:f64, 1.7976931348623157e308>",
     "!quant.uniform<i8:f64, 1.7976931348623157E+308>"},
    {"!quant.uniform<i8:f64, 4.9e-324>",
     "!quant.uniform<i8:f64, 4.940660e-324>"},
    {"!quant.uniform<i8:f32, 0x3FF0000000000000>",
     "!quant.uniform<i8:f32, 1.000000e+00>"},
    // Per-axis elements are joined by ',' without a space.
    {"!quant.uniform<i8<-8:7>:f16:1, {2.0, 3.0:4}>",
     "!quant.uniform<i8<-8:7>:f16:1, {2.000000e+00,3.000000e+00:4}>"},
    {"!quant.uniform<i8:f32:1, {{1.0, 2.0}, {3.0, 4.0}}>",
     "!quant.uniform<i8:f32:1, "
     "{1.000000e+00,2.000000e+00,3.000000e+00,4.000000e+00}>"},
    // Sub-channel: ', ' everywhere, scales printed in the expressed type.
    {"!quant.uniform<i8:f32:{0:2,1:3}, {{1.0:1,2.0},{3.0,4.0:-4}}>",
     "!quant.uniform<i8:f32:{0:2, 1:3}, {{1.000000e+00:1, 2.000000e+00}, "
     "{3.000000e+00, 4.000000e+00:-4}}>"},
    {"!quant.uniform<u8:f16:{0:1, 1:2}, {{2.0:120, 3.0:127}, {0.1, 5.0}}>",
     "!quant.uniform<u8:f16:{0:1, 1:2}, {{2.000000e+00:120, 3.000000e+00:127}, "
     "{9.997550e-02, 5.000000e+00}}>"},
    {"!quant.uniform<u8:f32:{}, {{1.0}}>",
     "!quant.uniform<u8:f32:{}, {{1.000000e+00}}>"},
    {"!quant.uniform<i8:f32:{0:2}, {{{1.0}}}>",
     "!quant.uniform<i8:f32:{0:2}, {{{1.000000e+00}}}>"},
    {"!quant.uniform<i8:bf16:{0:1}, {{0.1}}>",
     "!quant.uniform<i8:bf16:{0:1}, {{1.000980e-01}}>"},
    {"!quant.uniform<i8:f80:{0:1}, {{0.1}}>",
     "!quant.uniform<i8:f80:{0:1}, {{0.100000000000000005551}}>"},
    {"!quant.uniform<i8:f8E8M0FNU:{0:1}, {{0.1}}>",
     "!quant.uniform<i8:f8E8M0FNU:{0:1}, {{1.250000e-01}}>"},
    {"!quant.uniform<i8:f32:{0:1}, {{123456789.0}}>",
     "!quant.uniform<i8:f32:{0:1}, {{0x4CEB79A3}}>"},
    {"!quant.uniform<i8:f80:{0:1}, {{123456789.0}}>",
     "!quant.uniform<i8:f80:{0:1}, {{0x4019EB79A2A000000000}}>"},
    {"!quant.uniform<i8:f32:{0:1}, {{3.4028234663852886e38}}>",
     "!quant.uniform<i8:f32:{0:1}, {{3.40282347E+38}}>"},
    // qjit prints the true sub-channel zero point (mlir-opt 22 prints -56).
    {"!quant.uniform<u8:f32:{0:1}, {{1.0:200}}>",
     "!quant.uniform<u8:f32:{0:1}, {{1.000000e+00:200}}>"},
    // Other families.
    {"!quant.any<si8:f16>", "!quant.any<i8:f16>"},
    {"!quant.any<i8<-128:127>>", "!quant.any<i8>"},
    {"!quant.any<u8<0:7>>", "!quant.any<u8<0:7>>"},
    {"!quant.calibrated<f32<-0.0:0.5>>",
     "!quant.calibrated<f32<-0.000000e+00:5.000000e-01>>"},
    {"!quant.calibrated<f16<-1.0e10:1.0>>",
     "!quant.calibrated<f16<-1.000000e+10:1.000000e+00>>"},
    {"!quant<uniform<i8:f32, 0.1>>", "!quant.uniform<i8:f32, 1.000000e-01>"},
    // Float storage (upstream main's syntax; mlir-opt 22 lacks it).
    {"!quant.uniform<f8E4M3FN:f32, 0.5>",
     "!quant.uniform<f8E4M3FN:f32, 5.000000e-01>"},
    {"!quant.uniform<f8E5M2<-57344:57344>:f32, 0.5>",
     "!quant.uniform<f8E5M2:f32, 5.000000e-01>"},
    {"!quant.uniform<f4E2M1FN<-4:6>:f32, 0.5>",
     "!quant.uniform<f4E2M1FN<-4:6>:f32, 5.000000e-01>"},
    // Quantile (qjit's syntax, see docs/types.md): entries are doubles,
    // joined by ',' like per-axis scales.
    {"!quant.quantile<ui2:f16, {-1.0, -0.5, 0.5, 0.1}>",
     "!quant.quantile<ui2:f16, {-1.000000e+00,-5.000000e-01,5.000000e-01,"
     "1.000000e-01}>"},
    {"!quant.quantile<i2:f32, {-1.0, -0.5, 0.5}, <-2:0>>",
     "!quant.quantile<i2:f32, {-1.000000e+00,-5.000000e-01,5.000000e-01}, "
     "<-2:0>>"},
    {"!quant.quantile<f4E2M1FN:f16, {-1.0, 0.0, 1.0}, <-1:1>>",
     "!quant.quantile<f4E2M1FN:f16, {-1.000000e+00,0.000000e+00,"
     "1.000000e+00}, <-1:1>>"},
    // Integer table types print as written; entries as in float tables.
    {"!quant.quantile<ui1:i8, {-1.0, -0.0}>",
     "!quant.quantile<ui1:i8, {-1.000000e+00,0.000000e+00}>"},
    {"!quant.quantile<u2:si8, {-128.0, 0.0, 127.0}, <0:2>>",
     "!quant.quantile<u2:si8, {-1.280000e+02,0.000000e+00,1.270000e+02}, "
     "<0:2>>"},
    {"!quant.quantile<ui1:ui16, {65535.0, 0x0000000000000000}>",
     "!quant.quantile<ui1:ui16, {6.553500e+04,0.000000e+00}>"},
    {"!quant.uniform<!quant.quantile<ui1:f16, {-1.0, 1.0}>:f32, 2.0:1>",
     "!quant.uniform<!quant.quantile<ui1:f16, {-1.000000e+00,1.000000e+00}>:"
     "f32, 2.000000e+00:1>"},
    // Tensors.
    {"tensor<2 x ?x3x!quant.uniform<i8:f32, 1.0>>",
     "tensor<2x?x3x!quant.uniform<i8:f32, 1.000000e+00>>"},
    {"tensor<*x!quant.any<i8>>", "tensor<*x!quant.any<i8>>"},
    {"tensor<!quant.any<i8>>", "tensor<!quant.any<i8>>"},
    {"tensor<00x03x!quant.any<i8>>", "tensor<0x3x!quant.any<i8>>"},
};
INSTANTIATE_TEST_SUITE_P(Families, PrintTest, ::testing::ValuesIn(kPrints));

} // namespace
} // namespace qjit
