//===- RobustnessTest.cpp - Hostile input never crashes the parser --------===//
//
// Mutates valid types at random (seeded by QJIT_TEST_SEED) and feeds
// pathological inputs: every result must be a type that round-trips or a
// diagnostic located inside the input. Sanitizer builds make this a cheap
// fuzzer.
//
//===----------------------------------------------------------------------===//
#include "TestSeed.h"
#include "TypeTestUtil.h"

#include <gtest/gtest.h>

#include <random>
#include <string>

namespace qjit {
namespace {

const char *const kSeeds[] = {
    "!quant.uniform<i8:f32, 2.0:10>",
    "tensor<2x3x!quant.uniform<i8<-8:7>:f16:1, {2.0, 3.0:4, "
    "0x3FF0000000000000}>>",
    "tensor<2x4x!quant.uniform<u8:f32:{0:1, 1:2}, {{2.0:120, 3.0:127}, {4.0, "
    "5.0}}>>",
    "!quant.any<i8<-3:4>:f16>",
    "!quant.calibrated<f32<-1.0:1.0>>",
    "!quant<uniform<i8:bf16, 1.5e-3>>",
    "!quant.uniform<!quant.quantile<ui2:f16, {-1.0, -0.5, 0.5, 1.0}>:f32, 2.0>",
    "tensor<*x!quant.uniform<f8E4M3FN<-8:8>:f32, 0.5>>",
};

// Characters and fragments that matter to the grammar.
const char *const kFragments[] = {"<",
                                  ">",
                                  "{",
                                  "}",
                                  ":",
                                  ",",
                                  "-",
                                  "x",
                                  "?",
                                  "*",
                                  "!",
                                  " ",
                                  "\n",
                                  "0x",
                                  "0",
                                  "9",
                                  ".",
                                  "e",
                                  "1.0",
                                  "i",
                                  "u",
                                  "f32",
                                  "!quant.",
                                  "tensor<",
                                  "{{",
                                  "99999999999999999999",
                                  "0xFFFFFFFFFFFFFFFFFFFFFFFF",
                                  "1.0e400",
                                  "\t"};

void expectSane(const std::string &text) {
  ParseResult result = parseType(text);
  if (result) {
    std::string printed = printType(*result.type);
    ParseResult again = parseType(printed);
    ASSERT_TRUE(again) << text << "\nprinted as " << printed << "\n"
                       << again.diagnostic->render();
    EXPECT_EQ(*again.type, *result.type) << text << "\nprinted as " << printed;
  } else {
    ASSERT_TRUE(result.diagnostic);
    EXPECT_GE(result.diagnostic->line, 1u);
    EXPECT_GE(result.diagnostic->column, 1u);
    EXPECT_LE(result.diagnostic->column, text.size() + 1);
    EXPECT_FALSE(result.diagnostic->message.empty());
  }
}

TEST(RobustnessTest, RandomMutationsOfValidTypes) {
  std::mt19937_64 random(qjit::testing::testSeed());
  auto pick = [&](size_t n) {
    return std::uniform_int_distribution<size_t>(0, n - 1)(random);
  };
  for (int iteration = 0; iteration < 20000; ++iteration) {
    std::string text = kSeeds[pick(std::size(kSeeds))];
    for (int edits = 1 + pick(4); edits > 0; --edits) {
      size_t at = pick(text.size() + 1);
      switch (pick(3)) {
      case 0:
        text.insert(at, kFragments[pick(std::size(kFragments))]);
        break;
      case 1:
        text.erase(at, pick(4));
        break;
      default:
        text.insert(at, 1, static_cast<char>(pick(256)));
        break;
      }
    }
    expectSane(text);
    if (::testing::Test::HasFatalFailure())
      return;
  }
}

TEST(RobustnessTest, PathologicalInputs) {
  expectSane(std::string(100000, '{'));
  expectSane("!quant.uniform<i8:f32:{}, " + std::string(100000, '{') + ">");
  expectSane("!quant.uniform<i8:f32:{}, " + std::string(60, '{') + "1.0" +
             std::string(60, '}') + ">");
  expectSane("tensor<" + std::string(50000, '1') + "x!quant.any<i8>>");
  expectSane("!quant.uniform<i8:f32, 1." + std::string(100000, '7') + ">");
  expectSane("!quant.uniform<i8:f32, 0x" + std::string(1000, '0') + "1>");
  expectSane("!quant.uniform<i" + std::string(1000, '9') + ":f32, 1.0>");
  expectSane(std::string("!quant.uniform<i8:f32, 1.0>\0", 28));
  std::string manyAxes = "tensor<";
  for (int i = 0; i < 2000; ++i)
    manyAxes += "1x";
  expectSane(manyAxes + "!quant.uniform<i8:f32:1999, {1.0}>>");
}

TEST(RobustnessTest, NestingDeeperThanTheLimitIsADiagnostic) {
  std::string deep = "!quant.uniform<i8:f32:{}, " + std::string(65, '{') +
                     "1.0" + std::string(65, '}') + ">";
  ParseResult result = parseType(deep);
  ASSERT_FALSE(result);
  EXPECT_NE(result.diagnostic->message.find("nested deeper than 64"),
            std::string::npos);
}

TEST(RobustnessTest, StorageNestedDeeperThanTheLimitIsADiagnostic) {
  // 100000 levels overflowed the stack before the limit existed.
  for (size_t levels : {size_t{10}, size_t{100000}}) {
    std::string deep;
    for (size_t i = 0; i < levels; ++i)
      deep += "!quant.uniform<";
    ParseResult result = parseType(deep);
    ASSERT_FALSE(result);
    EXPECT_NE(result.diagnostic->message.find("at most 8 deep"),
              std::string::npos)
        << result.diagnostic->message;
    EXPECT_EQ(result.diagnostic->column, 9 * 15 + 1); // The 10th type.
  }
}

} // namespace
} // namespace qjit
