//===- Verifier.cpp - MLIR's rules and qjit's stricter ones ---------------===//
#include "Verifier.h"

#include "FloatFormat.h"
#include "qjit/TypeParser.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>
#include <string>

namespace qjit::detail {

namespace {

using Granularity = QuantType::Granularity;

/// Names values in messages: the text as written when it is known,
/// otherwise the value formatted as MLIR would print it.
class Namer {
public:
  explicit Namer(std::string_view text) : text_(text) {}

  std::string operator()(SourceRange range, const std::string &fallback) const {
    if (range.length == 0 || range.offset + range.length > text_.size())
      return "'" + fallback + "'";
    return "'" + std::string(text_.substr(range.offset, range.length)) + "'";
  }
  std::string operator()(SourceRange range, double value) const {
    return (*this)(range, formatDouble(value));
  }
  std::string operator()(SourceRange range, int64_t value) const {
    return (*this)(range, std::to_string(value));
  }

private:
  std::string_view text_;
};

/// A short, readable rendering for messages (not for round-tripping).
std::string approximate(double value) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%e", value);
  return buffer;
}

template <typename T>
SourceRange at(const std::vector<T> &ranges, size_t index) {
  return index < ranges.size() ? ranges[index] : SourceRange{};
}

std::string storageName(const StorageType &storage) {
  switch (storage.kind) {
  case StorageType::Kind::Integer:
    return (storage.isSigned ? "i" : "u") + std::to_string(storage.width);
  case StorageType::Kind::Float:
    return std::string(floatTypeName(storage.floatType));
  case StorageType::Kind::Quantile:
    return "the quantile storage";
  }
  return "storage";
}

std::string rangeText(int64_t min, int64_t max) {
  return "[" + std::to_string(min) + ", " + std::to_string(max) + "]";
}

std::optional<LocatedError> error(SourceRange where, std::string message) {
  return LocatedError{where, std::move(message)};
}

std::optional<LocatedError> verifyStorage(const StorageType &storage,
                                          const QuantTypeLocations &where,
                                          const Namer &name) {
  int64_t lo = storage.defaultMin(), hi = storage.defaultMax();
  if (storage.min < lo)
    return error(where.storageMin,
                 "storage minimum " + name(where.storageMin, storage.min) +
                     " is below the range of " + storageName(storage) + " " +
                     rangeText(lo, hi));
  if (storage.max > hi)
    return error(where.storageMax,
                 "storage maximum " + name(where.storageMax, storage.max) +
                     " is above the range of " + storageName(storage) + " " +
                     rangeText(lo, hi));
  if (storage.max <= storage.min)
    return error(where.storageMax, "storage maximum " +
                                       name(where.storageMax, storage.max) +
                                       " must be greater than the minimum " +
                                       std::to_string(storage.min));
  return std::nullopt;
}

/// `heldInExpressed`: the scale is stored in the expressed type (sub-channel)
/// and printed in it, so the printed extremes must read back as valid.
std::optional<LocatedError> verifyScale(double scale, FloatType expressed,
                                        bool heldInExpressed, SourceRange where,
                                        const Namer &name) {
  std::string named = name(where, scale);
  if (std::isnan(scale))
    return error(where, "scale " + named + " is NaN");
  if (std::isinf(scale))
    return error(where, "scale " + named + " is infinite");
  if (scale <= 0)
    return error(where, "scale " + named + " must be greater than zero");
  double lo = smallestPositive(expressed), hi = largestFinite(expressed);
  double acceptedLo = heldInExpressed ? printedSmallestPositive(expressed) : lo;
  double acceptedHi = heldInExpressed ? printedLargestFinite(expressed) : hi;
  if (scale < acceptedLo || scale > acceptedHi)
    return error(where, "scale " + named + " is outside the range of " +
                            std::string(floatTypeName(expressed)) + " [" +
                            approximate(lo) + ", " + approximate(hi) + "]");
  return std::nullopt;
}

std::optional<LocatedError> verifyUniform(const QuantType &type,
                                          const QuantTypeLocations &where,
                                          const Namer &name) {
  bool heldInExpressed = type.granularity == Granularity::SubChannel;
  for (size_t i = 0; i < type.scales.size(); ++i)
    if (auto problem = verifyScale(type.scales[i], *type.expressed,
                                   heldInExpressed, at(where.scales, i), name))
      return problem;
  if (type.granularity == Granularity::PerAxis && type.axis < 0)
    return error(where.axis, "quantized axis " +
                                 name(where.axis, int64_t{type.axis}) +
                                 " must not be negative");
  std::set<int32_t> seen;
  for (size_t i = 0; i < type.blockSizes.size(); ++i) {
    const BlockSize &block = type.blockSizes[i];
    SourceRange axisAt = at(where.blockAxes, i);
    SourceRange sizeAt = at(where.blockSizes, i);
    if (block.axis < 0)
      return error(axisAt, "block axis " + name(axisAt, int64_t{block.axis}) +
                               " must not be negative");
    if (!seen.insert(block.axis).second)
      return error(axisAt,
                   "duplicate block axis " + name(axisAt, int64_t{block.axis}));
    if (block.size <= 0)
      return error(sizeAt, "block size " + name(sizeAt, block.size) +
                               " for axis " + std::to_string(block.axis) +
                               " must be positive");
  }
  return std::nullopt;
}

std::optional<LocatedError> verifyCalibrated(const QuantType &type,
                                             const QuantTypeLocations &where,
                                             const Namer &name) {
  // MLIR's own rule, min >= max is the only error: infinite bounds and NaN
  // (which compares false) are valid calibrated types. Nothing derives a
  // scale from them here (lowering refuses calibrated types).
  if (type.calibratedMin >= type.calibratedMax)
    return error(where.calibratedMax,
                 "calibrated maximum " +
                     name(where.calibratedMax, type.calibratedMax) +
                     " must be greater than the minimum " +
                     name(where.calibratedMin, type.calibratedMin));
  return std::nullopt;
}

std::optional<LocatedError> verifyIntegerEntry(double entry,
                                               const IntegerType &type,
                                               SourceRange entryAt,
                                               const Namer &name) {
  std::string problem = "table entry " + name(entryAt, entry) +
                        " is not a value of " + integerTypeName(type);
  if (entry != std::trunc(entry))
    return error(entryAt, problem + ": it is not an integer");
  // Exact: both bounds are integers of at most 32 bits.
  if (entry < static_cast<double>(type.minValue()) ||
      entry > static_cast<double>(type.maxValue()))
    return error(entryAt, problem + ", whose range is " +
                              rangeText(type.minValue(), type.maxValue()));
  return std::nullopt;
}

std::optional<LocatedError> verifyQuantile(const QuantType &type,
                                           const QuantTypeLocations &where,
                                           const Namer &name) {
  for (size_t i = 0; i < type.table.size(); ++i) {
    SourceRange entryAt = at(where.tableEntries, i);
    double entry = type.table[i];
    if (!std::isfinite(entry))
      return error(entryAt,
                   "table entry " + name(entryAt, entry) + " is not finite");
    if (type.integerTable) {
      if (auto problem =
              verifyIntegerEntry(entry, *type.integerTable, entryAt, name))
        return problem;
    } else if (std::fabs(entry) > largestFinite(*type.expressed)) {
      return error(entryAt, "table entry " + name(entryAt, entry) +
                                " is outside the range of " +
                                std::string(floatTypeName(*type.expressed)));
    }
  }
  // Bounds are already within the 32-bit storage range: no overflow.
  int64_t values = type.storage.max - type.storage.min + 1;
  if (static_cast<int64_t>(type.table.size()) != values)
    return error(where.table,
                 "quantile table has " + std::to_string(type.table.size()) +
                     " entries but storage " + storageName(type.storage) + " " +
                     rangeText(type.storage.min, type.storage.max) + " has " +
                     std::to_string(values) + " values");
  return std::nullopt;
}

bool isDynamic(int64_t dim) { return dim == TensorShape::kDynamic; }

std::optional<LocatedError>
verifyPerAxisInTensor(const QuantType &type, const TensorShape &shape,
                      const QuantTypeLocations &where,
                      const TensorLocations &tw) {
  if (!shape.ranked)
    return std::nullopt;
  int64_t rank = static_cast<int64_t>(shape.dims.size());
  if (rank == 0)
    return error(tw.keyword, "a per-axis type cannot be the element of a "
                             "rank-0 tensor (a scalar)");
  if (type.axis >= rank)
    return error(where.axis, "quantized axis " + std::to_string(type.axis) +
                                 " is out of range for a rank-" +
                                 std::to_string(rank) + " tensor");
  int64_t dim = shape.dims[type.axis];
  int64_t count = static_cast<int64_t>(type.scales.size());
  if (!isDynamic(dim) && dim != count && !type.parametersAtCallTime)
    return error(at(tw.dims, type.axis),
                 "tensor dimension " + std::to_string(type.axis) +
                     " has size " + std::to_string(dim) + " but the type has " +
                     std::to_string(count) + " scales");
  return std::nullopt;
}

std::optional<LocatedError>
verifySubChannelInTensor(const QuantType &type, const TensorShape &shape,
                         const QuantTypeLocations &where,
                         const TensorLocations &tw) {
  if (!shape.ranked)
    return error(tw.star,
                 "a sub-channel type needs a ranked tensor, not tensor<*x...>");
  int64_t rank = static_cast<int64_t>(shape.dims.size());
  if (rank == 0)
    return error(tw.keyword, "a sub-channel type cannot be the element of a "
                             "rank-0 tensor (a scalar)");
  for (int64_t d = 0; d < rank; ++d)
    if (shape.dims[d] == 0)
      return error(at(tw.dims, d),
                   "tensor dimension " + std::to_string(d) +
                       " has size 0; sub-channel types need non-empty "
                       "dimensions");
  // Scale-tensor extent per axis: dim / block, 1 where no block is given.
  std::vector<int64_t> expected(rank, 1);
  for (size_t i = 0; i < type.blockSizes.size(); ++i) {
    const BlockSize &block = type.blockSizes[i];
    if (block.axis >= rank)
      return error(at(where.blockAxes, i),
                   "block axis " + std::to_string(block.axis) +
                       " is out of range for a rank-" + std::to_string(rank) +
                       " tensor");
    int64_t dim = shape.dims[block.axis];
    if (isDynamic(dim)) {
      expected[block.axis] = TensorShape::kDynamic;
      continue;
    }
    if (dim % block.size != 0)
      return error(at(where.blockSizes, i),
                   "block size " + std::to_string(block.size) +
                       " does not divide tensor dimension " +
                       std::to_string(block.axis) + " of size " +
                       std::to_string(dim));
    expected[block.axis] = dim / block.size;
  }
  if (type.parametersAtCallTime)
    return std::nullopt; // The shape says how many scales there will be.
  int64_t scaleRank = static_cast<int64_t>(type.scaleShape.size());
  if (scaleRank != rank)
    return error(where.scaleList,
                 "the scale list has rank " + std::to_string(scaleRank) +
                     " but the tensor has rank " + std::to_string(rank));
  for (int64_t d = 0; d < rank; ++d) {
    if (isDynamic(expected[d]) || expected[d] == type.scaleShape[d])
      continue;
    bool blocked =
        std::any_of(type.blockSizes.begin(), type.blockSizes.end(),
                    [&](const BlockSize &block) { return block.axis == d; });
    return error(where.scaleList,
                 "the scale list has " + std::to_string(type.scaleShape[d]) +
                     " entries along axis " + std::to_string(d) +
                     " but the tensor shape and block sizes need " +
                     std::to_string(expected[d]) +
                     (blocked ? ""
                              : " (axis " + std::to_string(d) +
                                    " has no block size: one block spans it)"));
  }
  return std::nullopt;
}

/// What the parser guarantees by construction; checked for types built by
/// hand so that the rules below never index out of range.
std::optional<LocatedError>
verifyShapeOfFields(const QuantType &type, const QuantTypeLocations &where) {
  auto malformed = [&](const char *what) {
    return error(where.type, std::string("malformed quant type: ") + what);
  };
  if (type.family == QuantType::Family::Quantile) {
    if (!type.expressed && !type.integerTable)
      return error(where.expressed,
                   "quantile type must be a float or integer type");
    if (type.expressed && type.integerTable)
      return malformed("both a float and an integer table type");
    if (type.integerTable &&
        (type.integerTable->width < 1 || type.integerTable->width > 32))
      return malformed("an integer table type is 1 to 32 bits wide");
  } else if (type.integerTable) {
    return malformed("an integer table type outside a quantile type");
  } else if (type.family != QuantType::Family::Any && !type.expressed) {
    return malformed("no expressed type");
  }
  if (type.storage.kind == StorageType::Kind::Integer &&
      (type.storage.width < 1 || type.storage.width > 32))
    return malformed("integer storage is 1 to 32 bits wide");
  if (type.storage.kind == StorageType::Kind::Quantile &&
      !type.storage.quantile)
    return malformed("quantile storage without its quantile type");
  if (type.family != QuantType::Family::Uniform)
    return std::nullopt;
  if (type.parametersAtCallTime)
    return type.scales.empty() && type.zeroPoints.empty() &&
                   type.scaleShape.empty()
               ? std::nullopt
               : malformed("a '?' scale list with scales");
  if (type.scales.empty() || type.zeroPoints.size() != type.scales.size())
    return malformed("scales and zero points differ in number");
  if (type.granularity == Granularity::PerTensor && type.scales.size() != 1)
    return malformed("a per-tensor type has exactly one scale");
  if (type.granularity != Granularity::SubChannel)
    return std::nullopt;
  size_t count = 1;
  for (int64_t dim : type.scaleShape) {
    if (dim < 1 || static_cast<size_t>(dim) > type.scales.size() / count)
      return malformed("the scale shape does not match the scales");
    count *= static_cast<size_t>(dim);
  }
  if (type.scaleShape.empty() || count != type.scales.size())
    return malformed("the scale shape does not match the scales");
  return std::nullopt;
}

} // namespace

