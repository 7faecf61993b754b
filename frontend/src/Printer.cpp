//===- Printer.cpp - The canonical form, as mlir-opt 22 prints it ---------===//
//
// Mirrors MLIR's QuantDialect::printType byte for byte, except that
// sub-channel zero points are printed with their true value (MLIR wraps
// them to the storage width), and qjit's `?` scale list prints as `?`.
//
//===----------------------------------------------------------------------===//
#include "FloatFormat.h"
#include "qjit/TypeParser.h"

#include <string>

namespace qjit {

namespace {

using detail::formatDouble;
using detail::formatInFloatType;

void printBounds(const StorageType &storage, std::string &out) {
  out += '<';
  out += std::to_string(storage.min);
  out += ':';
  out += std::to_string(storage.max);
  out += '>';
}

/// `asWritten`: integer storage with the prefix the text used (quantile
/// types, as upstream prints them), otherwise MLIR's quant `i` / `u`.
void printStorage(const StorageType &storage, std::string &out,
                  bool asWritten = false) {
  switch (storage.kind) {
  case StorageType::Kind::Integer:
    if (asWritten && storage.signednessPrefix)
      out += storage.isSigned ? "si" : "ui";
    else
      out += storage.isSigned ? 'i' : 'u';
    out += std::to_string(storage.width);
    break;
  case StorageType::Kind::Float:
    out += floatTypeName(storage.floatType);
    break;
  case StorageType::Kind::Quantile:
    if (storage.quantile)
      out += printQuantType(*storage.quantile);
    break;
  }
}

void printStorageWithBounds(const StorageType &storage, std::string &out) {
  printStorage(storage, out);
  if (!storage.hasDefaultBounds())
    printBounds(storage, out);
}

void printScaleZero(const std::string &scale, int64_t zeroPoint,
                    std::string &out) {
  out += scale;
  if (zeroPoint != 0) {
    out += ':';
    out += std::to_string(zeroPoint);
  }
}

// MLIR's printDenseQuantizationParameters: a mixed-radix counter over the
// scale shape closes a brace whenever an inner index rolls over.
void printScaleTensor(const QuantType &type, std::string &out) {
  const std::vector<int64_t> &shape = type.scaleShape;
  size_t rank = shape.size();
  if (rank == 0)
    return;
  std::vector<int64_t> counter(rank, 0);
  size_t openBraces = 0;
  for (size_t index = 0; index < type.scales.size(); ++index) {
    if (index != 0)
      out += ", ";
    while (openBraces++ < rank)
      out += '{';
    openBraces = rank;
    printScaleZero(formatInFloatType(type.scales[index], *type.expressed),
                   type.zeroPoints[index], out);
    ++counter[rank - 1];
    for (size_t i = rank - 1; i > 0; --i) {
      if (counter[i] >= shape[i]) {
        counter[i] = 0;
        ++counter[i - 1];
        --openBraces;
        out += '}';
      }
    }
  }
  while (openBraces-- > 0)
    out += '}';
}

void printUniform(const QuantType &type, std::string &out) {
  out += "!quant.uniform<";
  printStorageWithBounds(type.storage, out);
  out += ':';
  out += floatTypeName(*type.expressed);
  switch (type.granularity) {
  case QuantType::Granularity::PerTensor:
    out += ", ";
    if (type.parametersAtCallTime)
      out += '?';
    else
      printScaleZero(formatDouble(type.scales.at(0)), type.zeroPoints.at(0),
                     out);
    break;
  case QuantType::Granularity::PerAxis:
    out += ':';
    out += std::to_string(type.axis);
    out += ", ";
    if (type.parametersAtCallTime) {
      out += '?';
      break;
    }
    out += '{';
    for (size_t i = 0; i < type.scales.size(); ++i) {
      if (i != 0)
        out += ',';
      printScaleZero(formatDouble(type.scales[i]), type.zeroPoints[i], out);
    }
    out += '}';
    break;
  case QuantType::Granularity::SubChannel:
    out += ":{";
    for (size_t i = 0; i < type.blockSizes.size(); ++i) {
      if (i != 0)
        out += ", ";
      out += std::to_string(type.blockSizes[i].axis);
      out += ':';
      out += std::to_string(type.blockSizes[i].size);
    }
    out += "}, ";
    if (type.parametersAtCallTime)
      out += '?';
    else
      printScaleTensor(type, out);
    break;
  }
  out += '>';
}

void printQuantile(const QuantType &type, std::string &out) {
  out += "!quant.quantile<";
  printStorage(type.storage, out, /*asWritten=*/true);
  out += ':';
  if (type.integerTable)
    out += integerTypeName(*type.integerTable);
  else
    out += floatTypeName(*type.expressed);
  out += ", {";
  // As the only upstream quantile printer (Intel's NPU fork): doubles
  // joined by ',' like per-axis scales.
  for (size_t i = 0; i < type.table.size(); ++i) {
    if (i != 0)
      out += ',';
    out += formatDouble(type.table[i]);
  }
  out += '}';
  if (!type.storage.hasDefaultBounds()) {
    out += ", ";
    printBounds(type.storage, out);
  }
  out += '>';
}

} // namespace

std::string printQuantType(const QuantType &type) {
  std::string out;
  switch (type.family) {
  case QuantType::Family::Any:
    out += "!quant.any<";
    printStorageWithBounds(type.storage, out);
    if (type.expressed) {
      out += ':';
      out += floatTypeName(*type.expressed);
    }
    out += '>';
    break;
  case QuantType::Family::Uniform:
    printUniform(type, out);
    break;
  case QuantType::Family::Calibrated:
    out += "!quant.calibrated<";
    out += floatTypeName(*type.expressed);
    out += '<';
    out += formatDouble(type.calibratedMin);
    out += ':';
    out += formatDouble(type.calibratedMax);
    out += ">>";
    break;
  case QuantType::Family::Quantile:
    printQuantile(type, out);
    break;
  }
  return out;
}

std::string printType(const TypeDescriptor &type) {
  if (!type.tensor)
    return printQuantType(type.element);
  std::string out = "tensor<";
  if (!type.tensor->ranked)
    out += "*x";
  for (int64_t dim : type.tensor->dims) {
    out += dim == TensorShape::kDynamic ? "?" : std::to_string(dim);
    out += 'x';
  }
  out += printQuantType(type.element);
  out += '>';
  return out;
}

} // namespace qjit
