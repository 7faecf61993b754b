//===- FloatFormat.cpp - MLIR's float semantics and printing --------------===//
#include "FloatFormat.h"

#include <llvm/ADT/APFloat.h>
#include <llvm/ADT/APInt.h>
#include <llvm/ADT/SmallString.h>
#include <llvm/ADT/StringRef.h>

#include <algorithm>
#include <limits>

namespace qjit::detail {

namespace {
const llvm::fltSemantics &semanticsOf(FloatType type) {
  using llvm::APFloat;
  switch (type) {
  case FloatType::F4E2M1FN:
    return APFloat::Float4E2M1FN();
  case FloatType::F6E2M3FN:
    return APFloat::Float6E2M3FN();
  case FloatType::F6E3M2FN:
    return APFloat::Float6E3M2FN();
  case FloatType::F8E3M4:
    return APFloat::Float8E3M4();
  case FloatType::F8E4M3:
    return APFloat::Float8E4M3();
  case FloatType::F8E4M3FN:
    return APFloat::Float8E4M3FN();
  case FloatType::F8E4M3FNUZ:
    return APFloat::Float8E4M3FNUZ();
  case FloatType::F8E4M3B11FNUZ:
    return APFloat::Float8E4M3B11FNUZ();
  case FloatType::F8E5M2:
    return APFloat::Float8E5M2();
  case FloatType::F8E5M2FNUZ:
    return APFloat::Float8E5M2FNUZ();
  case FloatType::F8E8M0FNU:
    return APFloat::Float8E8M0FNU();
  case FloatType::BF16:
    return APFloat::BFloat();
  case FloatType::F16:
    return APFloat::IEEEhalf();
  case FloatType::TF32:
    return APFloat::FloatTF32();
  case FloatType::F32:
    return APFloat::IEEEsingle();
  case FloatType::F64:
    return APFloat::IEEEdouble();
  case FloatType::F80:
    return APFloat::x87DoubleExtended();
  case FloatType::F128:
    return APFloat::IEEEquad();
  }
  return APFloat::IEEEdouble();
}

bool widerThanDouble(FloatType type) {
  return type == FloatType::F80 || type == FloatType::F128;
}

// Converts to double; only called for values a double holds exactly or
// for formats narrower than double.
double toDouble(llvm::APFloat value) {
  bool losesInfo = false;
  value.convert(llvm::APFloat::IEEEdouble(), llvm::APFloat::rmNearestTiesToEven,
                &losesInfo);
  return value.convertToDouble();
}

void printFloatValue(const llvm::APFloat &value, std::string &out) {
  if (!value.isInfinity() && !value.isNaN()) {
    llvm::SmallString<128> text;
    value.toString(text, /*FormatPrecision=*/6, /*FormatMaxPadding=*/0,
                   /*TruncateZero=*/false);
    if (llvm::APFloat(value.getSemantics(), text).bitwiseIsEqual(value)) {
      out += text.str();
      return;
    }
    text.clear();
    value.toString(text);
    if (text.str().contains('.')) {
      out += text.str();
      return;
    }
  }
  llvm::SmallString<40> hex;
  value.bitcastToAPInt().toString(hex, /*Radix=*/16, /*Signed=*/false,
                                  /*formatAsCLiteral=*/true);
  out += hex.str();
}
} // namespace

double smallestPositive(FloatType type) {
  if (widerThanDouble(type))
    return std::numeric_limits<double>::denorm_min();
  return toDouble(llvm::APFloat::getSmallest(semanticsOf(type)));
}

double largestFinite(FloatType type) {
  if (widerThanDouble(type))
    return std::numeric_limits<double>::max();
  return toDouble(llvm::APFloat::getLargest(semanticsOf(type)));
}

namespace {
double readBack(const std::string &printed, double fallback) {
  double value = 0;
  if (llvm::StringRef(printed).getAsDouble(value))
    return fallback;
  return value;
}
} // namespace

double printedSmallestPositive(FloatType type) {
  double smallest = smallestPositive(type);
  return std::min(smallest,
                  readBack(formatInFloatType(smallest, type), smallest));
}

double printedLargestFinite(FloatType type) {
  double largest = largestFinite(type);
  return std::max(largest, readBack(formatInFloatType(largest, type), largest));
}

std::optional<double> roundToFloatType(double value, FloatType type) {
  if (widerThanDouble(type))
    return value;
  llvm::APFloat rounded(value);
  bool losesInfo = false;
  rounded.convert(semanticsOf(type), llvm::APFloat::rmNearestTiesToEven,
                  &losesInfo);
  if (!rounded.isFinite())
    return std::nullopt;
  return toDouble(rounded);
}

std::string formatDouble(double value) {
  std::string out;
  printFloatValue(llvm::APFloat(value), out);
  return out;
}

std::string formatInFloatType(double value, FloatType type) {
  llvm::APFloat held(value);
  bool losesInfo = false;
  held.convert(semanticsOf(type), llvm::APFloat::rmNearestTiesToEven,
               &losesInfo);
  std::string out;
  printFloatValue(held, out);
  return out;
}

std::optional<double> valueOfBitPattern(const llvm::APInt &bits,
                                        FloatType type) {
  const llvm::fltSemantics &semantics = semanticsOf(type);
  unsigned width = llvm::APFloat::semanticsSizeInBits(semantics);
  if (bits.getActiveBits() > width)
    return std::nullopt;
  llvm::APFloat value(semantics, bits.zextOrTrunc(width));
  if (value.isNaN())
    return std::numeric_limits<double>::quiet_NaN();
  if (value.isInfinity())
    return value.isNegative() ? -std::numeric_limits<double>::infinity()
                              : std::numeric_limits<double>::infinity();
  if (widerThanDouble(type)) {
    // Only values a double holds exactly come back unchanged.
    llvm::APFloat narrowed = value;
    bool losesInfo = false;
    narrowed.convert(llvm::APFloat::IEEEdouble(),
                     llvm::APFloat::rmNearestTiesToEven, &losesInfo);
    if (losesInfo)
      return std::nullopt;
    return narrowed.convertToDouble();
  }
  return toDouble(value);
}

} // namespace qjit::detail
