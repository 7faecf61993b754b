//===- Diagnostics.cpp - Locating and rendering problems ------------------===//
#include "Diagnostics.h"

#include <algorithm>

namespace qjit {

std::string Diagnostic::render() const {
  std::string out = "error: " + inputName + ":" + std::to_string(line) + ":" +
                    std::to_string(column) + ": " + message + "\n" +
                    sourceLine + "\n";
  // Copy tabs so the caret lines up however the terminal expands them.
  for (unsigned i = 1; i < column; ++i)
    out += i - 1 < sourceLine.size() && sourceLine[i - 1] == '\t' ? '\t' : ' ';
  out += '^';
  return out;
}

namespace detail {

Diagnostic locateDiagnostic(std::string_view text, size_t offset,
                            std::string message, std::string inputName) {
  offset = std::min(offset, text.size());
  size_t lastNewline = text.substr(0, offset).rfind('\n');
  size_t lineStart =
      lastNewline == std::string_view::npos ? 0 : lastNewline + 1;
  size_t lineEnd = text.find('\n', lineStart);
  if (lineEnd == std::string_view::npos)
    lineEnd = text.size();
  std::string_view sourceLine = text.substr(lineStart, lineEnd - lineStart);
  // The '\r' of a "\r\n" line break is not shown; any other '\r' is part of
  // the line (the caret may point just past it, at the end of the input).
  if (lineEnd < text.size() && !sourceLine.empty() && sourceLine.back() == '\r')
    sourceLine.remove_suffix(1);

  Diagnostic diagnostic;
  diagnostic.inputName = std::move(inputName);
  diagnostic.line = static_cast<unsigned>(
      std::count(text.begin(), text.begin() + lineStart, '\n') + 1);
  // An offset at a hidden '\r' is the line's end: just past what is shown.
  diagnostic.column = static_cast<unsigned>(
      std::min(offset - lineStart, sourceLine.size()) + 1);
  diagnostic.message = std::move(message);
  diagnostic.sourceLine = std::string(sourceLine);
  return diagnostic;
}

} // namespace detail
} // namespace qjit
