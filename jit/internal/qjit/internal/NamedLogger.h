//===- NamedLogger.h - qjit's spdlog loggers --------------------*- C++ -*-===//
//
// Internal to qjit's libraries (never installed): the one way they obtain
// their loggers, "qjit" and its sub-loggers "qjit.cache" and "qjit.jit".
//
//===----------------------------------------------------------------------===//
#ifndef QJIT_INTERNAL_NAMEDLOGGER_H
#define QJIT_INTERNAL_NAMEDLOGGER_H

#include <spdlog/logger.h>

#include <memory>
#include <string>

namespace qjit::detail {

/// The spdlog logger registered under `name`: the application's, if it
/// registered one under that name first, otherwise one created here on
/// stderr and registered with the registry's level and pattern (so
/// SPDLOG_LEVEL, once the application loads it, applies). The default
/// logger and other loggers are never touched. Each call looks the name up
/// in spdlog's registry: callers keep the result.
std::shared_ptr<spdlog::logger> namedLogger(const std::string &name);

} // namespace qjit::detail

#endif // QJIT_INTERNAL_NAMEDLOGGER_H
