//===- KernelCache.h - A bounded, compile-once kernel cache -----*- C++ -*-===//
//
// Maps a spec to a compiled kernel. One short critical section per request
// looks the key up (and moves a hit to the front of the LRU list); compiles
// run outside the lock. A key being compiled has an in-flight entry holding
// a shared future: later requests for that key wait on the future, not on
// the lock, so hits on other keys never queue behind a compile. Failures are
// handed to every waiter and then forgotten, so the next request retries
// (a failure may be transient: executable memory refused, a busy backend).
//
//===----------------------------------------------------------------------===//
#ifndef QJIT_RUNTIME_KERNELCACHE_H
#define QJIT_RUNTIME_KERNELCACHE_H

#include "SpecKey.h"
#include "qjit/Runtime.h"

#include <array>
#include <cstdint>
#include <functional>
#include <future>
#include <list>
#include <memory>
#include <mutex>
#include <unordered_map>

namespace qjit {

class KernelCache {
public:
  using KernelResult = Expected<std::shared_ptr<const Kernel>>;
  using CompileFn = std::function<KernelResult()>;

  explicit KernelCache(CacheLimits limits);
  ~KernelCache();
  KernelCache(const KernelCache &) = delete;
  KernelCache &operator=(const KernelCache &) = delete;

  /// The kernel cached under `key`; otherwise the result of the compile in
  /// flight for `key`, or of `compile()` run on this thread (and cached
  /// when it succeeds). Everything else that decides the code (backend,
  /// ISA, library versions) is fixed for the cache's owner, so the spec
  /// alone is the key. A hit builds no string and allocates nothing.
  /// `shared`, when given, is a copy of *key.spec the cache may keep
  /// instead of copying it: later lookups with that very object then
  /// compare by address.
  KernelResult
  getOrCompile(const SpecKey &key, const CompileFn &compile,
               const std::shared_ptr<const KernelSpec> &shared = nullptr);
  /// Drops every compiled kernel (compiles in flight finish and are kept).
  void clear();
  CacheStats stats() const;
  /// The counters summed over every cache of the process (typeTextHits
  /// aside, which caches do not see).
  static CacheStats processStats();

  /// Counters, indexing both a cache's and the process-wide arrays.
  enum Counter : uint8_t {
    Hits,
    Misses,
    Compiles,
    Failures,
    Evictions,
    CompileNanoseconds,
    Kernels,
    CodeBytes,
    kCounterCount
  };

private:
  struct Entry;
  /// Keys point at their entry's copy of the spec.
  using EntryMap =
      std::unordered_map<SpecKey, std::shared_ptr<Entry>, SpecKeyHash>;
  /// Keys of compiled entries, most recently used first. Map iterators
  /// would not survive a rehash; keys do.
  using LruList = std::list<SpecKey>;

  KernelResult compileAndPublish(const SpecKey &key,
                                 const std::shared_ptr<Entry> &entry,
                                 std::promise<KernelResult> promise,
                                 const CompileFn &compile);
  /// Unlists the least recently used kernel and returns it, for the caller
  /// to release after unlocking. Needs mutex_ and a non-empty LRU list.
  std::shared_ptr<const Kernel> evictLeastRecentlyUsed();
  /// Adds to a counter of this cache and of the process. Needs mutex_.
  void count(Counter counter, int64_t delta = 1);

  const CacheLimits limits_;
  mutable std::mutex mutex_;
  EntryMap entries_;
  LruList lru_;
  std::array<uint64_t, kCounterCount> counters_{};
};

} // namespace qjit

#endif // QJIT_RUNTIME_KERNELCACHE_H
