//===- KernelCacheTest.cpp - Bounded, exactly-one-compile kernel cache ----===//
//
// The cache is driven with fake kernels and compile functions the tests
// control (timing, failures, sizes); the Runtime tests use the reference
// backend, so nothing here waits for a JIT.
//
//===----------------------------------------------------------------------===//
#include "KernelCache.h"

#include "TestSeed.h"
#include "qjit/Runtime.h"
#include "qjit/TypeParser.h"

#include <gtest/gtest.h>

#include <atomic>
#include <future>
#include <limits>
#include <map>
#include <random>
#include <thread>
#include <vector>

namespace qjit {
namespace {

KernelSpec anySpec() {
  Expected<TypeDescriptor> type =
      parseTypeOrError("!quant.uniform<i8:f32, 2.0:10>");
  EXPECT_TRUE(type);
  Expected<KernelSpec> spec =
      lowerToKernelSpec(*type, KernelOp::QCast, LoweringOptions{});
  EXPECT_TRUE(spec);
  return *spec;
}

/// A spec per name, for keys: the name's characters as table entries (the
/// cache never looks inside the spec).
struct NamedKey {
  KernelSpec spec = anySpec();
  explicit NamedKey(std::string_view name) {
    spec.storage.table.assign(name.begin(), name.end());
  }
  operator SpecKey() const { return SpecKey(spec); }
};

/// A kernel with a chosen code size that reports its destruction.
class FakeKernel final : public Kernel {
public:
  FakeKernel(size_t bytes, std::atomic<int> *destroyed = nullptr)
      : Kernel(anySpec(), BackendKind::Reference, IsaLevel::Scalar, nullptr),
        bytes_(bytes), destroyed_(destroyed) {}
  ~FakeKernel() override {
    if (destroyed_)
      ++*destroyed_;
  }
  size_t codeBytes() const override { return bytes_; }
  Expected<std::string> assembly(const AsmOptions &) const override {
    return std::string();
  }

private:
  Status invoke(const void *, void *, size_t,
                const KernelParams *) const override {
    return Status::ok();
  }
  size_t bytes_;
  std::atomic<int> *destroyed_;
};

KernelCache::CompileFn makeFake(size_t bytes = 0,
                                std::atomic<int> *destroyed = nullptr) {
  return [=]() -> KernelCache::KernelResult {
    return std::shared_ptr<const Kernel>(
        std::make_shared<FakeKernel>(bytes, destroyed));
  };
}

std::shared_ptr<const Kernel> get(KernelCache &cache, const std::string &key,
                                  const KernelCache::CompileFn &compile) {
  KernelCache::KernelResult kernel = cache.getOrCompile(NamedKey(key), compile);
  EXPECT_TRUE(kernel) << kernel.status().message();
  return kernel ? *kernel : nullptr;
}

CacheLimits limits(size_t maxKernels, size_t maxCodeBytes = SIZE_MAX) {
  return CacheLimits{maxKernels, maxCodeBytes};
}

TEST(SpecKey, EqualSpecsHashAlikeAndUnequalOnesDiffer) {
  KernelSpec a = anySpec();
  KernelSpec b = anySpec();
  EXPECT_EQ(SpecKey(a), SpecKey(b));
  EXPECT_EQ(structuralHash(a), structuralHash(b));
  for (auto change : std::vector<void (*)(KernelSpec &)>{
           [](KernelSpec &s) { s.op = KernelOp::DCast; },
           [](KernelSpec &s) { s.params.scales[0] *= 2; },
           [](KernelSpec &s) { s.params.zeroPoints[0] += 1; },
           [](KernelSpec &s) { s.knobs.rounding = RoundingMode::TowardZero; },
           [](KernelSpec &s) { s.storage.max = 100; }}) {
    KernelSpec changed = a;
    change(changed);
    EXPECT_FALSE(SpecKey(a) == SpecKey(changed));
    EXPECT_NE(structuralHash(a), structuralHash(changed));
  }
}

TEST(SpecKey, LeavesOutTheShapeWhichNoCodeReads) {
  KernelSpec bare = anySpec();
  KernelSpec shaped = bare;
  shaped.shape = {4, 8};
  EXPECT_TRUE(SpecKey(bare) == SpecKey(shaped));
  EXPECT_EQ(structuralHash(bare), structuralHash(shaped));
}

TEST(SpecKey, ComparesScalesBitForBit) {
  KernelSpec positive = anySpec();
  positive.storage.kind = StorageType::Kind::Quantile;
  positive.storage.table = {0.0, 1.0};
  KernelSpec negative = positive;
  negative.storage.table[0] = -0.0;
  EXPECT_TRUE(positive == negative);          // operator== says 0.0 == -0.0 ...
  EXPECT_FALSE(sameSpec(positive, negative)); // ... the key does not.
  KernelSpec nan = positive;
  nan.storage.table[1] = std::numeric_limits<double>::quiet_NaN();
  KernelSpec nanCopy = nan;
  EXPECT_TRUE(sameSpec(nan, nanCopy));
  EXPECT_EQ(structuralHash(nan), structuralHash(nanCopy));
  nanCopy.storage.max = 100;
  EXPECT_FALSE(sameSpec(nan, nanCopy));
}

TEST(KernelCache, CountsHitsMissesAndCompiles) {
  KernelCache cache(limits(8));
  auto a = get(cache, "a", makeFake(10));
  auto again = get(cache, "a", makeFake(10));
  auto b = get(cache, "b", makeFake(5));
  EXPECT_EQ(a, again);
  EXPECT_NE(a, b);
  CacheStats stats = cache.stats();
  EXPECT_EQ(stats.hits, 1u);
  EXPECT_EQ(stats.misses, 2u);
  EXPECT_EQ(stats.compiles, 2u);
  EXPECT_EQ(stats.failures, 0u);
  EXPECT_EQ(stats.evictions, 0u);
  EXPECT_EQ(stats.kernels, 2u);
  EXPECT_EQ(stats.codeBytes, 15u);
}

TEST(KernelCache, EvictsTheLeastRecentlyUsed) {
  KernelCache cache(limits(2));
  auto a = get(cache, "a", makeFake());
  auto b = get(cache, "b", makeFake());
  EXPECT_EQ(get(cache, "a", makeFake()), a); // a is now the most recent.
  get(cache, "c", makeFake());               // evicts b
  EXPECT_EQ(cache.stats().evictions, 1u);
  EXPECT_EQ(get(cache, "a", makeFake()), a);
  EXPECT_NE(get(cache, "b", makeFake()), b); // compiled again, evicts c
  CacheStats stats = cache.stats();
  EXPECT_EQ(stats.compiles, 4u);
  EXPECT_EQ(stats.evictions, 2u);
  EXPECT_EQ(stats.kernels, 2u);
}

TEST(KernelCache, HonoursTheCodeByteLimit) {
  KernelCache cache(limits(100, 100));
  get(cache, "a", makeFake(60));
  get(cache, "b", makeFake(30));
  EXPECT_EQ(cache.stats().evictions, 0u);
  get(cache, "c", makeFake(30)); // 120 bytes: a goes
  CacheStats stats = cache.stats();
  EXPECT_EQ(stats.evictions, 1u);
  EXPECT_EQ(stats.codeBytes, 60u);
  // Larger than the whole budget: returned, never kept, nothing flushed.
  auto huge = get(cache, "huge", makeFake(1000));
  EXPECT_TRUE(huge);
  stats = cache.stats();
  EXPECT_EQ(stats.codeBytes, 60u);
  EXPECT_EQ(stats.kernels, 2u);
  EXPECT_EQ(stats.evictions, 2u);
}

TEST(KernelCache, ZeroKernelLimitDisablesCaching) {
  KernelCache cache(limits(0));
  get(cache, "a", makeFake());
  get(cache, "a", makeFake());
  CacheStats stats = cache.stats();
  EXPECT_EQ(stats.compiles, 2u);
  EXPECT_EQ(stats.hits, 0u);
  EXPECT_EQ(stats.kernels, 0u);
}

TEST(KernelCache, EvictionNeverFreesALiveKernel) {
  std::atomic<int> destroyed{0};
  KernelCache cache(limits(1));
  std::shared_ptr<const Kernel> held = get(cache, "a", makeFake(0, &destroyed));
  get(cache, "b", makeFake(0, &destroyed)); // evicts a
  get(cache, "c", makeFake(0, &destroyed)); // evicts b, nobody holds it
  EXPECT_EQ(cache.stats().evictions, 2u);
  EXPECT_EQ(destroyed, 1);
  cache.clear(); // c
  EXPECT_EQ(destroyed, 2);
  ASSERT_TRUE(held);
  EXPECT_TRUE(held->run(nullptr, 0, nullptr, 0, 0));
  held.reset();
  EXPECT_EQ(destroyed, 3);
  EXPECT_EQ(cache.stats().evictions, 3u);
}

TEST(KernelCache, FailuresAreReportedAndNotCached) {
  KernelCache cache(limits(8));
  int calls = 0;
  auto failing = [&]() -> KernelCache::KernelResult {
    ++calls;
    return Status::error(ErrorCode::BackendFailure, "no executable memory");
  };
  KernelCache::KernelResult first = cache.getOrCompile(NamedKey("a"), failing);
  ASSERT_FALSE(first);
  EXPECT_EQ(first.status().code(), ErrorCode::BackendFailure);
  EXPECT_EQ(first.status().message(), "no executable memory");
  EXPECT_TRUE(get(cache, "a", makeFake())); // retried, now succeeds
  CacheStats stats = cache.stats();
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(stats.compiles, 2u);
  EXPECT_EQ(stats.failures, 1u);
  EXPECT_EQ(stats.kernels, 1u);
}

TEST(KernelCache, ExceptionsFromACompileBecomeErrors) {
  KernelCache cache(limits(8));
  KernelCache::KernelResult kernel =
      cache.getOrCompile(NamedKey("a"), []() -> KernelCache::KernelResult {
        throw std::runtime_error("out of memory");
      });
  ASSERT_FALSE(kernel);
  EXPECT_NE(kernel.status().message().find("out of memory"), std::string::npos);
}

TEST(KernelCache, ASlowCompileBlocksNeitherHitsNorOtherKeys) {
  KernelCache cache(limits(8));
  auto b = get(cache, "b", makeFake());
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  std::promise<void> started;
  auto slow = [&]() -> KernelCache::KernelResult {
    started.set_value();
    released.wait();
    return std::shared_ptr<const Kernel>(std::make_shared<FakeKernel>(0));
  };
  std::atomic<bool> slowDone{false};
  std::thread compiling([&] {
    EXPECT_TRUE(get(cache, "a", slow));
    slowDone = true;
  });
  started.get_future().wait();
  // A waiter for "a" joins the compile in flight instead of starting one.
  std::thread waiting([&] { EXPECT_TRUE(get(cache, "a", makeFake())); });
  // Meanwhile hits on "b", compiles of "c" and stats all proceed.
  EXPECT_EQ(get(cache, "b", makeFake()), b);
  EXPECT_TRUE(get(cache, "c", makeFake()));
  EXPECT_EQ(cache.stats().kernels, 2u);
  EXPECT_FALSE(slowDone);
  // b, a, c and the waiter: once counted, the waiter waits on a's compile.
  while (cache.stats().misses < 4)
    std::this_thread::yield();
  release.set_value();
  compiling.join();
  waiting.join();
  CacheStats stats = cache.stats();
  EXPECT_EQ(stats.compiles, 3u); // a, b, c: the waiter compiled nothing
  EXPECT_EQ(stats.misses, 4u);
  EXPECT_EQ(stats.hits, 1u);
}

TEST(KernelCache, ManyThreadsCompileEachKeyExactlyOnce) {
  constexpr int kThreads = 8, kKeys = 16, kRounds = 200;
  KernelCache cache(limits(kKeys));
  std::array<std::atomic<int>, kKeys> compiles{};
  std::vector<std::vector<const Kernel *>> seen(
      kThreads, std::vector<const Kernel *>(kKeys, nullptr));
  std::atomic<bool> mismatch{false};
  std::vector<std::thread> threads;
  uint64_t seed = testing::testSeed();
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      std::mt19937_64 random(seed + t);
      for (int round = 0; round < kRounds; ++round) {
        int key = static_cast<int>(random() % kKeys);
        auto kernel = cache.getOrCompile(
            NamedKey(std::to_string(key)), [&]() -> KernelCache::KernelResult {
              ++compiles[key];
              std::this_thread::yield(); // widen the race window
              return std::shared_ptr<const Kernel>(
                  std::make_shared<FakeKernel>(1));
            });
        if (!kernel)
          continue;
        const Kernel *&first = seen[t][key];
        if (first && first != kernel->get())
          mismatch = true;
        first = kernel->get();
      }
    });
  for (std::thread &thread : threads)
    thread.join();
  for (int key = 0; key < kKeys; ++key)
    EXPECT_EQ(compiles[key], 1) << "key " << key;
  EXPECT_FALSE(mismatch) << "one key yielded two kernels";
  CacheStats stats = cache.stats();
  EXPECT_EQ(stats.hits + stats.misses, uint64_t(kThreads) * kRounds);
  EXPECT_EQ(stats.compiles, stats.kernels);
  EXPECT_EQ(stats.evictions, 0u);
}

