//===- DiskCache.cpp - Compiled kernels kept in a directory ---------------===//
#include "DiskCache.h"

#include "Log.h"

#include <zlib.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <system_error>
#include <vector>

namespace qjit {

namespace fs = std::filesystem;

namespace {

constexpr std::array<char, 8> kMagic = {'Q', 'J', 'I', 'T', 'K', 'C', 'H', 0};

/// The fixed start of every entry file, followed by the key and the payload.
/// Host byte order: a file from another byte order fails the version check.
struct EntryHeader {
  std::array<char, 8> magic;
  uint32_t formatVersion;
  uint32_t keyBytes;
  uint64_t payloadBytes;
  uint32_t checksum; ///< CRC-32 of the key, then the payload.
  uint32_t reserved;
};
static_assert(sizeof(EntryHeader) == 32);

/// A temporary file older than this was left by a process that died
/// between writing and renaming it.
constexpr auto kStaleTemporary = std::chrono::minutes(10);

DiskCache::Counters processCounters;
/// Numbers temporary files: process-wide, since two caches of one process
/// may write the same key at once and must not pick the same name.
std::atomic<uint64_t> temporaryCounter{0};

uint32_t crc32Of(std::string_view key, std::span<const char> payload) {
  uLong crc = crc32_z(0L, Z_NULL, 0);
  crc = crc32_z(crc, reinterpret_cast<const Bytef *>(key.data()), key.size());
  crc = crc32_z(crc, reinterpret_cast<const Bytef *>(payload.data()),
                payload.size());
  return static_cast<uint32_t>(crc);
}

/// Reads all `size` bytes at the start of `fd`.
bool readAll(int fd, char *data, size_t size) {
  size_t done = 0;
  while (done < size) {
    ssize_t got =
        ::pread(fd, data + done, size - done, static_cast<off_t>(done));
    if (got < 0 && errno == EINTR)
      continue;
    if (got <= 0)
      return false;
    done += static_cast<size_t>(got);
  }
  return true;
}

bool writeAll(int fd, const char *data, size_t size) {
  while (size > 0) {
    ssize_t put = ::write(fd, data, size);
    if (put < 0 && errno == EINTR)
      continue;
    if (put <= 0)
      return false;
    data += put;
    size -= static_cast<size_t>(put);
  }
  return true;
}

bool isEntryName(const std::string &name) {
  return name.size() > DiskCache::kEntrySuffix.size() &&
         name.ends_with(DiskCache::kEntrySuffix);
}

bool isTemporaryName(const std::string &name) {
  return name.find(std::string(DiskCache::kEntrySuffix) + ".tmp.") !=
         std::string::npos;
}

} // namespace

DiskCache::DiskCache(fs::path directory, uint64_t maxBytes,
                     std::string keyPrefix)
    : directory_(std::move(directory)), maxBytes_(maxBytes),
      keyPrefix_(std::move(keyPrefix)) {}

std::shared_ptr<DiskCache> DiskCache::open(const fs::path &directory,
                                           uint64_t maxBytes,
                                           std::string keyPrefix) {
  std::error_code error;
  fs::create_directories(directory, error);
  if (error || !fs::is_directory(directory, error)) {
    cacheLogger().warn("disk cache off: cannot use directory {}: {}",
                       directory.string(),
                       error ? error.message() : "not a directory");
    return nullptr;
  }
  if (::access(directory.c_str(), R_OK | W_OK | X_OK) != 0) {
    cacheLogger().warn("disk cache off: directory {} is not writable: {}",
                       directory.string(), std::strerror(errno));
    return nullptr;
  }
  std::shared_ptr<DiskCache> cache(
      new DiskCache(directory, maxBytes, std::move(keyPrefix)));
  // Learns the directory's size (and trims it if another process left it
  // over the bound).
  cache->bytes_ = maxBytes + 1;
  cache->evictIfOver();
  return cache;
}

void DiskCache::count(Counter counter, uint64_t delta) {
  counters_[counter].fetch_add(delta, std::memory_order_relaxed);
  processCounters[counter].fetch_add(delta, std::memory_order_relaxed);
}

fs::path DiskCache::entryPath(std::string_view key) const {
  // Two independent 32-bit hashes name the file; a collision is harmless
  // (the header's key decides) but costs the two keys their sharing.
  const auto *bytes = reinterpret_cast<const Bytef *>(key.data());
  uint32_t crc = static_cast<uint32_t>(crc32_z(0L, bytes, key.size()));
  uint32_t adler = static_cast<uint32_t>(adler32_z(1L, bytes, key.size()));
  char name[32];
  std::snprintf(name, sizeof name, "%08x%08x", crc, adler);
  return directory_ / (std::string(name) + std::string(kEntrySuffix));
}

std::optional<std::vector<char>> DiskCache::load(std::string_view key) {
  fs::path path = entryPath(key);
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    count(Misses);
    return std::nullopt;
  }
  auto reject = [&](const char *why) -> std::optional<std::vector<char>> {
    ::close(fd);
    cacheLogger().debug("disk cache: ignoring {}: {}", path.string(), why);
    count(Rejects);
    count(Misses);
    return std::nullopt;
  };
  struct stat info {};
  if (::fstat(fd, &info) != 0)
    return reject("cannot stat");
  uint64_t fileBytes = static_cast<uint64_t>(info.st_size);
  EntryHeader header{};
  if (fileBytes > maxBytes_)
    return reject("larger than the whole cache may be");
  if (fileBytes < sizeof header ||
      !readAll(fd, reinterpret_cast<char *>(&header), sizeof header))
    return reject("truncated header");
  if (header.magic != kMagic)
    return reject("not a qjit cache entry");
  if (header.formatVersion != kFormatVersion)
    return reject("another format version");
  if (header.keyBytes != key.size())
    return reject("another key");
  // Sizes from the file are checked against the file before anything is
  // allocated by them.
  if (fileBytes - sizeof header < header.keyBytes ||
      fileBytes - sizeof header - header.keyBytes != header.payloadBytes)
    return reject("truncated or oversized");
  std::vector<char> contents(fileBytes);
  if (!readAll(fd, contents.data(), contents.size()))
    return reject("short read");
  std::string_view storedKey(contents.data() + sizeof header, key.size());
  if (storedKey != key)
    return reject("another key");
  std::span<const char> payload(contents.data() + sizeof header + key.size(),
                                header.payloadBytes);
  if (crc32Of(key, payload) != header.checksum)
    return reject("checksum mismatch");
  // A hit makes the entry the most recently used (eviction goes by mtime).
  (void)::futimens(fd, nullptr);
  ::close(fd);
  count(Hits);
  count(BytesRead, fileBytes);
  return std::vector<char>(payload.begin(), payload.end());
}

