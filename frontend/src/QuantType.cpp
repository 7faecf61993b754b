//===- QuantType.cpp - Storage ranges and exact equality ------------------===//
#include "qjit/QuantType.h"

#include <bit>

namespace qjit {

int64_t floatStorageLargest(FloatType type) {
  switch (type) {
  case FloatType::F8E4M3FN:
    return 448;
  case FloatType::F8E5M2:
    return 57344;
  case FloatType::F4E2M1FN:
    return 6;
  default:
    return 0; // Not a storage format; the parser never builds one.
  }
}

namespace {
bool sameBits(double a, double b) {
  return std::bit_cast<uint64_t>(a) == std::bit_cast<uint64_t>(b);
}

bool sameBits(const std::vector<double> &a, const std::vector<double> &b) {
  if (a.size() != b.size())
    return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (!sameBits(a[i], b[i]))
      return false;
  return true;
}
} // namespace

// Widths outside 1..32 only come from hand-built types, which the verifier
// rejects; 0 keeps the shifts defined until it does.
int64_t IntegerType::minValue() const {
  if (width < 1 || width > 32)
    return 0;
  return isSigned ? -(int64_t{1} << (width - 1)) : 0;
}

int64_t IntegerType::maxValue() const {
  if (width < 1 || width > 32)
    return 0;
  return isSigned ? (int64_t{1} << (width - 1)) - 1 : (int64_t{1} << width) - 1;
}

std::string integerTypeName(const IntegerType &type) {
  std::string prefix = !type.isSigned          ? "ui"
                       : type.signednessPrefix ? "si"
                                               : "i";
  return prefix + std::to_string(type.width);
}

int64_t StorageType::defaultMin() const {
  switch (kind) {
  case Kind::Integer:
    if (width < 1 || width > 63)
      return 0;
    return isSigned ? -(int64_t{1} << (width - 1)) : 0;
  case Kind::Float:
    return -floatStorageLargest(floatType);
  case Kind::Quantile:
    return quantile ? quantile->storage.min : 0;
  }
  return 0;
}

int64_t StorageType::defaultMax() const {
  switch (kind) {
  case Kind::Integer:
    if (width < 1 || width > 63)
      return 0;
    return isSigned ? (int64_t{1} << (width - 1)) - 1
                    : (int64_t{1} << width) - 1;
  case Kind::Float:
    return floatStorageLargest(floatType);
  case Kind::Quantile:
    return quantile ? quantile->storage.max : 0;
  }
  return 0;
}

bool operator==(const StorageType &a, const StorageType &b) {
  // The written prefix is presentation (si8 and i8 are one type).
  if (a.kind != b.kind || a.width != b.width || a.isSigned != b.isSigned ||
      a.min != b.min || a.max != b.max)
    return false;
  if (a.kind == StorageType::Kind::Float && a.floatType != b.floatType)
    return false;
  if (a.kind == StorageType::Kind::Quantile) {
    if (!a.quantile || !b.quantile)
      return a.quantile == b.quantile;
    return *a.quantile == *b.quantile;
  }
  return true;
}

bool operator==(const QuantType &a, const QuantType &b) {
  return a.family == b.family && a.storage == b.storage &&
         a.expressed == b.expressed && a.integerTable == b.integerTable &&
         a.granularity == b.granularity && sameBits(a.scales, b.scales) &&
         a.zeroPoints == b.zeroPoints && a.axis == b.axis &&
         a.blockSizes == b.blockSizes && a.scaleShape == b.scaleShape &&
         a.parametersAtCallTime == b.parametersAtCallTime &&
         sameBits(a.calibratedMin, b.calibratedMin) &&
         sameBits(a.calibratedMax, b.calibratedMax) &&
         sameBits(a.table, b.table);
}

} // namespace qjit
