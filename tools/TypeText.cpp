//===- TypeText.cpp - Type text and where it came from --------------------===//
#include "TypeText.h"

#include <algorithm>

namespace qjit::tool {

namespace {

bool isBlank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

/// The offset in `text` of a diagnostic's line and column.
size_t offsetOf(std::string_view text, unsigned line, unsigned column) {
  size_t lineStart = 0;
  for (unsigned l = 1; l < line; ++l) {
    size_t newline = text.find('\n', lineStart);
    if (newline == std::string_view::npos)
      break;
    lineStart = newline + 1;
  }
  return std::min(text.size(), lineStart + column - 1);
}

/// The line of `text` around `offset`, without its line break.
std::string lineAround(std::string_view text, size_t offset) {
  size_t lastNewline = text.substr(0, offset).rfind('\n');
  size_t start = lastNewline == std::string_view::npos ? 0 : lastNewline + 1;
  size_t end = text.find('\n', start);
  if (end == std::string_view::npos)
    end = text.size();
  std::string_view line = text.substr(start, end - start);
  // As the frontend: a "\r\n" break's '\r' is not part of the line.
  if (end < text.size() && line.ends_with('\r'))
    line.remove_suffix(1);
  return std::string(line);
}

} // namespace

SourcePosition positionOf(const TypeSource &source, size_t offset) {
  std::string_view text = source.text;
  offset = std::min(offset, text.size());
  size_t lastNewline = text.substr(0, offset).rfind('\n');
  size_t lineStart =
      lastNewline == std::string_view::npos ? 0 : lastNewline + 1;
  SourcePosition position;
  position.line = static_cast<unsigned>(
      std::count(text.begin(), text.begin() + lineStart, '\n') + 1);
  position.column = static_cast<unsigned>(offset - lineStart + 1);
  return position;
}

TypeText TypeText::slice(std::shared_ptr<const TypeSource> source,
                         size_t offset, size_t length) {
  TypeText type;
  type.text = source->text.substr(offset, length);
  type.pieces.push_back({0, offset, type.text.size()});
  type.written = offset;
  type.source = std::move(source);
  return type;
}

size_t sourceOffsetOf(const TypeText &type, size_t at) {
  for (const TypeText::Piece &piece : type.pieces)
    if (at >= piece.at && at < piece.at + piece.length)
      return piece.from + (at - piece.at);
  // Past the last character: just past the last piece.
  if (type.pieces.empty())
    return 0;
  const TypeText::Piece &last = type.pieces.back();
  return last.from + last.length;
}

ParseResult parseTypeText(const TypeText &type) {
  ParseResult result = parseType(type.text);
  if (result)
    return result;
  Diagnostic &diagnostic = *result.diagnostic;
  size_t offset = sourceOffsetOf(
      type, offsetOf(type.text, diagnostic.line, diagnostic.column));
  SourcePosition position = positionOf(*type.source, offset);
  diagnostic.inputName = type.source->name;
  diagnostic.line = position.line;
  diagnostic.sourceLine = lineAround(type.source->text, offset);
  // Found by qjit_fuzz_mlir_types: an offset at the hidden '\r' of a
  // "\r\n" break is the line's end, just past what is shown.
  diagnostic.column = std::min<unsigned>(
      position.column, static_cast<unsigned>(diagnostic.sourceLine.size()) + 1);
  return result;
}

Expected<TypeDescriptor> parseTypeTextOrError(const TypeText &type) {
  ParseResult result = parseTypeText(type);
  if (!result)
    return Status::error(ErrorCode::InvalidType, result.diagnostic->render());
  return std::move(*result.type);
}

TypeText wholeSourceType(std::shared_ptr<const TypeSource> source) {
  const std::string &text = source->text;
  size_t begin = 0, end = text.size();
  while (begin < end && isBlank(text[begin]))
    ++begin;
  while (end > begin && isBlank(text[end - 1]))
    --end;
  return TypeText::slice(std::move(source), begin, end - begin);
}

std::vector<TypeText> splitTypes(std::shared_ptr<const TypeSource> source) {
  const std::string &text = source->text;
  std::vector<TypeText> types;
  size_t at = 0;
  while (at < text.size()) {
    if (isBlank(text[at])) {
      ++at;
      continue;
    }
    size_t begin = at;
    int depth = 0;
    for (; at < text.size(); ++at) {
      char c = text[at];
      if (c == '\n' && depth == 0)
        break;
      if (c == '<' || c == '{')
        ++depth;
      else if ((c == '>' || c == '}') && depth > 0)
        --depth;
    }
    size_t end = at;
    while (end > begin && isBlank(text[end - 1]))
      --end;
    types.push_back(TypeText::slice(source, begin, end - begin));
  }
  return types;
}

} // namespace qjit::tool
