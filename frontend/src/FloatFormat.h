//===- FloatFormat.h - MLIR's float semantics and printing ------*- C++ -*-===//
//
// The frontend's bridge to llvm::APFloat: the range of every MLIR float
// type, rounding into it, and MLIR's float printing rule.
//
//===----------------------------------------------------------------------===//
#ifndef QJIT_FRONTEND_FLOATFORMAT_H
#define QJIT_FRONTEND_FLOATFORMAT_H

#include "qjit/QuantType.h"

#include <optional>
#include <string>

namespace llvm {
class APInt;
} // namespace llvm

namespace qjit::detail {

/// The smallest positive (denormal) and largest finite value of `type`, as
/// doubles. Formats wider than double report double's own limits.
double smallestPositive(FloatType type);
double largestFinite(FloatType type);

/// The limits a value printed in `type` (formatInFloatType) can read back
/// as when parsed as a double: smallestPositive / largestFinite widened to
/// the double value of their printed digits, so that what qjit prints for
/// the extremes of narrow types parses again.
double printedSmallestPositive(FloatType type);
double printedLargestFinite(FloatType type);

/// `value` rounded to `type` (nearest, ties to even) and widened back.
/// Returns nullopt when the rounded value is not finite.
std::optional<double> roundToFloatType(double value, FloatType type);

/// MLIR's AsmPrinter rule for a double: 6-digit scientific when that
/// round-trips exactly, else the shortest round-trip digits, else hex bits.
std::string formatDouble(double value);
/// The same rule applied to `value` held in `type` (which must represent it
/// exactly), as MLIR prints the elements of a dense attribute.
std::string formatInFloatType(double value, FloatType type);

/// The value of the raw bit pattern `bits` of `type`, widened to double
/// (NaN and infinities included); nullopt if `bits` is wider than the type
/// or the value does not fit a double exactly.
std::optional<double> valueOfBitPattern(const llvm::APInt &bits,
                                        FloatType type);

} // namespace qjit::detail

#endif
