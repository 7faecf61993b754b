//===- ListingStatements.h - asmjit listings line by line -------*- C++ -*-===//
//
// asmjit's StringLogger prints one statement per line, indented; the GNU as
// rewrites (X86ListingSyntax, A64ListingSyntax) change statements and keep
// the layout.
//
//===----------------------------------------------------------------------===//
#ifndef QJIT_JIT_ASMJIT_LISTINGSTATEMENTS_H
#define QJIT_JIT_ASMJIT_LISTINGSTATEMENTS_H

#include <string>
#include <string_view>

namespace qjit::asmjit_backend {

/// `text` with each statement (a line less its leading spaces) replaced by
/// rewrite(statement, indent); blank lines stay blank. asmjit ends a
/// statement with its inline comment after `;`, which starts a statement
/// in GNU as: the comment follows `commentMarker` instead.
template <typename Rewrite>
std::string rewriteStatements(std::string_view text, Rewrite rewrite,
                              std::string_view commentMarker) {
  std::string out;
  while (!text.empty()) {
    size_t end = text.find('\n');
    std::string_view line = text.substr(0, end);
    text.remove_prefix(end == std::string_view::npos ? text.size() : end + 1);
    size_t indent = line.find_first_not_of(' ');
    if (indent == std::string_view::npos) {
      out += '\n';
      continue;
    }
    std::string spaces(line.substr(0, indent));
    std::string_view statement = line.substr(indent);
    size_t semicolon = statement.find(';');
    std::string comment;
    if (semicolon != std::string_view::npos) {
      comment = std::string(commentMarker) +
                std::string(statement.substr(semicolon + 1));
      statement = statement.substr(0, semicolon);
    }
    // The spaces that align the comment stay before it.
    size_t last = statement.find_last_not_of(' ');
    size_t length = last == std::string_view::npos ? 0 : last + 1;
    std::string padding(statement.substr(length));
    statement = statement.substr(0, length);
    out += spaces;
    if (!statement.empty())
      out += rewrite(statement, spaces);
    if (!comment.empty())
      out += padding + comment;
    out += '\n';
  }
  return out;
}

} // namespace qjit::asmjit_backend

#endif // QJIT_JIT_ASMJIT_LISTINGSTATEMENTS_H
