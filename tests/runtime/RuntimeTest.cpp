//===- RuntimeTest.cpp - The public runtime API ---------------------------===//
//
// Backend-agnostic: whatever backend `auto` picks on this machine, kernels
// must agree with the scalar reference, and the API's checks must hold.
//
//===----------------------------------------------------------------------===//
#include "qjit/Runtime.h"
#include "ScopedEnv.h"
#include "qjit/KernelCall.h"
#include "qjit/TypeParser.h"
#include "qjit/internal/Backend.h"
#include "qjit/internal/Reference.h"

#include <gtest/gtest.h>
#include <spdlog/sinks/ostream_sink.h>
#include <spdlog/spdlog.h>

#include <cstdlib>
#include <sstream>
#include <thread>

namespace qjit {
namespace {

constexpr char kType[] = "!quant.uniform<i8:f32, 2.0:10>";

std::unique_ptr<Runtime> makeRuntime(RuntimeOptions options = {}) {
  Expected<std::unique_ptr<Runtime>> runtime = Runtime::create(options);
  EXPECT_TRUE(runtime) << runtime.status().message();
  return runtime ? std::move(*runtime) : nullptr;
}

RuntimeOptions withBackend(BackendKind backend) {
  RuntimeOptions options;
  options.backend = backend;
  return options;
}

RuntimeOptions withMaxIsa(IsaLevel isa) {
  RuntimeOptions options;
  options.maxIsa = isa;
  return options;
}

RuntimeOptions withKnobs(QuantKnobs knobs) {
  RuntimeOptions options;
  options.knobs = knobs;
  return options;
}

std::shared_ptr<const Kernel>
compileOrFail(Runtime &runtime, std::string_view type, KernelOp op) {
  Expected<std::shared_ptr<const Kernel>> kernel = runtime.compile(type, op);
  EXPECT_TRUE(kernel) << kernel.status().message();
  return kernel ? *kernel : nullptr;
}

using testing::ScopedEnv;

TEST(Runtime, QuantizesAndDequantizesTheSeedExamples) {
  auto runtime = makeRuntime();
  ASSERT_TRUE(runtime);
  auto q = compileOrFail(*runtime, kType, KernelOp::QCast);
  auto d = compileOrFail(*runtime, kType, KernelOp::DCast);
  ASSERT_TRUE(q && d);
  const float x[] = {0.0f, 2.0f, -2.0f};
  int8_t stored[3] = {};
  ASSERT_TRUE(q->run(x, sizeof x, stored, sizeof stored, 3));
  EXPECT_EQ(stored[0], 10);
  EXPECT_EQ(stored[1], 11);
  EXPECT_EQ(stored[2], 9);
  float back[3] = {};
  ASSERT_TRUE(d->run(stored, sizeof stored, back, sizeof back, 3));
  EXPECT_EQ(back[0], 0.0f);
  EXPECT_EQ(back[1], 2.0f);
  EXPECT_EQ(back[2], -2.0f);
}

TEST(Runtime, KernelsDescribeThemselves) {
  auto runtime = makeRuntime();
  ASSERT_TRUE(runtime);
  auto kernel = compileOrFail(*runtime, kType, KernelOp::QCast);
  ASSERT_TRUE(kernel);
  EXPECT_EQ(kernel->name(), kernel->spec().kernelName());
  EXPECT_EQ(kernel->spec().op, KernelOp::QCast);
  EXPECT_NE(kernel->backend(), BackendKind::Auto);
  EXPECT_LE(kernel->isa(), runtime->isa());
  if (kernel->backend() == BackendKind::Reference) {
    EXPECT_EQ(kernel->function(), nullptr);
    Expected<std::string> assembly = kernel->assembly();
    ASSERT_FALSE(assembly);
    EXPECT_EQ(assembly.status().code(), ErrorCode::Unsupported);
  } else {
    EXPECT_NE(kernel->function(), nullptr);
    EXPECT_EQ(kernel->paramFunction(), nullptr);
    Expected<std::string> assembly = kernel->assembly();
    ASSERT_TRUE(assembly) << assembly.status().message();
    EXPECT_FALSE(assembly->empty());
  }
}

// Auto picks, per spec, the first of asmjit, llvm and the reference that
// compiles it on its own.
TEST(Runtime, AutoFallsBackInTheDocumentedOrder) {
  auto automatic = makeRuntime();
  ASSERT_TRUE(automatic);
  const char *types[] = {
      "!quant.uniform<i8:f32, 2.0:10>",
      "!quant.uniform<u4:f16, 0.25:8>",
      "tensor<2x?x!quant.uniform<i4:f32:0, {1.0, 2.0}>>",
  };
  for (const char *type : types) {
    SCOPED_TRACE(type);
    BackendKind expected = BackendKind::Reference;
    for (BackendKind kind : {BackendKind::Llvm, BackendKind::Asmjit}) {
      Expected<std::unique_ptr<Runtime>> alone =
          Runtime::create(withBackend(kind));
      if (alone && (*alone)->compile(type, KernelOp::QCast))
        expected = kind; // Asmjit last: it wins when both can.
    }
    auto kernel = compileOrFail(*automatic, type, KernelOp::QCast);
    ASSERT_TRUE(kernel);
    EXPECT_EQ(kernel->backend(), expected);
  }
}

TEST(Runtime, ReferenceBackendOnRequest) {
  auto runtime = makeRuntime(withBackend(BackendKind::Reference));
  ASSERT_TRUE(runtime);
  auto kernel = compileOrFail(*runtime, kType, KernelOp::QCast);
  ASSERT_TRUE(kernel);
  EXPECT_EQ(kernel->backend(), BackendKind::Reference);
  EXPECT_EQ(kernel->isa(), IsaLevel::Scalar);
  EXPECT_EQ(kernel->function(), nullptr);
  EXPECT_EQ(kernel->paramFunction(), nullptr);
  const float x[] = {4.0f};
  int8_t q = 0;
  ASSERT_TRUE(kernel->run(x, sizeof x, &q, 1, 1));
  EXPECT_EQ(q, 12);
}

// An explicit JIT backend is used alone: either this build and CPU have it
// and every kernel comes from it, or create() says why not.
TEST(Runtime, ExplicitJitBackendIsUsedOrRefused) {
  for (BackendKind kind : {BackendKind::Llvm, BackendKind::Asmjit}) {
    SCOPED_TRACE(backendKindName(kind));
    Expected<IsaLevel> isa = effectiveIsaLevel();
    ASSERT_TRUE(isa);
    bool available = bool(createBackend(backendKindName(kind), *isa));
    Expected<std::unique_ptr<Runtime>> runtime =
        Runtime::create(withBackend(kind));
    ASSERT_EQ(bool(runtime), available);
    if (!runtime) {
      EXPECT_NE(runtime.status().message().find(backendKindName(kind)),
                std::string::npos);
      continue;
    }
    Expected<std::shared_ptr<const Kernel>> kernel =
        (*runtime)->compile(kType, KernelOp::QCast);
    if (!kernel) { // The backend may not support a spec: an error, no
                   // silent fallback.
      EXPECT_NE(kernel.status().message().find(backendKindName(kind)),
                std::string::npos);
      continue;
    }
    EXPECT_EQ((*kernel)->backend(), kind);
    EXPECT_NE((*kernel)->function(), nullptr);
  }
}

TEST(Runtime, AutoAgreesWithTheReference) {
  auto runtime = makeRuntime();
  ASSERT_TRUE(runtime);
  const char *types[] = {
      "!quant.uniform<i8:f32, 0.5:-3>",
      "!quant.uniform<u4:f16, 0.25:8>",
      "!quant.uniform<i16<-1000:1000>:f64, 3.0:7>",
      "tensor<2x4x!quant.uniform<i8:bf16:1, {1.0, 2.0, 3.0:1, 4.0:-1}>>",
  };
  for (const char *type : types) {
    for (KernelOp op : {KernelOp::QCast, KernelOp::DCast, KernelOp::SCast}) {
      SCOPED_TRACE(std::string(type) + " " + std::string(kernelOpName(op)));
      auto kernel = compileOrFail(*runtime, type, op);
      ASSERT_TRUE(kernel);
      const KernelSpec &spec = kernel->spec();
      const size_t n = 8;
      size_t inBytes = *bufferBytes(spec, kernelInputSide(op), n);
      size_t outBytes = *bufferBytes(spec, kernelOutputSide(op), n);
      std::vector<uint8_t> in(inBytes), out(outBytes, 0xAA),
          want(outBytes, 0xAA);
      for (size_t i = 0; i < inBytes; ++i)
        in[i] = static_cast<uint8_t>(i * 29 + 3);
      if (kernelInputSide(op) == BufferSide::Expressed)
        for (size_t i = 0; i < inBytes; ++i) // Keep floats finite and small.
          in[i] &= (i % valueTypeBytes(spec.expressed)) ==
                           valueTypeBytes(spec.expressed) - 1
                       ? 0x3F
                       : 0xFF;
      ASSERT_TRUE(runReference(spec, in.data(), want.data(), n));
      ASSERT_TRUE(kernel->run(in.data(), in.size(), out.data(), out.size(), n));
      EXPECT_EQ(out, want);
    }
  }
}

TEST(Runtime, RunChecksItsArguments) {
  auto runtime = makeRuntime();
  ASSERT_TRUE(runtime);
  auto kernel = compileOrFail(*runtime, kType, KernelOp::QCast);
  ASSERT_TRUE(kernel);
  float x[4] = {2.0f, 2.0f, 2.0f, 2.0f};
  int8_t q[4] = {7, 7, 7, 7};
  auto expectRejected = [&](Status status, const char *needle) {
    ASSERT_FALSE(status);
    EXPECT_EQ(status.code(), ErrorCode::InvalidArgument);
    EXPECT_NE(status.message().find(needle), std::string::npos)
        << status.message();
    for (int8_t v : q)
      EXPECT_EQ(v, 7) << "dst must be untouched";
  };
  expectRejected(kernel->run(nullptr, 16, q, 4, 4), "source buffer is null");
  expectRejected(kernel->run(x, 16, nullptr, 4, 4),
                 "destination buffer is null");
  expectRejected(kernel->run(x, 15, q, 4, 4), "source buffer holds 15 bytes");
  expectRejected(kernel->run(x, 16, q, 3, 4),
                 "destination buffer holds 3 bytes");
  expectRejected(kernel->run(x, 16, reinterpret_cast<uint8_t *>(x) + 4, 4, 4),
                 "overlap");
  expectRejected(kernel->run(x, 16, q, 4, SIZE_MAX), "do not fit");
  // Zero elements need no buffers at all.
  EXPECT_TRUE(kernel->run(nullptr, 0, nullptr, 0, 0));
}

/// Kernel::run and runDynamic take their common calls by a shortcut
/// (Kernel::isPlainCall): every call one byte short, overlapping, null or
/// off the period must still be refused with the full checks' message.
TEST(Runtime, RunChecksPackedBuffersDcastAndDynamicCalls) {
  auto runtime = makeRuntime();
  ASSERT_TRUE(runtime);
  auto packed =
      compileOrFail(*runtime, "!quant.uniform<u4:f32, 0.5>", KernelOp::QCast);
  auto dcast =
      compileOrFail(*runtime, "!quant.uniform<u4:f32, 0.5>", KernelOp::DCast);
  ASSERT_TRUE(packed && dcast);
  float x[3] = {1.0f, 2.0f, 3.0f};
  uint8_t codes[2] = {0xAA, 0xAA};
  auto expectRejected = [](Status status, const char *needle) {
    ASSERT_FALSE(status);
    EXPECT_EQ(status.code(), ErrorCode::InvalidArgument);
    EXPECT_NE(status.message().find(needle), std::string::npos)
        << status.message();
  };
  // Three u4 codes take two bytes.
  expectRejected(packed->run(x, sizeof x, codes, 1, 3),
                 "destination buffer holds 1 bytes");
  EXPECT_EQ(codes[0], 0xAA);
  ASSERT_TRUE(packed->run(x, sizeof x, codes, 2, 3));
  expectRejected(dcast->run(codes, 1, x, sizeof x, 3),
                 "source buffer holds 1 bytes");
  expectRejected(dcast->run(codes, 2, x, 11, 3),
                 "destination buffer holds 11 bytes");
  expectRejected(
      dcast->run(codes, 2, reinterpret_cast<uint8_t *>(codes) + 1, sizeof x, 3),
      "overlap");
  ASSERT_TRUE(dcast->run(codes, 2, x, sizeof x, 3));

  LoweringOptions lowering = runtime->defaultLowering();
  lowering.dynamicScheme = DynamicScheme::AbsMax;
  Expected<std::shared_ptr<const Kernel>> dynamic =
      runtime->compile("tensor<2x2x!quant.uniform<i8:f32:0, {1.0, 1.0}>>",
                       KernelOp::QCast, lowering);
  ASSERT_TRUE(dynamic) << dynamic.status().message();
  const Kernel &k = **dynamic;
  float values[4] = {1.0f, -2.0f, 3.0f, 4.0f};
  int8_t q[4] = {};
  float scales[2] = {};
  ParameterOutputs outputs{scales, nullptr};
  expectRejected(k.runDynamic(values, sizeof values, q, sizeof q, 4,
                              ParameterOutputs{nullptr, nullptr}),
                 "ParameterOutputs::scales is null");
  expectRejected(k.runDynamic(values, 15, q, sizeof q, 4, outputs),
                 "source buffer holds 15 bytes");
  expectRejected(k.runDynamic(values, sizeof values, q, 3, 4, outputs),
                 "destination buffer holds 3 bytes");
  expectRejected(k.runDynamic(values, sizeof values, nullptr, 4, 4, outputs),
                 "destination buffer is null");
  expectRejected(k.runDynamic(values, sizeof values,
                              reinterpret_cast<int8_t *>(values) + 2, 4, 4,
                              outputs),
                 "overlap");
  expectRejected(k.runDynamic(values, sizeof values, q, sizeof q, 3, outputs),
                 "period");
  EXPECT_EQ(scales[0], 0.0f) << "refused calls write no parameters";
  ASSERT_TRUE(k.runDynamic(values, sizeof values, q, sizeof q, 4, outputs));
  EXPECT_EQ(scales[1], 4.0f / 127.0f);
  EXPECT_EQ(k.run(values, sizeof values, q, sizeof q, 4).code(),
            ErrorCode::InvalidArgument);
}

TEST(Runtime, RunChecksTheLayout) {
  auto runtime = makeRuntime();
  ASSERT_TRUE(runtime);
  auto kernel = compileOrFail(
      *runtime, "tensor<2x3x!quant.uniform<i8:f32:0, {1.0, 2.0}>>",
      KernelOp::QCast);
  ASSERT_TRUE(kernel);
  EXPECT_FALSE(kernel->spec().takesParams());
  float x[12] = {};
  int8_t q[12] = {};
  EXPECT_TRUE(kernel->run(x, sizeof x, q, sizeof q, 12));
  Status partial = kernel->run(x, sizeof x, q, sizeof q, 5);
  ASSERT_FALSE(partial);
  EXPECT_NE(partial.message().find("period"), std::string::npos);
}

TEST(Runtime, DynamicExtentsAndRuntimeParameters) {
  auto runtime = makeRuntime();
  ASSERT_TRUE(runtime);
  // Per-axis over dim 0 of 2x?: the inner extent is known at call time.
  auto kernel = compileOrFail(
      *runtime, "tensor<2x?x!quant.uniform<i8:f32:0, {1.0, 2.0}>>",
      KernelOp::QCast);
  ASSERT_TRUE(kernel);
  ASSERT_TRUE(kernel->spec().takesParams());
  EXPECT_EQ(kernel->function(), nullptr);
  const float x[6] = {4, 4, 4, 4, 4, 4};
  int8_t q[6] = {};
  Status missing = kernel->run(x, sizeof x, q, sizeof q, 6);
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.message().find("KernelParams"), std::string::npos);
  int64_t badInner = 0;
  KernelParams bad;
  bad.extents = &badInner;
  EXPECT_FALSE(kernel->run(x, sizeof x, q, sizeof q, 6, &bad));
  int64_t inner = 3;
  KernelParams params;
  params.extents = &inner;
  ASSERT_TRUE(kernel->run(x, sizeof x, q, sizeof q, 6, &params));
  EXPECT_EQ(std::vector<int8_t>(q, q + 6),
            (std::vector<int8_t>{4, 4, 4, 2, 2, 2}));

