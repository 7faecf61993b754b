//===- ToolTestSupport.h - Running the qjit tool ----------------*- C++ -*-===//
#ifndef QJIT_TESTS_TOOLS_TOOLTESTSUPPORT_H
#define QJIT_TESTS_TOOLS_TOOLTESTSUPPORT_H

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace qjit::testing {

/// A fresh directory under the test temp dir, removed with its contents.
class ScratchDir {
public:
  ScratchDir();
  ~ScratchDir();
  ScratchDir(const ScratchDir &) = delete;
  ScratchDir &operator=(const ScratchDir &) = delete;

  const std::filesystem::path &path() const { return path_; }
  /// path() / name, as a string for command lines.
  std::string file(const std::string &name) const;
  /// Names of the entries in path() (or in `sub` under it), sorted.
  std::vector<std::string> entries(const std::string &sub = "") const;

private:
  std::filesystem::path path_;
};

struct ToolResult {
  int exitCode = -1;
  std::string out;
  std::string err;
};

struct ToolRunOptions {
  /// RLIMIT_FSIZE for the child, with SIGXFSZ ignored so writes past it
  /// fail with EFBIG instead of killing it.
  std::optional<uint64_t> maxFileBytes;
  /// RLIMIT_AS for the child: allocations past it fail (std::bad_alloc).
  std::optional<uint64_t> maxAddressSpaceBytes;
  /// What the child reads on stdin (default: /dev/null).
  std::string stdinText;
  /// Extra NAME=VALUE environment entries for the child.
  std::vector<std::string> environment;
};

/// Runs $QJIT_BINARY_DIR/tools/qjit with `args` (argv[1..]).
ToolResult runQjit(const std::vector<std::string> &args,
                   const ToolRunOptions &options = {});

std::vector<uint8_t> readBytes(const std::string &path);
void writeBytes(const std::string &path, const std::vector<uint8_t> &bytes);

} // namespace qjit::testing

#endif
