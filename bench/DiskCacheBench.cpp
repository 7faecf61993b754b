//===- DiskCacheBench.cpp - Cold compiles against the persistent cache ----===//
//
//   qjit_disk_cache_bench [--kernels=N] [--dir=DIR]
//
// Runs itself twice as a child process on one fresh cache directory: the
// first compiles N distinct llvm kernels cold (writing the cache), the
// second compiles the same N from the disk cache. Prints both wall times
// and their ratio (issue 23 asks for >= 20x at N = 1000), then, for the
// asmjit question (re-emit or reload?), asmjit's mean compile time against
// the mean time to read and check one cache entry from disk. One line per
// figure, "name value unit", for bench/report.py.
//
//===----------------------------------------------------------------------===//
#include "DiskCache.h"
#include "qjit/Runtime.h"

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <system_error>
#include <vector>

extern char **environ;

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

std::string distinctType(size_t i) {
  return "!quant.uniform<i8:f32, " + std::to_string(0.5 + double(i) / 4096) +
         ":" + std::to_string(int(i % 200) - 100) + ">";
}

double secondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

/// The child: compiles `count` kernels with the disk cache in `dir`, prints
/// the wall time (runtime creation included: a process pays it too).
int compileAll(const std::string &dir, size_t count,
               qjit::BackendKind backend) {
  auto start = Clock::now();
  qjit::RuntimeOptions options;
  options.backend = backend;
  options.diskCache.directory = dir;
  auto runtime = qjit::Runtime::create(options);
  if (!runtime) {
    std::fprintf(stderr, "%s\n", runtime.status().message().c_str());
    return 1;
  }
  for (size_t i = 0; i < count; ++i)
    if (auto kernel =
            (*runtime)->compile(distinctType(i), qjit::KernelOp::QCast);
        !kernel) {
      std::fprintf(stderr, "%s\n", kernel.status().message().c_str());
      return 1;
    }
  double seconds = secondsSince(start);
  qjit::CacheStats stats = (*runtime)->stats();
  std::printf("%.6f %llu %llu %llu\n", seconds,
              (unsigned long long)stats.diskHits,
              (unsigned long long)stats.diskWrites,
              (unsigned long long)stats.compileNanoseconds);
  return 0;
}

struct ChildResult {
  double seconds = 0;
  unsigned long long diskHits = 0, diskWrites = 0, compileNanoseconds = 0;
};

bool runChild(const std::string &self, const std::string &dir, size_t count,
              const char *backend, ChildResult &result) {
  std::string output = (fs::path(dir) / "child.out").string();
  std::string command = "'" + self + "' --child '" + dir + "' " +
                        std::to_string(count) + " " + backend + " > '" +
                        output + "'";
  if (std::system(command.c_str()) != 0)
    return false;
  std::FILE *in = std::fopen(output.c_str(), "r");
  if (!in)
    return false;
  bool read =
      std::fscanf(in, "%lf %llu %llu %llu", &result.seconds, &result.diskHits,
                  &result.diskWrites, &result.compileNanoseconds) == 4;
  std::fclose(in);
  fs::remove(output);
  return read;
}

} // namespace

int main(int argc, char **argv) {
  if (argc == 5 && !std::strcmp(argv[1], "--child"))
    return compileAll(argv[2], std::strtoull(argv[3], nullptr, 10),
                      !std::strcmp(argv[4], "asmjit")
                          ? qjit::BackendKind::Asmjit
                          : qjit::BackendKind::Llvm);
  size_t count = 1000;
  std::string dir;
  for (int i = 1; i < argc; ++i) {
    if (!std::strncmp(argv[i], "--kernels=", 10))
      count = std::strtoull(argv[i] + 10, nullptr, 10);
    else if (!std::strncmp(argv[i], "--dir=", 6))
      dir = argv[i] + 6;
    else {
      std::fprintf(stderr, "usage: %s [--kernels=N] [--dir=DIR]\n", argv[0]);
      return 2;
    }
  }
  if (dir.empty()) {
    std::string pattern =
        (fs::temp_directory_path() / "qjit-disk-bench-XXXXXX").string();
    if (!::mkdtemp(pattern.data()))
      return 1;
    dir = pattern;
  }
  std::string self = fs::read_symlink("/proc/self/exe").string();
  ChildResult cold, warm, asmjit;
  if (!runChild(self, dir, count, "llvm", cold) ||
      !runChild(self, dir, count, "llvm", warm)) {
    std::fprintf(stderr, "a child process failed\n");
    return 1;
  }
  std::printf("disk_cache/kernels %zu count\n", count);
  std::printf("disk_cache/cold_llvm %.3f ms (%llu written)\n",
              cold.seconds * 1e3, cold.diskWrites);
  std::printf("disk_cache/warm_llvm %.3f ms (%llu disk hits)\n",
              warm.seconds * 1e3, warm.diskHits);
  std::printf("disk_cache/speedup %.1f x\n", cold.seconds / warm.seconds);

  // asmjit: its own compile time against reading one entry of the same
  // directory back (what storing asmjit code would cost at best).
  std::string asmjitDir = dir + "/asmjit";
  std::error_code madeError;
  fs::create_directories(asmjitDir, madeError); // Holds the child's output.
  if (!runChild(self, asmjitDir, count, "asmjit", asmjit))
    return 1;
  auto cache = qjit::DiskCache::open(dir, uint64_t(1) << 40, "");
  std::vector<fs::path> entries;
  for (const auto &item : fs::directory_iterator(dir))
    if (item.path().extension() == ".qjk")
      entries.push_back(item.path());
  // DiskCache::load takes keys, not paths: time the same work on the files
  // (open, stat, read, CRC-32, close) through a cache whose key prefix is
  // empty, by reading each entry under its own recorded key.
  auto start = Clock::now();
  size_t loaded = 0;
  for (const fs::path &entry : entries) {
    std::FILE *in = std::fopen(entry.c_str(), "rb");
    if (!in)
      continue;
    char header[32];
    if (std::fread(header, 1, sizeof header, in) == sizeof header) {
      uint32_t keyBytes = 0;
      std::memcpy(&keyBytes, header + 12, sizeof keyBytes);
      std::string key(keyBytes, '\0');
      if (std::fread(key.data(), 1, keyBytes, in) == keyBytes) {
        std::fclose(in);
        in = nullptr;
        loaded += cache && cache->load(key) ? 1 : 0;
      }
    }
    if (in)
      std::fclose(in);
  }
  double loadSeconds = secondsSince(start);
  std::printf("disk_cache/asmjit_compile %.2f us per kernel\n",
              asmjit.compileNanoseconds / 1e3 / double(count));
  std::printf("disk_cache/entry_load %.2f us per entry (%zu entries, "
              "including reading its key)\n",
              loaded ? loadSeconds * 1e6 / double(loaded) : 0.0, loaded);
  fs::remove_all(dir);
  return 0;
}
