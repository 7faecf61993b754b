//===- Literals.h - Values of integer and float tokens ----------*- C++ -*-===//
//
// Converts literal token spellings to values with MLIR's rules: integers
// are decimal or `0x` hex and must fit int64 once the sign is applied;
// float literals go through llvm::APFloat (overflow gives infinity, as in
// MLIR, and the verifier rejects it); a hex literal is a raw bit pattern.
//
//===----------------------------------------------------------------------===//
#ifndef QJIT_FRONTEND_LITERALS_H
#define QJIT_FRONTEND_LITERALS_H

#include <cstdint>
#include <optional>
#include <string_view>

namespace llvm {
class APInt;
} // namespace llvm

namespace qjit::detail {

/// The value of an integer token (decimal or hex), negated if `negative`;
/// nullopt if it does not fit int64.
std::optional<int64_t> integerLiteralValue(std::string_view spelling,
                                           bool negative);

/// The value of a float token (digits `.` digits [exponent]), negated if
/// `negative`. Overflow yields ±infinity and underflow ±0 or a denormal.
/// nullopt only for spellings too long to be a sensible literal.
std::optional<double> floatLiteralValue(std::string_view spelling,
                                        bool negative);

/// The bits of a hex integer token; nullopt if wider than `maxBits`.
std::optional<llvm::APInt> hexLiteralBits(std::string_view spelling,
                                          unsigned maxBits);

} // namespace qjit::detail

#endif
