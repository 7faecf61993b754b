//===- AsmjitBackend.cpp - placeholder until the backend lands -------------===//
#include "qjit/Backend.h"

namespace qjit {

Expected<std::unique_ptr<Backend>> createAsmjitBackend(IsaLevel) {
  return Status::error(ErrorCode::Unsupported,
                       "the asmjit backend is not built yet");
}

} // namespace qjit
