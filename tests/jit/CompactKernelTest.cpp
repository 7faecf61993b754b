//===- CompactKernelTest.cpp - Float and quantile storage kernels ---------===//
//
// The shared differential sweep over float (f8E4M3FN, f8E5M2, f4E2M1FN)
// and quantile (NF4, unsorted, 64-entry, up to 1000-entry) storage: every
// backend, every runnable ISA level, every layout, expressed type and
// parameter source.
// Each backend compiles exactly the specs its fit() supports and refuses
// the rest (ErrorCode::Unsupported); the runtime's auto choice must then
// fall back to one that compiles them.
//
//===----------------------------------------------------------------------===//
#include "KernelTester.h"
#include "LayoutSpecs.h"
#include "TestSeed.h"

#include "qjit/Isa.h"
#include "qjit/Runtime.h"
#include "qjit/TypeParser.h"
#include "qjit/internal/Backend.h"
#include "qjit/internal/FloatStorage.h"
#include "qjit/internal/QuantileSearch.h"
#include "qjit/internal/Reference.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <iterator>
#include <limits>
#include <ostream>
#include <string>

namespace qjit {
namespace {

using testing::SweepAxes;

struct BackendAtLevel {
  std::string backend;
  IsaLevel isa;
};

// Without it gtest prints the parameter's raw bytes (a string's pointer
// among them) into every test's listed name, which then changes per build.
void PrintTo(const BackendAtLevel &param, std::ostream *os) {
  *os << param.backend << " at " << isaLevelName(param.isa);
}

class CompactKernelTest : public ::testing::TestWithParam<BackendAtLevel> {
protected:
  void SetUp() override {
    Expected<std::unique_ptr<Backend>> backend =
        GetParam().backend == "llvm" ? createLlvmBackend(GetParam().isa)
                                     : createAsmjitBackend(GetParam().isa);
    ASSERT_TRUE(backend) << backend.status().message();
    backend_ = std::move(*backend);
  }

  /// Checked specs (the ones the backend compiles).
  size_t check(const SweepAxes &axes) {
    return testing::checkSweep(*backend_, axes,
                               {.lanes = 64, .largeSize = 4099});
  }
  /// Whether the backend compiles `spec`, as its fit() says
  /// (plan/KernelFits.def): checkSweep then finds it compiled and exact.
  bool compiles(const KernelSpec &spec) const {
    return backend_->fit(spec) != KernelFit::Unsupported;
  }
  /// The specs of `axes` the backend compiles; `all` (every one) counted
  /// by hand.
  size_t compiled(const SweepAxes &axes, size_t all) const {
    std::vector<KernelSpec> specs = testing::specSweep(axes);
    EXPECT_EQ(specs.size(), all);
    return static_cast<size_t>(
        std::count_if(specs.begin(), specs.end(),
                      [&](const KernelSpec &spec) { return compiles(spec); }));
  }

  /// The qcast of `inputs` (f32, or f64 for spec.expressed f64) by the
  /// backend's kernel for `spec` equals the reference's, byte for byte.
  template <typename T>
  void expectQcastMatchesReference(const KernelSpec &spec,
                                   const std::vector<T> &inputs) {
    Expected<CompiledCode> code = backend_->compile(spec);
    ASSERT_TRUE(code) << code.status().message();
    std::vector<uint8_t> want(storageBytes(spec.storage, inputs.size()));
    std::vector<uint8_t> got(want.size(), 0xA5);
    ASSERT_TRUE(runReference(spec, inputs.data(), want.data(), inputs.size()));
    reinterpret_cast<KernelFn>(const_cast<void *>(code->entry))(
        inputs.data(), got.data(), inputs.size());
    EXPECT_EQ(got, want) << spec.canonicalString();
  }

