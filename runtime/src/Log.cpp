//===- Log.cpp - The runtime's loggers ------------------------------------===//
#include "Log.h"

#include "qjit/internal/NamedLogger.h"

namespace qjit {

spdlog::logger &runtimeLogger() {
  static const std::shared_ptr<spdlog::logger> logger =
      detail::namedLogger("qjit");
  return *logger;
}

spdlog::logger &cacheLogger() {
  static const std::shared_ptr<spdlog::logger> logger =
      detail::namedLogger("qjit.cache");
  return *logger;
}

} // namespace qjit
