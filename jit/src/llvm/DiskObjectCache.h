//===- DiskObjectCache.h - ORC's object cache over a CodeStore --*- C++ -*-===//
//
// The llvm backend's persistent cache is an llvm::ObjectCache, as ORC's
// IRCompileLayer uses one: keyed by the module identifier (which the
// backend sets to the full cache key), holding relocatable objects. The
// backend compiles outside ORC (JitSession.h), so it asks by key before it
// builds any IR (the point of a cache hit is to skip that too) and hands
// over each object it compiles.
//
//===----------------------------------------------------------------------===//
#ifndef QJIT_JIT_LLVM_DISKOBJECTCACHE_H
#define QJIT_JIT_LLVM_DISKOBJECTCACHE_H

#include "qjit/internal/CodeStore.h"

#include <llvm/ExecutionEngine/ObjectCache.h>
#include <llvm/Support/MemoryBuffer.h>

#include <memory>
#include <optional>
#include <string>

namespace qjit::llvmjit {

class DiskObjectCache final : public llvm::ObjectCache {
public:
  explicit DiskObjectCache(std::shared_ptr<CodeStore> store)
      : store_(std::move(store)) {}

  void notifyObjectCompiled(const llvm::Module *module,
                            llvm::MemoryBufferRef object) override;
  std::unique_ptr<llvm::MemoryBuffer>
  getObject(const llvm::Module *module) override;
  /// getObject for the module that `key` would identify.
  std::unique_ptr<llvm::MemoryBuffer> getObject(const std::string &key);

  const std::string &keyPrefix() const { return store_->keyPrefix(); }

private:
  std::shared_ptr<CodeStore> store_;
};

/// The name of the one global function `object` defines whose name starts
/// with `prefix` (the kernel: its symbol carries a per-session counter, so
/// a reloaded object says itself what to look up).
std::optional<std::string> definedFunction(const llvm::MemoryBuffer &object,
                                           const std::string &prefix);

} // namespace qjit::llvmjit

#endif
