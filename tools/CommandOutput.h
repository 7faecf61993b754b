//===- CommandOutput.h - Where a command's result goes ----------*- C++ -*-===//
//
// `-o FILE` for every command that prints a result. Standard output (`-`,
// the default) receives the text as it is produced, so that results and
// diagnostics keep their order on a shared terminal. A file receives all of
// it at once through writeOutputFile, and only when the command finishes
// successfully: a failed command leaves no partial file.
//
//===----------------------------------------------------------------------===//
#ifndef QJIT_TOOLS_COMMANDOUTPUT_H
#define QJIT_TOOLS_COMMANDOUTPUT_H

#include "CommandLine.h"

#include "qjit/Error.h"

#include <string>
#include <string_view>

namespace qjit::tool {

/// The help line of -o.
extern const char kOutputFlagHelp[];

class CommandOutput {
public:
  /// -o's value, "-" when absent.
  explicit CommandOutput(const CommandLine &flags);

  void write(std::string_view text);
  /// Writes the file; nothing to do for standard output.
  Status finish();

private:
  std::string path_;
  std::string pending_;
};

/// out.finish(), reported as the command's failure: the exit code.
int finishOutput(std::string_view command, CommandOutput &out);

} // namespace qjit::tool

#endif
