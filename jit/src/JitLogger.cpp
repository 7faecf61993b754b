#include "JitLogger.h"

#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

namespace qjit::detail {

spdlog::logger &jitLogger() {
  static std::shared_ptr<spdlog::logger> logger = [] {
    if (auto existing = spdlog::get("qjit.jit"))
      return existing;
    auto created = spdlog::stderr_color_mt("qjit.jit");
    created->set_level(spdlog::level::warn);
    return created;
  }();
  return *logger;
}

} // namespace qjit::detail