  // Runtime parameters: scales and zero points come with the call.
  LoweringOptions lowering = runtime->defaultLowering();
  lowering.runtimeParameters = true;
  Expected<std::shared_ptr<const Kernel>> runtimeParams =
      runtime->compile("tensor<2x3x!quant.uniform<i8:f32:0, {1.0, 1.0}>>",
                       KernelOp::QCast, lowering);
  ASSERT_TRUE(runtimeParams) << runtimeParams.status().message();
  const Kernel &k = **runtimeParams;
  ASSERT_TRUE(k.spec().takesParams());
  KernelParams noScales;
  Status noScalesStatus = k.run(x, sizeof x, q, sizeof q, 6, &noScales);
  ASSERT_FALSE(noScalesStatus);
  EXPECT_NE(noScalesStatus.message().find("scales"), std::string::npos);
  const float scales[2] = {4.0f, 0.5f};
  const int64_t zeroPoints[2] = {1, -1};
  KernelParams withScales;
  withScales.scales = scales;
  withScales.zeroPoints = zeroPoints;
  ASSERT_TRUE(k.run(x, sizeof x, q, sizeof q, 6, &withScales));
  EXPECT_EQ(std::vector<int8_t>(q, q + 6),
            (std::vector<int8_t>{2, 2, 2, 7, 7, 7}));
}

TEST(Runtime, CompileErrorsAreValues) {
  auto runtime = makeRuntime();
  ASSERT_TRUE(runtime);
  Expected<std::shared_ptr<const Kernel>> bad =
      runtime->compile("!quant.uniform<i8:f32, 2.0:10", KernelOp::QCast);
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.status().code(), ErrorCode::InvalidType);
  EXPECT_NE(bad.status().message().find('^'), std::string::npos);

