#include "CommandLine.h"

namespace qjit::tool {

CommandLine &CommandLine::value(std::string name) {
  valueFlags_.insert(std::move(name));
  return *this;
}

CommandLine &CommandLine::flag(std::string name) {
  boolFlags_.insert(std::move(name));
  return *this;
}

Status CommandLine::parse(int argc, char **argv, int first) {
  bool onlyPositional = false;
  for (int i = first; i < argc; ++i) {
    std::string arg = argv[i];
    // "-" alone is a positional (stdin); "--" ends the flags.
    if (onlyPositional || arg.size() < 2 || arg[0] != '-') {
      positional_.push_back(arg);
      continue;
    }
    if (arg == "--") {
      onlyPositional = true;
      continue;
    }
    std::string body = arg.substr(arg[1] == '-' ? 2 : 1);
    std::string name = body, value;
    bool hasValue = false;
    if (auto eq = body.find('='); eq != std::string::npos) {
      name = body.substr(0, eq);
      value = body.substr(eq + 1);
      hasValue = true;
    }
    if (boolFlags_.count(name)) {
      if (hasValue)
        return Status::error(ErrorCode::InvalidArgument,
                             "flag '" + arg + "' does not take a value");
      values_[name] = "1";
      continue;
    }
    if (!valueFlags_.count(name))
      return Status::error(ErrorCode::InvalidArgument,
                           "unknown flag '" + arg + "'");
    if (!hasValue) {
      if (i + 1 >= argc)
        return Status::error(ErrorCode::InvalidArgument,
                             "flag '" + arg + "' needs a value");
      value = argv[++i];
    }
    // A repeated flag must agree with itself: which one wins is a guess.
    auto previous = values_.find(name);
    if (previous != values_.end() && previous->second != value)
      return Status::error(ErrorCode::InvalidArgument,
                           "conflicting values for --" + name + ": '" +
                               previous->second + "' and '" + value + "'");
    values_[name] = value;
  }
  return Status::ok();
}

bool CommandLine::has(const std::string &name) const {
  return values_.count(name) != 0;
}

std::optional<std::string> CommandLine::get(const std::string &name) const {
  auto it = values_.find(name);
  if (it == values_.end())
    return std::nullopt;
  return it->second;
}

std::string CommandLine::getOr(const std::string &name,
                               std::string fallback) const {
  auto v = get(name);
  return v ? *v : fallback;
}

} // namespace qjit::tool
