//===- NamedLogger.cpp - qjit's spdlog loggers ----------------------------===//
#include "qjit/internal/NamedLogger.h"

#include <spdlog/sinks/base_sink.h>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <mutex>

namespace qjit::detail {

namespace {

/// stderr, or the callback while one is set. One instance serves every
/// logger qjit creates, so one switch redirects them all.
class LibrarySink final : public spdlog::sinks::base_sink<std::mutex> {
public:
  void setCallback(LogCallback callback) {
    std::lock_guard<std::mutex> lock(mutex_);
    callback_ = std::move(callback);
  }

private:
  void sink_it_(const spdlog::details::log_msg &msg) override {
    if (callback_)
      callback_(msg.level,
                std::string_view(msg.payload.data(), msg.payload.size()));
    else
      stderr_->log(msg);
  }
  void flush_() override { stderr_->flush(); }
  // The pattern applies to what goes to stderr; a callback gets the bare
  // text.
  void set_pattern_(const std::string &pattern) override {
    stderr_->set_pattern(pattern);
  }
  void set_formatter_(std::unique_ptr<spdlog::formatter> formatter) override {
    stderr_->set_formatter(std::move(formatter));
  }

  // Guarded by mutex_, as everything the sink does.
  std::shared_ptr<spdlog::sinks::sink> stderr_ =
      std::make_shared<spdlog::sinks::stderr_color_sink_st>();
  LogCallback callback_;
};

/// Loggers share it (and keep it alive past this static's destruction).
const std::shared_ptr<LibrarySink> &librarySink() {
  static const std::shared_ptr<LibrarySink> sink =
      std::make_shared<LibrarySink>();
  return sink;
}

} // namespace

std::shared_ptr<spdlog::logger> namedLogger(const std::string &name) {
  if (std::shared_ptr<spdlog::logger> existing = spdlog::get(name))
    return existing;
  auto logger = std::make_shared<spdlog::logger>(name, librarySink());
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

void setLogCallback(LogCallback callback) {
  librarySink()->setCallback(std::move(callback));
}

void setLogLevel(spdlog::level::level_enum level) {
  for (const char *name : {"qjit", "qjit.cache", "qjit.jit"})
    namedLogger(name)->set_level(level);
}

} // namespace qjit::detail
