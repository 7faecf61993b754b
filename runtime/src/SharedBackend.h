//===- SharedBackend.h - A backend shared with kernels ----------*- C++ -*-===//
//
// Backends are not required to be thread-safe, and kernels outlive their
// runtime yet still ask their backend for assembly: so each backend lives
// in a SharedBackend, owned jointly by the runtime and its kernels, and
// every use goes through its mutex.
//
//===----------------------------------------------------------------------===//
#ifndef QJIT_RUNTIME_SHAREDBACKEND_H
#define QJIT_RUNTIME_SHAREDBACKEND_H

#include "qjit/Runtime.h"
#include "qjit/internal/Backend.h"

#include <memory>
#include <mutex>

namespace qjit {

class SharedBackend {
public:
  SharedBackend(BackendKind kind, std::unique_ptr<Backend> backend);

  BackendKind kind() const { return kind_; }
  Expected<CompiledCode> compile(const KernelSpec &spec);
  KernelFit fit(const KernelSpec &spec);
  Expected<std::string> assembly(const KernelSpec &spec,
                                 const AsmOptions &options);

private:
  const BackendKind kind_;
  std::mutex mutex_;
  const std::unique_ptr<Backend> backend_;
};

} // namespace qjit

#endif // QJIT_RUNTIME_SHAREDBACKEND_H
