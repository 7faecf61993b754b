//===- JitLogger.h - The "qjit.jit" logger ----------------------*- C++ -*-===//
#ifndef QJIT_JIT_JITLOGGER_H
#define QJIT_JIT_JITLOGGER_H

#include <spdlog/logger.h>

namespace qjit::detail {

/// The backends' named logger. Created on first use and registered with
/// spdlog (so SPDLOG_LEVEL / spdlog::cfg apply to it); qjit never touches
/// the default logger.
spdlog::logger &jitLogger();

} // namespace qjit::detail

#endif
