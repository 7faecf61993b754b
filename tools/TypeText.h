//===- TypeText.h - Type text and where it came from ------------*- C++ -*-===//
//
// The tool reads types from arguments, files, stdin and .mlir files. A
// TypeText is the text of one type together with where each of its
// characters is in its source, so that a diagnostic names the source's
// file:line:col and shows the source's line whatever the type was cut from
// (a line of stdin, an .mlir function signature, a type alias expanded at
// its use).
//
//===----------------------------------------------------------------------===//
#ifndef QJIT_TOOLS_TYPETEXT_H
#define QJIT_TOOLS_TYPETEXT_H

#include "qjit/Error.h"
#include "qjit/TypeParser.h"

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace qjit::tool {

/// A whole input that holds types.
struct TypeSource {
  std::string name; ///< "<input>" (an argument), "<stdin>" or the path.
  std::string text;
};

/// Where the source's line and column of an offset are (1-based).
struct SourcePosition {
  unsigned line = 1;
  unsigned column = 1;
};
SourcePosition positionOf(const TypeSource &source, size_t offset);

/// One type's text; text[at, at + length) was copied from
/// source->text[from, from + length) for each piece, in order.
struct TypeText {
  struct Piece {
    size_t at = 0;
    size_t from = 0;
    size_t length = 0;
  };
  std::shared_ptr<const TypeSource> source;
  std::string text;
  std::vector<Piece> pieces;
  /// Where the type is written in its source: its first character, or the
  /// alias name whose expansion it is.
  size_t written = 0;

  /// source->text[offset, offset + length) as one piece.
  static TypeText slice(std::shared_ptr<const TypeSource> source, size_t offset,
                        size_t length);
};

/// The source offset of text offset `at` (the end of a piece maps to just
/// past its last character).
size_t sourceOffsetOf(const TypeText &type, size_t at);

/// parseType on type.text, with a diagnostic located in the source.
ParseResult parseTypeText(const TypeText &type);
/// As parseTypeOrError.
Expected<TypeDescriptor> parseTypeTextOrError(const TypeText &type);

/// The whole source as one type, without the whitespace around it.
TypeText wholeSourceType(std::shared_ptr<const TypeSource> source);

/// The types of a source that holds several (`qjit parse`): each type
/// starts at a non-blank character and ends at the first line break outside
/// every `<...>` and `{...}`, so one type may span lines while it has a
/// bracket open, and otherwise each line is a type. Blank lines are skipped.
std::vector<TypeText> splitTypes(std::shared_ptr<const TypeSource> source);

} // namespace qjit::tool

#endif
