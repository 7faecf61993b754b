//===- Report.cpp - How commands report failures --------------------------===//
#include "Report.h"

#include <cstdio>
#include <string>

namespace qjit::tool {

namespace {

void printError(std::string_view command, const Status &status) {
  const std::string &message = status.message();
  if (status.code() == ErrorCode::InvalidType)
    std::fprintf(stderr, "%s%s", message.c_str(),
                 message.ends_with('\n') ? "" : "\n");
  else
    std::fprintf(stderr, "qjit %.*s: error: %s\n",
                 static_cast<int>(command.size()), command.data(),
                 message.c_str());
}

} // namespace

int reportFailure(std::string_view command, const Status &status) {
  printError(command, status);
  return kExitFailure;
}

int reportUsageError(std::string_view command, const Status &status) {
  printError(command, status);
  std::fprintf(stderr, "Run 'qjit %.*s --help' for usage.\n",
               static_cast<int>(command.size()), command.data());
  return kExitUsage;
}

std::optional<int> parseCommandFlags(CommandLine &flags, int argc, char **argv,
                                     std::string_view command,
                                     void (*printUsage)()) {
  if (Status parsed = flags.parse(argc, argv, 2); !parsed)
    return reportUsageError(command, parsed);
  if (flags.has("help")) {
    printUsage();
    return kExitSuccess;
  }
  return std::nullopt;
}

} // namespace qjit::tool
