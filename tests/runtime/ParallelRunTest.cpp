//===- ParallelRunTest.cpp - Split calls write what one call writes -------===//
//
// Kernel::runRange and Kernel::runParallel against Kernel::run on one
// thread, byte for byte: every layout (per tensor, per axis first and last,
// blockwise 1-D and 2-D, packed i4/u4, fp8, NF4), baked and runtime
// parameters, qcast/dcast/scast, each backend, tails of every size, chunks
// run in reverse order, on one thread, on a thread each and on the default
// pthreadpool. ThreadSanitizer runs these (scripts/sanitize.sh tsan).
//
//===----------------------------------------------------------------------===//
#include "Nf4Table.h"
#include "TestSeed.h"
#include "qjit/Runtime.h"
#include "qjit/ThreadPool.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <numeric>
#include <random>
#include <string>
#include <thread>
#include <vector>

namespace qjit {
namespace {

/// `count` parameters "s:z" with distinct scales (zero points when `zero`).
std::string parameterList(int count, bool zero) {
  std::string list = "{";
  for (int i = 0; i < count; ++i) {
    char text[48];
    std::snprintf(text, sizeof text, "%s%.6g:%d", i ? ", " : "",
                  0.0137 * (1.0 + 0.37 * (i % 17) / 17.0),
                  zero ? i % 5 - 2 : 0);
    list += text;
  }
  return list + "}";
}

std::string nf4Storage() {
  std::string text = "!quant.quantile<u4:f32, {";
  for (size_t i = 0; i < testing::nf4Table().size(); ++i) {
    char value[40];
    std::snprintf(value, sizeof value, "%s%.17g", i ? ", " : "",
                  testing::nf4Table()[i]);
    text += value;
  }
  return text + "}>";
}

struct LayoutCase {
  std::string name;
  std::string type;
  size_t period; ///< Calls take multiples of it.
  /// Where asmjit's code can start inside a period given runtime
  /// parameters: one block row of the outermost dim.
  size_t row;
};

std::vector<LayoutCase> layoutCases() {
  std::string blocked2d = "{";
  for (int row = 0; row < 4; ++row)
    blocked2d += (row ? ", " : "") + parameterList(2, true);
  blocked2d += "}";
  return {
      {"per_tensor_i8", "!quant.uniform<i8:f32, 0.0137:3>", 1, 1},
      {"per_tensor_u4", "!quant.uniform<u4:f32, 0.25:8>", 1, 1},
      {"per_tensor_i4_f16", "!quant.uniform<i4:f16, 0.5:-1>", 1, 1},
      {"per_tensor_fp8", "!quant.uniform<f8E4M3FN:f32, 0.0137:0>", 1, 1},
      {"per_tensor_nf4", "!quant.uniform<" + nf4Storage() + ":f32, 0.02:0>", 1,
       1},
      {"per_axis_last",
       "tensor<8x24x!quant.uniform<i8:f32:1, " + parameterList(24, true) + ">>",
       24, 1},
      {"per_axis_first",
       "tensor<6x40x!quant.uniform<u8:f32:0, " + parameterList(6, false) + ">>",
       240, 40},
      {"block_1d",
       "tensor<256x!quant.uniform<i8:f32:{0:32}, " + parameterList(8, true) +
           ">>",
       256, 32},
      {"block_2d_i4",
       "tensor<8x64x!quant.uniform<i4:f32:{0:2, 1:32}, " + blocked2d + ">>",
       512, 128},
  };
}

/// Call-time parameters for a runtime-parameter kernel (f32 scales).
struct CallParameters {
  std::vector<float> scales;
  std::vector<int64_t> zeroPoints;
  KernelParams params;
};

CallParameters callParameters(const Kernel &kernel) {
  CallParameters call;
  size_t count = kernel.parameterCounts().scales;
  for (size_t i = 0; i < count; ++i) {
    call.scales.push_back(0.01f * static_cast<float>(1 + i % 7));
    call.zeroPoints.push_back(static_cast<int64_t>(i % 3) - 1);
  }
  call.params =
      KernelParams{nullptr, call.scales.data(), call.zeroPoints.data()};
  return call;
}

std::vector<uint8_t> randomInput(const Kernel &kernel, size_t n,
                                 std::mt19937_64 &random) {
  const KernelSpec &spec = kernel.spec();
  std::vector<uint8_t> bytes(*bufferBytes(spec, kernelInputSide(spec.op), n));
  if (kernelInputSide(spec.op) == BufferSide::Expressed &&
      spec.expressed == ValueType::F32) {
    std::uniform_real_distribution<float> value(-3.0f, 3.0f);
    for (size_t i = 0; i < n; ++i) {
      float x = value(random);
      std::memcpy(bytes.data() + 4 * i, &x, 4);
    }
  } else {
    for (uint8_t &byte : bytes)
      byte = static_cast<uint8_t>(random());
  }
  return bytes;
}

// Pools the caller might hand in.

void runReversed(void *, ParallelTask task, void *context, size_t tasks) {
  for (size_t i = tasks; i-- > 0;)
    task(context, i);
}

void runInOrder(void *, ParallelTask task, void *context, size_t tasks) {
  for (size_t i = 0; i < tasks; ++i)
    task(context, i);
}

void runThreadEach(void *, ParallelTask task, void *context, size_t tasks) {
  std::vector<std::thread> threads;
  for (size_t i = 0; i < tasks; ++i)
    threads.emplace_back(task, context, i);
  for (std::thread &thread : threads)
    thread.join();
}

/// Splits [0, n) at random multiples of `granularity` into ranges run in
/// reverse order; dst starts as garbage, so every byte must be written.
std::vector<uint8_t> runSplit(const Kernel &kernel,
                              const std::vector<uint8_t> &in, size_t outBytes,
                              size_t n, size_t granularity,
                              const KernelParams *params,
                              std::mt19937_64 &random) {
  std::vector<size_t> cuts = {0, n};
  for (int i = 0; i < 4 && n > granularity; ++i)
    cuts.push_back(random() % (n / granularity + 1) * granularity);
  std::sort(cuts.begin(), cuts.end());
  std::vector<uint8_t> out(outBytes, 0xa5);
  for (size_t i = cuts.size() - 1; i-- > 0;) {
    Status s = kernel.runRange(in.data(), in.size(), out.data(), out.size(), n,
                               cuts[i], cuts[i + 1] - cuts[i], params);
    EXPECT_TRUE(s) << s.message();
  }
  return out;
}

struct Combination {
  BackendKind backend;
  bool runtimeParameters;
};

class ParallelRun : public ::testing::TestWithParam<Combination> {};

std::vector<size_t> callSizes(size_t period) {
  if (period == 1)
    return {0, 1, 2, 7, 63, 64, 65, 127, 128, 129, 1000, 4097};
  return {0, period, 3 * period, 7 * period};
}

TEST_P(ParallelRun, RangesAndPoolsWriteWhatOneCallWrites) {
  uint64_t seed = testing::testSeed();
  std::mt19937_64 random(seed);
  RuntimeOptions options;
  options.backend = GetParam().backend;
  Expected<std::unique_ptr<Runtime>> runtime = Runtime::create(options);
  if (!runtime)
    GTEST_SKIP() << runtime.status().message();
  ThreadPool reversed{runReversed, nullptr, 4};
  ThreadPool inOrder{runInOrder, nullptr, 3};
  int compiled = 0;
  for (const LayoutCase &layout : layoutCases())
    for (KernelOp op : {KernelOp::QCast, KernelOp::DCast, KernelOp::SCast}) {
      LoweringOptions lowering = (*runtime)->defaultLowering();
      lowering.runtimeParameters = GetParam().runtimeParameters;
      Expected<std::shared_ptr<const Kernel>> kernel =
          (*runtime)->compile(layout.type, op, lowering);
      if (!kernel)
        continue; // Not every backend compiles every layout.
      ++compiled;
      const Kernel &k = **kernel;
      CallParameters call = callParameters(k);
      const KernelParams *params =
          k.spec().takesParams() ? &call.params : nullptr;
      for (size_t n : callSizes(layout.period)) {
        SCOPED_TRACE(layout.name + " " + k.name() + " n=" + std::to_string(n) +
                     " seed=" + std::to_string(seed));
        std::vector<uint8_t> in = randomInput(k, n, random);
        size_t outBytes =
            *bufferBytes(k.spec(), kernelOutputSide(k.spec().op), n);
        std::vector<uint8_t> want(outBytes);
        ASSERT_TRUE(
            k.run(in.data(), in.size(), want.data(), want.size(), n, params));
        EXPECT_EQ(
            runSplit(k, in, outBytes, n, k.splitGranularity(), params, random),
            want);
        Expected<size_t> row = k.rowGranularity(params);
        ASSERT_TRUE(row);
        // asmjit's code starts at block rows given runtime parameters;
        // llvm's runs whole periods (docs/runtime.md, Threads).
        bool rows =
            k.spec().params.runtime && k.backend() == BackendKind::Asmjit;
        EXPECT_EQ(*row, std::lcm(rows ? layout.row : layout.period,
                                 k.splitGranularity()));
        EXPECT_EQ(runSplit(k, in, outBytes, n, *row, params, random), want);
        for (const ThreadPool &pool : {reversed, inOrder}) {
          std::vector<uint8_t> out(outBytes, 0x5a);
          ASSERT_TRUE(k.runParallel(pool, in.data(), in.size(), out.data(),
                                    out.size(), n, params));
          EXPECT_EQ(out, want);
        }
      }
    }
  if (compiled == 0)
    GTEST_SKIP() << "this backend compiles none of the layouts";
}

/// Calls large enough to be split for real, on real threads.
TEST_P(ParallelRun, LargeCallsSplitAcrossThreads) {
  uint64_t seed = testing::testSeed();
  std::mt19937_64 random(seed);
  RuntimeOptions options;
  options.backend = GetParam().backend;
  Expected<std::unique_ptr<Runtime>> runtime = Runtime::create(options);
  if (!runtime)
    GTEST_SKIP() << runtime.status().message();
  Expected<std::unique_ptr<DefaultThreadPool>> pthreadpool =
      DefaultThreadPool::create(2);
  ASSERT_TRUE(pthreadpool) << pthreadpool.status().message();
  EXPECT_EQ((*pthreadpool)->threads(), 2u);
  std::vector<ThreadPool> pools = {ThreadPool{runReversed, nullptr, 3},
                                   ThreadPool{runThreadEach, nullptr, 4},
                                   (*pthreadpool)->pool()};
  for (const LayoutCase &layout : layoutCases()) {
    if (layout.name == "per_tensor_nf4" || layout.name == "per_tensor_fp8")
      continue; // Their per-tensor splits are those of i8/u4.
    for (KernelOp op : {KernelOp::QCast, KernelOp::DCast}) {
      LoweringOptions lowering = (*runtime)->defaultLowering();
      lowering.runtimeParameters = GetParam().runtimeParameters;
      Expected<std::shared_ptr<const Kernel>> kernel =
          (*runtime)->compile(layout.type, op, lowering);
      if (!kernel)
        continue;
      const Kernel &k = **kernel;
      CallParameters call = callParameters(k);
      const KernelParams *params =
          k.spec().takesParams() ? &call.params : nullptr;
      size_t periods =
          (kMinParallelElements + layout.period - 1) / layout.period;
      for (size_t n :
           {periods * layout.period,
            (periods + 3) * layout.period + (layout.period == 1 ? 62 : 0)}) {
        SCOPED_TRACE(layout.name + " " + k.name() + " n=" + std::to_string(n) +
                     " seed=" + std::to_string(seed));
        std::vector<uint8_t> in = randomInput(k, n, random);
        size_t outBytes =
            *bufferBytes(k.spec(), kernelOutputSide(k.spec().op), n);
        std::vector<uint8_t> want(outBytes);
        ASSERT_TRUE(
            k.run(in.data(), in.size(), want.data(), want.size(), n, params));
        for (const ThreadPool &pool : pools) {
          std::vector<uint8_t> out(outBytes, 0x5a);
          ASSERT_TRUE(k.runParallel(pool, in.data(), in.size(), out.data(),
                                    out.size(), n, params));
          EXPECT_EQ(out, want);
        }
      }
    }
  }
}

TEST(ParallelRunChecks, BadRangesAreErrorsAndWriteNothing) {
  Expected<std::unique_ptr<Runtime>> runtime = Runtime::create({});
  ASSERT_TRUE(runtime);
  Expected<std::shared_ptr<const Kernel>> kernel =
      (*runtime)->compile("!quant.uniform<u4:f32, 0.25:8>", KernelOp::QCast);
  ASSERT_TRUE(kernel);
  std::vector<float> in(16, 1.0f);
  std::vector<uint8_t> out(8, 0x77);
  EXPECT_EQ((*kernel)->splitGranularity(), 2u);
  EXPECT_FALSE((*kernel)->runRange(in.data(), 64, out.data(), 8, 16, 1, 2));
  EXPECT_FALSE((*kernel)->runRange(in.data(), 64, out.data(), 8, 16, 10, 8));
  EXPECT_FALSE((*kernel)->runRange(in.data(), 64, out.data(), 4, 16, 0, 2));
  EXPECT_EQ(out, std::vector<uint8_t>(8, 0x77));
  ThreadPool none; // No parallelFor: the calling thread.
  EXPECT_TRUE((*kernel)->runParallel(none, in.data(), 64, out.data(), 8, 16));
}

/// Runs the tasks in order and remembers how many there were.
void runCounting(void *count, ParallelTask task, void *context, size_t tasks) {
  *static_cast<size_t *>(count) = tasks;
  runInOrder(nullptr, task, context, tasks);
}

// A call that writes 8 MiB or more streams its stores; split, each chunk
// must write that much too (or it would store through the caches), and a
// call too short for two such chunks stays whole.
TEST(ParallelRunChecks, StreamedCallsSplitIntoChunksThatStream) {
  uint64_t seed = testing::testSeed();
  std::mt19937_64 random(seed);
  Expected<std::unique_ptr<Runtime>> runtime = Runtime::create({});
  ASSERT_TRUE(runtime);
  Expected<std::shared_ptr<const Kernel>> kernel =
      (*runtime)->compile("!quant.uniform<i8:f32, 0.0173:3>", KernelOp::DCast);
  ASSERT_TRUE(kernel);
  const Kernel &k = **kernel;
  constexpr size_t kStreamedElements = (size_t(8) << 20) / sizeof(float);
  // {elements, tasks}: 4 streamed chunks; 12 MiB, one chunk, no task; and
  // 4 MiB, below streaming, in chunks of 256K elements.
  for (auto [n, tasks] : {std::pair<size_t, size_t>{4 * kStreamedElements, 4},
                          {3 * kStreamedElements / 2, 0},
                          {kStreamedElements / 2, 4}}) {
    SCOPED_TRACE("n=" + std::to_string(n) + " seed=" + std::to_string(seed));
    std::vector<uint8_t> in = randomInput(k, n, random);
    std::vector<float> want(n), out(n, 1.0f);
    ASSERT_TRUE(k.run(in.data(), in.size(), want.data(), n * sizeof(float), n));
    size_t counted = 0;
    ASSERT_TRUE(k.runParallel(ThreadPool{runCounting, &counted, 2}, in.data(),
                              in.size(), out.data(), n * sizeof(float), n));
    EXPECT_EQ(counted, tasks);
    EXPECT_EQ(std::memcmp(out.data(), want.data(), n * sizeof(float)), 0);
  }
}

INSTANTIATE_TEST_SUITE_P(
    Backends, ParallelRun,
    ::testing::Values(Combination{BackendKind::Llvm, false},
                      Combination{BackendKind::Llvm, true},
                      Combination{BackendKind::Asmjit, false},
                      Combination{BackendKind::Asmjit, true},
                      Combination{BackendKind::Reference, false},
                      Combination{BackendKind::Reference, true}),
    [](const ::testing::TestParamInfo<Combination> &info) {
      return std::string(backendKindName(info.param.backend)) +
             (info.param.runtimeParameters ? "_runtime" : "_baked");
    });

} // namespace
} // namespace qjit
