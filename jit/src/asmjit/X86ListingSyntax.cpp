//===- X86ListingSyntax.cpp - asmjit listings for GNU as ------------------===//
#include "X86ListingSyntax.h"

#include "ListingStatements.h"

#include <array>
#include <cctype>
#include <utility>

namespace qjit::asmjit_backend {

namespace {

bool consumePrefix(std::string_view &text, std::string_view prefix) {
  if (!text.starts_with(prefix))
    return false;
  text.remove_prefix(prefix.size());
  return true;
}

/// One statement in GNU as spelling (more lines start with `indent`).
std::string rewriteStatement(std::string_view statement,
                             const std::string &indent) {
  // asmjit's data directives; `.repeat N` prefixes repeated data.
  static constexpr std::array<std::pair<std::string_view, std::string_view>, 4>
      kData = {{{".db ", ".byte "},
                {".dw ", ".short "},
                {".dd ", ".long "},
                {".dq ", ".quad "}}};
  if (consumePrefix(statement, ".repeat ")) {
    size_t space = statement.find(' ');
    std::string count(statement.substr(0, space));
    std::string_view data =
        space == std::string_view::npos ? "" : statement.substr(space + 1);
    return ".rept " + count + "\n" + indent + rewriteStatement(data, indent) +
           "\n" + indent + ".endr";
  }
  for (const auto &[asmjitName, gasName] : kData)
    if (consumePrefix(statement, asmjitName))
      return std::string(gasName) + std::string(statement);
  // Code and data alignment (in bytes, as .balign counts).
  if (consumePrefix(statement, "align "))
    return ".balign " + std::string(statement);
  // Encoding hints the assembler chooses itself: branch displacement sizes
  // (relaxation) and the REX prefix that byte registers such as sil need.
  while (consumePrefix(statement, "short ") ||
         consumePrefix(statement, "long ") || consumePrefix(statement, "rex "))
    ;

  std::string out(statement);
  // asmjit encodes vpand / vpandn / vpor / vpxor on zmm registers as their
  // EVEX dword forms, which assemblers only know by those names.
  for (std::string_view name : {"vpand ", "vpandn ", "vpor ", "vpxor "})
    if (out.starts_with(name) && out.find("zmm") != std::string::npos)
      out.insert(name.size() - 1, "d");
  // asmjit addresses labels RIP-relative in 64-bit code; `[L3]` alone
  // would assemble to an absolute address.
  for (size_t at = out.find("[L"); at != std::string::npos;
       at = out.find("[L", at + 1))
    if (at + 2 < out.size() &&
        std::isdigit(static_cast<unsigned char>(out[at + 2])))
      out.insert(at + 1, "rip+");
  return out;
}

} // namespace

std::string gasIntelListing(std::string_view asmjitText) {
  return ".intel_syntax noprefix\n" +
         rewriteStatements(asmjitText, rewriteStatement, "#");
}

} // namespace qjit::asmjit_backend
