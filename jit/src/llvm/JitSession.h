//===- JitSession.h - One LLJIT per backend instance ------------*- C++ -*-===//
//
// Owns an LLJIT (JITLink object layer) configured from a TargetConfig.
// Every kernel is added under its own ResourceTracker; the returned owner
// handle removes it (freeing its code) when the last copy is dropped, and
// keeps the session alive until then. Safe to use from several threads.
// Kernels arrive as objects: the backend compiles outside ORC, under
// FatalErrorGuard, so that no LLVM failure happens inside ORC's locks.
//
//===----------------------------------------------------------------------===//
#ifndef QJIT_JIT_LLVM_JITSESSION_H
#define QJIT_JIT_LLVM_JITSESSION_H

#include "LlvmTarget.h"

#include <llvm/ExecutionEngine/Orc/LLJIT.h>
#include <llvm/Support/MemoryBuffer.h>

#include <map>
#include <memory>
#include <mutex>
#include <string>

namespace qjit::llvmjit {

/// A kernel's entry point and the handle that keeps its code mapped.
struct JitKernel {
  const void *entry = nullptr;
  size_t codeBytes = 0;
  std::shared_ptr<const void> owner;
};

class JitSession : public std::enable_shared_from_this<JitSession> {
public:
  static Expected<std::shared_ptr<JitSession>>
  create(const TargetConfig &config);

  /// Links `object` (compiled for config()) and returns the address of
  /// its function `symbol`.
  Expected<JitKernel> add(std::unique_ptr<llvm::MemoryBuffer> object,
                          const std::string &symbol);

  const TargetConfig &config() const { return config_; }

private:
  class SymbolSizes;
  explicit JitSession(TargetConfig config) : config_(std::move(config)) {}

  TargetConfig config_;
  std::shared_ptr<SymbolSizes> sizes_;
  std::unique_ptr<llvm::orc::LLJIT> jit_;
};

} // namespace qjit::llvmjit

#endif
