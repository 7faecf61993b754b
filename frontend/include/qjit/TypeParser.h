//===- qjit/TypeParser.h - Parse, verify, print, normalize ------*- C++ -*-===//
//
// The frontend's entry points. parseType accepts every quant type MLIR 22
// accepts (plus float and quantile storage from upstream main), optionally
// inside a `tensor<...>`, verifies it with MLIR's rules and qjit's stricter
// ones, and reports the first problem as a located diagnostic.
//
//===----------------------------------------------------------------------===//
#ifndef QJIT_TYPEPARSER_H
#define QJIT_TYPEPARSER_H

#include "qjit/Error.h"
#include "qjit/Export.h"
#include "qjit/QuantType.h"

#include <optional>
#include <string>
#include <string_view>

namespace qjit {

/// A problem in the type text, located at a 1-based line and column.
struct QJIT_API Diagnostic {
  std::string inputName; ///< Shown before line:column ("<input>", a file).
  unsigned line = 1;
  unsigned column = 1;
  std::string message;
  std::string sourceLine; ///< The offending line, without its newline.

  /// "error: NAME:LINE:COL: MESSAGE\nSOURCE LINE\n      ^"
  std::string render() const;
};

struct QJIT_API ParseOptions {
  std::string inputName = "<input>";
};

/// The outcome of parsing: a verified type, or the first diagnostic.
struct QJIT_API ParseResult {
  std::optional<TypeDescriptor> type;
  std::optional<Diagnostic> diagnostic;
  explicit operator bool() const { return type.has_value(); }
};

/// Parses and verifies one type.
QJIT_API ParseResult parseType(std::string_view text,
                               const ParseOptions &options = {});

/// parseType as an Expected: the error is ErrorCode::InvalidType with the
/// rendered diagnostic as its message.
QJIT_API Expected<TypeDescriptor>
parseTypeOrError(std::string_view text, const ParseOptions &options = {});

/// The op-level rules for `element` inside a tensor of `shape` (per-axis
/// axis < rank and scale count = dim size; sub-channel: ranked, no zero
/// dims, blocks divide dims, scale shape = shape / blocks). parseType applies
/// them to tensor types already; use this for a shape supplied separately.
QJIT_API Status verifyElementOfTensor(const QuantType &element,
                                      const TensorShape &shape);

/// The canonical form, byte-identical to what mlir-opt 22 prints.
QJIT_API std::string printType(const TypeDescriptor &type);
QJIT_API std::string printQuantType(const QuantType &type);

/// MLIR's normalize-quant-types: inside a tensor, a sub-channel type with
/// one scale becomes per-tensor, and one whose scale tensor has a single
/// non-1 dim d becomes per-axis along d (qjit: only when d's block size is
/// 1, so the meaning is kept). Other types are returned unchanged.
QJIT_API TypeDescriptor normalizeType(const TypeDescriptor &type);

} // namespace qjit

#endif // QJIT_TYPEPARSER_H