  for (const char *type :
       {"!quant.any<i8:f32>", "!quant.calibrated<f32<-1.0:1.0>>"}) {
    Expected<std::shared_ptr<const Kernel>> unsupported =
        runtime->compile(type, KernelOp::QCast);
    ASSERT_FALSE(unsupported) << type;
    EXPECT_EQ(unsupported.status().code(), ErrorCode::Unsupported) << type;
  }

  // A hand-built spec is verified before any backend sees it.
  KernelSpec spec;
  spec.storage.bits = 0;
  Expected<std::shared_ptr<const Kernel>> invalid = runtime->compile(spec);
  ASSERT_FALSE(invalid);
  EXPECT_EQ(invalid.status().code(), ErrorCode::InvalidArgument);
}

TEST(Runtime, KnobsComeFromTheRuntimeOrTheCall) {
  // -1.0 / 2.0 + 10 = 9.5: a tie under the default (before-rounding) order.
  const float x[] = {-1.0f};
  auto quantize = [&](Runtime &runtime, const LoweringOptions *lowering) {
    Expected<std::shared_ptr<const Kernel>> kernel =
        lowering ? runtime.compile(kType, KernelOp::QCast, *lowering)
                 : runtime.compile(kType, KernelOp::QCast);
    EXPECT_TRUE(kernel);
    int8_t q = 0;
    EXPECT_TRUE((*kernel)->run(x, sizeof x, &q, 1, 1));
    return q;
  };
  auto byDefault = makeRuntime();
  auto mlir = makeRuntime(withKnobs(knobsForPreset(SemanticsPreset::Mlir)));
  ASSERT_TRUE(byDefault && mlir);
  EXPECT_EQ(quantize(*byDefault, nullptr), 10); // nearest-even
  EXPECT_EQ(quantize(*mlir, nullptr), 9);       // toward-zero
  EXPECT_EQ(mlir->defaultLowering().knobs,
            knobsForPreset(SemanticsPreset::Mlir));
  LoweringOptions away = mlir->defaultLowering();
  away.knobs.rounding = RoundingMode::NearestAway;
  EXPECT_EQ(quantize(*mlir, &away), 10);
  LoweringOptions tflite;
  tflite.knobs = knobsForPreset(SemanticsPreset::TfLite);
  EXPECT_EQ(quantize(*byDefault, &tflite), 9); // away(-0.5) + 10
}

