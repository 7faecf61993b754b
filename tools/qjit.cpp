//===- qjit.cpp - The qjit command-line tool ------------------------------===//
#include "Commands.h"
#include "qjit/Isa.h"
#include "qjit/Runtime.h"
#include "qjit/Version.h"
#include "qjit/internal/LibraryVersions.h"
#include "qjit/internal/LlvmBackend.h"

#include <spdlog/cfg/env.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>

namespace {

struct Subcommand {
  const char *name;
  int (*run)(int, char **);
  const char *summary;
};

constexpr Subcommand kSubcommands[] = {
    {"parse", qjit::tool::parseCommand,
     "parse, verify and print quant types in canonical form"},
    {"spec", qjit::tool::specCommand, "print the KernelSpec of a type and op"},
    {"run", qjit::tool::runCommand, "run a kernel on .npy or raw files"},
    {"ir", qjit::tool::irCommand, "print the optimized LLVM IR of a kernel"},
    {"asm", qjit::tool::asmCommand, "print the assembly of a kernel"},
    {"bench", qjit::tool::benchCommand, "compare backends on one type"},
};

void printUsage(std::FILE *out) {
  std::fprintf(out, "usage: qjit [--stats] <command> [options]\n"
                    "       qjit --version\n\ncommands:\n");
  for (const Subcommand &c : kSubcommands)
    std::fprintf(out, "  %-6s %s\n", c.name, c.summary);
  std::fprintf(out,
               "\n--stats (before or after the command) prints the kernel "
               "cache counters to stderr when the command ends.\nRun 'qjit "
               "<command> --help' for a command's options.\n");
}

// As LLVM tools print it: what built the code, and the host it targets.
void printVersion() {
  qjit::LlvmHost host = qjit::llvmHost();
  std::printf("qjit %s\n  %s\n  Host: %s, CPU %s, ISA level %s\n",
              QJIT_VERSION_STRING, qjit::libraryVersions().c_str(),
              host.triple.c_str(), host.cpu.c_str(),
              std::string(qjit::isaLevelName(qjit::hostIsaLevel())).c_str());
}

// The one global flag, wherever it is (up to a `--`): drops it so
// subcommands see their usual argv.
bool takeStatsFlag(int &argc, char **argv) {
  bool found = false;
  int kept = 1;
  bool literal = false;
  for (int i = 1; i < argc; ++i) {
    if (!literal && !std::strcmp(argv[i], "--stats")) {
      found = true;
      continue;
    }
    literal = literal || !std::strcmp(argv[i], "--");
    argv[kept++] = argv[i];
  }
  argc = kept;
  argv[argc] = nullptr;
  return found;
}

void printCacheStats() {
  qjit::CacheStats s = qjit::processCacheStats();
  std::fprintf(stderr,
               "qjit cache: %llu hits, %llu misses, %llu compiles (%llu "
               "failed, %.3f ms), %llu evictions, %llu type-text memo hits\n",
               (unsigned long long)s.hits, (unsigned long long)s.misses,
               (unsigned long long)s.compiles, (unsigned long long)s.failures,
               s.compileNanoseconds / 1e6, (unsigned long long)s.evictions,
               (unsigned long long)s.typeTextHits);
  // Only when a disk cache was in use (QJIT_CACHE_DIR), so the usual line
  // stays alone.
  if (s.diskHits + s.diskMisses + s.diskWrites > 0)
    std::fprintf(
        stderr,
        "qjit disk cache: %llu hits, %llu misses, %llu writes, %llu "
        "bytes read, %llu bytes written, %llu evictions, %llu "
        "rejected\n",
        (unsigned long long)s.diskHits, (unsigned long long)s.diskMisses,
        (unsigned long long)s.diskWrites, (unsigned long long)s.diskBytesRead,
        (unsigned long long)s.diskBytesWritten,
        (unsigned long long)s.diskEvictions, (unsigned long long)s.diskRejects);
}

} // namespace

int main(int argc, char **argv) {
  // SPDLOG_LEVEL=debug (or qjit=debug,...) shows what the library logs, such
  // as which backend compiled each kernel.
  spdlog::cfg::load_env_levels();
  if (takeStatsFlag(argc, argv))
    std::atexit(printCacheStats);
  if (argc < 2) {
    printUsage(stderr);
    return 2;
  }
  if (!std::strcmp(argv[1], "--help") || !std::strcmp(argv[1], "-h")) {
    printUsage(stdout);
    return 0;
  }
  if (!std::strcmp(argv[1], "--version")) {
    printVersion();
    return 0;
  }
  for (const Subcommand &c : kSubcommands) {
    if (std::strcmp(argv[1], c.name))
      continue;
    // The one exception that escapes the commands' Status paths: a tensor
    // larger than the memory the process may have. Outputs are written to
    // a temporary and renamed only when complete, so nothing half-written
    // is left behind.
    try {
      return c.run(argc, argv);
    } catch (const std::bad_alloc &) {
      std::fprintf(stderr, "qjit %s: error: out of memory\n", c.name);
      return 1;
    }
  }
  std::fprintf(stderr, "qjit: unknown command '%s'\n", argv[1]);
  printUsage(stderr);
  return 2;
}
