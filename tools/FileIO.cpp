//===- FileIO.cpp - Whole-file reads and atomic writes --------------------===//
#include "FileIO.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <sys/stat.h>
#include <unistd.h>

namespace qjit::tool {

namespace {

Status ioError(const std::string &what, const std::string &path, int error) {
  return Status::error(ErrorCode::IOError, "cannot " + what + " '" + path +
                                               "': " + std::strerror(error));
}

/// Closes a descriptor on every path out of a scope.
class FileDescriptor {
public:
  explicit FileDescriptor(int fd) : fd_(fd) {}
  ~FileDescriptor() {
    if (fd_ >= 0)
      ::close(fd_);
  }
  FileDescriptor(const FileDescriptor &) = delete;
  FileDescriptor &operator=(const FileDescriptor &) = delete;
  int get() const { return fd_; }
  /// Closes now, reporting the error close() can return (delayed writes).
  int close() {
    int result = ::close(fd_);
    fd_ = -1;
    return result;
  }

private:
  int fd_;
};

Status writeAll(int fd, std::span<const uint8_t> bytes,
                const std::string &path) {
  while (!bytes.empty()) {
    ssize_t written = ::write(fd, bytes.data(), bytes.size());
    if (written < 0) {
      if (errno == EINTR)
        continue;
      return ioError("write", path, errno);
    }
    bytes = bytes.subspan(static_cast<size_t>(written));
  }
  return Status::ok();
}

/// Creates a new, empty temporary next to `path`; mode 0666 so the umask
/// gives the final file the permissions a plain create would.
Expected<std::string> createTemporaryFor(const std::string &path, int &fd) {
  std::filesystem::path target(path);
  std::string stem =
      (target.parent_path() / ("." + target.filename().string() + ".qjit-tmp-" +
                               std::to_string(::getpid()) + "-"))
          .string();
  for (unsigned attempt = 0;; ++attempt) {
    std::string candidate = stem + std::to_string(attempt);
    fd = ::open(candidate.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC,
                0666);
    if (fd >= 0)
      return candidate;
    if (errno != EEXIST || attempt == 100)
      return ioError("create a temporary file for", path, errno);
  }
}

} // namespace

Expected<std::vector<uint8_t>> readFile(const std::string &path) {
  FileDescriptor fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (fd.get() < 0)
    return ioError("open", path, errno);
  std::vector<uint8_t> bytes;
  struct stat info;
  if (::fstat(fd.get(), &info) == 0 && S_ISREG(info.st_mode))
    bytes.reserve(static_cast<size_t>(info.st_size));
  uint8_t buffer[1 << 16];
  for (;;) {
    ssize_t got = ::read(fd.get(), buffer, sizeof buffer);
    if (got < 0) {
      if (errno == EINTR)
        continue;
      return ioError("read", path, errno);
    }
    if (got == 0)
      return bytes;
    bytes.insert(bytes.end(), buffer, buffer + got);
  }
}

Status writeFileAtomically(const std::string &path,
                           std::span<const std::span<const uint8_t>> pieces) {
  int rawFd = -1;
  Expected<std::string> temporary = createTemporaryFor(path, rawFd);
  if (!temporary)
    return temporary.status();
  FileDescriptor fd(rawFd);
  Status status;
  for (std::span<const uint8_t> piece : pieces)
    if (status = writeAll(fd.get(), piece, path); !status)
      break;
  if (status && ::fsync(fd.get()) != 0)
    status = ioError("write", path, errno);
  if (fd.close() != 0 && status)
    status = ioError("write", path, errno);
  if (status && ::rename(temporary->c_str(), path.c_str()) != 0)
    status = ioError("replace", path, errno);
  if (!status)
    ::unlink(temporary->c_str());
  return status;
}

} // namespace qjit::tool