TEST(Runtime, CachesKernelsBySpec) {
  auto runtime = makeRuntime();
  ASSERT_TRUE(runtime);
  auto a = compileOrFail(*runtime, kType, KernelOp::QCast);
  auto b = compileOrFail(*runtime, kType, KernelOp::QCast);
  auto c = compileOrFail(*runtime, kType, KernelOp::DCast);
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
  // Knobs do not change a dcast, so its spec (and kernel) is shared.
  LoweringOptions onnx;
  onnx.knobs = knobsForPreset(SemanticsPreset::Onnx);
  Expected<std::shared_ptr<const Kernel>> d =
      runtime->compile(kType, KernelOp::DCast, onnx);
  ASSERT_TRUE(d);
  EXPECT_EQ(*d, c);
}

TEST(Runtime, TypesThatDifferOnlyInShapeShareOneKernel) {
  auto runtime = makeRuntime();
  ASSERT_TRUE(runtime);
  auto bare =
      compileOrFail(*runtime, "!quant.uniform<i8:f32, 0.5:3>", KernelOp::QCast);
  for (const char *type : {"tensor<4x!quant.uniform<i8:f32, 0.5:3>>",
                           "tensor<2x3x!quant.uniform<i8:f32, 0.5:3>>",
                           "tensor<?x!quant.uniform<i8:f32, 0.5:3>>"})
    EXPECT_EQ(compileOrFail(*runtime, type, KernelOp::QCast), bare) << type;
  EXPECT_EQ(runtime->stats().compiles, 1u);
  EXPECT_TRUE(bare->spec().shape.empty());
}

