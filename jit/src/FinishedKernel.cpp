//===- FinishedKernel.cpp - Logging, counters and dumps for JIT'd code ----===//
#include "FinishedKernel.h"

#include "JitLogger.h"

#include "plan/KernelPlan.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <string>

namespace qjit::detail {

namespace {
void dumpCode(const char *dir, const KernelSpec &spec,
              const CompiledCode &code) {
  std::filesystem::path path =
      std::filesystem::path(dir) /
      (spec.kernelName() + "." + code.backend + ".bin");
  std::ofstream out(path, std::ios::binary);
  out.write(static_cast<const char *>(code.entry),
            static_cast<std::streamsize>(code.codeBytes));
  if (!out)
    jitLogger().warn("QJIT_DUMP_DIR: could not write {}", path.string());
}
/// Appends "<start> <size> <name>" (hex, no 0x) to /tmp/perf-<pid>.map,
/// the file perf reads to name code without symbols. One stream per
/// process; backends may finish kernels concurrently.
void addToPerfMap(const KernelSpec &spec, const CompiledCode &code) {
  static std::mutex mutex;
  static std::ofstream map("/tmp/perf-" + std::to_string(getpid()) + ".map",
                           std::ios::app);
  std::lock_guard<std::mutex> lock(mutex);
  map << fmt::format("{:x} {:x} qjit:{}:{}:{}\n",
                     reinterpret_cast<uintptr_t>(code.entry), code.codeBytes,
                     spec.kernelName(),
                     plan::kernelFamilyName(plan::kernelFamily(spec)),
                     code.backend)
      << std::flush;
  if (!map)
    jitLogger().warn("QJIT_PERF_MAP: could not write /tmp/perf-{}.map",
                     getpid());
}

bool perfMapEnabled() {
  static const bool enabled = [] {
    const char *value = std::getenv("QJIT_PERF_MAP");
    return value && std::string(value) == "1";
  }();
  return enabled;
}
} // namespace

void finishKernel(const KernelSpec &spec, const CompiledCode &code,
                  uint64_t compileNanoseconds) {
  // kernelName() hashes the whole spec (thousands of scales for blockwise
  // types): build it only when the line is actually logged.
  if (jitLogger().should_log(spdlog::level::debug))
    jitLogger().debug(
        "compiled {} family={} backend={} isa={} bytes={} {:.1f}us",
        spec.kernelName(), plan::kernelFamilyName(plan::kernelFamily(spec)),
        code.backend, isaLevelName(code.isa), code.codeBytes,
        compileNanoseconds / 1000.0);
  if (const char *dir = std::getenv("QJIT_DUMP_DIR");
      dir && *dir && code.codeBytes > 0)
    dumpCode(dir, spec, code);
  if (perfMapEnabled() && code.codeBytes > 0)
    addToPerfMap(spec, code);
}

} // namespace qjit::detail
