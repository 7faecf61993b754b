//===- NamedLogger.h - qjit's spdlog loggers --------------------*- C++ -*-===//
//
// Internal to qjit's libraries (never installed): the one way they obtain
// their loggers, "qjit" and its sub-loggers "qjit.cache" and "qjit.jit",
// and the controls the C API offers over them.
//
//===----------------------------------------------------------------------===//
#ifndef QJIT_INTERNAL_NAMEDLOGGER_H
#define QJIT_INTERNAL_NAMEDLOGGER_H

#include <spdlog/logger.h>

#include <functional>
#include <memory>
#include <string>
#include <string_view>

namespace qjit::detail {

/// The spdlog logger registered under `name`: the application's, if it
/// registered one under that name first, otherwise one created here and
/// registered with the registry's level and pattern (so SPDLOG_LEVEL, once
/// the application loads it, applies). Every logger created here writes to
/// one sink, stderr unless setLogCallback redirected it. The default
/// logger and other loggers are never touched. Each call looks the name up
/// in spdlog's registry: callers keep the result.
std::shared_ptr<spdlog::logger> namedLogger(const std::string &name);

/// Receives each message (its text without the pattern's decorations).
using LogCallback =
    std::function<void(spdlog::level::level_enum level, std::string_view)>;

/// Sends the messages of every logger namedLogger created to `callback`
/// instead of stderr; an empty callback restores stderr. Thread-safe; the
/// callback is called with the sink's lock held, one message at a time, so
/// it must not log through qjit itself.
void setLogCallback(LogCallback callback);

/// Sets the level of "qjit", "qjit.cache" and "qjit.jit" (creating them per
/// namedLogger if need be). Thread-safe.
void setLogLevel(spdlog::level::level_enum level);

} // namespace qjit::detail

#endif // QJIT_INTERNAL_NAMEDLOGGER_H
