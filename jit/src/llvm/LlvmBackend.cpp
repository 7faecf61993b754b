//===- LlvmBackend.cpp - placeholder until the backend lands -------------===//
#include "qjit/Backend.h"

namespace qjit {

Expected<std::unique_ptr<Backend>> createLlvmBackend(IsaLevel) {
  return Status::error(ErrorCode::Unsupported,
                       "the llvm backend is not built yet");
}

} // namespace qjit
