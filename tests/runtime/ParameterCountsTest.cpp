//===- ParameterCountsTest.cpp - What a call reads from KernelParams ------===//
//
// parameterCounts / parameterShape of lowered types, and checkKernelCall
// (through Kernel::run) rejecting parameter arrays shorter than that, with
// the reference backend so nothing depends on the host. Also the library's
// log sink, switched while other threads log.
//
//===----------------------------------------------------------------------===//
#include "qjit/KernelCall.h"
#include "qjit/Runtime.h"
#include "qjit/internal/NamedLogger.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

namespace qjit {
namespace {

std::unique_ptr<Runtime> referenceRuntime() {
  RuntimeOptions options;
  options.backend = BackendKind::Reference;
  Expected<std::unique_ptr<Runtime>> runtime = Runtime::create(options);
  EXPECT_TRUE(runtime) << runtime.status().message();
  return runtime ? std::move(*runtime) : nullptr;
}

std::shared_ptr<const Kernel> compileOrFail(Runtime &runtime,
                                            const std::string &type,
                                            KernelOp op, bool runtimeParams) {
  LoweringOptions lowering = runtime.defaultLowering();
  lowering.runtimeParameters = runtimeParams;
  Expected<std::shared_ptr<const Kernel>> kernel =
      runtime.compile(type, op, lowering);
  EXPECT_TRUE(kernel) << type << ": " << kernel.status().message();
  return kernel ? *kernel : nullptr;
}

struct Case {
  const char *type;
  bool runtimeParams;
  ParameterCounts counts;
  std::vector<int64_t> shape;
};

TEST(ParameterCounts, OfEachLayout) {
  auto runtime = referenceRuntime();
  ASSERT_TRUE(runtime);
  const Case cases[] = {
      {"!quant.uniform<i8:f32, 0.5:1>", false, {0, 0, 0}, {}},
      {"!quant.uniform<i8:f32, ?>", true, {0, 1, 1}, {}},
      {"tensor<4x8x!quant.uniform<i8:f32:1, ?>>", true, {0, 8, 8}, {8}},
      {"tensor<4x8x!quant.uniform<i8:f32:0, ?>>", true, {0, 4, 4}, {4}},
      // Written scales compiled for runtime parameters read as many.
      {"tensor<2x3x!quant.uniform<i8:f32:0, {1.0, 2.0}>>",
       true,
       {0, 2, 2},
       {2}},
      {"tensor<4x3x8x!quant.uniform<i8:f32:{0:1, 2:4}, ?>>",
       true,
       {0, 8, 8},
       {4, 2}},
      {"tensor<4x?x!quant.uniform<i8:f32:0, {1.0, 2.0, 3.0, 4.0}>>",
       false,
       {1, 0, 0},
       {4}},
      // Blocked with a dynamic last dim (4x8 merges into (32, 4)).
      {"tensor<4x8x?x!quant.uniform<i8:f32:{0:1, 1:4}, ?>>",
       true,
       {1, 8, 8},
       {8, 1}},
  };
  for (const Case &c : cases) {
    SCOPED_TRACE(c.type);
    auto kernel =
        compileOrFail(*runtime, c.type, KernelOp::QCast, c.runtimeParams);
    ASSERT_TRUE(kernel);
    EXPECT_EQ(kernel->parameterCounts(), c.counts)
        << kernel->spec().canonicalString();
    EXPECT_EQ(kernel->parameterShape(), c.shape);
    EXPECT_EQ(parameterCounts(kernel->spec()), c.counts);
  }
}

TEST(ParameterCounts, RunRejectsShortArrays) {
  auto runtime = referenceRuntime();
  ASSERT_TRUE(runtime);
  auto kernel = compileOrFail(
      *runtime, "tensor<2x4x!quant.uniform<i8:f32:{0:1, 1:2}, ?>>",
      KernelOp::QCast, true);
  ASSERT_TRUE(kernel);
  ASSERT_EQ(kernel->parameterCounts(), (ParameterCounts{0, 4, 4}));
  const float x[8] = {1, 2, 3, 4, 5, 6, 7, 8};
  const float scales[4] = {1.0f, 2.0f, 0.5f, 4.0f};
  const int64_t zeroPoints[4] = {0, 1, -1, 2};
  KernelParams params{nullptr, scales, zeroPoints};
  int8_t q[8] = {};
  const std::vector<int8_t> untouched(8, 0);

  ParameterCounts shortScales{0, 3, 4};
  Status s = kernel->run(x, sizeof x, q, sizeof q, 8, &params, &shortScales);
  ASSERT_FALSE(s);
  EXPECT_EQ(s.code(), ErrorCode::InvalidArgument);
  EXPECT_NE(s.message().find("reads 4 scales, given 3"), std::string::npos)
      << s.message();
  ParameterCounts shortZeroPoints{0, 4, 1};
  s = kernel->run(x, sizeof x, q, sizeof q, 8, &params, &shortZeroPoints);
  ASSERT_FALSE(s);
  EXPECT_NE(s.message().find("reads 4 zero points, given 1"), std::string::npos)
      << s.message();
  EXPECT_EQ(std::vector<int8_t>(q, q + 8), untouched);

  ParameterCounts exact{0, 4, 4};
  ASSERT_TRUE(kernel->run(x, sizeof x, q, sizeof q, 8, &params, &exact));
  std::vector<int8_t> withCounts(q, q + 8);
  ASSERT_TRUE(kernel->run(x, sizeof x, q, sizeof q, 8, &params));
  EXPECT_EQ(std::vector<int8_t>(q, q + 8), withCounts);
  EXPECT_EQ(withCounts, (std::vector<int8_t>{1, 2, 2, 3, 9, 11, 4, 4}));

  ParameterCounts longer{5, 9, 9};
  EXPECT_TRUE(kernel->run(x, sizeof x, q, sizeof q, 8, &params, &longer));
  // Null zero points (all zero) need no count; no elements read nothing.
  KernelParams scalesOnly{nullptr, scales, nullptr};
  ParameterCounts noZeroPoints{0, 4, 0};
  EXPECT_TRUE(
      kernel->run(x, sizeof x, q, sizeof q, 8, &scalesOnly, &noZeroPoints));
  KernelParams none;
  ParameterCounts zero;
  EXPECT_TRUE(kernel->run(nullptr, 0, nullptr, 0, 0, &none, &zero));
}

TEST(ParameterCounts, RunRejectsAShortExtentsArray) {
  auto runtime = referenceRuntime();
  ASSERT_TRUE(runtime);
  auto kernel = compileOrFail(
      *runtime, "tensor<2x?x!quant.uniform<i8:f32:0, {2.0, 4.0}>>",
      KernelOp::QCast, false);
  ASSERT_TRUE(kernel);
  const float x[4] = {2, 4, 4, 8};
  int8_t q[4] = {};
  const int64_t inner[1] = {2};
  KernelParams params{inner, nullptr, nullptr};
  ParameterCounts noExtents;
  Status s = kernel->run(x, sizeof x, q, sizeof q, 4, &params, &noExtents);
  ASSERT_FALSE(s);
  EXPECT_NE(s.message().find("reads 1 extent, given 0"), std::string::npos)
      << s.message();
  ParameterCounts oneExtent{1, 0, 0};
  EXPECT_TRUE(kernel->run(x, sizeof x, q, sizeof q, 4, &params, &oneExtent));
  EXPECT_EQ(std::vector<int8_t>(q, q + 4), (std::vector<int8_t>{1, 2, 1, 2}));
}

// The callback replaces stderr for every logger qjit created, and may be
// swapped while other threads log (ThreadSanitizer checks the locking).
TEST(LibraryLog, CallbackSwitchesWhileThreadsLog) {
  std::atomic<int> heard{0};
  auto count = [&heard](spdlog::level::level_enum level,
                        std::string_view text) {
    if (level == spdlog::level::debug && text == "a message")
      ++heard;
  };
  auto drop = [](spdlog::level::level_enum, std::string_view) {};
  detail::setLogCallback(drop);
  detail::setLogLevel(spdlog::level::debug);
  std::atomic<bool> stop{false};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&stop] {
      while (!stop)
        detail::namedLogger("qjit.cache")->debug("a message");
    });
  for (int i = 0; i < 200; ++i) {
    detail::setLogCallback(count);
    detail::setLogCallback(drop);
  }
  detail::setLogCallback(count);
  for (int wait = 0; wait < 10000 && heard == 0; ++wait)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  stop = true;
  for (std::thread &thread : threads)
    thread.join();
  detail::setLogLevel(spdlog::level::info);
  detail::setLogCallback({});
  EXPECT_GT(heard.load(), 0);
}

} // namespace
} // namespace qjit
