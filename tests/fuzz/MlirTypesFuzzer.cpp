//===- MlirTypesFuzzer.cpp - Fuzz the tool's .mlir scanner and type files -===//
//
// Any text, read as an .mlir file (qjit --mlir) and as a file of types
// (qjit parse @FILE): the scanner and the splitter never crash and return
// types whose pieces are copies of the source, in order; each type parses
// or gets a diagnostic located in the source, its caret on its line.
//
//===----------------------------------------------------------------------===//
#include "FuzzCheck.h"
#include "MlirTypes.h"
#include "TypeText.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

namespace qjit::fuzz {
namespace {

void checkType(const tool::TypeText &type) {
  const std::string &source = type.source->text;
  size_t at = 0;
  for (const tool::TypeText::Piece &piece : type.pieces) {
    check(piece.at == at, "pieces do not follow each other");
    check(piece.from <= source.size() &&
              piece.length <= source.size() - piece.from,
          "a piece outside the source");
    at += piece.length;
  }
  check(at == type.text.size(), "pieces do not cover the text");
  check(type.written <= source.size(), "a type written outside the source");
  ParseResult parsed = tool::parseTypeText(type);
  if (parsed.type)
    return;
  check(parsed.diagnostic.has_value(), "rejected without diagnostic");
  const Diagnostic &diagnostic = *parsed.diagnostic;
  check(diagnostic.line >= 1 && diagnostic.column >= 1 &&
            diagnostic.column <= diagnostic.sourceLine.size() + 1,
        "a caret off its line: " + diagnostic.render());
}

} // namespace
} // namespace qjit::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  using namespace qjit;
  auto source = std::make_shared<tool::TypeSource>();
  source->name = "<fuzz>";
  source->text.assign(reinterpret_cast<const char *>(data), size);
  Expected<std::vector<tool::TypeText>> found = tool::findMlirTypes(source);
  if (found)
    for (const tool::TypeText &type : *found)
      fuzz::checkType(type);
  for (const tool::TypeText &type : tool::splitTypes(source))
    fuzz::checkType(type);
  return 0;
}
