//===- JitLogger.cpp - The "qjit.jit" logger ------------------------------===//
#include "JitLogger.h"

#include "qjit/internal/NamedLogger.h"

namespace qjit::detail {

spdlog::logger &jitLogger() {
  static const std::shared_ptr<spdlog::logger> logger = namedLogger("qjit.jit");
  return *logger;
}

} // namespace qjit::detail
