//===- DiskCacheTest.cpp - The persistent kernel cache --------------------===//
//
// A second runtime finds the first one's kernels on disk and runs them
// bit-identically; a truncated, bit-flipped, foreign-key, wrong-version or
// alien file is ignored and replaced (never loaded); the directory stays
// under its bound; an unusable directory costs only the disk cache.
// DiskCacheConcurrencyTest has the threads and processes.
//
//===----------------------------------------------------------------------===//
#include "DiskCacheTestSupport.h"

#include "qjit/qjit.h"

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <iterator>

namespace qjit {
namespace {

namespace fs = std::filesystem;
using testing::diskRuntime;
using testing::distinctType;
using testing::entryFiles;
using testing::outputOf;
using testing::ScratchDirectory;

std::shared_ptr<const Kernel> compiled(Runtime &runtime, size_t i) {
  auto kernel = runtime.compile(distinctType(i), KernelOp::QCast);
  EXPECT_TRUE(kernel.hasValue()) << kernel.status().message();
  return kernel ? *kernel : nullptr;
}

TEST(DiskCache, SecondRuntimeFindsItsKernelsOnDisk) {
  ScratchDirectory dir;
  constexpr size_t kKernels = 4;
  std::vector<std::vector<uint8_t>> cold;
  {
    auto first = diskRuntime(dir.path());
    ASSERT_TRUE(first);
    for (size_t i = 0; i < kKernels; ++i)
      cold.push_back(outputOf(*compiled(*first, i)));
    CacheStats stats = first->stats();
    EXPECT_EQ(stats.diskHits, 0u);
    EXPECT_EQ(stats.diskMisses, kKernels);
    EXPECT_EQ(stats.diskWrites, kKernels);
    EXPECT_GT(stats.diskBytesWritten, 0u);
  }
  EXPECT_EQ(entryFiles(dir.path()).size(), kKernels);
  auto second = diskRuntime(dir.path());
  ASSERT_TRUE(second);
  for (size_t i = 0; i < kKernels; ++i) {
    auto kernel = compiled(*second, i);
    ASSERT_TRUE(kernel);
    EXPECT_EQ(kernel->backend(), BackendKind::Llvm);
    EXPECT_GT(kernel->codeBytes(), 0u);
    EXPECT_EQ(outputOf(*kernel), cold[i]) << distinctType(i);
  }
  CacheStats stats = second->stats();
  EXPECT_EQ(stats.diskHits, kKernels);
  EXPECT_EQ(stats.diskMisses, 0u);
  EXPECT_EQ(stats.diskWrites, 0u);
  EXPECT_EQ(stats.diskRejects, 0u);
  EXPECT_GT(stats.diskBytesRead, 0u);
  EXPECT_GE(processCacheStats().diskHits, kKernels);
}

TEST(DiskCache, ReloadWhileTheFirstCopyIsAliveStillWorks) {
  // The reloaded object defines the symbol the live kernel holds: the
  // backend then compiles afresh instead of failing.
  ScratchDirectory dir;
  RuntimeOptions options;
  options.backend = BackendKind::Llvm;
  options.diskCache.directory = dir.path().string();
  options.cache.maxKernels = 0; // every compile() compiles
  auto runtime = Runtime::create(options);
  ASSERT_TRUE(runtime.hasValue());
  auto first = compiled(**runtime, 0);
  auto second = compiled(**runtime, 0);
  ASSERT_TRUE(first && second);
  EXPECT_EQ(outputOf(*first), outputOf(*second));
}

TEST(DiskCache, FreshSymbolsNeverCollideWithReloadedOnes) {
  // Another runtime's object (its symbol numbered by that runtime's
  // session) is reloaded and kept alive; compiling the same spec again
  // cannot link that object a second time, so it compiles afresh: its
  // symbol must differ from the reloaded one although both sessions
  // number from 0.
  ScratchDirectory dir;
  std::vector<uint8_t> want;
  {
    auto writer = diskRuntime(dir.path());
    ASSERT_TRUE(writer);
    want = outputOf(*compiled(*writer, 9));
  }
  RuntimeOptions options;
  options.backend = BackendKind::Llvm;
  options.diskCache.directory = dir.path().string();
  options.cache.maxKernels = 0; // every compile() compiles
  auto runtime = Runtime::create(options);
  ASSERT_TRUE(runtime.hasValue());
  auto reloaded = compiled(**runtime, 9);
  auto fresh = compiled(**runtime, 9);
  ASSERT_TRUE(reloaded && fresh);
  EXPECT_EQ((*runtime)->stats().diskHits, 2u);
  EXPECT_EQ(outputOf(*reloaded), want);
  EXPECT_EQ(outputOf(*fresh), want);
}

/// Writes one kernel's entry, lets `damage` change the file, and checks
/// that the next runtime rejects it, compiles, replaces it, and the one
/// after that loads it.
void expectIgnoredAndReplaced(
    const std::function<void(const fs::path &)> &damage) {
  ScratchDirectory dir;
  std::vector<uint8_t> want;
  {
    auto runtime = diskRuntime(dir.path());
    ASSERT_TRUE(runtime);
    want = outputOf(*compiled(*runtime, 7));
  }
  std::vector<fs::path> files = entryFiles(dir.path());
  ASSERT_EQ(files.size(), 1u);
  damage(files[0]);
  {
    auto runtime = diskRuntime(dir.path());
    ASSERT_TRUE(runtime);
    EXPECT_EQ(outputOf(*compiled(*runtime, 7)), want);
    CacheStats stats = runtime->stats();
    EXPECT_EQ(stats.diskHits, 0u);
    EXPECT_EQ(stats.diskRejects, 1u);
    EXPECT_EQ(stats.diskWrites, 1u);
  }
  auto runtime = diskRuntime(dir.path());
  ASSERT_TRUE(runtime);
  EXPECT_EQ(outputOf(*compiled(*runtime, 7)), want);
  EXPECT_EQ(runtime->stats().diskHits, 1u);
  EXPECT_EQ(runtime->stats().diskRejects, 0u);
}

std::vector<char> contentsOf(const fs::path &path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

void overwrite(const fs::path &path, const std::vector<char> &bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

TEST(DiskCache, TruncatedEntryIsIgnoredAndReplaced) {
  for (double fraction : {0.0, 0.1, 0.5, 0.99})
    expectIgnoredAndReplaced([fraction](const fs::path &path) {
      fs::resize_file(path,
                      static_cast<uintmax_t>(fs::file_size(path) * fraction));
    });
}

TEST(DiskCache, BitFlippedEntryIsIgnoredAndReplaced) {
  // In the header's sizes, in the key, in the payload, at the very end.
  for (double where : {0.3, 0.5, 0.8, 1.0})
    expectIgnoredAndReplaced([where](const fs::path &path) {
      std::vector<char> bytes = contentsOf(path);
      size_t at =
          std::min(bytes.size() - 1, static_cast<size_t>(bytes.size() * where));
      bytes[at] = static_cast<char>(bytes[at] ^ 0x10);
      overwrite(path, bytes);
    });
  expectIgnoredAndReplaced([](const fs::path &path) {
    std::vector<char> bytes = contentsOf(path);
    bytes[16] = static_cast<char>(bytes[16] ^ 0x01); // payload size
    overwrite(path, bytes);
  });
}

TEST(DiskCache, WrongFormatVersionIsIgnoredAndReplaced) {
  expectIgnoredAndReplaced([](const fs::path &path) {
    std::vector<char> bytes = contentsOf(path);
    bytes[8] = static_cast<char>(bytes[8] + 1); // the format version
    overwrite(path, bytes);
  });
}

TEST(DiskCache, AlienFileIsIgnoredAndReplaced) {
  expectIgnoredAndReplaced([](const fs::path &path) {
    overwrite(path, std::vector<char>(4096, 'x'));
  });
}

TEST(DiskCache, ForeignKeyIsIgnoredAndReplaced) {
  // Another kernel's valid entry under this kernel's file name (what a
  // name collision would look like).
  expectIgnoredAndReplaced([](const fs::path &path) {
    ScratchDirectory other;
    {
      auto runtime = diskRuntime(other.path());
      ASSERT_TRUE(runtime);
      compiled(*runtime, 8);
    }
    std::vector<fs::path> files = entryFiles(other.path());
    ASSERT_EQ(files.size(), 1u);
    fs::copy_file(files[0], path, fs::copy_options::overwrite_existing);
  });
}

TEST(DiskCache, EvictionKeepsTheDirectoryUnderItsBound) {
  ScratchDirectory dir;
  uint64_t entryBytes = 0;
  {
    auto runtime = diskRuntime(dir.path());
    ASSERT_TRUE(runtime);
    compiled(*runtime, 0);
    entryBytes = runtime->stats().diskBytesWritten;
  }
  ASSERT_GT(entryBytes, 0u);
  const uint64_t bound = entryBytes * 4 + entryBytes / 2;
  auto runtime = diskRuntime(dir.path(), bound);
  ASSERT_TRUE(runtime);
  for (size_t i = 1; i <= 12; ++i) {
    compiled(*runtime, i);
    uint64_t total = 0;
    for (const fs::path &file : entryFiles(dir.path()))
      total += fs::file_size(file);
    // Entries of one type family differ little in size.
    EXPECT_LE(total, bound + entryBytes / 2) << "after kernel " << i;
  }
  EXPECT_GT(runtime->stats().diskEvictions, 0u);
  // The newest entry survived.
  auto again = diskRuntime(dir.path(), bound);
  ASSERT_TRUE(again);
  compiled(*again, 12);
  EXPECT_EQ(again->stats().diskHits, 1u);
}

TEST(DiskCache, UnusableDirectoryMeansNoDiskCache) {
  ScratchDirectory dir;
  fs::path file = dir.path() / "a-file";
  overwrite(file, {'x'});
  // A directory under a regular file cannot exist, not even for root.
  auto runtime = diskRuntime(file / "cache");
  ASSERT_TRUE(runtime);
  auto kernel = compiled(*runtime, 0);
  ASSERT_TRUE(kernel);
  CacheStats stats = runtime->stats();
  EXPECT_EQ(stats.diskMisses + stats.diskHits + stats.diskWrites, 0u);
  EXPECT_EQ(stats.compiles, 1u);
}

TEST(DiskCache, FailedWritesOnlyTurnWritingOff) {
  ScratchDirectory dir;
  fs::path cache = dir.path() / "cache";
  auto runtime = diskRuntime(cache);
  ASSERT_TRUE(runtime);
  fs::remove_all(cache);
  overwrite(cache, {'x'}); // now a file: every write fails
  for (size_t i = 0; i < 3; ++i)
    ASSERT_TRUE(compiled(*runtime, i));
  CacheStats stats = runtime->stats();
  EXPECT_EQ(stats.diskWrites, 0u);
  EXPECT_EQ(stats.compiles, 3u);
}

TEST(DiskCache, EnvironmentVariableEnablesIt) {
  ScratchDirectory dir;
  ASSERT_EQ(::setenv("QJIT_CACHE_DIR", dir.path().c_str(), 1), 0);
  RuntimeOptions options;
  options.backend = BackendKind::Llvm;
  auto runtime = Runtime::create(options);
  ::unsetenv("QJIT_CACHE_DIR");
  ASSERT_TRUE(runtime.hasValue());
  compiled(**runtime, 3);
  EXPECT_EQ((*runtime)->stats().diskWrites, 1u);
  EXPECT_EQ(entryFiles(dir.path()).size(), 1u);
}

TEST(DiskCache, OffByDefault) {
  RuntimeOptions options;
  options.backend = BackendKind::Llvm;
  ::unsetenv("QJIT_CACHE_DIR");
  auto runtime = Runtime::create(options);
  ASSERT_TRUE(runtime.hasValue());
  compiled(**runtime, 3);
  EXPECT_EQ((*runtime)->stats().diskMisses, 0u);
}

TEST(DiskCache, CApiOptionsAndStats) {
  ScratchDirectory dir;
  for (int round = 0; round < 2; ++round) {
    qjit_runtime_options options;
    qjit_runtime_options_init(&options);
    options.backend = QJIT_BACKEND_LLVM;
    std::string path = dir.path().string();
    options.cache_dir = path.c_str();
    qjit_runtime *runtime = nullptr;
    ASSERT_EQ(qjit_runtime_create(&options, &runtime), QJIT_OK)
        << qjit_last_error();
    qjit_kernel *kernel = nullptr;
    ASSERT_EQ(qjit_kernel_compile(runtime, distinctType(5).c_str(),
                                  QJIT_OP_QCAST, nullptr, &kernel),
              QJIT_OK)
        << qjit_last_error();
    qjit_disk_cache_stats stats{};
    stats.size = sizeof stats;
    ASSERT_EQ(qjit_runtime_disk_stats(runtime, &stats), QJIT_OK);
    EXPECT_EQ(stats.size, sizeof stats);
    EXPECT_EQ(stats.hits, round == 0 ? 0u : 1u);
    EXPECT_EQ(stats.writes, round == 0 ? 1u : 0u);
    // An older, shorter struct gets only what it holds.
    struct {
      qjit_disk_cache_stats head;
      uint64_t guard;
    } shorter{};
    shorter.head.size = offsetof(qjit_disk_cache_stats, misses);
    shorter.head.writes = 99;
    ASSERT_EQ(qjit_runtime_disk_stats(runtime, &shorter.head), QJIT_OK);
    EXPECT_EQ(shorter.head.hits, stats.hits);
    EXPECT_EQ(shorter.head.writes, 99u);
    qjit_kernel_release(kernel);
    qjit_runtime_destroy(runtime);
  }
}

} // namespace
} // namespace qjit
