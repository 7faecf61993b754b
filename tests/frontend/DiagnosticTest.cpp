//===- DiagnosticTest.cpp - Rendering located errors ----------------------===//
#include "Diagnostics.h"
#include "TypeTestUtil.h"

#include <gtest/gtest.h>

namespace qjit {
namespace {

using testing::parseError;

TEST(DiagnosticTest, RenderPutsTheCaretUnderTheColumn) {
  Diagnostic diagnostic;
  diagnostic.inputName = "<input>";
  diagnostic.line = 1;
  diagnostic.column = 5;
  diagnostic.message = "bad";
  diagnostic.sourceLine = "abcdefg";
  EXPECT_EQ(diagnostic.render(), "error: <input>:1:5: bad\nabcdefg\n    ^");
}

TEST(DiagnosticTest, CaretKeepsTabsOfTheSourceLine) {
  Diagnostic diagnostic;
  diagnostic.inputName = "f";
  diagnostic.line = 2;
  diagnostic.column = 4;
  diagnostic.message = "m";
  diagnostic.sourceLine = "\ta\tb";
  EXPECT_EQ(diagnostic.render(), "error: f:2:4: m\n\ta\tb\n\t \t^");
}

TEST(DiagnosticTest, ParseErrorRendersTheOffendingLine) {
  EXPECT_EQ(parseError("!quant.uniform<i8:f32, -1.0>").render(),
            "error: <input>:1:24: scale '-1.0' must be greater than zero\n"
            "!quant.uniform<i8:f32, -1.0>\n"
            "                       ^");
}

TEST(DiagnosticTest, MultiLineInputShowsOnlyTheOffendingLine) {
  Diagnostic diagnostic =
      parseError("tensor<4x\n!quant.uniform<i8:f32:0,\r\n {1.0, 2.0}>>");
  EXPECT_EQ(diagnostic.line, 1u);
  EXPECT_EQ(diagnostic.column, 8u);
  EXPECT_EQ(diagnostic.sourceLine, "tensor<4x");

  Diagnostic scale = parseError("!quant.uniform<i8:f32:0,\r\n {1.0, 0.0}>");
  EXPECT_EQ(scale.line, 2u);
  EXPECT_EQ(scale.column, 8u);
  EXPECT_EQ(scale.sourceLine, " {1.0, 0.0}>");
}

TEST(DiagnosticTest, EndOfInputPointsPastTheLastCharacter) {
  Diagnostic diagnostic = parseError("!quant.any<i8");
  EXPECT_EQ(diagnostic.column, 14u);
  EXPECT_EQ(diagnostic.render(),
            "error: <input>:1:14: expected '>' to close the type, found end of "
            "input\n!quant.any<i8\n             ^");
}

// Found by qjit_fuzz_type_parser: a trailing '\r' without '\n' was cut
// from the shown line, leaving the end-of-input caret past its end.
TEST(DiagnosticTest, CaretAtTheEndStaysOnALoneCarriageReturnLine) {
  Diagnostic alone = parseError("\r");
  EXPECT_EQ(alone.line, 1u);
  EXPECT_EQ(alone.column, 2u);
  EXPECT_EQ(alone.sourceLine, "\r");

  Diagnostic trailing = parseError("!quant.any<i8\r");
  EXPECT_EQ(trailing.column, 15u);
  EXPECT_EQ(trailing.sourceLine, "!quant.any<i8\r");
}

// Found by qjit_fuzz_mlir_types: an offset at the end of a "\r\n" break
// (the end of a type in an .mlir line) is the end of the shown line.
TEST(DiagnosticTest, CaretAtAHiddenCarriageReturnIsTheLinesEnd) {
  Diagnostic diagnostic = detail::locateDiagnostic("ab\r\ncd", 3, "m", "f");
  EXPECT_EQ(diagnostic.line, 1u);
  EXPECT_EQ(diagnostic.sourceLine, "ab");
  EXPECT_EQ(diagnostic.column, 3u);
}

TEST(DiagnosticTest, InputNameComesFromTheOptions) {
  ParseOptions options;
  options.inputName = "types.txt";
  ParseResult result = parseType("!quant.any<i9x>", options);
  ASSERT_FALSE(result);
  EXPECT_EQ(result.diagnostic->inputName, "types.txt");
  EXPECT_EQ(result.diagnostic->render().rfind("error: types.txt:1:12: ", 0),
            0u);
}

TEST(DiagnosticTest, ParseTypeOrErrorCarriesTheRenderedDiagnostic) {
  Expected<TypeDescriptor> bad = parseTypeOrError("!quant.any<i8:f33>");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.status().code(), ErrorCode::InvalidType);
  EXPECT_EQ(bad.status().message().rfind("error: <input>:1:15: ", 0), 0u);
  Expected<TypeDescriptor> good = parseTypeOrError("!quant.any<i8:f32>");
  ASSERT_TRUE(good);
  EXPECT_EQ(good->element.family, QuantType::Family::Any);
}

} // namespace
} // namespace qjit