void DiskCache::store(std::string_view key, std::span<const char> payload) {
  if (!writable_.load(std::memory_order_relaxed))
    return;
  EntryHeader header{};
  header.magic = kMagic;
  header.formatVersion = kFormatVersion;
  header.keyBytes = static_cast<uint32_t>(key.size());
  header.payloadBytes = payload.size();
  header.checksum = crc32Of(key, payload);
  uint64_t fileBytes = sizeof header + key.size() + payload.size();
  if (fileBytes > maxBytes_)
    return; // Could never fit.
  fs::path path = entryPath(key);
  // Unique per process and write: concurrent writers never share a file.
  fs::path temporary =
      path.string() + ".tmp." + std::to_string(::getpid()) + "." +
      std::to_string(temporaryCounter.fetch_add(1, std::memory_order_relaxed));
  int fd =
      ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0)
    return disableWrites("cannot create " + temporary.string() + ": " +
                         std::strerror(errno));
  bool written =
      writeAll(fd, reinterpret_cast<const char *>(&header), sizeof header) &&
      writeAll(fd, key.data(), key.size()) &&
      writeAll(fd, payload.data(), payload.size());
  int writeErrno = errno;
  if (::close(fd) != 0 && written) {
    written = false;
    writeErrno = errno;
  }
  if (!written || ::rename(temporary.c_str(), path.c_str()) != 0) {
    if (written)
      writeErrno = errno;
    ::unlink(temporary.c_str());
    return disableWrites("cannot write " + path.string() + ": " +
                         std::strerror(writeErrno));
  }
  count(Writes);
  count(BytesWritten, fileBytes);
  if (bytes_.fetch_add(fileBytes, std::memory_order_relaxed) + fileBytes >
      maxBytes_)
    evictIfOver();
}

void DiskCache::disableWrites(const std::string &what) {
  if (writable_.exchange(false))
    cacheLogger().warn("disk cache: {}; not writing to it any more", what);
}

void DiskCache::evictIfOver() {
  std::lock_guard<std::mutex> lock(evictMutex_);
  if (bytes_.load(std::memory_order_relaxed) <= maxBytes_)
    return; // Another thread trimmed it meanwhile.
  struct File {
    fs::file_time_type time;
    uint64_t bytes;
    fs::path path;
  };
  std::vector<File> entries;
  uint64_t total = 0;
  std::error_code error;
  auto now = fs::file_time_type::clock::now();
  for (const fs::directory_entry &item :
       fs::directory_iterator(directory_, error)) {
    std::string name = item.path().filename().string();
    std::error_code itemError;
    fs::file_time_type time = item.last_write_time(itemError);
    uint64_t bytes = item.file_size(itemError);
    if (itemError) // Renamed or removed by another process meanwhile.
      continue;
    if (isTemporaryName(name)) {
      if (now - time > kStaleTemporary)
        (void)fs::remove(item.path(), itemError);
      else
        total += bytes;
    } else if (isEntryName(name)) {
      entries.push_back({time, bytes, item.path()});
      total += bytes;
    }
  }
  if (error) {
    cacheLogger().warn("disk cache: cannot list {}: {}", directory_.string(),
                       error.message());
    bytes_ = 0;
    return;
  }
  // Down to three quarters, so that the next scan is many writes away.
  uint64_t target = maxBytes_ - maxBytes_ / 4;
  if (total > maxBytes_) {
    std::sort(entries.begin(), entries.end(),
              [](const File &a, const File &b) { return a.time < b.time; });
    for (const File &file : entries) {
      if (total <= target)
        break;
      std::error_code removeError;
      if (fs::remove(file.path, removeError))
        count(Evictions);
      total -= file.bytes; // Gone either way (another process removed it).
    }
  }
  bytes_ = total;
}

namespace {

void addCounters(CacheStats &stats, const DiskCache::Counters &c) {
  stats.diskHits += c[DiskCache::Hits].load(std::memory_order_relaxed);
  stats.diskMisses += c[DiskCache::Misses].load(std::memory_order_relaxed);
  stats.diskWrites += c[DiskCache::Writes].load(std::memory_order_relaxed);
  stats.diskBytesRead +=
      c[DiskCache::BytesRead].load(std::memory_order_relaxed);
  stats.diskBytesWritten +=
      c[DiskCache::BytesWritten].load(std::memory_order_relaxed);
  stats.diskEvictions +=
      c[DiskCache::Evictions].load(std::memory_order_relaxed);
  stats.diskRejects += c[DiskCache::Rejects].load(std::memory_order_relaxed);
}

} // namespace

void DiskCache::addTo(CacheStats &stats) const {
  addCounters(stats, counters_);
}

void DiskCache::addProcessTotals(CacheStats &stats) {
  addCounters(stats, processCounters);
}

} // namespace qjit
