//===- A64ListingSyntax.cpp - asmjit AArch64 listings for GNU as ----------===//
#include "A64ListingSyntax.h"

#include "ListingStatements.h"

#include <cctype>
#include <regex>

namespace qjit::asmjit_backend {

namespace {

bool isStructureMemoryOp(std::string_view mnemonic) {
  return mnemonic.size() == 3 &&
         (mnemonic.starts_with("ld") || mnemonic.starts_with("st")) &&
         mnemonic[2] >= '1' && mnemonic[2] <= '4';
}

/// Shifts and extends as operands: `[x16, x8 lsl 4]` → `[x16, x8, lsl #4]`,
/// `x2 lsl 2` → `x2, lsl #2`, `, lsl 16` → `, lsl #16`.
std::string shiftOperands(const std::string &text) {
  static const std::regex kBare(
      R"(([^,\s])\s+(lsl|lsr|asr|ror|msl|uxtw|sxtw|uxtx|sxtx)\s+#?(\w+))");
  static const std::regex kUnmarked(
      R"(,\s*(lsl|lsr|asr|ror|msl|uxtw|sxtw|uxtx|sxtx)\s+(\w+))");
  return std::regex_replace(std::regex_replace(text, kBare, "$1, $2 #$3"),
                            kUnmarked, ", $1 #$2");
}

/// `ld1 v0.4s, v1.4s, [x0], 0x40` → `ld1 {v0.4s, v1.4s}, [x0], #0x40`.
std::string structureOperands(std::string_view mnemonic,
                              std::string_view operands) {
  size_t bracket = operands.find('[');
  if (bracket == std::string_view::npos || bracket < 2)
    return std::string(mnemonic) + " " + std::string(operands);
  std::string_view registers = operands.substr(0, bracket - 2); // ", ["
  std::string memory(operands.substr(bracket));
  size_t close = memory.find("], ");
  if (close != std::string::npos && close + 3 < memory.size() &&
      std::isdigit(static_cast<unsigned char>(memory[close + 3])))
    memory.insert(close + 3, "#");
  return std::string(mnemonic) + " {" + std::string(registers) + "}, " + memory;
}

std::string rewriteStatement(std::string_view statement) {
  if (statement.starts_with("align "))
    return ".balign " + std::string(statement.substr(6));
  size_t space = statement.find(' ');
  if (space != std::string_view::npos &&
      isStructureMemoryOp(statement.substr(0, space)))
    return structureOperands(statement.substr(0, space),
                             statement.substr(space + 1));
  return shiftOperands(std::string(statement));
}

} // namespace

std::string gasA64Listing(std::string_view asmjitText) {
  return rewriteStatements(
      asmjitText,
      [](std::string_view statement, const std::string &) {
        return rewriteStatement(statement);
      },
      "//");
}

} // namespace qjit::asmjit_backend
