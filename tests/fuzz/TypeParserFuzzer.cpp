//===- TypeParserFuzzer.cpp - Fuzz parse, verify, print, normalize --------===//
//
// Any text: parseType returns a type or a diagnostic that points into the
// input, never crashes. For every type it accepts, the round-trip
// invariants of RoundTripPropertyTest hold: parse(print(t)) == t, print is
// a fixed point, and the same for normalizeType(t), which is idempotent.
//
//===----------------------------------------------------------------------===//
#include "FuzzCheck.h"
#include "qjit/TypeParser.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace qjit::fuzz {
namespace {

void checkDiagnostic(const Diagnostic &diagnostic) {
  const std::string rendered = diagnostic.render();
  check(!diagnostic.message.empty(), "a diagnostic without a message");
  check(diagnostic.line >= 1 && diagnostic.column >= 1,
        "a diagnostic outside the input: " + rendered);
  check(diagnostic.column <= diagnostic.sourceLine.size() + 1,
        "a caret past the end of its line: " + rendered);
}

void checkPrintParses(const TypeDescriptor &type, std::string_view what) {
  const std::string printed = printType(type);
  const ParseResult reparsed = parseType(printed);
  check(reparsed.type.has_value(),
        std::string(what) + " print does not parse: " + printed + "\n" +
            (reparsed.diagnostic ? reparsed.diagnostic->render() : ""));
  check(*reparsed.type == type,
        std::string(what) + " parse(print(t)) != t: " + printed);
  check(printType(*reparsed.type) == printed,
        std::string(what) + " print is no fixed point: " + printed);
}

} // namespace
} // namespace qjit::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  using namespace qjit;
  const std::string_view text(reinterpret_cast<const char *>(data), size);
  const ParseResult parsed = parseType(text);
  if (!parsed.type) {
    fuzz::check(parsed.diagnostic.has_value(), "rejected without diagnostic");
    fuzz::checkDiagnostic(*parsed.diagnostic);
    return 0;
  }
  fuzz::checkPrintParses(*parsed.type, "");
  const TypeDescriptor normalized = normalizeType(*parsed.type);
  fuzz::checkPrintParses(normalized, "normalized:");
  fuzz::check(normalizeType(normalized) == normalized,
              "normalizeType is not idempotent: " + printType(normalized));
  return 0;
}
