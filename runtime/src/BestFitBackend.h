//===- BestFitBackend.h - The backend `auto` compiles with ------*- C++ -*-===//
//
// BackendKind::Auto asks every JIT backend how well it fits a spec
// (Backend::fit) and compiles with the best one; backends that fit
// equally keep the runtime's order (asmjit first: it compiles in
// microseconds). A backend that fails to compile hands over to the next.
//
//===----------------------------------------------------------------------===//
#ifndef QJIT_RUNTIME_BESTFITBACKEND_H
#define QJIT_RUNTIME_BESTFITBACKEND_H

#include "SharedBackend.h"

#include <memory>
#include <optional>
#include <span>

namespace qjit {

/// Code and the backend that made it.
struct BackendCode {
  std::shared_ptr<SharedBackend> backend;
  CompiledCode code;
};

/// Compiles `spec` with the first of `backends`, best fit first, that
/// compiles it (backends that fit Unsupported are not asked); failures are
/// logged at debug level. nullopt when none does.
std::optional<BackendCode>
compileWithBestFit(std::span<const std::shared_ptr<SharedBackend>> backends,
                   const KernelSpec &spec);

} // namespace qjit

#endif // QJIT_RUNTIME_BESTFITBACKEND_H
