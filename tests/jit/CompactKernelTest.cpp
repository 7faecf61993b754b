//===- CompactKernelTest.cpp - Float and quantile storage kernels ---------===//
//
// The shared differential sweep over float (f8E4M3FN, f8E5M2, f4E2M1FN)
// and quantile (NF4, unsorted, 64-entry) storage: every backend, every
// runnable ISA level, every layout, expressed type and parameter source.
// Backends that refuse these storages (ErrorCode::Unsupported) are
// skipped; the runtime's auto choice must then fall back to one that
// compiles them.
//
//===----------------------------------------------------------------------===//
#include "KernelTester.h"

#include "qjit/Backend.h"
#include "qjit/FloatStorage.h"
#include "qjit/Isa.h"
#include "qjit/QuantileSearch.h"
#include "qjit/Reference.h"
#include "qjit/Runtime.h"

#include <gtest/gtest.h>

#include <cmath>

namespace qjit {
namespace {

using testing::SweepAxes;

struct BackendAtLevel {
  std::string backend;
  IsaLevel isa;
};

class CompactKernelTest : public ::testing::TestWithParam<BackendAtLevel> {
protected:
  void SetUp() override {
    Expected<std::unique_ptr<Backend>> backend =
        GetParam().backend == "llvm" ? createLlvmBackend(GetParam().isa)
                                     : createAsmjitBackend(GetParam().isa);
    ASSERT_TRUE(backend) << backend.status().message();
    backend_ = std::move(*backend);
  }

  /// Checked specs; 0 when the backend refuses all of them.
  size_t check(const SweepAxes &axes) {
    return testing::checkSweep(*backend_, axes,
                               {.lanes = 64, .largeSize = 4099});
  }
  bool compiles() const { return GetParam().backend == "llvm"; }

