//===- LexerTest.cpp - Tokens of quant type text --------------------------===//
#include "Lexer.h"

#include <gtest/gtest.h>

#include <vector>

namespace qjit::detail {
namespace {

using Kind = Token::Kind;

std::vector<Token> lexAll(std::string_view text) {
  Lexer lexer(text);
  std::vector<Token> tokens;
  while (true) {
    Token token = lexer.next();
    tokens.push_back(token);
    if (token.is(Kind::EndOfInput))
      return tokens;
  }
}

std::vector<Kind> kinds(std::string_view text) {
  std::vector<Kind> out;
  for (const Token &token : lexAll(text))
    out.push_back(token.kind);
  return out;
}

TEST(LexerTest, PunctuationAndIdentifiers) {
  EXPECT_EQ(kinds("!quant.uniform<i8:f32, {}>?*-"),
            (std::vector<Kind>{Kind::BangIdentifier, Kind::Less,
                               Kind::Identifier, Kind::Colon, Kind::Identifier,
                               Kind::Comma, Kind::LBrace, Kind::RBrace,
                               Kind::Greater, Kind::Question, Kind::Star,
                               Kind::Minus, Kind::EndOfInput}));
}

TEST(LexerTest, IdentifiersTakeDotsDigitsAndDollars) {
  std::vector<Token> tokens = lexAll("u8.5 f8E4M3FN a$b _x");
  ASSERT_EQ(tokens.size(), 5u);
  EXPECT_EQ(tokens[0].text, "u8.5");
  EXPECT_EQ(tokens[1].text, "f8E4M3FN");
  EXPECT_EQ(tokens[2].text, "a$b");
  EXPECT_EQ(tokens[3].text, "_x");
}

TEST(LexerTest, NumbersFollowMlirRules) {
  std::vector<Token> tokens = lexAll("12 0x1F 1. 2.5e-3 1.5E+2 1e5 0xi32 1.5e");
  std::vector<std::pair<Kind, std::string_view>> expected = {
      {Kind::Integer, "12"},      {Kind::Integer, "0x1F"},
      {Kind::Float, "1."},        {Kind::Float, "2.5e-3"},
      {Kind::Float, "1.5E+2"},    {Kind::Integer, "1"},
      {Kind::Identifier, "e5"},   {Kind::Integer, "0"},
      {Kind::Identifier, "xi32"}, {Kind::Float, "1.5"},
      {Kind::Identifier, "e"},    {Kind::EndOfInput, ""}};
  ASSERT_EQ(tokens.size(), expected.size());
  for (size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ(tokens[i].kind, expected[i].first) << i;
    EXPECT_EQ(tokens[i].text, expected[i].second) << i;
  }
}

TEST(LexerTest, RangesAreByteOffsetsAfterWhitespace) {
  std::vector<Token> tokens = lexAll(" \n\tab  <");
  ASSERT_EQ(tokens.size(), 3u);
  EXPECT_EQ(tokens[0].range.offset, 3u);
  EXPECT_EQ(tokens[0].range.length, 2u);
  EXPECT_EQ(tokens[1].range.offset, 7u);
  EXPECT_EQ(tokens[2].range.offset, 8u);
}

TEST(LexerTest, UnknownCharactersAreTokensNotFailures) {
  EXPECT_EQ(kinds("# ! \"\x01"),
            (std::vector<Kind>{Kind::Unknown, Kind::Unknown, Kind::Unknown,
                               Kind::Unknown, Kind::EndOfInput}));
}

TEST(LexerTest, DimensionsSplitAtX) {
  Lexer lexer("2x03 x?x");
  EXPECT_EQ(lexer.nextDimension().text, "2");
  EXPECT_TRUE(lexer.consumeDimensionSeparator());
  EXPECT_EQ(lexer.nextDimension().text, "03");
  EXPECT_TRUE(lexer.consumeDimensionSeparator());
  EXPECT_TRUE(lexer.next().is(Kind::Question));
  EXPECT_TRUE(lexer.consumeDimensionSeparator());
  EXPECT_FALSE(lexer.consumeDimensionSeparator());
}

TEST(LexerTest, PeekDoesNotConsume) {
  Lexer lexer("a b");
  EXPECT_EQ(lexer.peek().text, "a");
  EXPECT_EQ(lexer.next().text, "a");
  EXPECT_EQ(lexer.next().text, "b");
  EXPECT_TRUE(lexer.next().is(Kind::EndOfInput));
  EXPECT_TRUE(lexer.next().is(Kind::EndOfInput));
}

} // namespace
} // namespace qjit::detail
