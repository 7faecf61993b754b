//===- SourceRange.h - A span of the type text ------------------*- C++ -*-===//
#ifndef QJIT_FRONTEND_SOURCERANGE_H
#define QJIT_FRONTEND_SOURCERANGE_H

#include <cstddef>
#include <string>

namespace qjit::detail {

/// Byte offset and length of a token in the parsed text.
struct SourceRange {
  size_t offset = 0;
  size_t length = 0;
};

/// A problem found in the text, with the token it is about.
struct LocatedError {
  SourceRange where;
  std::string message;
};

} // namespace qjit::detail

#endif