  std::unique_ptr<Backend> backend_;
};

SweepAxes compactAxes() {
  SweepAxes axes;
  axes.widths = {};
  axes.compact = testing::compactStorages();
  axes.knobs = {QuantKnobs{},
                {ScaleOp::Reciprocal, ZeroPointOrder::AfterRounding,
                 RoundingMode::TowardZero}};
  return axes;
}

TEST_P(CompactKernelTest, PerTensorEveryStorageAndKnob) {
  SweepAxes axes = compactAxes();
  axes.ops = {KernelOp::QCast, KernelOp::DCast, KernelOp::SCast};
  size_t storages = axes.compact.size();
  // qcast: 2 scale ops, × 2 saturation for the 3 f8 storages.
  size_t expected = storages * 2 + 3 * 2 + storages * 2;
  EXPECT_EQ(check(axes), compiles() ? expected : 0u);
}

/// f8E4M3FN, f8E5M2, packed f4E2M1FN, packed NF4, the unsorted table:
/// one of each kind of code path, to keep the larger sweeps short.
std::vector<StorageSpec> compactSubset() {
  std::vector<StorageSpec> all = testing::compactStorages();
  return {all[0], all[2], all[4], all[5], all[7]};
}

TEST_P(CompactKernelTest, ExpressedTypesAndRuntimeParameters) {
  SweepAxes axes = compactAxes();
  axes.compact = compactSubset();
  axes.knobs = {QuantKnobs{}};
  axes.expressed = {ValueType::F16, ValueType::BF16, ValueType::F32,
                    ValueType::F64};
  axes.runtimeParams = {false, true};
  size_t storages = axes.compact.size();
  // (qcast, ×2 for f8 saturation) + dcast, 4 types, 2 parameter kinds.
  size_t expected = (storages + 2 + storages) * 4 * 2;
  EXPECT_EQ(check(axes), compiles() ? expected : 0u);
}

TEST_P(CompactKernelTest, Layouts) {
  SweepAxes axes = compactAxes();
  axes.compact = compactSubset();
  axes.knobs = {QuantKnobs{}};
  axes.layouts = testing::representativeLayouts();
  axes.runtimeParams = {false, true};
  size_t storages = axes.compact.size();
  size_t expected = (storages + 2 + storages) * 7 * 2;
  EXPECT_EQ(check(axes), compiles() ? expected : 0u);
}

TEST_P(CompactKernelTest, QuantileQcastAtEveryThreshold) {
  // Baked per-tensor quantile qcast compares inputs with thresholds moved
  // to the input side: check the few ulps around each one, both scale ops.
  if (!compiles())
    GTEST_SKIP() << "the backend refuses quantile storage";
  for (const StorageSpec &storage : testing::compactStorages()) {
    if (storage.kind != StorageType::Kind::Quantile)
      continue;
    QuantileSearch search = buildQuantileSearch(storage.table, ValueType::F32);
    for (auto [scale, zero] :
         {std::pair{0.0137, int64_t(0)}, std::pair{3.0, int64_t(1)},
          std::pair{0.7, int64_t(-2)}})
      for (ScaleOp op : {ScaleOp::Divide, ScaleOp::Reciprocal}) {
        KernelSpec spec;
        spec.storage = storage;
        spec.params.scales = {static_cast<float>(scale)};
        spec.params.zeroPoints = {zero};
        spec.knobs.scaleOp = op;
        std::vector<float> inputs;
        for (double threshold : search.thresholds) {
          float x = static_cast<float>((threshold - double(zero)) * scale);
          for (int step = 0; step < 6; ++step)
            x = std::nextafter(x, -1e30f);
          for (int step = 0; step < 12; ++step) {
            inputs.push_back(x);
            x = std::nextafter(x, 1e30f);
          }
        }
        Expected<CompiledCode> code = backend_->compile(spec);
        ASSERT_TRUE(code) << code.status().message();
        std::vector<uint8_t> want(storageBytes(storage, inputs.size()));
        std::vector<uint8_t> got(want.size(), 0xA5);
        ASSERT_TRUE(
            runReference(spec, inputs.data(), want.data(), inputs.size()));
        reinterpret_cast<KernelFn>(const_cast<void *>(code->entry))(
            inputs.data(), got.data(), inputs.size());
        EXPECT_EQ(got, want) << spec.canonicalString();
      }
  }
}

TEST_P(CompactKernelTest, FloatQcastAtEveryRoundingBoundary) {
  // The encoding rounds |v| with a per-lane magic addition: check every
  // code, every midpoint between neighbours and their f32 neighbours, on
  // both signs, with exact scales so that v is the input shifted by z.
  if (!compiles())
    GTEST_SKIP() << "the backend refuses float storage";
  for (const StorageSpec &storage : testing::compactStorages()) {
    if (storage.kind != StorageType::Kind::Float)
      continue;
    FloatStorageFormat format = floatStorageFormat(storage.floatFormat);
    for (auto [scale, zero] :
         {std::pair{1.0, int64_t(0)}, std::pair{0.25, int64_t(-2)}})
      for (bool saturate : {true, false}) {
        KernelSpec spec;
        spec.storage = storage;
        spec.params.scales = {scale};
        spec.params.zeroPoints = {zero};
        spec.knobs.saturate =
            saturate || storage.floatFormat == FloatType::F4E2M1FN;
        std::vector<float> inputs;
        for (uint32_t code = 0; code + 1 < format.signBit(); ++code) {
          double value = decodeFloatStorage(format, code);
          double next = decodeFloatStorage(format, code + 1);
          if (std::isnan(value) || std::isnan(next))
            continue;
          for (double point : {value, (value + next) / 2})
            for (double sign : {1.0, -1.0}) {
              float x =
                  static_cast<float>((sign * point - double(zero)) * scale);
              for (int step = 0; step < 2; ++step)
                x = std::nextafter(x, -1e30f);
              for (int step = 0; step < 5; ++step) {
                inputs.push_back(x);
                x = std::nextafter(x, 1e30f);
              }
            }
        }
        Expected<CompiledCode> code = backend_->compile(spec);
        ASSERT_TRUE(code) << code.status().message();
        std::vector<uint8_t> want(storageBytes(storage, inputs.size()));
        std::vector<uint8_t> got(want.size(), 0xA5);
        ASSERT_TRUE(
            runReference(spec, inputs.data(), want.data(), inputs.size()));
        reinterpret_cast<KernelFn>(const_cast<void *>(code->entry))(
            inputs.data(), got.data(), inputs.size());
        EXPECT_EQ(got, want) << spec.canonicalString();
      }
  }
}

TEST_P(CompactKernelTest, LargeOutputsStreamPastTheCache) {
  // Above 8 MiB of output the kernels align the output element by element
  // and stream; packed NF4 dcast streams only when the output is aligned
  // to two elements (offset 4 never is, 8 is after a few steps), fp8
  // qcast stores packed bytes.
  if (!compiles())
    GTEST_SKIP() << "the backend refuses compact storage";
  std::vector<StorageSpec> subset = compactSubset();
  KernelSpec dcast;
  dcast.op = KernelOp::DCast;
  dcast.storage = subset[3];
  dcast.params.scales = {0.0137};
  dcast.params.zeroPoints = {0};
  Expected<CompiledCode> code = backend_->compile(dcast);
  ASSERT_TRUE(code) << code.status().message();
  testing::KernelTester dcastTester(dcast, 11);
  for (size_t dstOffset : {4, 8})
    EXPECT_TRUE(dcastTester.checkOnce(code->entry, (size_t(2) << 20) + 37, 1,
                                      dstOffset))
        << "output offset " << dstOffset;
  KernelSpec qcast = dcast;
  qcast.op = KernelOp::QCast;
  qcast.storage = subset[0];
  code = backend_->compile(qcast);
  ASSERT_TRUE(code) << code.status().message();
  testing::KernelTester qcastTester(qcast, 12);
  EXPECT_TRUE(qcastTester.checkOnce(code->entry, (size_t(8) << 20) + 37, 4, 3));
}

std::vector<BackendAtLevel> backendsAndLevels() {
  std::vector<BackendAtLevel> all;
  for (IsaLevel level : testing::runnableIsaLevels()) {
    all.push_back({"llvm", level});
    if (level >= IsaLevel::Avx2) // asmjit's lowest level.
      all.push_back({"asmjit", level});
  }
  return all;
}

INSTANTIATE_TEST_SUITE_P(
    Backends, CompactKernelTest, ::testing::ValuesIn(backendsAndLevels()),
    [](const ::testing::TestParamInfo<BackendAtLevel> &info) {
      return info.param.backend + "_" +
             std::string(isaLevelName(info.param.isa));
    });

TEST(CompactRuntime, AutoFallsBackToAKernelThatCompiles) {
  Expected<std::unique_ptr<Runtime>> runtime = Runtime::create({});
  if (hostIsaLevel() < IsaLevel::Avx2)
    GTEST_SKIP() << "asmjit needs AVX2; nothing to fall back from";
  ASSERT_TRUE(runtime) << runtime.status().message();
  for (const char *type :
       {"!quant.uniform<f8E4M3FN:f32, 0.5>",
        "!quant.quantile<u4:f32, {-1.0, -0.5, -0.25, 0.0, 0.25, 0.5, 0.75, "
        "1.0, 1.25, 1.5, 1.75, 2.0, 2.25, 2.5, 2.75, 3.0}>"}) {
    Expected<std::shared_ptr<const Kernel>> kernel =
        (*runtime)->compile(type, KernelOp::QCast);
    ASSERT_TRUE(kernel) << kernel.status().message();
    EXPECT_EQ((*kernel)->backend(), BackendKind::Llvm) << type;
    float in[3] = {1.0f, -300.0f, 0.3f};
    uint8_t out[3] = {};
    (*kernel)->function()(in, out, 3);
    if (std::string_view(type).find("f8E4M3FN") != std::string_view::npos) {
      EXPECT_EQ(out[0], 0x40); // 2.0
      EXPECT_EQ(out[1], 0xFE); // -600 saturates to -448
    }
  }
}

} // namespace
} // namespace qjit