  /// The f64 tests below target asmjit's wide kernels; llvm runs them at
  /// its highest level only (its f64 code differs little between levels).
  bool skipsDoubleTests() const {
    return GetParam().backend == "llvm" &&
           GetParam().isa != testing::runnableIsaLevels().back();
  }

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
  EXPECT_EQ(check(axes), compiled(axes, expected));
}

/// f8E4M3FN, f8E5M2, packed f4E2M1FN, packed NF4, the unsorted table:
/// one of each kind of code path, to keep the larger sweeps short.
/// Every finite code's value of `format` and the midpoint to the next
/// code, each with both signs (code by code).
std::vector<double> codesAndMidpoints(const FloatStorageFormat &format) {
  std::vector<double> points;
  for (uint32_t code = 0; code + 1 < format.signBit(); ++code) {
    double value = decodeFloatStorage(format, code);
    double next = decodeFloatStorage(format, code + 1);
    if (std::isnan(value) || std::isnan(next))
      continue;
    for (double point : {value, (value + next) / 2})
      for (double sign : {1.0, -1.0})
        points.push_back(sign * point);
  }
  return points;
}

std::vector<StorageSpec> compactSubset() {
  std::vector<StorageSpec> all = testing::compactStorages();
  return {all[0], all[2], all[4], all[5], all[7]};
}

/// A quantile table of `size` entries (k · step) mod `distinct`, scaled
/// exactly: sorted for step 1, else unsorted (duplicates when distinct <
/// size).
StorageSpec largeTable(unsigned bits, bool isSigned, int64_t min, size_t size,
                       size_t step, size_t distinct) {
  StorageSpec storage;
  storage.kind = StorageType::Kind::Quantile;
  storage.bits = bits;
  storage.isSigned = isSigned;
  storage.min = min;
  storage.max = min + static_cast<int64_t>(size) - 1;
  for (size_t k = 0; k < size; ++k)
    storage.table.push_back(
        std::ldexp(double((k * step) % distinct) - double(distinct / 2), -3));
  return storage;
}

/// Tables of more than 64 entries (asmjit: scalar-load lookups, f64
/// searches): sorted u7 and i8, unsorted u8, a sorted u8
/// range from 40 (positions short of a power of two), 1000 unsorted entries
/// with duplicates in i16.
std::vector<StorageSpec> largeTables() {
  return {largeTable(7, false, 0, 128, 1, 128),
          largeTable(8, false, 0, 256, 7, 256),
          largeTable(8, true, -128, 256, 1, 256),
          largeTable(8, false, 40, 200, 1, 200),
          largeTable(16, true, -500, 1000, 7, 997)};
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
  EXPECT_EQ(check(axes), compiled(axes, expected));
}

TEST_P(CompactKernelTest, DoubleExpressedLayouts) {
  if (skipsDoubleTests())
    GTEST_SKIP() << "llvm: checked at its highest level";
  // C = f64 (asmjit's wide kernels): every layout, packed runs starting
  // mid-byte (blocks of 37), both parameter sources.
  SweepAxes axes = compactAxes();
  axes.compact = compactSubset();
  axes.knobs = {QuantKnobs{}};
  axes.expressed = {ValueType::F64};
  axes.layouts = testing::representativeLayouts();
  for (const LayoutSpec &blocks : testing::packedBlockLayouts())
    axes.layouts.push_back(blocks);
  axes.runtimeParams = {false, true};
  size_t storages = axes.compact.size();
  size_t expected = (storages + 2 + storages) * 9 * 2;
  EXPECT_EQ(check(axes), compiled(axes, expected));
}

TEST_P(CompactKernelTest, Layouts) {
  SweepAxes axes = compactAxes();
  axes.compact = compactSubset();
  axes.knobs = {QuantKnobs{}};
  axes.layouts = testing::representativeLayouts();
  axes.runtimeParams = {false, true};
  size_t storages = axes.compact.size();
  size_t expected = (storages + 2 + storages) * 7 * 2;
  EXPECT_EQ(check(axes), compiled(axes, expected));
}

/// Rows of blocks of 32 (MX's, NF4's and Q4's shape): runs of two zmm or
/// four ymm, twelve of them (the frame's two-run steps) or sixteen (its
/// groups of eight runs' prepared parameters).
TEST_P(CompactKernelTest, RowsOfShortBlocks) {
  // Blocks of 32, and runtime blocks of one or two vectors (16 and 8
  // elements: AVX-512 and AVX2 both have each), which share unrolled
  // steps four runs or two to a step, each with its own scale.
  SweepAxes axes = compactAxes();
  axes.compact = compactSubset();
  axes.knobs = {QuantKnobs{}};
  axes.layouts = {testing::blocked({{3, 1}, {128, 32}}),
                  testing::blocked({{4, 1}, {128, 32}}),
                  testing::blocked({{3, 1}, {128, 16}}),
                  testing::blocked({{2, 1}, {128, 8}})};
  axes.runtimeParams = {false, true};
  size_t storages = axes.compact.size();
  size_t expected = (storages + 2 + storages) * 4 * 2;
  EXPECT_EQ(check(axes), compiled(axes, expected));
}

/// One baked scale and zero point, per tensor, the given scale op.
KernelSpec bakedSpec(const StorageSpec &storage, double scale, int64_t zero,
                     ScaleOp op) {
  KernelSpec spec;
  spec.storage = storage;
  spec.params.scales = {static_cast<float>(scale)};
  spec.params.zeroPoints = {zero};
  spec.knobs.scaleOp = op;
  return spec;
}

/// The f32 inputs `below` ulps under to `count - below - 1` ulps over each
/// input-side position of a quantile threshold ((t − z) · s), in order;
/// `after` may append to the inputs after each threshold's run.
template <typename After>
std::vector<float> inputsAroundThresholds(const QuantileSearch &search,
                                          double scale, int64_t zero, int below,
                                          int count, After after) {
  std::vector<float> inputs;
  for (double threshold : search.thresholds) {
    float x = static_cast<float>((threshold - double(zero)) * scale);
    for (int step = 0; step < below; ++step)
      x = std::nextafter(x, -1e30f);
    for (int step = 0; step < count; ++step) {
      inputs.push_back(x);
      x = std::nextafter(x, 1e30f);
    }
    after(inputs);
  }
  return inputs;
}

TEST_P(CompactKernelTest, QuantileQcastAtEveryThreshold) {
  // Baked per-tensor quantile qcast compares inputs with thresholds moved
  // to the input side: check the few ulps around each one, both scale ops,
  // and a special value after each (NaN, whose entry the zero point picks,
  // reaches every lane of a vector this way).
  const float specials[] = {std::numeric_limits<float>::quiet_NaN(),
                            -std::numeric_limits<float>::quiet_NaN(),
                            std::bit_cast<float>(0x7FA00001u), // sNaN payload.
                            std::bit_cast<float>(0xFFC12345u),
                            std::numeric_limits<float>::infinity(),
                            -std::numeric_limits<float>::infinity(),
                            0.0f,
                            -0.0f,
                            std::numeric_limits<float>::denorm_min(),
                            -1e-40f,
                            std::numeric_limits<float>::max(),
                            std::numeric_limits<float>::lowest()};
  // Besides the shared storages: packed 4-bit tables whose positions are
  // not their codes (signed NF4; unsorted, 12 distinct entries of 16).
  std::vector<StorageSpec> storages = testing::compactStorages();
  StorageSpec signedNf4 = storages[5];
  ASSERT_TRUE(signedNf4.packed && signedNf4.table.size() == 16);
  signedNf4.isSigned = true;
  signedNf4.min = -8;
  signedNf4.max = 7;
  StorageSpec unsorted = signedNf4;
  for (size_t k = 0; k < 16; ++k)
    unsorted.table[k] = std::ldexp(double((k * 5) % 12) - 5.5, -3);
  storages.push_back(signedNf4);
  storages.push_back(unsorted);
  if (GetParam().backend == "asmjit") // llvm: slow to compile, swept below.
    for (size_t k : {1, 4})
      storages.push_back(largeTables()[k]);
  size_t checked = 0;
  for (const StorageSpec &storage : storages) {
    if (storage.kind != StorageType::Kind::Quantile)
      continue;
    QuantileSearch search = buildQuantileSearch(storage.table, ValueType::F32);
    for (auto [scale, zero] :
         {std::pair{0.0137, int64_t(0)}, std::pair{3.0, int64_t(1)},
          std::pair{0.7, int64_t(-2)}})
      for (ScaleOp op : {ScaleOp::Divide, ScaleOp::Reciprocal}) {
        KernelSpec spec = bakedSpec(storage, scale, zero, op);
        if (!compiles(spec))
          continue;
        ++checked;
        expectQcastMatchesReference(
            spec, inputsAroundThresholds(
                      search, scale, zero, 6, 12, [&](std::vector<float> &in) {
                        in.push_back(specials[in.size() % std::size(specials)]);
                      }));
      }
  }
  EXPECT_GT(checked, 0u); // Every backend compiles some quantile tables.
}

TEST_P(CompactKernelTest, PackedTableQcastEveryLaneAndTail) {
  // asmjit's packed 4-bit table qcast with one baked scale searches 32
  // elements at once (vpshufb lookups of byte planes, a group's three
  // thresholds compared together): each threshold at, below and above it,
  // and the special values, at every lane of such a block (the input
  // rotated), and runs of every length, from a misaligned src to a
  // misaligned dst whose neighbours stay untouched. NF4 (codes are the
  // positions), signed NF4 (codes mapped), a 9-entry table (the fewest the
  // path takes: +inf pads its last groups); zero points that send NaN to
  // the first, a middle and the last position.
  if (GetParam().backend != "asmjit")
    GTEST_SKIP() << "llvm's packed tables are covered by the sweeps above";
  const float specials[] = {std::numeric_limits<float>::quiet_NaN(),
                            -std::numeric_limits<float>::quiet_NaN(),
                            std::bit_cast<float>(0x7FA00001u),
                            std::numeric_limits<float>::infinity(),
                            -std::numeric_limits<float>::infinity(),
                            0.0f,
                            -0.0f,
                            std::numeric_limits<float>::denorm_min(),
                            -std::numeric_limits<float>::denorm_min(),
                            std::numeric_limits<float>::max(),
                            std::numeric_limits<float>::lowest(),
                            1e30f,
                            -1e30f};
  StorageSpec nf4 = testing::compactStorages()[5];
  ASSERT_TRUE(nf4.packed && nf4.table.size() == 16);
  StorageSpec signedNf4 = nf4;
  signedNf4.isSigned = true;
  signedNf4.min = -8;
  signedNf4.max = 7;
  StorageSpec nine = nf4;
  nine.max = 8;
  nine.table = {-1.0, -0.7, -0.4, -0.15, 0.0, 0.2, 0.45, 0.7, 1.0};
  size_t checked = 0;
  for (const StorageSpec &storage : {nf4, signedNf4, nine}) {
    QuantileSearch search = buildQuantileSearch(storage.table, ValueType::F32);
    for (auto [scale, zero] :
         {std::pair{0.0137, int64_t(0)}, std::pair{0.7, int64_t(-2)},
          std::pair{0.05, int64_t(3)}})
      for (ScaleOp op : {ScaleOp::Divide, ScaleOp::Reciprocal}) {
        KernelSpec spec = bakedSpec(storage, scale, zero, op);
        Expected<CompiledCode> code = backend_->compile(spec);
        ASSERT_TRUE(code) << code.status().message();
        auto kernel =
            reinterpret_cast<KernelFn>(const_cast<void *>(code->entry));
        std::vector<float> inputs(std::begin(specials), std::end(specials));
        std::vector<float> around = inputsAroundThresholds(
            search, scale, zero, 3, 7, [](std::vector<float> &) {});
        inputs.insert(inputs.end(), around.begin(), around.end());
        auto expectRun = [&](const std::vector<float> &run) {
          size_t bytes = storageBytes(spec.storage, run.size());
          std::vector<float> src(run.size() + 1);
          std::copy(run.begin(), run.end(), src.begin() + 1);
          std::vector<uint8_t> want(bytes + 2, 0xA5), got(bytes + 2, 0xA5);
          ASSERT_TRUE(
              runReference(spec, run.data(), want.data() + 1, run.size()));
          kernel(src.data() + 1, got.data() + 1, run.size());
          ASSERT_EQ(got, want) << spec.canonicalString() << " over "
                               << run.size() << " elements";
        };
        for (size_t lane = 0; lane < 32; ++lane) {
          expectRun(inputs);
          std::rotate(inputs.begin(), inputs.begin() + 1, inputs.end());
        }
        // Every tail length: the inputs repeat as often as a run needs.
        for (size_t n = 0; n <= 100; ++n) {
          std::vector<float> run(n);
          for (size_t i = 0; i < n; ++i)
            run[i] = inputs[i % inputs.size()];
          expectRun(run);
        }
        ++checked;
      }
  }
  EXPECT_EQ(checked, 18u);
}

TEST_P(CompactKernelTest, DoubleQuantileQcastAtEveryThreshold) {
  if (skipsDoubleTests())
    GTEST_SKIP() << "llvm: checked at its highest level";
  // C = f64: v around each of the f64 thresholds (a few f64 ulps), both
  // scale ops, runs of every tail length, then the special values.
  const double specials[] = {std::numeric_limits<double>::quiet_NaN(),
                             -std::numeric_limits<double>::quiet_NaN(),
                             std::numeric_limits<double>::infinity(),
                             -std::numeric_limits<double>::infinity(),
                             0.0,
                             -0.0,
                             std::numeric_limits<double>::denorm_min(),
                             std::numeric_limits<double>::max(),
                             std::numeric_limits<double>::lowest()};
  std::vector<StorageSpec> storages = testing::compactStorages();
  StorageSpec doubles; // Entries no f32 holds, unsorted, a duplicate.
  doubles.kind = StorageType::Kind::Quantile;
  doubles.bits = 3;
  doubles.isSigned = true;
  doubles.min = -3;
  doubles.table = {0.1, 1.0 / 3, -0.7, 2.0 / 3, 0.1, -1e-300};
  doubles.max = doubles.min + static_cast<int64_t>(doubles.table.size()) - 1;
  storages.push_back(doubles);
  if (GetParam().backend == "asmjit")
    for (size_t k : {1, 4})
      storages.push_back(largeTables()[k]);
  size_t checked = 0;
  for (const StorageSpec &storage : storages) {
    if (storage.kind != StorageType::Kind::Quantile)
      continue;
    QuantileSearch search = buildQuantileSearch(storage.table, ValueType::F64);
    for (auto [scale, zero] :
         {std::pair{1.0, int64_t(0)}, std::pair{0.0137, int64_t(0)},
          std::pair{0.7, int64_t(-2)}})
      for (ScaleOp op : {ScaleOp::Divide, ScaleOp::Reciprocal}) {
        KernelSpec spec;
        spec.storage = storage;
        spec.expressed = spec.compute = ValueType::F64;
        spec.params.scales = {scale};
        spec.params.zeroPoints = {zero};
        spec.knobs.scaleOp = op;
        if (!compiles(spec))
          continue;
        ++checked;
        std::vector<double> inputs;
        for (double threshold : search.thresholds) {
          double x = (threshold - double(zero)) * scale;
          for (int step = 0; step < 3; ++step)
            x = std::nextafter(x, -1e300);
          for (int step = 0; step < 6; ++step) {
            inputs.push_back(x);
            x = std::nextafter(x, 1e300);
          }
        }
        for (double special : specials)
          inputs.push_back(special);
        expectQcastMatchesReference(spec, inputs);
      }
  }
  EXPECT_GT(checked, 0u);
}

TEST_P(CompactKernelTest, QuantileTableSizesAndStorages) {
  // The lookup and search paths by table size and storage: 2 and 4
  // entries (asmjit: in-lane), 10 sorted and 33 (clamped indices, padded
  // searches), 32 in a signed i6, 32-bit storage at the top of its range
  // (whose clamps must not wrap); packed 1-, 2- and 4-bit tables, signed
  // ones among them.
  auto quantile = [](unsigned bits, bool isSigned, int64_t min, size_t size,
                     size_t step = 7, bool packed = false) {
    StorageSpec storage;
    storage.kind = StorageType::Kind::Quantile;
    storage.bits = bits;
    storage.isSigned = isSigned;
    storage.packed = packed;
    storage.min = min;
    storage.max = min + static_cast<int64_t>(size) - 1;
    for (size_t k = 0; k < size; ++k) // Step 7: unsorted, with duplicates.
      storage.table.push_back(std::ldexp(double((k * step) % 11) - 4.5, -2));
    return storage;
  };
  SweepAxes axes;
  axes.widths = {};
  axes.ops = {KernelOp::QCast, KernelOp::DCast, KernelOp::SCast};
  axes.compact = {
      quantile(1, false, 0, 2), quantile(2, true, -2, 4),
      quantile(8, true, -5, 10, 1), quantile(12, false, 1000, 33),
      quantile(6, true, -16, 32), quantile(32, true, 2147483640, 8),
      quantile(32, false, 4294967290, 6),
      // Packed through X86PackedCodes: 1 and 2 bits, a signed unsorted u4
      // table with duplicates, 10 sorted entries in 4 bits.
      quantile(1, false, 0, 2, 7, true), quantile(2, true, -2, 4, 7, true),
      quantile(4, true, -8, 16, 7, true), quantile(4, false, 3, 10, 1, true)};
  axes.runtimeParams = {false, true};
  axes.expressed = {ValueType::F32, ValueType::F64}; // f64: the wide kernels.
  EXPECT_EQ(check(axes), compiled(axes, 11 * 3 * 2 * 2));
}

/// Quantile types with integer table types, as written: their entries are
/// the kernels' table exactly (no rounding step, docs/semantics.md 8.4).
const char *const kIntegerTableTypes[] = {
    "!quant.uniform<!quant.quantile<ui4:i8, {-8.0, -7.0, -6.0, -5.0, -4.0, "
    "-3.0, -2.0, -1.0, 0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0}>:f32, 0.5>",
    // Unsorted, with a duplicate, narrow bounds and a zero point.
    "!quant.uniform<!quant.quantile<si8:ui8, {0.0, 3.0, 255.0, 17.0, 3.0}, "
    "<-2:2>>:f16, 0.25:3>",
    "tensor<2x8x!quant.uniform<!quant.quantile<u2:si16, {-32768.0, -1.0, "
    "1.0, 32767.0}>:bf16:0, {0.5, 2.0}>>",
    "!quant.uniform<!quant.quantile<u1:i32, {-16777216.0, 16777216.0}>:f64, "
    "3.0>",
};

TEST_P(CompactKernelTest, IntegerTableTypes) {
  SweepAxes axes;
  axes.widths = {};
  axes.ops = {KernelOp::QCast, KernelOp::DCast, KernelOp::SCast};
  size_t checked = 0;
  for (const char *text : kIntegerTableTypes) {
    SCOPED_TRACE(text);
    Expected<TypeDescriptor> type = parseTypeOrError(text);
    ASSERT_TRUE(type) << type.status().message();
    const std::vector<double> &entries = type->element.storage.quantile->table;
    for (KernelOp op : {KernelOp::QCast, KernelOp::DCast}) {
      Expected<KernelSpec> spec = lowerToKernelSpec(*type, op);
      ASSERT_TRUE(spec) << spec.status().message();
      EXPECT_EQ(spec->storage.table, entries);
      if (op == KernelOp::QCast)
        axes.compact.push_back(spec->storage);
      if (!compiles(*spec))
        continue;
      Expected<CompiledCode> code = backend_->compile(*spec);
      ASSERT_TRUE(code) << code.status().message();
      testing::KernelTester tester(*spec, testing::testSeed());
      EXPECT_TRUE(tester.check(code->entry)) << spec->canonicalString();
      ++checked;
    }
  }
  EXPECT_GT(checked, 0u);
  // The same tables over every expressed type, layout and parameter source.
  axes.expressed = {ValueType::F16, ValueType::BF16, ValueType::F32,
                    ValueType::F64};
  axes.layouts = testing::representativeLayouts();
  axes.runtimeParams = {false, true};
  size_t all = std::size(kIntegerTableTypes) * 3 * axes.expressed.size() *
               axes.layouts.size() * 2;
  EXPECT_EQ(check(axes), compiled(axes, all));
}

TEST_P(CompactKernelTest, LargeQuantileTables) {
  // Every expressed type and parameter source per tensor; every layout
  // for the unsorted u8 table (asmjit: llvm takes about a second per spec
  // to compile these, so it runs f32 per tensor at its highest level).
  if (skipsDoubleTests())
    GTEST_SKIP() << "llvm: checked at its highest level";
  SweepAxes axes;
  axes.widths = {};
  axes.ops = {KernelOp::QCast, KernelOp::DCast, KernelOp::SCast};
  axes.compact = largeTables();
  axes.expressed = {ValueType::F16, ValueType::BF16, ValueType::F32,
                    ValueType::F64};
  axes.runtimeParams = {false, true};
  if (GetParam().backend == "llvm") {
    axes.expressed = {ValueType::F32};
    EXPECT_EQ(check(axes), compiled(axes, 5 * 3 * 2));
    return;
  }
  EXPECT_EQ(check(axes), compiled(axes, 5 * 3 * 4 * 2));
  axes.ops = {KernelOp::QCast, KernelOp::DCast};
  axes.compact = {largeTables()[1]};
  axes.expressed = {ValueType::F32, ValueType::F64};
  axes.layouts = testing::representativeLayouts();
  EXPECT_EQ(check(axes), compiled(axes, 2 * 2 * 7 * 2));
  // Beyond 2^16 entries (32-bit storage) the tables after the code would
  // grow without bound: asmjit refuses, for llvm or the reference.
  for (ValueType expressed : {ValueType::F32, ValueType::F64}) {
    KernelSpec huge;
    huge.storage = largeTable(32, true, 0, (size_t(1) << 16) + 1, 1, 64);
    huge.expressed = huge.compute = expressed;
    huge.params.scales = {1.0};
    huge.params.zeroPoints = {0};
    Expected<CompiledCode> code = backend_->compile(huge);
    ASSERT_FALSE(code);
    EXPECT_EQ(code.status().code(), ErrorCode::Unsupported);
  }
}

TEST_P(CompactKernelTest, PackedTableRunsOfEveryShape) {
  // asmjit's packed NF4 / f4E2M1FN dcast and qcast, 2-bit table qcast and
  // dcast: blocks of 32 (whole unrolled blocks, parameters per block) and
  // of 37 (runs starting mid-byte), on every expressed type, baked and
  // runtime.
  if (GetParam().backend != "asmjit")
    GTEST_SKIP() << "llvm's packed tables are covered by the sweeps above";
  StorageSpec twoBits;
  twoBits.kind = StorageType::Kind::Quantile;
  twoBits.bits = 2;
  twoBits.isSigned = true;
  twoBits.packed = true;
  twoBits.min = -2;
  twoBits.max = 1;
  twoBits.table = {0.5, -1.0, 0.25, -0.125}; // Unsorted.
  SweepAxes axes = compactAxes();
  axes.ops = {KernelOp::QCast, KernelOp::DCast};
  axes.knobs = {QuantKnobs{}};
  axes.compact = {compactSubset()[2], compactSubset()[3], twoBits};
  axes.layouts = testing::packedBlockLayouts();
  axes.expressed = {ValueType::F16, ValueType::BF16, ValueType::F32};
  axes.runtimeParams = {false, true};
  EXPECT_EQ(check(axes), compiled(axes, 3 * 2 * 2 * 3 * 2));
}

TEST_P(CompactKernelTest, FloatQcastAtEveryRoundingBoundary) {
  // The encoding rounds |v| with one magic addition: check every
  // code, every midpoint between neighbours and their f32 neighbours, on
  // both signs, with exact scales so that v is the input shifted by z,
  // and inexact ones (baked, z = 0), through the unrolled groups too.
  for (const StorageSpec &storage : testing::compactStorages()) {
    if (storage.kind != StorageType::Kind::Float)
      continue;
    FloatStorageFormat format = floatStorageFormat(storage.floatFormat);
    for (auto [scale, zero] :
         {std::pair{1.0, int64_t(0)}, std::pair{0.25, int64_t(-2)},
          std::pair{3.0, int64_t(0)}, std::pair{0.0137, int64_t(0)}})
      for (bool saturate : {true, false}) {
        KernelSpec spec;
        spec.storage = storage;
        spec.params.scales = {scale};
        spec.params.zeroPoints = {zero};
        spec.knobs.saturate =
            saturate || storage.floatFormat == FloatType::F4E2M1FN;
        if (!compiles(spec))
          continue;
        std::vector<float> inputs;
        for (double v : codesAndMidpoints(format)) {
          float x = static_cast<float>((v - double(zero)) * scale);
          for (int step = 0; step < 2; ++step)
            x = std::nextafter(x, -1e30f);
          for (int step = 0; step < 5; ++step) {
            inputs.push_back(x);
            x = std::nextafter(x, 1e30f);
          }
        }
        expectQcastMatchesReference(spec, inputs);
      }
  }
}

TEST_P(CompactKernelTest, DoubleFloatQcastAtEveryRoundingBoundary) {
  if (skipsDoubleTests())
    GTEST_SKIP() << "llvm: checked at its highest level";
  // C = f64: v must round to the format once. Around every code and
  // midpoint: f64 neighbours (one f64 ulp off a midpoint rounds away from
  // it), and offsets just beyond f32's precision (2^-25, 2^-30 relative),
  // which a rounding through f32 would move onto the midpoint; exact and
  // inexact scales, both saturations.
  for (const StorageSpec &storage : testing::compactStorages()) {
    if (storage.kind != StorageType::Kind::Float)
      continue;
    FloatStorageFormat format = floatStorageFormat(storage.floatFormat);
    for (auto [scale, zero] :
         {std::pair{1.0, int64_t(0)}, std::pair{0.25, int64_t(-2)},
          std::pair{0.0137, int64_t(0)}})
      for (bool saturate : {true, false}) {
        KernelSpec spec;
        spec.storage = storage;
        spec.expressed = spec.compute = ValueType::F64;
        spec.params.scales = {scale};
        spec.params.zeroPoints = {zero};
        spec.knobs.saturate =
            saturate || storage.floatFormat == FloatType::F4E2M1FN;
        if (!compiles(spec))
          continue;
        std::vector<double> inputs;
        for (double v : codesAndMidpoints(format)) {
          for (double offset : {0.0, 0x1p-25, -0x1p-25, 0x1p-30, -0x1p-30})
            inputs.push_back((v * (1 + offset) - double(zero)) * scale);
          double x = (v - double(zero)) * scale;
          inputs.push_back(std::nextafter(x, -1e300));
          inputs.push_back(std::nextafter(x, 1e300));
        }
        for (double special : {1e-300, -1e-300, 1e300, -1e300, 0x1p-130,
                               -0x1p-130, 0x1p-149, -0.0})
          inputs.push_back(special);
        expectQcastMatchesReference(spec, inputs);
      }
  }
}

/// True when the `bytes`-byte expressed value at `p` is a NaN.
bool isNaNValue(ValueType type, const uint8_t *p) {
  if (type == ValueType::F64) {
    double value;
    std::memcpy(&value, p, sizeof value);
    return std::isnan(value);
  }
  uint32_t bits = 0;
  std::memcpy(&bits, p, valueTypeBytes(type));
  switch (type) {
  case ValueType::F16:
    return (bits & 0x7fff) > 0x7c00;
  case ValueType::BF16:
    return (bits & 0x7fff) > 0x7f80;
  default:
    return (bits & 0x7fffffff) > 0x7f800000;
  }
}

TEST_P(CompactKernelTest, FloatDcastEveryCode) {
  // Every code through the unrolled blocks (256 codes from an odd
  // address), and through the single vectors and the tail (runs of 31);
  // scales that fold f8E4M3FN's 2^8 and ones that do not. NaN's payload
  // and sign are unspecified (docs/semantics.md).
  std::vector<uint8_t> buffer(1 + 256);
  for (size_t i = 0; i < 256; ++i)
    buffer[1 + i] = static_cast<uint8_t>(i); // f4: the high nibble is ignored.
  const uint8_t *codes = buffer.data() + 1;
  for (const StorageSpec &storage : testing::compactStorages()) {
    if (storage.kind != StorageType::Kind::Float || storage.packed)
      continue;
    for (auto [scale, zero] :
         {std::pair{1.0, int64_t(0)}, std::pair{0.37, int64_t(-3)},
          std::pair{60000.0, int64_t(0)}})
      for (ValueType expressed :
           {ValueType::F32, ValueType::F16, ValueType::BF16, ValueType::F64}) {
        KernelSpec spec;
        spec.op = KernelOp::DCast;
        spec.storage = storage;
        spec.expressed = spec.compute = expressed;
        if (expressed != ValueType::F64)
          spec.compute = ValueType::F32;
        spec.params.scales = {scale};
        spec.params.zeroPoints = {zero};
        if (!compiles(spec))
          continue;
        Expected<CompiledCode> code = backend_->compile(spec);
        ASSERT_TRUE(code) << code.status().message();
        auto kernel =
            reinterpret_cast<KernelFn>(const_cast<void *>(code->entry));
        unsigned bytes = valueTypeBytes(expressed);
        auto check = [&](size_t first, size_t n) {
          std::vector<uint8_t> got(n * bytes, 0xA5), want(n * bytes);
          kernel(codes + first, got.data(), n);
          ASSERT_TRUE(runReference(spec, codes + first, want.data(), n));
          for (size_t i = 0; i < n; ++i) {
            const uint8_t *g = &got[i * bytes], *w = &want[i * bytes];
            if (isNaNValue(expressed, w))
              EXPECT_TRUE(isNaNValue(expressed, g))
                  << spec.canonicalString() << " code " << first + i;
            else
              EXPECT_EQ(std::memcmp(g, w, bytes), 0)
                  << spec.canonicalString() << " code " << first + i;
          }
        };
        check(0, 256);
        for (size_t first = 0; first < 256; first += 31)
          check(first, std::min<size_t>(31, 256 - first));
      }
  }
}

TEST_P(CompactKernelTest, LargeOutputsStreamPastTheCache) {
  // Above 8 MiB of output the kernels align the output element by element
  // and stream; packed NF4 dcast streams only when the output is aligned
  // to two elements (offset 4 never is, 8 is after a few steps), fp8
  // dcast decodes whole unrolled blocks, fp8 qcast stores packed bytes.
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
  // fp8 dcast (the unrolled blocks of codes) from an odd address.
  KernelSpec fp8 = dcast;
  fp8.storage = subset[0];
  Expected<CompiledCode> fp8Code = backend_->compile(fp8);
  ASSERT_TRUE(fp8Code) << fp8Code.status().message();
  testing::KernelTester fp8Tester(fp8, 13);
  EXPECT_TRUE(
      fp8Tester.checkOnce(fp8Code->entry, (size_t(2) << 20) + 37, 1, 4));
  KernelSpec qcast = dcast;
  qcast.op = KernelOp::QCast;
  qcast.storage = subset[0];
  code = backend_->compile(qcast);
  ASSERT_TRUE(code) << code.status().message();
  testing::KernelTester qcastTester(qcast, 12);
  EXPECT_TRUE(qcastTester.checkOnce(code->entry, (size_t(8) << 20) + 37, 4, 3));
}

TEST_P(CompactKernelTest, LargeBlockwiseOutputsStreamBlockByBlock) {
  // Blocks of 32 codes are runs shorter than llvm's unrolled AVX-512
  // block, each converted whole: in a call of more than 8 MiB of output a
  // block streams where its output is aligned (offset 0) and goes
  // through the caches where it is not (4). Packed int4 and f4E2M1FN,
  // baked and runtime parameters.
  SweepAxes axes;
  axes.ops = {KernelOp::DCast};
  axes.widths = {4};
  axes.packedOnly = true;
  axes.signedness = {true};
  for (const StorageSpec &storage : testing::compactStorages())
    if (storage.packed && storage.kind == StorageType::Kind::Float)
      axes.compact.push_back(storage);
  axes.layouts = {testing::packedBlockLayouts()[0]};
  axes.runtimeParams = {false, true};
  std::vector<KernelSpec> specs = testing::specSweep(axes);
  ASSERT_EQ(specs.size(), 4u);
  constexpr size_t kElements = 192 * 11000; // Whole periods, 8.06 MiB.
  for (const KernelSpec &spec : specs) {
    Expected<CompiledCode> code = backend_->compile(spec);
    ASSERT_TRUE(code) << code.status().message();
    testing::KernelTester tester(spec, 17);
    for (size_t dstOffset : {0, 4})
      EXPECT_TRUE(tester.checkOnce(code->entry, kElements, 0, dstOffset))
          << spec.canonicalString() << " output offset " << dstOffset;
  }
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
  // asmjit compiles float storage and quantile tables, packed ones (NF4
  // here) too, with every expressed type (f64 takes the wide kernels).
  // (f64 fp8 qcast is llvm's at AVX-512: plan/KernelFits.def.)
  const char *packedTable =
      "!quant.quantile<u4:f32, {-1.0, -0.5, -0.25, 0.0, 0.25, 0.5, 0.75, "
      "1.0, 1.25, 1.5, 1.75, 2.0, 2.25, 2.5, 2.75, 3.0}>";
  const char *packedTable64 =
      "!quant.quantile<u4:f64, {-1.0, -0.5, -0.25, 0.0, 0.25, 0.5, 0.75, "
      "1.0, 1.25, 1.5, 1.75, 2.0, 2.25, 2.5, 2.75, 3.0}>";
  for (auto [type, backend] :
       {std::pair{"!quant.uniform<f8E4M3FN:f32, 0.5>", BackendKind::Asmjit},
        std::pair{packedTable, BackendKind::Asmjit},
        std::pair{packedTable64, BackendKind::Asmjit}}) {
    Expected<std::shared_ptr<const Kernel>> kernel =
        (*runtime)->compile(type, KernelOp::QCast);
    ASSERT_TRUE(kernel) << kernel.status().message();
    EXPECT_EQ((*kernel)->backend(), backend) << type;
    float in[3] = {1.0f, -300.0f, 0.3f};
    double in64[3] = {1.0, -300.0, 0.3};
    bool f64 = std::string_view(type).find(":f64") != std::string_view::npos;
    uint8_t out[3] = {};
    (*kernel)->function()(f64 ? static_cast<const void *>(in64) : in, out, 3);
    if (std::string_view(type).find("f8E4M3FN") != std::string_view::npos) {
      EXPECT_EQ(out[0], 0x40); // 2.0
      EXPECT_EQ(out[1], 0xFE); // -600 saturates to -448
    }
  }
  // Packed table dcast is asmjit's at every level (zmm lookups at
  // AVX-512, byte planes below).
  Expected<std::shared_ptr<const Kernel>> dcast =
      (*runtime)->compile(packedTable, KernelOp::DCast);
  ASSERT_TRUE(dcast) << dcast.status().message();
  EXPECT_EQ((*dcast)->backend(), BackendKind::Asmjit);
  uint8_t codes[2] = {0x10, 0x0f}; // Low nibble first: 0, 1, 15.
  float values[3] = {};
  (*dcast)->function()(codes, values, 3);
  EXPECT_EQ(values[0], -1.0f);
  EXPECT_EQ(values[1], -0.5f);
  EXPECT_EQ(values[2], 3.0f);
}

TEST(CompactRuntime, IntegerTableQcastAndDcast) {
  Expected<std::unique_ptr<Runtime>> runtime = Runtime::create({});
  ASSERT_TRUE(runtime) << runtime.status().message();
  const char *type = kIntegerTableTypes[0]; // ui4:i8 {-8..7}, scale 0.5.
  Expected<std::shared_ptr<const Kernel>> qcast =
      (*runtime)->compile(type, KernelOp::QCast);
  ASSERT_TRUE(qcast) << qcast.status().message();
  // x / 0.5 = -8.2, 0.4, 6.8, 200: nearest entries -8, 0, 7, 7.
  float in[4] = {-4.1f, 0.2f, 3.4f, 100.0f};
  uint8_t codes[2] = {};
  (*qcast)->function()(in, codes, 4);
  EXPECT_EQ(codes[0], 0x80); // Low nibble first: codes 0 and 8.
  EXPECT_EQ(codes[1], 0xFF);
  Expected<std::shared_ptr<const Kernel>> dcast =
      (*runtime)->compile(type, KernelOp::DCast);
  ASSERT_TRUE(dcast) << dcast.status().message();
  float values[4] = {};
  (*dcast)->function()(codes, values, 4);
  EXPECT_EQ(values[0], -4.0f);
  EXPECT_EQ(values[1], 0.0f);
  EXPECT_EQ(values[2], 3.5f);
  EXPECT_EQ(values[3], 3.5f);
}

TEST(CompactRuntime, AutoTakesAsmjitForA256EntryTable) {
  if (hostIsaLevel() < IsaLevel::Avx2)
    GTEST_SKIP() << "asmjit needs AVX2";
  Expected<std::unique_ptr<Runtime>> runtime = Runtime::create({});
  ASSERT_TRUE(runtime) << runtime.status().message();
  std::string type = "!quant.quantile<u8:f32, {";
  for (int k = 0; k < 256; ++k) // Entry k is k/16 - 8: 0 at code 128.
    type += (k ? ", " : "") + std::to_string(k / 16.0 - 8);
  type += "}>";
  Expected<std::shared_ptr<const Kernel>> qcast =
      (*runtime)->compile(type, KernelOp::QCast);
  ASSERT_TRUE(qcast) << qcast.status().message();
  EXPECT_EQ((*qcast)->backend(), BackendKind::Asmjit);
  // Nearest entry, ties to the lower code; NaN takes the zero point's.
  const float in[6] = {-100.0f, 0.03125f,
                       0.04f,   7.9f,
                       100.0f,  std::numeric_limits<float>::quiet_NaN()};
  uint8_t codes[6] = {};
  (*qcast)->function()(in, codes, 6);
  EXPECT_EQ(codes[0], 0);
  EXPECT_EQ(codes[1], 128);
  EXPECT_EQ(codes[2], 129);
  EXPECT_EQ(codes[3], 254);
  EXPECT_EQ(codes[4], 255);
  EXPECT_EQ(codes[5], 128);
  Expected<std::shared_ptr<const Kernel>> dcast =
      (*runtime)->compile(type, KernelOp::DCast);
  ASSERT_TRUE(dcast) << dcast.status().message();
  EXPECT_EQ((*dcast)->backend(), BackendKind::Asmjit);
  float values[6] = {};
  (*dcast)->function()(codes, values, 6);
  EXPECT_EQ(values[0], -8.0f);
  EXPECT_EQ(values[1], 0.0f);
  EXPECT_EQ(values[3], 7.875f);
  EXPECT_EQ(values[4], 7.9375f);
}

} // namespace
} // namespace qjit
