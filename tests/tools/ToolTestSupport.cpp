//===- ToolTestSupport.cpp - Running the built qjit binary in tests -------===//
#include "ToolTestSupport.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <csignal>
#include <cstdlib>
#include <fcntl.h>
#include <fstream>
#include <iterator>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

namespace qjit::testing {

ScratchDir::ScratchDir() {
  std::string pattern =
      (std::filesystem::path(::testing::TempDir()) / "qjit-tool-XXXXXX")
          .string();
  if (!::mkdtemp(pattern.data()))
    ADD_FAILURE() << "mkdtemp failed for " << pattern;
  path_ = pattern;
}

ScratchDir::~ScratchDir() {
  std::error_code ignored;
  // Tests may have made parts read-only.
  std::filesystem::permissions(path_, std::filesystem::perms::owner_all,
                               std::filesystem::perm_options::add, ignored);
  for (const auto &entry :
       std::filesystem::recursive_directory_iterator(path_, ignored))
    std::filesystem::permissions(entry.path(),
                                 std::filesystem::perms::owner_all,
                                 std::filesystem::perm_options::add, ignored);
  std::filesystem::remove_all(path_, ignored);
}

std::string ScratchDir::file(const std::string &name) const {
  return (path_ / name).string();
}

std::vector<std::string> ScratchDir::entries(const std::string &sub) const {
  std::vector<std::string> names;
  for (const auto &entry : std::filesystem::directory_iterator(path_ / sub))
    names.push_back(entry.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

namespace {

std::string qjitBinary() {
  const char *dir = std::getenv("QJIT_BINARY_DIR");
  return std::string(dir ? dir : ".") + "/tools/qjit";
}

std::string readText(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

} // namespace

ToolResult runQjit(const std::vector<std::string> &args,
                   const ToolRunOptions &options) {
  ScratchDir capture;
  std::string outPath = capture.file("stdout"),
              errPath = capture.file("stderr"), inPath = capture.file("stdin");
  writeBytes(inPath, std::vector<uint8_t>(options.stdinText.begin(),
                                          options.stdinText.end()));
  std::string binary = qjitBinary();
  std::vector<char *> argv;
  argv.push_back(binary.data());
  std::vector<std::string> copies = args;
  for (std::string &arg : copies)
    argv.push_back(arg.data());
  argv.push_back(nullptr);

  pid_t child = ::fork();
  if (child == 0) {
    int in = ::open(inPath.c_str(), O_RDONLY);
    int out = ::open(outPath.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    int err = ::open(errPath.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (in < 0 || out < 0 || err < 0 || ::dup2(in, 0) < 0 ||
        ::dup2(out, 1) < 0 || ::dup2(err, 2) < 0)
      ::_exit(126);
    for (const std::string &entry : options.environment)
      ::putenv(const_cast<char *>(entry.c_str()));
    if (options.maxFileBytes) {
      std::signal(SIGXFSZ, SIG_IGN);
      struct rlimit limit = {*options.maxFileBytes, *options.maxFileBytes};
      if (::setrlimit(RLIMIT_FSIZE, &limit) != 0)
        ::_exit(126);
    }
    if (options.maxAddressSpaceBytes) {
      struct rlimit limit = {*options.maxAddressSpaceBytes,
                             *options.maxAddressSpaceBytes};
      if (::setrlimit(RLIMIT_AS, &limit) != 0)
        ::_exit(126);
    }
    ::execv(binary.c_str(), argv.data());
    ::_exit(127);
  }
  ToolResult result;
  int status = 0;
  if (child < 0 || ::waitpid(child, &status, 0) != child) {
    ADD_FAILURE() << "could not run " << binary;
    return result;
  }
  result.exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  result.out = readText(outPath);
  result.err = readText(errPath);
  return result;
}

std::vector<uint8_t> readBytes(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(in), {});
}

void writeBytes(const std::string &path, const std::vector<uint8_t> &bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(reinterpret_cast<const char *>(bytes.data()),
            static_cast<std::streamsize>(bytes.size()));
}

} // namespace qjit::testing
