//===- DiskCacheConcurrencyTest.cpp - Writers sharing one disk cache ------===//
//
// Several runtimes in several threads, and two processes (this test binary
// run again as a writer), compile the same kernels into one directory at
// once. Afterwards every entry must load: no torn or mixed file, no
// temporary left behind, and the kernels run as compiled cold. Also in the
// ThreadSanitizer stage (scripts/sanitize.sh tsan).
//
//===----------------------------------------------------------------------===//
#include "DiskCacheTestSupport.h"

#include <gtest/gtest.h>

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <thread>

extern char **environ;

namespace qjit {
namespace {

namespace fs = std::filesystem;
using testing::diskRuntime;
using testing::distinctType;
using testing::entryFiles;
using testing::outputOf;
using testing::ScratchDirectory;

constexpr size_t kKernels = 6;
constexpr const char *kWriterDirVariable = "QJIT_DISK_CACHE_TEST_WRITER_DIR";

/// Compiles kernels 0..kKernels-1 into `directory`; false on a failure
/// or a miss that was not written.
bool writeAll(const fs::path &directory) {
  auto runtime = diskRuntime(directory);
  if (!runtime)
    return false;
  for (size_t i = 0; i < kKernels; ++i)
    if (!runtime->compile(distinctType(i), KernelOp::QCast))
      return false;
  // Every miss was written: no writer lost its writes to a clash of
  // temporary names with another writer.
  CacheStats stats = runtime->stats();
  return stats.diskWrites == stats.diskMisses;
}

/// Every kernel loads from `directory` (none rejected) and runs as a cold
/// compile does.
void expectAllEntriesGood(const fs::path &directory) {
  for (const auto &item : fs::directory_iterator(directory))
    EXPECT_EQ(item.path().extension(), ".qjk")
        << "left behind: " << item.path();
  EXPECT_EQ(entryFiles(directory).size(), kKernels);
  ScratchDirectory coldDir;
  auto cold = diskRuntime(coldDir.path());
  auto warm = diskRuntime(directory);
  ASSERT_TRUE(cold && warm);
  for (size_t i = 0; i < kKernels; ++i) {
    auto want = cold->compile(distinctType(i), KernelOp::QCast);
    auto got = warm->compile(distinctType(i), KernelOp::QCast);
    ASSERT_TRUE(want.hasValue() && got.hasValue());
    EXPECT_EQ(outputOf(**got), outputOf(**want)) << distinctType(i);
  }
  CacheStats stats = warm->stats();
  EXPECT_EQ(stats.diskHits, kKernels);
  EXPECT_EQ(stats.diskRejects, 0u);
}

TEST(DiskCacheConcurrency, ThreadsWritingTheSameKeys) {
  ScratchDirectory dir;
  std::vector<std::thread> threads;
  std::vector<char> ok(4, 0);
  for (size_t t = 0; t < ok.size(); ++t)
    threads.emplace_back([&, t] { ok[t] = writeAll(dir.path()); });
  for (std::thread &thread : threads)
    thread.join();
  for (char each : ok)
    EXPECT_TRUE(each);
  expectAllEntriesGood(dir.path());
}

/// The writer half of ProcessesWritingTheSameKeys: does nothing unless
/// that test started this process.
TEST(DiskCacheConcurrency, WriterProcess) {
  const char *directory = std::getenv(kWriterDirVariable);
  if (!directory)
    GTEST_SKIP() << "run by ProcessesWritingTheSameKeys";
  EXPECT_TRUE(writeAll(directory));
}

TEST(DiskCacheConcurrency, ProcessesWritingTheSameKeys) {
  ScratchDirectory dir;
  std::string self = fs::read_symlink("/proc/self/exe").string();
  std::string filter = "--gtest_filter=DiskCacheConcurrency.WriterProcess";
  std::string variable =
      std::string(kWriterDirVariable) + "=" + dir.path().string();
  std::vector<char *> environment;
  for (char **each = environ; *each; ++each)
    environment.push_back(*each);
  environment.push_back(variable.data());
  environment.push_back(nullptr);
  char *argv[] = {self.data(), filter.data(), nullptr};
  std::vector<pid_t> children;
  for (int i = 0; i < 2; ++i) {
    pid_t pid = 0;
    ASSERT_EQ(::posix_spawn(&pid, self.c_str(), nullptr, nullptr, argv,
                            environment.data()),
              0);
    children.push_back(pid);
  }
  // This process writes too, at the same time.
  EXPECT_TRUE(writeAll(dir.path()));
  for (pid_t pid : children) {
    int status = 0;
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
        << "writer process failed";
  }
  expectAllEntriesGood(dir.path());
}

} // namespace
} // namespace qjit
