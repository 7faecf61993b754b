//===- DiskCache.h - Compiled kernels kept in a directory -------*- C++ -*-===//
//
// The persistent kernel cache (docs/runtime.md, "Persistent cache"): one
// file per key in one directory, shared by every runtime and process that
// names it. A file holds a header (magic, format version, key and payload
// sizes, a CRC-32 of key and payload), the full key and the payload; a file
// that does not check out in every part is a miss (counted as rejected) and
// the compile that follows replaces it. Files are written to a unique
// temporary name in the same directory and renamed into place, so readers
// see a whole entry or none. When the directory outgrows its bound the
// least recently used entries (by mtime, which a hit refreshes) go.
// Nothing here fails its caller: I/O errors are logged once and turn the
// disk cache off.
//
//===----------------------------------------------------------------------===//
#ifndef QJIT_RUNTIME_DISKCACHE_H
#define QJIT_RUNTIME_DISKCACHE_H

#include "qjit/Runtime.h"
#include "qjit/internal/CodeStore.h"

#include <array>
#include <atomic>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <mutex>
#include <string>

namespace qjit {

class DiskCache final : public CodeStore {
public:
  /// Bumped whenever the entry layout changes: older files are rejected.
  static constexpr uint32_t kFormatVersion = 1;
  /// Entry files end with this; temporary files carry ".tmp." after it.
  static constexpr std::string_view kEntrySuffix = ".qjk";

  /// The cache in `directory` (created if missing), or null with a logged
  /// warning when it cannot be used.
  static std::shared_ptr<DiskCache> open(const std::filesystem::path &directory,
                                         uint64_t maxBytes,
                                         std::string keyPrefix);

  std::optional<std::vector<char>> load(std::string_view key) override;
  void store(std::string_view key, std::span<const char> payload) override;
  const std::string &keyPrefix() const override { return keyPrefix_; }

  /// Adds this cache's counters to `stats`.
  void addTo(CacheStats &stats) const;
  /// Adds the counters of every disk cache of the process to `stats`.
  static void addProcessTotals(CacheStats &stats);

  enum Counter : uint8_t {
    Hits,
    Misses,
    Writes,
    BytesRead,
    BytesWritten,
    Evictions,
    Rejects,
    kCounterCount
  };
  using Counters = std::array<std::atomic<uint64_t>, kCounterCount>;

private:
  DiskCache(std::filesystem::path directory, uint64_t maxBytes,
            std::string keyPrefix);
  std::filesystem::path entryPath(std::string_view key) const;
  /// Removes the oldest entries (and stale temporaries) until the
  /// directory holds at most three quarters of the bound.
  void evictIfOver();
  void count(Counter counter, uint64_t delta = 1);
  /// Logs `what` once and stops writing.
  void disableWrites(const std::string &what);

  const std::filesystem::path directory_;
  const uint64_t maxBytes_;
  const std::string keyPrefix_;
  /// This process's idea of the directory's size (other processes write
  /// too: the scan in evictIfOver is what counts).
  std::atomic<uint64_t> bytes_{0};
  std::atomic<bool> writable_{true};
  std::mutex evictMutex_;
  Counters counters_{};
};

} // namespace qjit

#endif // QJIT_RUNTIME_DISKCACHE_H
