//===- BackendRegistry.cpp - Backends by name -----------------------------===//
#include "qjit/internal/Backend.h"

#include <string>

namespace qjit {

Expected<std::unique_ptr<Backend>> createBackend(std::string_view name,
                                                 IsaLevel isa) {
  if (name == "llvm")
    return createLlvmBackend(isa);
  if (name == "asmjit")
    return createAsmjitBackend(isa);
  return Status::error(ErrorCode::InvalidArgument,
                       "unknown backend '" + std::string(name) +
                           "' (expected llvm or asmjit)");
}

} // namespace qjit
