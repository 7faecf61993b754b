//===- KernelCache.h - Compiled kernels by key ------------------*- C++ -*-===//
//
// An unbounded, thread-safe map from a cache key to a compiled kernel. The
// bounded, exactly-one-compile cache of the production runtime replaces it
// behind the same two operations.
//
//===----------------------------------------------------------------------===//
#ifndef QJIT_RUNTIME_KERNELCACHE_H
#define QJIT_RUNTIME_KERNELCACHE_H

#include "qjit/Runtime.h"

#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

namespace qjit {

class KernelCache {
public:
  /// The kernel cached under `key`, or null.
  std::shared_ptr<const Kernel> find(const std::string &key) const;
  /// Caches `kernel` under `key` unless a kernel is already there (another
  /// thread compiled the same key meanwhile); returns the cached one.
  std::shared_ptr<const Kernel> insert(const std::string &key,
                                       std::shared_ptr<const Kernel> kernel);

private:
  mutable std::mutex mutex_;
  std::unordered_map<std::string, std::shared_ptr<const Kernel>> kernels_;
};

} // namespace qjit

#endif // QJIT_RUNTIME_KERNELCACHE_H
