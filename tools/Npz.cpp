//===- Npz.cpp - numpy .npz archives (zips of .npy files) -----------------===//
//
// minizip reads and writes paths, not memory: the archive is built in a
// temporary file and then handed to writeOutputFile, so the output keeps
// its all-or-nothing rule.
//
//===----------------------------------------------------------------------===//
#include "Npz.h"

#include "FileIO.h"

#include <minizip/unzip.h>
#include <minizip/zip.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <unistd.h>

namespace qjit::tool {

namespace {

Status ioError(const std::string &path, const std::string &what) {
  return Status::error(ErrorCode::IOError, path + ": " + what);
}

/// A temporary file, removed when this goes away.
class TemporaryFile {
public:
  static Expected<TemporaryFile> create() {
    std::string pattern =
        (std::filesystem::temp_directory_path() / "qjit-npz-XXXXXX").string();
    int fd = mkstemp(pattern.data());
    if (fd < 0)
      return ioError(pattern, "cannot create a temporary file");
    close(fd);
    return TemporaryFile(std::move(pattern));
  }
  TemporaryFile(TemporaryFile &&other) noexcept
      : path_(std::move(other.path_)) {
    other.path_.clear();
  }
  TemporaryFile(const TemporaryFile &) = delete;
  TemporaryFile &operator=(const TemporaryFile &) = delete;
  TemporaryFile &operator=(TemporaryFile &&) = delete;
  ~TemporaryFile() {
    if (!path_.empty())
      std::remove(path_.c_str());
  }
  const std::string &path() const { return path_; }

private:
  explicit TemporaryFile(std::string path) : path_(std::move(path)) {}
  std::string path_;
};

struct ZipCloser {
  void operator()(void *zip) const { zipClose(zip, nullptr); }
};
struct UnzipCloser {
  void operator()(void *zip) const { unzClose(zip); }
};

Status addMember(zipFile zip, const NpzEntry &entry, const std::string &path) {
  std::vector<uint8_t> header = npyHeader(entry.dtype, entry.shape);
  std::string member = entry.name + ".npy";
  zip_fileinfo info = {};
  info.tmz_date.tm_mday = 1; // 1980-01-01, the earliest DOS date.
  info.tmz_date.tm_year = 1980;
  // Stored, not deflated, as numpy.savez writes.
  if (zipOpenNewFileInZip64(zip, member.c_str(), &info, nullptr, 0, nullptr, 0,
                            nullptr, 0, 0, 1) != ZIP_OK)
    return ioError(path, "cannot add " + member);
  bool written =
      zipWriteInFileInZip(zip, header.data(),
                          static_cast<unsigned>(header.size())) == ZIP_OK &&
      zipWriteInFileInZip(zip, entry.data.data(),
                          static_cast<unsigned>(entry.data.size())) == ZIP_OK;
  if (zipCloseFileInZip(zip) != ZIP_OK || !written)
    return ioError(path, "cannot write " + member);
  return Status::ok();
}

} // namespace

Status writeNpz(const std::string &path, std::span<const NpzEntry> entries) {
  Expected<TemporaryFile> temporary = TemporaryFile::create();
  if (!temporary)
    return temporary.status();
  {
    std::unique_ptr<void, ZipCloser> zip(
        zipOpen64(temporary->path().c_str(), APPEND_STATUS_CREATE));
    if (!zip)
      return ioError(temporary->path(), "cannot create a zip archive");
    for (const NpzEntry &entry : entries)
      if (Status s = addMember(zip.get(), entry, path); !s)
        return s;
  }
  Expected<std::vector<uint8_t>> archive = readFile(temporary->path());
  if (!archive)
    return archive.status();
  std::array<std::span<const uint8_t>, 1> pieces = {*archive};
  return writeOutputFile(path, pieces);
}

Expected<NpyArray> readNpzArray(const std::string &path,
                                const std::string &name) {
  std::unique_ptr<void, UnzipCloser> zip(unzOpen64(path.c_str()));
  if (!zip)
    return ioError(path, "cannot open it as a zip (.npz) archive");
  std::string member = name + ".npy";
  if (unzLocateFile(zip.get(), member.c_str(), /*case sensitive*/ 1) != UNZ_OK)
    return Status::error(ErrorCode::InvalidArgument,
                         path + ": has no array '" + name + "'");
  unz_file_info64 info;
  if (unzGetCurrentFileInfo64(zip.get(), &info, nullptr, 0, nullptr, 0, nullptr,
                              0) != UNZ_OK ||
      unzOpenCurrentFile(zip.get()) != UNZ_OK)
    return ioError(path, "cannot read " + member);
  std::vector<uint8_t> bytes(info.uncompressed_size);
  int read = bytes.empty()
                 ? 0
                 : unzReadCurrentFile(zip.get(), bytes.data(),
                                      static_cast<unsigned>(bytes.size()));
  bool closed = unzCloseCurrentFile(zip.get()) == UNZ_OK; // Checks the CRC.
  if (read != static_cast<int>(bytes.size()) || !closed)
    return ioError(path, "cannot read " + member + " (corrupt archive?)");
  Expected<NpyArray> array = parseNpy(std::move(bytes));
  if (!array)
    return Status::error(ErrorCode::InvalidArgument,
                         path + ": " + member + ": " +
                             array.status().message());
  return array;
}

} // namespace qjit::tool
