//===- KernelCache.cpp - Bounded, exactly-one-compile kernel cache --------===//
#include "KernelCache.h"

#include "Log.h"

#include <atomic>
#include <chrono>
#include <vector>

namespace qjit {

namespace {

/// Sums over every cache of the process (gauges net of destroyed caches).
std::array<std::atomic<uint64_t>, KernelCache::kCounterCount> processCounters;

CacheStats toStats(const std::array<uint64_t, KernelCache::kCounterCount> &c) {
  CacheStats stats;
  stats.hits = c[KernelCache::Hits];
  stats.misses = c[KernelCache::Misses];
  stats.compiles = c[KernelCache::Compiles];
  stats.failures = c[KernelCache::Failures];
  stats.evictions = c[KernelCache::Evictions];
  stats.compileNanoseconds = c[KernelCache::CompileNanoseconds];
  stats.kernels = c[KernelCache::Kernels];
  stats.codeBytes = c[KernelCache::CodeBytes];
  return stats;
}

/// Runs `compile`, turning an escaping exception into an error: a compile
/// that never publishes would leave its waiters blocked forever.
KernelCache::KernelResult runCompile(const KernelCache::CompileFn &compile) {
  try {
    return compile();
  } catch (const std::exception &e) {
    return Status::error(ErrorCode::BackendFailure,
                         std::string("compile failed: ") + e.what());
  } catch (...) {
    return Status::error(ErrorCode::BackendFailure, "compile failed");
  }
}

} // namespace

struct KernelCache::Entry {
  /// What the entry's key points at.
  std::shared_ptr<const KernelSpec> spec;
  /// Ready once the compile finished; what waiters for this key receive.
  std::shared_future<KernelResult> result;
  /// Set (with codeBytes and lruPosition) once compiled successfully; hits
  /// read it without touching the future.
  std::shared_ptr<const Kernel> kernel;
  size_t codeBytes = 0;
  LruList::iterator lruPosition;
};

KernelCache::KernelCache(CacheLimits limits) : limits_(limits) {}

KernelCache::~KernelCache() {
  processCounters[Kernels].fetch_sub(counters_[Kernels]);
  processCounters[CodeBytes].fetch_sub(counters_[CodeBytes]);
}

void KernelCache::count(Counter counter, int64_t delta) {
  // Unsigned wrap-around makes negative deltas of the gauges exact.
  counters_[counter] += static_cast<uint64_t>(delta);
  processCounters[counter].fetch_add(static_cast<uint64_t>(delta),
                                     std::memory_order_relaxed);
}

KernelCache::KernelResult
KernelCache::getOrCompile(const SpecKey &key, const CompileFn &compile,
                          const std::shared_ptr<const KernelSpec> &shared) {
  std::unique_lock<std::mutex> lock(mutex_);
  if (auto it = entries_.find(key); it != entries_.end()) {
    Entry &entry = *it->second;
    if (entry.kernel) {
      count(Hits);
      lru_.splice(lru_.begin(), lru_, entry.lruPosition);
      return entry.kernel;
    }
    count(Misses);
    std::shared_future<KernelResult> inFlight = entry.result;
    lock.unlock();
    return inFlight.get();
  }
  count(Misses);
  count(Compiles);
  auto entry = std::make_shared<Entry>();
  entry->spec = shared ? shared : std::make_shared<const KernelSpec>(*key.spec);
  std::promise<KernelResult> promise;
  entry->result = promise.get_future().share();
  // Found again by pointer identity, even for a spec unequal to itself.
  SpecKey ownKey(*entry->spec, key.hash);
  entries_.emplace(ownKey, entry);
  lock.unlock();
  return compileAndPublish(ownKey, entry, std::move(promise), compile);
}

KernelCache::KernelResult KernelCache::compileAndPublish(
    const SpecKey &key, const std::shared_ptr<Entry> &entry,
    std::promise<KernelResult> promise, const CompileFn &compile) {
  auto start = std::chrono::steady_clock::now();
  KernelResult result = runCompile(compile);
  auto nanoseconds = std::chrono::duration_cast<std::chrono::nanoseconds>(
                         std::chrono::steady_clock::now() - start)
                         .count();
  if (result)
    runtimeLogger().debug("compiled {} with {} ({}) in {} us",
                          (*result)->name(),
                          backendKindName((*result)->backend()),
                          isaLevelName((*result)->isa()), nanoseconds / 1000);
  // Kernels evicted to make room die after the lock is released: freeing
  // code may take a backend's lock, which a compile elsewhere may hold.
  std::vector<std::shared_ptr<const Kernel>> evicted;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    count(CompileNanoseconds, nanoseconds);
    // Only compiled entries are ever evicted, so ours is still there.
    auto it = entries_.find(key);
    size_t codeBytes = result ? (*result)->codeBytes() : 0;
    if (!result) {
      count(Failures);
      entries_.erase(it);
    } else if (limits_.maxKernels == 0 || codeBytes > limits_.maxCodeBytes) {
      // Could never fit: kept out rather than flushing everything else.
      count(Evictions);
      entries_.erase(it);
    } else {
      entry->kernel = *result;
      entry->codeBytes = codeBytes;
      entry->lruPosition = lru_.insert(lru_.begin(), key);
      count(Kernels);
      count(CodeBytes, static_cast<int64_t>(codeBytes));
      while (counters_[Kernels] > limits_.maxKernels ||
             counters_[CodeBytes] > limits_.maxCodeBytes)
        evicted.push_back(evictLeastRecentlyUsed());
    }
  }
  promise.set_value(result);
  return result;
}

std::shared_ptr<const Kernel> KernelCache::evictLeastRecentlyUsed() {
  auto it = entries_.find(lru_.back());
  lru_.pop_back();
  std::shared_ptr<const Kernel> kernel = std::move(it->second->kernel);
  count(Kernels, -1);
  count(CodeBytes, -static_cast<int64_t>(it->second->codeBytes));
  count(Evictions);
  cacheLogger().debug("evicted {}", kernel->name());
  entries_.erase(it);
  return kernel;
}

void KernelCache::clear() {
  std::vector<std::shared_ptr<const Kernel>> evicted;
  std::lock_guard<std::mutex> lock(mutex_);
  while (!lru_.empty())
    evicted.push_back(evictLeastRecentlyUsed());
}

CacheStats KernelCache::stats() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return toStats(counters_);
}

CacheStats KernelCache::processStats() {
  std::array<uint64_t, KernelCache::kCounterCount> counters;
  for (size_t i = 0; i < counters.size(); ++i)
    counters[i] = processCounters[i].load(std::memory_order_relaxed);
  return toStats(counters);
}

} // namespace qjit
