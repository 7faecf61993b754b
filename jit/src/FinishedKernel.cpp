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
/// the file perf reads to name code without symbols, a line for the code
/// up to its first part and one for each part (":<part>" added). One
/// stream per process; backends may finish kernels concurrently.
void addToPerfMap(const KernelSpec &spec, const CompiledCode &code) {
  static std::mutex mutex;
  static std::ofstream map("/tmp/perf-" + std::to_string(getpid()) + ".map",
                           std::ios::app);
  std::string name = fmt::format(
      "qjit:{}:{}:{}", spec.kernelName(),
      plan::kernelFamilyName(plan::kernelFamily(spec)), code.backend);
  uintptr_t start = reinterpret_cast<uintptr_t>(code.entry);
  std::lock_guard<std::mutex> lock(mutex);
  size_t end = code.parts.empty() ? code.codeBytes : code.parts[0].offset;
  map << fmt::format("{:x} {:x} {}\n", start, end, name);
  for (size_t i = 0; i < code.parts.size(); ++i) {
    size_t from = code.parts[i].offset;
    size_t to =
        i + 1 < code.parts.size() ? code.parts[i + 1].offset : code.codeBytes;
    map << fmt::format("{:x} {:x} {}:{}\n", start + from, to - from, name,
                       code.parts[i].name);
  }
  map << std::flush;
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
