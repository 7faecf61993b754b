//===- SharedBackend.cpp - A backend shared by a runtime and its kernels --===//
#include "SharedBackend.h"

namespace qjit {

SharedBackend::SharedBackend(BackendKind kind, std::unique_ptr<Backend> backend)
    : kind_(kind), backend_(std::move(backend)) {}

Expected<CompiledCode> SharedBackend::compile(const KernelSpec &spec) {
  std::lock_guard<std::mutex> lock(mutex_);
  return backend_->compile(spec);
}

KernelFit SharedBackend::fit(const KernelSpec &spec) {
  std::lock_guard<std::mutex> lock(mutex_);
  return backend_->fit(spec);
}

Expected<std::string> SharedBackend::assembly(const KernelSpec &spec,
                                              const AsmOptions &options) {
  std::lock_guard<std::mutex> lock(mutex_);
  return backend_->assembly(spec, options);
}

} // namespace qjit
