//===- ConcurrencyTest.cpp - Many threads on one runtime with real JITs ---===//
//
// KernelCacheTest hammers the cache class with fake kernels; here the same
// races run through the public API with each JIT backend: 8 threads
// compile, look up and run real kernels on a runtime whose cache holds two,
// so evictions (and clearCache) constantly free entries while other threads
// compile, wait for a compile in flight, or run kernels evicted long ago.
// Every output must still match the reference. ThreadSanitizer runs these
// in CI (scripts/sanitize.sh tsan).
//
//===----------------------------------------------------------------------===//
#include "TestSeed.h"
#include "qjit/KernelCall.h"
#include "qjit/Runtime.h"
#include "qjit/internal/Reference.h"

#include <gtest/gtest.h>

#include <atomic>
#include <memory>
#include <ostream>
#include <random>
#include <string>
#include <thread>
#include <vector>

namespace qjit {
namespace {

constexpr int kThreads = 8;
constexpr size_t kCacheCapacity = 2;
constexpr size_t kElements = 40; // a whole number of every layout's period

// Types every JIT backend compiles (asmjit: unpacked storage, no f64).
const char *const kTypes[] = {
    "!quant.uniform<i8:f32, 0.5:-3>",
    "!quant.uniform<u8:f16, 0.25:128>",
    "!quant.uniform<i16<-1000:1000>:f32, 3.0:7>",
    "tensor<5x2x!quant.uniform<i8:bf16:1, {1.0, 2.0:1}>>",
};
constexpr KernelOp kOps[] = {KernelOp::QCast, KernelOp::DCast};

/// Runs `kernel` on a fresh input and compares with the reference;
/// "" when they agree.
std::string runAgainstReference(const Kernel &kernel, std::mt19937_64 &random) {
  const KernelSpec &spec = kernel.spec();
  const size_t inBytes =
      *bufferBytes(spec, kernelInputSide(spec.op), kElements);
  const size_t outBytes =
      *bufferBytes(spec, kernelOutputSide(spec.op), kElements);
  std::vector<uint8_t> in(inBytes), out(outBytes), want(outBytes);
  for (uint8_t &byte : in)
    byte = static_cast<uint8_t>(random());
  if (!runReference(spec, in.data(), want.data(), kElements))
    return "the reference refused " + kernel.name();
  if (!kernel.run(in.data(), in.size(), out.data(), out.size(), kElements))
    return kernel.name() + " refused the call";
  return out == want ? "" : kernel.name() + " differs from the reference";
}

struct Hammer {
  BackendKind backend;
  int rounds; ///< Per thread.
};

void PrintTo(const Hammer &hammer, std::ostream *os) {
  *os << backendKindName(hammer.backend) << ", " << hammer.rounds << " rounds";
}

class RuntimeConcurrency : public ::testing::TestWithParam<Hammer> {};

TEST_P(RuntimeConcurrency, ThreadsCompileRunAndEvictRealKernels) {
  RuntimeOptions options;
  options.backend = GetParam().backend;
  options.cache.maxKernels = kCacheCapacity;
  Expected<std::unique_ptr<Runtime>> created = Runtime::create(options);
  if (!created)
    GTEST_SKIP() << created.status().message();
  Runtime &runtime = **created;

  const uint64_t seed = testing::testSeed();
  std::atomic<uint64_t> requests{0};
  std::vector<std::string> failures(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      std::mt19937_64 random(seed + t);
      // Kernels kept across rounds: by the time they run again the cache
      // has usually evicted them.
      std::vector<std::shared_ptr<const Kernel>> held;
      for (int round = 0; round < GetParam().rounds; ++round) {
        if (random() % 16 == 0)
          runtime.clearCache();
        const char *type = kTypes[random() % std::size(kTypes)];
        KernelOp op = kOps[random() % std::size(kOps)];
        ++requests;
        Expected<std::shared_ptr<const Kernel>> kernel =
            runtime.compile(type, op);
        if (!kernel) {
          failures[t] = kernel.status().message();
          return;
        }
        held.push_back(*kernel);
        if (held.size() > 3)
          held.erase(held.begin());
        for (const auto &kept : held)
          if (std::string failure = runAgainstReference(*kept, random);
              !failure.empty()) {
            failures[t] = failure;
            return;
          }
      }
    });
  for (std::thread &thread : threads)
    thread.join();
  for (int t = 0; t < kThreads; ++t)
    EXPECT_EQ(failures[t], "") << "thread " << t;

  CacheStats stats = runtime.stats();
  EXPECT_EQ(stats.hits + stats.misses, requests.load());
  EXPECT_LE(stats.kernels, kCacheCapacity);
  EXPECT_GT(stats.evictions, 0u);
  EXPECT_EQ(stats.failures, 0u);
  EXPECT_EQ(stats.compiles - stats.evictions, stats.kernels);
}

// LLVM compiles take milliseconds each (and far longer under TSan), asmjit
// microseconds: the rounds keep both near a second.
INSTANTIATE_TEST_SUITE_P(Backends, RuntimeConcurrency,
                         ::testing::Values(Hammer{BackendKind::Asmjit, 150},
                                           Hammer{BackendKind::Llvm, 6}),
                         [](const auto &info) {
                           return std::string(
                               backendKindName(info.param.backend));
                         });

} // namespace
} // namespace qjit
