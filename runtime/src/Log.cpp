//===- Log.cpp - The runtime's logger -------------------------------------===//
#include "Log.h"

#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <memory>

namespace qjit {

namespace {

constexpr const char *kLoggerName = "qjit";

std::shared_ptr<spdlog::logger> findOrRegisterLogger() {
  if (std::shared_ptr<spdlog::logger> existing = spdlog::get(kLoggerName))
    return existing;
  auto logger = std::make_shared<spdlog::logger>(
      kLoggerName, std::make_shared<spdlog::sinks::stderr_color_sink_mt>());
  // initialize_logger applies the registry's levels and pattern, then
  // registers; it throws when another thread registered the name first,
  // and that logger is the one to use.
  try {
    spdlog::initialize_logger(logger);
  } catch (const spdlog::spdlog_ex &) {
    if (std::shared_ptr<spdlog::logger> existing = spdlog::get(kLoggerName))
      return existing;
  }
  return logger;
}

} // namespace

spdlog::logger &runtimeLogger() {
  static const std::shared_ptr<spdlog::logger> logger = findOrRegisterLogger();
  return *logger;
}

} // namespace qjit
