//===- JitKernelFuzzer.cpp - Fuzz parse → KernelSpec → asmjit kernel ------===//
//
// Every spec the asmjit backend accepts computes the scalar reference's
// bytes exactly (dcast NaNs: any NaN), from an unaligned source, and writes
// nothing outside its destination (JIT'd code is not instrumented: canaries
// around dst stand in for ASan). Runtime-parameter variants are checked the
// same way, and every qcast as a dynamic qcast too: codes, scales and zero
// points.
//
//===----------------------------------------------------------------------===//
#include "ExpressedValues.h"
#include "FuzzCheck.h"
#include "KernelCase.h"
#include "qjit/KernelCall.h"
#include "qjit/Runtime.h"
#include "qjit/TypeParser.h"
#include "qjit/internal/Reference.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace qjit::fuzz {
namespace {

constexpr size_t kCanaryBytes = 64;
constexpr uint8_t kCanary = 0xA5;

Runtime *asmjitRuntime() {
  static std::unique_ptr<Runtime> runtime = [] {
    RuntimeOptions options;
    options.backend = BackendKind::Asmjit;
    options.cache.maxKernels = 64; // keeps memory flat over a long run
    Expected<std::unique_ptr<Runtime>> created = Runtime::create(options);
    return created ? std::move(*created) : nullptr;
  }();
  return runtime.get();
}

void checkCase(Runtime &runtime, const KernelCase &call) {
  Expected<std::shared_ptr<const Kernel>> kernel = runtime.compile(call.spec);
  if (!kernel) {
    check(kernel.status().code() == ErrorCode::Unsupported,
          "asmjit failed on " + call.spec.canonicalString() + ": " +
              kernel.status().message());
    return;
  }
  const KernelParams params = call.params();
  std::vector<uint8_t> expected(call.dstBytes);
  if (!runReference(call.spec, call.src.data(), expected.data(), call.n,
                    &params))
    return; // What the reference does not implement has no oracle.

  std::vector<uint8_t> src(call.src.size() + 1);
  std::copy(call.src.begin(), call.src.end(), src.begin() + 1); // unaligned
  std::vector<uint8_t> dst(call.dstBytes + 2 * kCanaryBytes, kCanary);
  Status status =
      (*kernel)->run(src.data() + 1, call.src.size(), dst.data() + kCanaryBytes,
                     call.dstBytes, call.n, &params);
  check(status.isOk(), "asmjit kernel refused " + call.spec.canonicalString() +
                           ": " + status.message());
  const std::string what = call.spec.canonicalString() + " on " +
                           std::to_string(call.n) + " elements";
  check(std::all_of(dst.begin(), dst.begin() + kCanaryBytes,
                    [](uint8_t b) { return b == kCanary; }) &&
            std::all_of(dst.end() - kCanaryBytes, dst.end(),
                        [](uint8_t b) { return b == kCanary; }),
        "asmjit kernel wrote outside dst: " + what);
  uint8_t *actual = dst.data() + kCanaryBytes;
  if (call.spec.op == KernelOp::DCast) // NaN sign and payload are unspecified
    testing::equateNaNs(call.spec.expressed, expected.data(), actual, call.n);
  check(std::equal(expected.begin(), expected.end(), actual),
        "asmjit kernel differs from the reference: " + what);
}

bool canariesIntact(const std::vector<uint8_t> &buffer) {
  auto intact = [](uint8_t b) { return b == kCanary; };
  return std::all_of(buffer.begin(), buffer.begin() + kCanaryBytes, intact) &&
         std::all_of(buffer.end() - kCanaryBytes, buffer.end(), intact);
}

void checkDynamicCase(Runtime &runtime, const KernelCase &call) {
  Expected<std::shared_ptr<const Kernel>> kernel = runtime.compile(call.spec);
  if (!kernel) {
    check(kernel.status().code() == ErrorCode::Unsupported,
          "asmjit failed on " + call.spec.canonicalString() + ": " +
              kernel.status().message());
    return;
  }
  const KernelParams params = call.params();
  const size_t count = parameterCounts(call.spec).scales;
  const size_t scaleBytes = count * runtimeScaleBytes(call.spec);
  std::vector<uint8_t> codes(call.dstBytes), scales(scaleBytes);
  std::vector<int64_t> zeroPoints(count);
  if (!runReferenceDynamic(call.spec, call.src.data(), codes.data(), call.n,
                           &params,
                           ParameterOutputs{scales.data(), zeroPoints.data()}))
    return;

  std::vector<uint8_t> src(call.src.size() + 1);
  std::copy(call.src.begin(), call.src.end(), src.begin() + 1); // unaligned
  std::vector<uint8_t> dst(call.dstBytes + 2 * kCanaryBytes, kCanary);
  std::vector<uint8_t> gotScales(scaleBytes + 2 * kCanaryBytes, kCanary);
  std::vector<int64_t> gotZeroPoints(count, -1);
  Status status = (*kernel)->runDynamic(
      src.data() + 1, call.src.size(), dst.data() + kCanaryBytes, call.dstBytes,
      call.n,
      ParameterOutputs{gotScales.data() + kCanaryBytes, gotZeroPoints.data()},
      &params);
  const std::string what = call.spec.canonicalString() + " on " +
                           std::to_string(call.n) + " elements";
  check(status.isOk(),
        "asmjit kernel refused " + what + ": " + status.message());
  check(canariesIntact(dst) && canariesIntact(gotScales),
        "asmjit kernel wrote outside its outputs: " + what);
  check(std::equal(codes.begin(), codes.end(), dst.begin() + kCanaryBytes) &&
            std::equal(scales.begin(), scales.end(),
                       gotScales.begin() + kCanaryBytes) &&
            zeroPoints == gotZeroPoints,
        "asmjit dynamic qcast differs from the reference: " + what);
}

} // namespace
} // namespace qjit::fuzz

namespace {
constexpr qjit::ScaleFormat kScaleFormats[] = {
    qjit::ScaleFormat::F32, qjit::ScaleFormat::F16, qjit::ScaleFormat::BF16,
    qjit::ScaleFormat::E8M0};
} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  using namespace qjit;
  Runtime *runtime = fuzz::asmjitRuntime();
  if (!runtime)
    return 0; // No asmjit backend on this host.
  const ParseResult parsed =
      parseType(std::string_view(reinterpret_cast<const char *>(data), size));
  if (!parsed.type)
    return 0;
  for (KernelOp op : {KernelOp::QCast, KernelOp::DCast, KernelOp::SCast}) {
    std::optional<fuzz::KernelCase> baked =
        fuzz::makeKernelCase(*parsed.type, op, std::span(data, size));
    if (!baked)
      continue;
    fuzz::checkCase(*runtime, *baked);
    // Runtime scales, and the scales dynamic qcasts write, in the values'
    // format and in one more the input picks.
    const ScaleFormat formats[] = {
        ScaleFormat::Expressed, kScaleFormats[size % std::size(kScaleFormats)]};
    for (ScaleFormat format : formats) {
      if (std::optional<fuzz::KernelCase> runtimeParams =
              fuzz::withRuntimeParameters(*parsed.type, *baked, format))
        fuzz::checkCase(*runtime, *runtimeParams);
      for (DynamicScheme scheme :
           {DynamicScheme::AbsMax, DynamicScheme::MinMax, DynamicScheme::Mx})
        if (std::optional<fuzz::KernelCase> dynamic =
                fuzz::asDynamic(*parsed.type, *baked, scheme, format))
          fuzz::checkDynamicCase(*runtime, *dynamic);
    }
  }
  return 0;
}
