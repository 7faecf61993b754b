//===- Literals.cpp - Values of integer and float tokens ------------------===//
#include "Literals.h"

#include <llvm/ADT/APInt.h>
#include <llvm/ADT/StringRef.h>

#include <limits>

namespace qjit::detail {

namespace {
bool isHex(std::string_view spelling) {
  return spelling.size() > 2 && spelling[0] == '0' && spelling[1] == 'x';
}

unsigned digitValue(char c) {
  if (c >= '0' && c <= '9')
    return c - '0';
  if (c >= 'a' && c <= 'f')
    return c - 'a' + 10;
  return c - 'A' + 10;
}

// Long enough for any value the frontend uses, short enough that APFloat's
// decimal conversion stays cheap on hostile input.
constexpr size_t kMaxFloatLiteralLength = 1024;
} // namespace

std::optional<int64_t> integerLiteralValue(std::string_view spelling,
                                           bool negative) {
  unsigned radix = 10;
  if (isHex(spelling)) {
    radix = 16;
    spelling.remove_prefix(2);
  }
  if (spelling.empty())
    return std::nullopt;
  constexpr uint64_t kLimit = uint64_t{1} << 63; // |INT64_MIN|
  uint64_t magnitude = 0;
  for (char c : spelling) {
    uint64_t digit = digitValue(c);
    if (magnitude > (kLimit - digit) / radix)
      return std::nullopt;
    magnitude = magnitude * radix + digit;
  }
  if (negative)
    return magnitude == kLimit ? std::numeric_limits<int64_t>::min()
                               : -static_cast<int64_t>(magnitude);
  if (magnitude == kLimit)
    return std::nullopt;
  return static_cast<int64_t>(magnitude);
}

std::optional<double> floatLiteralValue(std::string_view spelling,
                                        bool negative) {
  if (spelling.size() > kMaxFloatLiteralLength)
    return std::nullopt;
  double value = 0.0;
  // AllowInexact: overflow and underflow round, as in MLIR's lexer.
  if (llvm::StringRef(spelling.data(), spelling.size()).getAsDouble(value))
    return std::nullopt;
  return negative ? -value : value;
}

std::optional<llvm::APInt> hexLiteralBits(std::string_view spelling,
                                          unsigned maxBits) {
  if (!isHex(spelling))
    return std::nullopt;
  spelling.remove_prefix(2);
  size_t firstNonZero = spelling.find_first_not_of('0');
  if (firstNonZero == std::string_view::npos)
    return llvm::APInt(maxBits, 0);
  spelling.remove_prefix(firstNonZero);
  if (spelling.size() * 4 > maxBits + 3)
    return std::nullopt;
  llvm::APInt bits(maxBits + 4, 0);
  for (char c : spelling) {
    bits <<= 4;
    bits |= digitValue(c);
  }
  if (bits.getActiveBits() > maxBits)
    return std::nullopt;
  return bits.trunc(maxBits);
}

} // namespace qjit::detail
