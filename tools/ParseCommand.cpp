//===- ParseCommand.cpp - qjit parse: verify and print canonical types ----===//
//
// `qjit parse [--normalize] TYPE... | -`: prints each type's canonical form
// on its own line; `-` reads one type per line from stdin (blank lines are
// skipped). Diagnostics go to stderr. Exit 0 when every type is valid, 1
// when one is not, 2 on a usage error.
//
//===----------------------------------------------------------------------===//
#include "CommandLine.h"
#include "Commands.h"

#include "qjit/TypeParser.h"

#include <cstdio>
#include <iostream>
#include <string>

namespace qjit::tool {

namespace {

constexpr const char *kUsage =
    "usage: qjit parse [--normalize] TYPE... | -\n"
    "  Parses and verifies quant types and prints their canonical form.\n"
    "  -             read one type per line from stdin\n"
    "  --normalize   apply MLIR's normalize-quant-types first\n";

/// Parses one type and prints it or its diagnostic; false if invalid.
bool parseOne(const std::string &text, const ParseOptions &options,
              unsigned firstLine, bool normalize) {
  ParseResult result = parseType(text, options);
  if (!result) {
    Diagnostic diagnostic = *result.diagnostic;
    diagnostic.line += firstLine - 1;
    std::fprintf(stderr, "%s\n", diagnostic.render().c_str());
    return false;
  }
  TypeDescriptor type = normalize ? normalizeType(*result.type) : *result.type;
  std::printf("%s\n", printType(type).c_str());
  // Keeps results and diagnostics in input order when both go to one file.
  std::fflush(stdout);
  return true;
}

bool parseStdin(bool normalize) {
  ParseOptions options;
  options.inputName = "<stdin>";
  bool allValid = true;
  std::string line;
  for (unsigned lineNumber = 1; std::getline(std::cin, line); ++lineNumber) {
    if (line.find_first_not_of(" \t\r") == std::string::npos)
      continue;
    allValid &= parseOne(line, options, lineNumber, normalize);
  }
  return allValid;
}

} // namespace

int parseCommand(int argc, char **argv) {
  CommandLine flags;
  flags.flag("normalize").flag("help");
  if (Status status = flags.parse(argc, argv, 2); !status) {
    std::fprintf(stderr, "qjit parse: %s\n%s", status.message().c_str(),
                 kUsage);
    return 2;
  }
  if (flags.has("help")) {
    std::fputs(kUsage, stdout);
    return 0;
  }
  const std::vector<std::string> &types = flags.positional();
  if (types.empty()) {
    std::fprintf(stderr, "qjit parse: no types given\n%s", kUsage);
    return 2;
  }
  bool normalize = flags.has("normalize");
  bool allValid = true;
  for (const std::string &text : types) {
    if (text == "-")
      allValid &= parseStdin(normalize);
    else
      allValid &= parseOne(text, ParseOptions{}, 1, normalize);
  }
  return allValid ? 0 : 1;
}

} // namespace qjit::tool
