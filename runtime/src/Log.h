//===- Log.h - The runtime's loggers ----------------------------*- C++ -*-===//
#ifndef QJIT_RUNTIME_LOG_H
#define QJIT_RUNTIME_LOG_H

#include <spdlog/logger.h>

namespace qjit {

/// "qjit": runtime creation, backend choice, each compile.
spdlog::logger &runtimeLogger();
/// "qjit.cache": evictions and other kernel cache events.
spdlog::logger &cacheLogger();

} // namespace qjit

#endif // QJIT_RUNTIME_LOG_H
