//===- CallTimeParametersRuntimeTest.cpp - '?' types through the API ------===//
//
// Runtime::compile of a type whose scale list is `?`: with runtime
// parameters it is the kernel of the same layout with a written list (one
// cache entry), and it runs on the scales of the call; without, it fails
// with a message that says what to do.
//
//===----------------------------------------------------------------------===//
#include "qjit/Runtime.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <iterator>
#include <vector>

namespace qjit {
namespace {

std::unique_ptr<Runtime> makeRuntime() {
  Expected<std::unique_ptr<Runtime>> runtime = Runtime::create({});
  EXPECT_TRUE(runtime) << runtime.status().message();
  return runtime ? std::move(*runtime) : nullptr;
}

TEST(CallTimeParametersRuntime, CompilesTheWrittenListsKernelAndRunsIt) {
  auto runtime = makeRuntime();
  ASSERT_TRUE(runtime);
  LoweringOptions lowering = runtime->defaultLowering();
  lowering.runtimeParameters = true;
  Expected<std::shared_ptr<const Kernel>> questionMark = runtime->compile(
      "tensor<2x3x!quant.uniform<i8:f32:0, ?>>", KernelOp::QCast, lowering);
  ASSERT_TRUE(questionMark) << questionMark.status().message();
  Expected<std::shared_ptr<const Kernel>> written =
      runtime->compile("tensor<2x3x!quant.uniform<i8:f32:0, {1.0, 1.0}>>",
                       KernelOp::QCast, lowering);
  ASSERT_TRUE(written) << written.status().message();
  EXPECT_EQ(*questionMark, *written);

  const float x[6] = {8.0f, 8.0f, 8.0f, 4.0f, 4.0f, 4.0f};
  int8_t q[6] = {};
  const float scales[2] = {4.0f, 0.5f};
  const int64_t zeroPoints[2] = {1, -1};
  KernelParams params;
  params.scales = scales;
  params.zeroPoints = zeroPoints;
  ASSERT_TRUE((*questionMark)->run(x, sizeof x, q, sizeof q, 6, &params));
  EXPECT_EQ(std::vector<int8_t>(q, q + 6),
            (std::vector<int8_t>{3, 3, 3, 7, 7, 7}));
}

/// A spec whose runtime zero points are promised within the storage range
/// (a dynamic qcast's quantize pass adds them after rounding in f32)
/// refuses a call with one outside, naming it, and writes nothing.
TEST(CallTimeParametersRuntimeErrors, ZeroPointsPromisedInStorageAreChecked) {
  auto runtime = makeRuntime();
  ASSERT_TRUE(runtime);
  LoweringOptions lowering = runtime->defaultLowering();
  lowering.runtimeParameters = true;
  lowering.knobs.zeroPoint = ZeroPointOrder::AfterRounding;
  Expected<std::shared_ptr<const Kernel>> lowered = runtime->compile(
      "tensor<2x3x!quant.uniform<i8:f32:0, ?>>", KernelOp::QCast, lowering);
  ASSERT_TRUE(lowered) << lowered.status().message();
  KernelSpec spec = (*lowered)->spec();
  spec.params.zeroPointsInStorage = true;
  Expected<std::shared_ptr<const Kernel>> kernel = runtime->compile(spec);
  ASSERT_TRUE(kernel) << kernel.status().message();
  EXPECT_NE((*kernel)->spec().canonicalString().find(
                " params=runtime(zero-points=in-storage) "),
            std::string::npos);

  const float x[6] = {8.0f, 8.0f, 8.0f, 4.0f, 4.0f, 4.0f};
  int8_t q[6] = {};
  const float scales[2] = {4.0f, 0.5f};
  int64_t zeroPoints[2] = {1, -1};
  KernelParams params;
  params.scales = scales;
  params.zeroPoints = zeroPoints;
  ASSERT_TRUE((*kernel)->run(x, sizeof x, q, sizeof q, 6, &params));
  EXPECT_EQ(std::vector<int8_t>(q, q + 6),
            (std::vector<int8_t>{3, 3, 3, 7, 7, 7}));
  std::fill(std::begin(q), std::end(q), int8_t(42));
  zeroPoints[1] = 128;
  Status outside = (*kernel)->run(x, sizeof x, q, sizeof q, 6, &params);
  ASSERT_FALSE(outside);
  EXPECT_EQ(outside.code(), ErrorCode::InvalidArgument);
  EXPECT_NE(outside.message().find("zero point 1 is 128"), std::string::npos)
      << outside.message();
  EXPECT_EQ(std::vector<int8_t>(q, q + 6), std::vector<int8_t>(6, 42));
}

TEST(CallTimeParametersRuntimeErrors, BakedCompileSaysToUseRuntimeParameters) {
  auto runtime = makeRuntime();
  ASSERT_TRUE(runtime);
  Expected<std::shared_ptr<const Kernel>> kernel = runtime->compile(
      "tensor<2x3x!quant.uniform<i8:f32:0, ?>>", KernelOp::DCast);
  ASSERT_FALSE(kernel);
  EXPECT_EQ(kernel.status().code(), ErrorCode::Unsupported);
  EXPECT_NE(kernel.status().message().find("compile it with runtime "
                                           "parameters"),
            std::string::npos)
      << kernel.status().message();
}

} // namespace
} // namespace qjit
