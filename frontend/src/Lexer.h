//===- Lexer.h - Tokens of quant type text ----------------------*- C++ -*-===//
//
// Splits type text into tokens with MLIR's lexical rules: bare identifiers
// `[a-zA-Z_][a-zA-Z0-9_$.]*`, `!`-prefixed dialect identifiers, integers
// (decimal or `0x` hex) and float literals (digits `.` digits, optional
// exponent). Whitespace separates tokens and is otherwise ignored.
//
//===----------------------------------------------------------------------===//
#ifndef QJIT_FRONTEND_LEXER_H
#define QJIT_FRONTEND_LEXER_H

#include "SourceRange.h"

#include <cstdint>
#include <string_view>

namespace qjit::detail {

struct Token {
  enum class Kind : uint8_t {
    EndOfInput,
    Identifier,     ///< i8, f32, uniform, tensor, x, ...
    BangIdentifier, ///< !quant.uniform, !quant
    Integer,        ///< 42, 0x2A
    Float,          ///< 1.0, 2., 1.5e-3
    Minus,
    Less,
    Greater,
    Colon,
    Comma,
    LBrace,
    RBrace,
    Question,
    Star,
    Unknown, ///< Any other character.
  };
  Kind kind = Kind::EndOfInput;
  std::string_view text;
  SourceRange range;

  bool is(Kind k) const { return kind == k; }
};

class Lexer {
public:
  explicit Lexer(std::string_view source) : source_(source) {}

  /// The next token; EndOfInput forever at the end.
  Token next();
  /// The token next() would return, without consuming it.
  Token peek();
  /// Where the next token starts (after whitespace).
  size_t position();
  /// True if the character right at the cursor (no whitespace skipped) is c.
  bool atChar(char c) const {
    return pos_ < source_.size() && source_[pos_] == c;
  }
  /// Tensor dimensions follow their own rule: `2x3x` is 2, x, 3, x, and
  /// `0x3` is 0, x, 3 rather than a hex literal. Lexes one decimal
  /// dimension (digits only), or returns an empty-text token if none.
  Token nextDimension();
  /// Consumes a single 'x' separating dimensions (after whitespace).
  bool consumeDimensionSeparator();

private:
  void skipWhitespace();
  Token make(Token::Kind kind, size_t begin);

  std::string_view source_;
  size_t pos_ = 0;
};

} // namespace qjit::detail

#endif