std::optional<LocatedError> verifyQuantType(const QuantType &type,
                                            const QuantTypeLocations &where,
                                            std::string_view text) {
  Namer name(text);
  if (auto problem = verifyShapeOfFields(type, where))
    return problem;
  if (type.family != QuantType::Family::Calibrated)
    if (auto problem = verifyStorage(type.storage, where, name))
      return problem;
  switch (type.family) {
  case QuantType::Family::Any:
    return std::nullopt;
  case QuantType::Family::Uniform:
    return verifyUniform(type, where, name);
  case QuantType::Family::Calibrated:
    return verifyCalibrated(type, where, name);
  case QuantType::Family::Quantile:
    return verifyQuantile(type, where, name);
  }
  return std::nullopt;
}

std::optional<LocatedError>
verifyTensorContext(const QuantType &type, const TensorShape &shape,
                    const QuantTypeLocations &where,
                    const TensorLocations &tensorWhere, std::string_view) {
  if (type.family != QuantType::Family::Uniform)
    return std::nullopt;
  if (type.granularity == Granularity::PerAxis)
    return verifyPerAxisInTensor(type, shape, where, tensorWhere);
  if (type.granularity == Granularity::SubChannel)
    return verifySubChannelInTensor(type, shape, where, tensorWhere);
  return std::nullopt;
}

void roundSubChannelScales(QuantType &type) {
  if (type.family != QuantType::Family::Uniform ||
      type.granularity != Granularity::SubChannel)
    return;
  for (double &scale : type.scales)
    if (std::optional<double> rounded =
            roundToFloatType(scale, *type.expressed))
      scale = *rounded;
}

} // namespace qjit::detail