TEST(KernelCache, ManyThreadsCompileLookUpAndEvict) {
  constexpr int kThreads = 8, kKeys = 12, kRounds = 300;
  // Declared before the cache: its destructor destroys the last kernels,
  // which count themselves here (ASan caught the reverse order).
  std::atomic<int> destroyed{0}, created{0};
  KernelCache cache(limits(4));
  std::array<std::atomic<int>, kKeys> inFlight{};
  std::atomic<bool> overlapped{false};
  std::atomic<uint64_t> requests{0};
  std::vector<std::thread> threads;
  uint64_t seed = testing::testSeed();
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      std::mt19937_64 random(seed + 100 + t);
      for (int round = 0; round < kRounds; ++round) {
        int key = static_cast<int>(random() % kKeys);
        if (random() % 50 == 0) {
          cache.clear();
          continue;
        }
        bool fail = random() % 10 == 0;
        ++requests;
        auto kernel = cache.getOrCompile(
            NamedKey(std::to_string(key)), [&]() -> KernelCache::KernelResult {
              if (++inFlight[key] != 1)
                overlapped = true;
              std::this_thread::yield();
              --inFlight[key];
              if (fail)
                return Status::error(ErrorCode::BackendFailure, "refused");
              ++created;
              return std::shared_ptr<const Kernel>(
                  std::make_shared<FakeKernel>(1, &destroyed));
            });
        if (kernel) { // Still usable whatever the others evict.
          EXPECT_TRUE((*kernel)->run(nullptr, 0, nullptr, 0, 0));
        }
      }
    });
  for (std::thread &thread : threads)
    thread.join();
  EXPECT_FALSE(overlapped) << "two compiles of one key ran at once";
  CacheStats stats = cache.stats();
  EXPECT_EQ(stats.hits + stats.misses, requests.load());
  EXPECT_LE(stats.kernels, 4u);
  EXPECT_EQ(stats.compiles - stats.failures - stats.evictions, stats.kernels);
  EXPECT_EQ(uint64_t(created), stats.compiles - stats.failures);
  EXPECT_EQ(uint64_t(destroyed), stats.evictions);
}

