//===- NamedLogger.cpp - qjit's spdlog loggers ----------------------------===//
#include "qjit/internal/NamedLogger.h"

#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

namespace qjit::detail {

std::shared_ptr<spdlog::logger> namedLogger(const std::string &name) {
  if (std::shared_ptr<spdlog::logger> existing = spdlog::get(name))
    return existing;
  auto logger = std::make_shared<spdlog::logger>(
      name, std::make_shared<spdlog::sinks::stderr_color_sink_mt>());
  // initialize_logger applies the registry's levels and pattern, then
  // registers; it throws when another thread registered the name first,
  // and that logger is the one to use.
  try {
    spdlog::initialize_logger(logger);
  } catch (const spdlog::spdlog_ex &) {
    if (std::shared_ptr<spdlog::logger> existing = spdlog::get(name))
      return existing;
  }
  return logger;
}

} // namespace qjit::detail