TEST(Runtime, RemembersWhatTypeTextLoweredTo) {
  auto runtime = makeRuntime(withBackend(BackendKind::Reference));
  ASSERT_TRUE(runtime);
  uint64_t processHitsBefore = processCacheStats().typeTextHits;
  auto first = compileOrFail(*runtime, kType, KernelOp::QCast);
  EXPECT_EQ(runtime->stats().typeTextHits, 0u);
  auto again = compileOrFail(*runtime, kType, KernelOp::QCast);
  EXPECT_EQ(again, first);
  CacheStats stats = runtime->stats();
  EXPECT_EQ(stats.typeTextHits, 1u);
  EXPECT_EQ(stats.hits, 1u);
  EXPECT_EQ(stats.compiles, 1u);
  EXPECT_EQ(processCacheStats().typeTextHits - processHitsBefore, 1u);

  // Another op or other options are other entries, and other kernels.
  EXPECT_NE(compileOrFail(*runtime, kType, KernelOp::DCast), first);
  LoweringOptions runtimeScales = runtime->defaultLowering();
  runtimeScales.runtimeParameters = true;
  LoweringOptions towardZero = runtime->defaultLowering();
  towardZero.knobs.rounding = RoundingMode::TowardZero;
  for (const LoweringOptions &options : {runtimeScales, towardZero}) {
    Expected<std::shared_ptr<const Kernel>> other =
        runtime->compile(kType, KernelOp::QCast, options);
    ASSERT_TRUE(other) << other.status().message();
    EXPECT_NE(*other, first);
  }
  EXPECT_EQ(runtime->stats().typeTextHits, 1u);

  // Other text for the same type misses the memo but not the cache.
  EXPECT_EQ(compileOrFail(*runtime, "!quant.uniform<i8:f32, 2.00:10>",
                          KernelOp::QCast),
            first);
  EXPECT_EQ(runtime->stats().typeTextHits, 1u);
  EXPECT_EQ(runtime->stats().hits, 2u);

  // Errors are not remembered.
  for (int i = 0; i < 2; ++i)
    EXPECT_FALSE(
        runtime->compile("!quant.uniform<i8:f32, x>", KernelOp::QCast));
  EXPECT_EQ(runtime->stats().typeTextHits, 1u);

  // clearCache forgets the text too: the next call lowers and compiles.
  runtime->clearCache();
  uint64_t compiles = runtime->stats().compiles;
  EXPECT_NE(compileOrFail(*runtime, kType, KernelOp::QCast), first);
  EXPECT_EQ(runtime->stats().typeTextHits, 1u);
  EXPECT_EQ(runtime->stats().compiles, compiles + 1);
}