// The same guarantees through the public API, on the reference backend.

std::unique_ptr<Runtime> referenceRuntime(CacheLimits cache = {}) {
  RuntimeOptions options;
  options.backend = BackendKind::Reference;
  options.cache = cache;
  Expected<std::unique_ptr<Runtime>> runtime = Runtime::create(options);
  EXPECT_TRUE(runtime) << runtime.status().message();
  return runtime ? std::move(*runtime) : nullptr;
}

TEST(RuntimeCache, StatsAreApi) {
  CacheStats processBefore = processCacheStats();
  auto runtime = referenceRuntime();
  ASSERT_TRUE(runtime);
  constexpr char kType[] = "!quant.uniform<i8:f32, 2.0:10>";
  ASSERT_TRUE(runtime->compile(kType, KernelOp::QCast));
  ASSERT_TRUE(runtime->compile(kType, KernelOp::QCast));
  ASSERT_TRUE(runtime->compile(kType, KernelOp::DCast));
  EXPECT_FALSE(runtime->compile("!quant.uniform<i8:f32, oops>",
                                KernelOp::QCast)); // never reaches the cache
  CacheStats stats = runtime->stats();
  EXPECT_EQ(stats.hits, 1u);
  EXPECT_EQ(stats.misses, 2u);
  EXPECT_EQ(stats.compiles, 2u);
  EXPECT_EQ(stats.kernels, 2u);
  EXPECT_EQ(stats.codeBytes, 0u); // reference kernels have no code
  CacheStats process = processCacheStats();
  EXPECT_GE(process.compiles - processBefore.compiles, 2u);
  EXPECT_GE(process.hits - processBefore.hits, 1u);
  runtime->clearCache();
  EXPECT_EQ(runtime->stats().evictions, 2u);
  EXPECT_EQ(runtime->stats().kernels, 0u);
}

TEST(RuntimeCache, EvictedKernelsKeepRunning) {
  auto runtime = referenceRuntime(limits(1));
  ASSERT_TRUE(runtime);
  auto held =
      runtime->compile("!quant.uniform<i8:f32, 2.0:10>", KernelOp::QCast);
  ASSERT_TRUE(held);
  ASSERT_TRUE(
      runtime->compile("!quant.uniform<u8:f32, 0.5:3>", KernelOp::QCast));
  EXPECT_EQ(runtime->stats().evictions, 1u);
  const float x[] = {2.0f};
  int8_t q = 0;
  ASSERT_TRUE((*held)->run(x, sizeof x, &q, 1, 1));
  EXPECT_EQ(q, 11);
}

} // namespace
} // namespace qjit
