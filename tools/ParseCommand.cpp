//===- ParseCommand.cpp - qjit parse: verify and print canonical types ----===//
//
// `qjit parse [--normalize] [-o FILE] TYPE...`: prints each type's canonical
// form on its own line. A TYPE argument is a type, or '@FILE' / '-' for a
// file / stdin of types (TypeText.h's splitTypes says where each ends).
// `qjit parse --mlir FILE.mlir` lists the quant types an .mlir file uses,
// each as FILE:LINE:COL: TYPE. Diagnostics go to stderr. Exit 0 when every
// type is valid, 1 when one is not (no -o file then), 2 on a usage error.
//
//===----------------------------------------------------------------------===//
#include "CommandLine.h"
#include "CommandOutput.h"
#include "Commands.h"
#include "MlirTypes.h"
#include "Report.h"
#include "TypeArgument.h"
#include "TypeText.h"

#include "qjit/TypeParser.h"

#include <algorithm>
#include <cstdio>
#include <string>

namespace qjit::tool {

namespace {

constexpr std::string_view kCommand = "parse";

void printUsage() {
  std::printf(
      "usage: qjit parse [--normalize] [-o FILE] TYPE...\n"
      "       qjit parse [--normalize] [-o FILE] --mlir=FILE.mlir\n\n"
      "Parses and verifies quant types and prints their canonical form, one "
      "per line.\n\n"
      "  TYPE          a type, or @FILE / - (stdin) for a file of types: "
      "each type\n"
      "                starts at a non-blank character and ends at the first "
      "line\n"
      "                break outside every <...> and {...}, so it may span "
      "lines\n"
      "                while a bracket is open (one type per line "
      "otherwise);\n"
      "                blank lines are skipped\n"
      "  --mlir=FILE   list the quant types an .mlir file uses, each as\n"
      "                FILE:LINE:COL: TYPE (tensor types whole, type aliases\n"
      "                expanded); the other commands' --pick=N picks the "
      "N-th\n"
      "  --normalize   apply MLIR's normalize-quant-types first\n"
      "  -o FILE       write the result to FILE (default -: stdout); "
      "written only\n"
      "                when every type is valid\n");
}

/// Parses one type and prints it (after `prefix`) or its diagnostic; false
/// if invalid.
bool parseOne(const TypeText &text, bool normalize, const std::string &prefix,
              CommandOutput &out) {
  ParseResult result = parseTypeText(text);
  if (!result) {
    std::fprintf(stderr, "%s\n", result.diagnostic->render().c_str());
    return false;
  }
  TypeDescriptor type = normalize ? normalizeType(*result.type) : *result.type;
  out.write(prefix + printType(type) + "\n");
  return true;
}

/// The sources first (usage errors before any output), then the types.
int parseArguments(const std::vector<std::string> &arguments, bool normalize,
                   CommandOutput &out) {
  if (std::count(arguments.begin(), arguments.end(), "-") > 1)
    return reportUsageError(kCommand,
                            Status::error(ErrorCode::InvalidArgument,
                                          "'-' (stdin) can be read only once"));
  bool allValid = true;
  for (const std::string &argument : arguments) {
    Expected<std::shared_ptr<const TypeSource>> source =
        readTypeSource(typeArgumentOf(argument));
    if (!source) {
      reportFailure(kCommand, source.status());
      allValid = false;
      continue;
    }
    bool isText = argument != "-" && !argument.starts_with('@');
    std::vector<TypeText> types =
        isText ? std::vector<TypeText>{wholeSourceType(*source)}
               : splitTypes(*source);
    for (const TypeText &type : types)
      allValid &= parseOne(type, normalize, "", out);
  }
  return allValid ? kExitSuccess : kExitFailure;
}

int listMlirTypes(const std::string &path, bool normalize, CommandOutput &out) {
  Expected<std::shared_ptr<const TypeSource>> source =
      readTypeSource({TypeArgument::Kind::Mlir, path, ""});
  if (!source)
    return reportFailure(kCommand, source.status());
  bool allValid = true;
  Expected<std::vector<TypeText>> types = findMlirTypes(*source);
  if (!types)
    return reportFailure(kCommand, types.status());
  for (const TypeText &type : *types) {
    SourcePosition at = positionOf(**source, type.written);
    std::string prefix = (*source)->name + ":" + std::to_string(at.line) + ":" +
                         std::to_string(at.column) + ": ";
    allValid &= parseOne(type, normalize, prefix, out);
  }
  return allValid ? kExitSuccess : kExitFailure;
}

} // namespace

int parseCommand(int argc, char **argv) {
  CommandLine flags;
  flags.flag("normalize").flag("help").value("mlir").value("o");
  if (std::optional<int> done =
          parseCommandFlags(flags, argc, argv, kCommand, printUsage))
    return *done;
  const std::vector<std::string> &types = flags.positional();
  std::optional<std::string> mlir = flags.get("mlir");
  if (types.empty() == !mlir)
    return reportUsageError(
        kCommand, Status::error(ErrorCode::InvalidArgument,
                                mlir ? "--mlir lists a file's types: give no "
                                       "TYPE with it"
                                     : "no types given"));
  CommandOutput out(flags);
  bool normalize = flags.has("normalize");
  int code = mlir ? listMlirTypes(*mlir, normalize, out)
                  : parseArguments(types, normalize, out);
  return code == kExitSuccess ? finishOutput(kCommand, out) : code;
}

} // namespace qjit::tool
