//===- qjit.cpp - The qjit command-line tool ------------------------------===//
#include "Commands.h"
#include "qjit/Runtime.h"

#include <spdlog/cfg/env.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

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
  std::fprintf(out, "usage: qjit [--stats] <command> [options]\n\ncommands:\n");
  for (const Subcommand &c : kSubcommands)
    std::fprintf(out, "  %-6s %s\n", c.name, c.summary);
  std::fprintf(out,
               "\n--stats prints the kernel cache counters to stderr when the "
               "command ends.\nRun 'qjit <command> --help' for a command's "
               "options.\n");
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
}

} // namespace

int main(int argc, char **argv) {
  // SPDLOG_LEVEL=debug (or qjit=debug,...) shows what the library logs, such
  // as which backend compiled each kernel.
  spdlog::cfg::load_env_levels();
  // The one global flag: drop it so subcommands see their usual argv.
  if (argc >= 2 && !std::strcmp(argv[1], "--stats")) {
    std::atexit(printCacheStats);
    argv[1] = argv[0];
    ++argv;
    --argc;
  }
  if (argc < 2) {
    printUsage(stderr);
    return 2;
  }
  if (!std::strcmp(argv[1], "--help") || !std::strcmp(argv[1], "-h")) {
    printUsage(stdout);
    return 0;
  }
  for (const Subcommand &c : kSubcommands)
    if (!std::strcmp(argv[1], c.name))
      return c.run(argc, argv);
  std::fprintf(stderr, "qjit: unknown command '%s'\n", argv[1]);
  printUsage(stderr);
  return 2;
}
