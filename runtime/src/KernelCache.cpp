//===- KernelCache.cpp - Compiled kernels by key --------------------------===//
#include "KernelCache.h"

namespace qjit {

std::shared_ptr<const Kernel> KernelCache::find(const std::string &key) const {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = kernels_.find(key);
  return it == kernels_.end() ? nullptr : it->second;
}

std::shared_ptr<const Kernel>
KernelCache::insert(const std::string &key,
                    std::shared_ptr<const Kernel> kernel) {
  std::lock_guard<std::mutex> lock(mutex_);
  return kernels_.try_emplace(key, std::move(kernel)).first->second;
}

} // namespace qjit
