//===- Report.h - How commands report failures ------------------*- C++ -*-===//
#ifndef QJIT_TOOLS_REPORT_H
#define QJIT_TOOLS_REPORT_H

#include "CommandLine.h"

#include "qjit/Error.h"

#include <optional>
#include <string_view>

namespace qjit::tool {

/// Exit codes of every subcommand (see Commands.h).
constexpr int kExitSuccess = 0;
constexpr int kExitFailure = 1; ///< The command ran and reports a problem.
constexpr int kExitUsage = 2;   ///< The command line itself is wrong.

/// Prints `status` to stderr as "qjit COMMAND: error: MESSAGE" (a type
/// diagnostic, which carries its own location and caret, as is) and
/// returns kExitFailure.
int reportFailure(std::string_view command, const Status &status);

/// As reportFailure, plus a pointer to --help; returns kExitUsage.
int reportUsageError(std::string_view command, const Status &status);

/// The start the kernel subcommands share: parses argv[2..] into `flags` (which
/// declare "help"). Returns the exit code when the command is done already
/// (kExitUsage, reported, for a bad command line; kExitSuccess once
/// `printUsage` answered --help), or nullopt when it should go on.
std::optional<int> parseCommandFlags(CommandLine &flags, int argc, char **argv,
                                     std::string_view command,
                                     void (*printUsage)());

} // namespace qjit::tool

#endif
