//===- Commands.h - The qjit tool's subcommands -----------------*- C++ -*-===//
//
// Each subcommand reads argv[2..] and returns the process exit code:
// 0 success, 1 a failure the command reports (invalid type, mismatch),
// 2 a usage error. Diagnostics go to stderr, results to stdout.
//
//===----------------------------------------------------------------------===//
#ifndef QJIT_TOOLS_COMMANDS_H
#define QJIT_TOOLS_COMMANDS_H

namespace qjit::tool {

int parseCommand(int argc, char **argv);
int specCommand(int argc, char **argv);
int runCommand(int argc, char **argv);
int irCommand(int argc, char **argv);
int asmCommand(int argc, char **argv);
int benchCommand(int argc, char **argv);

} // namespace qjit::tool

#endif
