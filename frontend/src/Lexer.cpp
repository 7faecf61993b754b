//===- Lexer.cpp - Tokens of quant type text ------------------------------===//
#include "Lexer.h"

namespace qjit::detail {

namespace {
bool isDigit(char c) { return c >= '0' && c <= '9'; }
bool isHexDigit(char c) {
  return isDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}
bool isLetter(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}
bool isIdentifierStart(char c) { return isLetter(c) || c == '_'; }
bool isIdentifierChar(char c) {
  return isLetter(c) || isDigit(c) || c == '_' || c == '$' || c == '.';
}
bool isWhitespace(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}
} // namespace

void Lexer::skipWhitespace() {
  while (pos_ < source_.size() && isWhitespace(source_[pos_]))
    ++pos_;
}

Token Lexer::make(Token::Kind kind, size_t begin) {
  Token token;
  token.kind = kind;
  token.text = source_.substr(begin, pos_ - begin);
  token.range = {begin, pos_ - begin};
  return token;
}

size_t Lexer::position() {
  skipWhitespace();
  return pos_;
}

Token Lexer::peek() {
  size_t saved = pos_;
  Token token = next();
  pos_ = saved;
  return token;
}

Token Lexer::next() {
  skipWhitespace();
  size_t begin = pos_;
  if (pos_ >= source_.size())
    return make(Token::Kind::EndOfInput, begin);
  auto at = [&](size_t i) { return i < source_.size() ? source_[i] : '\0'; };
  char c = source_[pos_++];
  switch (c) {
  case '-':
    return make(Token::Kind::Minus, begin);
  case '<':
    return make(Token::Kind::Less, begin);
  case '>':
    return make(Token::Kind::Greater, begin);
  case ':':
    return make(Token::Kind::Colon, begin);
  case ',':
    return make(Token::Kind::Comma, begin);
  case '{':
    return make(Token::Kind::LBrace, begin);
  case '}':
    return make(Token::Kind::RBrace, begin);
  case '?':
    return make(Token::Kind::Question, begin);
  case '*':
    return make(Token::Kind::Star, begin);
  case '!':
    if (!isIdentifierStart(at(pos_)))
      return make(Token::Kind::Unknown, begin);
    while (isIdentifierChar(at(pos_)))
      ++pos_;
    return make(Token::Kind::BangIdentifier, begin);
  default:
    break;
  }
  if (isIdentifierStart(c)) {
    while (isIdentifierChar(at(pos_)))
      ++pos_;
    return make(Token::Kind::Identifier, begin);
  }
  if (!isDigit(c))
    return make(Token::Kind::Unknown, begin);
  // As MLIR: `0x` followed by a hex digit starts a hex integer; `0xi32`
  // is 0 followed by an identifier.
  if (c == '0' && at(pos_) == 'x' && isHexDigit(at(pos_ + 1))) {
    pos_ += 2;
    while (isHexDigit(at(pos_)))
      ++pos_;
    return make(Token::Kind::Integer, begin);
  }
  while (isDigit(at(pos_)))
    ++pos_;
  if (at(pos_) != '.')
    return make(Token::Kind::Integer, begin);
  ++pos_;
  while (isDigit(at(pos_)))
    ++pos_;
  if (at(pos_) == 'e' || at(pos_) == 'E') {
    char sign = at(pos_ + 1);
    if (isDigit(sign) ||
        ((sign == '-' || sign == '+') && isDigit(at(pos_ + 2)))) {
      pos_ += 2;
      while (isDigit(at(pos_)))
        ++pos_;
    }
  }
  return make(Token::Kind::Float, begin);
}

Token Lexer::nextDimension() {
  skipWhitespace();
  size_t begin = pos_;
  while (pos_ < source_.size() && isDigit(source_[pos_]))
    ++pos_;
  return make(Token::Kind::Integer, begin);
}

bool Lexer::consumeDimensionSeparator() {
  skipWhitespace();
  if (!atChar('x'))
    return false;
  ++pos_;
  return true;
}

} // namespace qjit::detail