TEST(Runtime, TypeTextMemoIsBoundedWithTheCache) {
  RuntimeOptions options = withBackend(BackendKind::Reference);
  options.cache.maxKernels = 1;
  auto runtime = makeRuntime(options);
  ASSERT_TRUE(runtime);
  for (KernelOp op : {KernelOp::QCast, KernelOp::DCast, KernelOp::QCast})
    compileOrFail(*runtime, kType, op);
  EXPECT_EQ(runtime->stats().typeTextHits, 0u);
  compileOrFail(*runtime, kType, KernelOp::QCast);
  EXPECT_EQ(runtime->stats().typeTextHits, 1u);
}

TEST(Runtime, KernelsOutliveTheirRuntime) {
  std::shared_ptr<const Kernel> kernel;
  {
    auto runtime = makeRuntime();
    ASSERT_TRUE(runtime);
    kernel = compileOrFail(*runtime, kType, KernelOp::QCast);
  }
  ASSERT_TRUE(kernel);
  const float x[] = {2.0f};
  int8_t q = 0;
  ASSERT_TRUE(kernel->run(x, sizeof x, &q, 1, 1));
  EXPECT_EQ(q, 11);
  (void)kernel->assembly(); // Must not crash, whatever it returns.
}

TEST(Runtime, ConcurrentCompilesShareOneKernel) {
  auto runtime = makeRuntime();
  ASSERT_TRUE(runtime);
  std::vector<std::shared_ptr<const Kernel>> kernels(4);
  std::vector<std::thread> threads;
  for (size_t t = 0; t < kernels.size(); ++t)
    threads.emplace_back([&, t] {
      Expected<std::shared_ptr<const Kernel>> kernel =
          runtime->compile(kType, KernelOp::DCast);
      if (kernel)
        kernels[t] = *kernel;
    });
  for (std::thread &thread : threads)
    thread.join();
  for (const auto &kernel : kernels) {
    ASSERT_TRUE(kernel);
    EXPECT_EQ(kernel, kernels[0]);
  }
}

