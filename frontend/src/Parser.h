//===- Parser.h - Syntax of quant type text ---------------------*- C++ -*-===//
//
// A recursive-descent parser for the grammar in docs/types.md. It checks
// syntax only and records where every value came from, so the verifier can
// point at the offending token. A quantile type used as uniform storage is
// verified as soon as it is parsed (it has no locations of its own later).
//
//===----------------------------------------------------------------------===//
#ifndef QJIT_FRONTEND_PARSER_H
#define QJIT_FRONTEND_PARSER_H

#include "SourceRange.h"
#include "qjit/QuantType.h"

#include <string_view>
#include <variant>
#include <vector>

namespace qjit::detail {

/// Where the parts of one quant type are in the text. Ranges of parts that
/// were not written are empty (offset 0, length 0).
struct QuantTypeLocations {
  SourceRange type; ///< The `!quant...` token.
  SourceRange storage;
  SourceRange storageMin, storageMax; ///< Explicit bounds only.
  SourceRange expressed;
  SourceRange axis;
  std::vector<SourceRange> blockAxes, blockSizes;
  SourceRange scaleList; ///< The `{` opening per-axis / sub-channel params.
  std::vector<SourceRange> scales,
      zeroPoints; ///< zeroPoints: empty if omitted.
  SourceRange calibratedMin, calibratedMax;
  SourceRange table; ///< The `{` opening a quantile table.
  std::vector<SourceRange> tableEntries;
};

struct TensorLocations {
  SourceRange keyword; ///< `tensor`
  SourceRange star;    ///< `*` of an unranked tensor.
  std::vector<SourceRange> dims;
};

struct ParsedType {
  TypeDescriptor type;
  QuantTypeLocations element;
  TensorLocations tensor;
};

/// Parses `text` (syntax only); the first error otherwise.
std::variant<ParsedType, LocatedError> parseTypeText(std::string_view text);

/// Maximum nesting of `{` in a scale list: far beyond any real tensor rank,
/// small enough that hostile input cannot exhaust the stack.
constexpr unsigned kMaxScaleNesting = 64;
/// Maximum nesting of quant types as storage: a uniform type over a
/// quantile table is 1; the limit keeps hostile input off the stack.
constexpr unsigned kMaxStorageNesting = 8;

} // namespace qjit::detail

#endif
