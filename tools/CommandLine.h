//===- CommandLine.h - Flags of the qjit tool -------------------*- C++ -*-===//
//
// A deliberately small flag reader shared by every `qjit` subcommand:
// `--name=value`, `-name=value`, `--name value` for declared value flags,
// `--flag` for booleans, everything else positional. Unknown flags and
// missing values are errors that name the flag.
//
//===----------------------------------------------------------------------===//
#ifndef QJIT_TOOLS_COMMANDLINE_H
#define QJIT_TOOLS_COMMANDLINE_H

#include "qjit/Error.h"

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace qjit::tool {

class CommandLine {
public:
  /// Declares a flag taking a value (`--out=FILE`). Names without dashes.
  CommandLine &value(std::string name);
  /// Declares a boolean flag (`--normalize`).
  CommandLine &flag(std::string name);

  /// Reads argv[first..argc). Fails on unknown flags or missing values.
  Status parse(int argc, char **argv, int first);

  bool has(const std::string &name) const;
  std::optional<std::string> get(const std::string &name) const;
  std::string getOr(const std::string &name, std::string fallback) const;
  const std::vector<std::string> &positional() const { return positional_; }

private:
  std::set<std::string> valueFlags_, boolFlags_;
  std::map<std::string, std::string> values_;
  std::vector<std::string> positional_;
};

} // namespace qjit::tool

#endif
