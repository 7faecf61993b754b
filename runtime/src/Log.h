//===- Log.h - The runtime's logger -----------------------------*- C++ -*-===//
#ifndef QJIT_RUNTIME_LOG_H
#define QJIT_RUNTIME_LOG_H

#include <spdlog/logger.h>

namespace qjit {

/// The spdlog logger named "qjit": the application's, if it registered one
/// under that name before first use, otherwise one made here on stderr with
/// the registry's level (SPDLOG_LEVEL when the application loaded it).
spdlog::logger &runtimeLogger();

} // namespace qjit

#endif // QJIT_RUNTIME_LOG_H
