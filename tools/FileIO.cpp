//===- FileIO.cpp - Whole-file reads and safe output writes ---------------===//
#include "FileIO.h"

#include <cerrno>
#include <cstdio>
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

namespace {

/// Everything left to read on `fd`; `name` is for messages.
Expected<std::vector<uint8_t>> readAll(int fd, const std::string &name) {
  std::vector<uint8_t> bytes;
  struct stat info;
  if (::fstat(fd, &info) == 0 && S_ISREG(info.st_mode))
    bytes.reserve(static_cast<size_t>(info.st_size));
  uint8_t buffer[1 << 16];
  for (;;) {
    ssize_t got = ::read(fd, buffer, sizeof buffer);
    if (got < 0) {
      if (errno == EINTR)
        continue;
      return ioError("read", name, errno);
    }
    if (got == 0)
      return bytes;
    bytes.insert(bytes.end(), buffer, buffer + got);
  }
}

} // namespace

Expected<std::vector<uint8_t>> readFile(const std::string &path) {
  FileDescriptor fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (fd.get() < 0)
    return ioError("open", path, errno);
  return readAll(fd.get(), path);
}

Expected<std::vector<uint8_t>> readStandardInput() {
  return readAll(STDIN_FILENO, "<stdin>");
}

namespace {

Status writeAllPieces(int fd, std::span<const std::span<const uint8_t>> pieces,
                      const std::string &path) {
  for (std::span<const uint8_t> piece : pieces)
    if (Status status = writeAll(fd, piece, path); !status)
      return status;
  return Status::ok();
}

/// An existing file that is not a regular one: written where it is.
Status writeInPlace(const std::string &path,
                    std::span<const std::span<const uint8_t>> pieces) {
  FileDescriptor fd(::open(path.c_str(), O_WRONLY | O_CLOEXEC));
  if (fd.get() < 0)
    return ioError("open", path, errno);
  Status status = writeAllPieces(fd.get(), pieces, path);
  if (fd.close() != 0 && status)
    status = ioError("write", path, errno);
  return status;
}

Status replaceAtomically(const std::string &path,
                         std::span<const std::span<const uint8_t>> pieces,
                         const struct stat *existing) {
  int rawFd = -1;
  Expected<std::string> temporary = createTemporaryFor(path, rawFd);
  if (!temporary)
    return temporary.status();
  FileDescriptor fd(rawFd);
  Status status = writeAllPieces(fd.get(), pieces, path);
  if (status && existing && ::fchmod(fd.get(), existing->st_mode & 07777) != 0)
    status = ioError("keep the permissions of", path, errno);
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

/// The file `path` names once every symbolic link on the last component is
/// followed (a dangling one: where it points), so that the rename replaces
/// the target, not the link.
Expected<std::string> followLinks(const std::string &path) {
  std::filesystem::path current(path);
  for (int hops = 0; hops < 40; ++hops) {
    std::error_code error;
    if (!std::filesystem::is_symlink(current, error))
      return current.string();
    std::filesystem::path next = std::filesystem::read_symlink(current, error);
    if (error)
      return ioError("follow the link", path, error.value());
    current = next.is_absolute() ? next : current.parent_path() / next;
  }
  return ioError("follow the link", path, ELOOP);
}

} // namespace

Status writeOutputFile(const std::string &path,
                       std::span<const std::span<const uint8_t>> pieces) {
  if (path == "-") {
    std::fflush(stdout); // What printf buffered goes first.
    return writeAllPieces(STDOUT_FILENO, pieces, "<stdout>");
  }
  Expected<std::string> linked = followLinks(path);
  if (!linked)
    return linked.status();
  const std::string &resolved = *linked;
  struct stat info;
  if (::stat(resolved.c_str(), &info) != 0) {
    if (errno != ENOENT)
      return ioError("inspect", path, errno);
    return replaceAtomically(resolved, pieces, nullptr);
  }
  if (S_ISDIR(info.st_mode))
    return ioError("write", path, EISDIR);
  if (!S_ISREG(info.st_mode))
    return writeInPlace(resolved, pieces);
  return replaceAtomically(resolved, pieces, &info);
}

bool sameFile(const std::string &a, const std::string &b) {
  struct stat first, second;
  return ::stat(a.c_str(), &first) == 0 && ::stat(b.c_str(), &second) == 0 &&
         first.st_dev == second.st_dev && first.st_ino == second.st_ino;
}

} // namespace qjit::tool