TEST(Runtime, IsaCapHonoursQjitMaxIsa) {
  {
    ScopedEnv env("QJIT_MAX_ISA", "scalar");
    auto runtime = makeRuntime(withMaxIsa(IsaLevel::Avx512));
    ASSERT_TRUE(runtime);
    EXPECT_EQ(runtime->isa(), IsaLevel::Scalar);
    auto kernel = compileOrFail(*runtime, kType, KernelOp::QCast);
    ASSERT_TRUE(kernel);
    EXPECT_EQ(kernel->isa(), IsaLevel::Scalar);
  }
  {
    ScopedEnv env("QJIT_MAX_ISA", "avx9000");
    Expected<std::unique_ptr<Runtime>> runtime = Runtime::create();
    ASSERT_FALSE(runtime);
    EXPECT_NE(runtime.status().message().find("QJIT_MAX_ISA"),
              std::string::npos);
  }
  {
    // A feature mask names what it masks; an unknown entry is an error.
    ScopedEnv env("QJIT_X86_FEATURES", "-avx512vbmi,-sse9");
    Expected<std::unique_ptr<Runtime>> runtime = Runtime::create();
    ASSERT_FALSE(runtime);
    EXPECT_NE(runtime.status().message().find("QJIT_X86_FEATURES: unknown "
                                              "entry '-sse9'"),
              std::string::npos)
        << runtime.status().message();
  }
  {
    ScopedEnv env("QJIT_X86_FEATURES", "-avx512vbmi");
    EXPECT_TRUE(makeRuntime({}));
  }
  auto capped = makeRuntime(withMaxIsa(IsaLevel::Sse4));
  ASSERT_TRUE(capped);
  EXPECT_LE(capped->isa(), IsaLevel::Sse4);
}

TEST(Runtime, BackendNamesRoundTrip) {
  for (BackendKind kind : {BackendKind::Auto, BackendKind::Llvm,
                           BackendKind::Asmjit, BackendKind::Reference}) {
    Expected<BackendKind> parsed = parseBackendKind(backendKindName(kind));
    ASSERT_TRUE(parsed);
    EXPECT_EQ(*parsed, kind);
  }
  EXPECT_FALSE(parseBackendKind("gpu"));
}

TEST(Runtime, LogsCompilesToTheQjitLogger) {
  auto runtime = makeRuntime(withBackend(BackendKind::Reference));
  ASSERT_TRUE(runtime);
  std::shared_ptr<spdlog::logger> logger = spdlog::get("qjit");
  ASSERT_TRUE(logger) << "the runtime registers a logger named qjit";
  EXPECT_NE(logger, spdlog::default_logger());
  std::ostringstream captured;
  auto sink = std::make_shared<spdlog::sinks::ostream_sink_mt>(captured);
  logger->sinks().push_back(sink);
  spdlog::level::level_enum previous = logger->level();
  logger->set_level(spdlog::level::debug);
  auto kernel = compileOrFail(*runtime, "!quant.uniform<u8:f32, 0.125:3>",
                              KernelOp::DCast);
  logger->set_level(previous);
  logger->sinks().pop_back();
  ASSERT_TRUE(kernel);
  std::string log = captured.str();
  EXPECT_NE(log.find(kernel->name()), std::string::npos) << log;
  EXPECT_NE(log.find("reference"), std::string::npos) << log;
  EXPECT_NE(log.find(" us"), std::string::npos) << log;
}

} // namespace
} // namespace qjit
