//===- BackendSweepTest.cpp - One differential suite for every backend ----===//
//
// Every sweep below runs with every backend at every ISA level this host
// runs (and, through CompileOnlyTargets, generates at the levels above and
// for AArch64): the same coverage for asmjit and llvm by construction.
// Expectations come from the backends' fit() (plan/KernelFits.def): a
// spec that fits is compiled and matches the reference on every tail and
// misalignment (KernelTester); one that does not must be refused with
// ErrorCode::Unsupported; in a sweep marked `covered` both backends fit
// every spec. Seeds: testSeed() (printed; QJIT_TEST_SEED replays).
//
//===----------------------------------------------------------------------===//
#include "KernelTester.h"
#include "LayoutSpecs.h"
#include "TestSeed.h"

#include "qjit/internal/Backend.h"

#include <gtest/gtest.h>

#include <ostream>
#include <string>
#include <vector>

namespace qjit::testing {
namespace {

struct Sweep {
  std::string name;
  SweepAxes axes;
  /// When set, these specs instead of the axes'.
  std::vector<KernelSpec> specs;
  KernelTester::Options options;
  /// Every backend fits every spec (at AVX2 and above for asmjit).
  bool covered = true;
};

constexpr KernelTester::Options kWideZeroPoints = {
    .lanes = 64, .largeSize = 4099, .wideZeroPoints = true};
constexpr KernelTester::Options kNarrowZeroPoints = {.lanes = 64,
                                                     .largeSize = 4099};
const QuantKnobs kReciprocalAway = {ScaleOp::Reciprocal,
                                    ZeroPointOrder::AfterRounding,
                                    RoundingMode::NearestAway};
const QuantKnobs kReciprocalBeforeAway = {ScaleOp::Reciprocal,
                                          ZeroPointOrder::BeforeRounding,
                                          RoundingMode::NearestAway};
const QuantKnobs kAfterTowardZero = {
    ScaleOp::Divide, ZeroPointOrder::AfterRounding, RoundingMode::TowardZero};

std::vector<Sweep> sweeps() {
  std::vector<Sweep> all;
  auto add = [&](std::string name, SweepAxes axes,
                 KernelTester::Options options = kWideZeroPoints,
                 bool covered = true) {
    all.push_back({std::move(name), std::move(axes), {}, options, covered});
  };
  {
    SweepAxes axes;
    axes.ops = {KernelOp::QCast};
    axes.widths = {8, 16, 32};
    axes.packed = false;
    axes.narrowBounds = true;
    axes.knobs = allKnobs();
    axes.runtimeParams = {false, true};
    add("PerTensorEveryKnob", axes);
  }
  {
    SweepAxes axes;
    axes.ops = {KernelOp::QCast, KernelOp::DCast, KernelOp::SCast};
    axes.widths = {1,  2,  3,  4,  5,  7,  8,  9,  12,
                   15, 16, 17, 24, 25, 27, 30, 31, 32};
    axes.narrowBounds = true;
    axes.knobs = {QuantKnobs{}, kReciprocalAway};
    axes.runtimeParams = {false, true};
    add("EveryWidthAndOp", axes);
  }
  {
    // Every knob with runtime parameters, f32 and f64.
    SweepAxes axes;
    axes.expressed = {ValueType::F32, ValueType::F64};
    axes.knobs = allKnobs();
    axes.runtimeParams = {true};
    add("RuntimeParametersEveryKnob", axes);
  }
  {
    SweepAxes axes;
    axes.widths = {8, 16, 32};
    axes.packed = false;
    axes.narrowBounds = true;
    axes.expressed = {ValueType::F64};
    axes.knobs = allKnobs();
    axes.runtimeParams = {false, true};
    add("DoubleExpressedEveryKnob", axes,
        {.lanes = 32, .largeSize = 1031, .wideZeroPoints = true});
  }
  {
    SweepAxes axes;
    axes.widths = {4, 8, 16, 32};
    axes.expressed = {ValueType::F16, ValueType::BF16};
    axes.knobs = {QuantKnobs{}, kReciprocalAway};
    axes.runtimeParams = {false, true};
    add("HalfAndBfloat16", axes);
  }
  {
    SweepAxes axes;
    axes.widths = {4, 8, 32};
    axes.expressed = {ValueType::F32, ValueType::F64};
    axes.layouts = representativeLayouts();
    axes.runtimeParams = {false, true};
    axes.knobs = {QuantKnobs{}, kAfterTowardZero};
    add("EveryLayout", axes);
  }
  {
    // Runtime zero points promised within the storage range (a dynamic
    // qcast's quantize pass): after rounding, f32 kernels add them.
    SweepAxes axes;
    axes.ops = {KernelOp::QCast};
    axes.widths = {4, 8, 16};
    axes.narrowBounds = true;
    axes.knobs = allKnobs();
    axes.layouts = {LayoutSpec{}, perAxis(3, 300), perAxis(16, 32)};
    axes.runtimeParams = {true};
    std::vector<KernelSpec> specs = specSweep(axes);
    for (KernelSpec &spec : specs)
      spec.params.zeroPointsInStorage = true;
    all.push_back({"RuntimeZeroPointsInStorageEveryKnob", SweepAxes{},
                   std::move(specs), kNarrowZeroPoints, true});
  }
  add("LongPerAxisRunsWithDistinctZeroPoints", longPerAxisRunSweep(),
      {.lanes = 16, .largeSize = 1200});
  // Baked zero points up to the ends of int64: the after-rounding sum
  // round(u) + z stays exact however far z is from the bounds.
  all.push_back({"FarBakedZeroPoints",
                 SweepAxes{},
                 farZeroPointSpecs(),
                 {.lanes = 16, .largeSize = 257},
                 true});
  {
    // Static runs of 32, 64 and 128 elements take straight-line bodies in
    // asmjit; 40 and 160 do not; every size ends in a partial run.
    SweepAxes axes;
    axes.signedness = {true};
    axes.packed = false;
    axes.layouts = {perAxis(3, 32), perAxis(2, 64),
                    blocked({{2, 1}, {256, 128}}), perAxis(2, 40),
                    perAxis(2, 160)};
    axes.runtimeParams = {false, true};
    axes.knobs = {QuantKnobs{}, kReciprocalBeforeAway};
    add("RunsOfWholeUnrolledIterations", axes);
  }
  {
    // Whole runs of 32 with runtime parameters, 16 and 32 per period
    // (asmjit's AVX2 prepares eight runs' parameters at once); zero points
    // within the storage range (the fast groups), then anywhere.
    SweepAxes axes;
    axes.signedness = {true};
    axes.packed = false;
    axes.expressed = {ValueType::F32, ValueType::F16, ValueType::BF16};
    axes.layouts = {perAxis(16, 32), blocked({{2, 1}, {512, 32}})};
    axes.runtimeParams = {true};
    axes.knobs = {QuantKnobs{}, kReciprocalBeforeAway};
    add("RuntimeParametersOfEightRuns", axes, kNarrowZeroPoints);
    add("RuntimeParametersOfEightRunsFarZeroPoints", axes);
  }
  {
    // Static runs of 8, 16 and 24 elements in periods too long for
    // per-element tables; two runs per step where periods hold pairs.
    SweepAxes axes;
    axes.signedness = {true};
    axes.packed = false;
    axes.layouts = {perAxis(160, 8), perAxis(80, 16), perAxis(48, 24),
                    perAxis(129, 16)};
    axes.runtimeParams = {false, true};
    axes.knobs = {QuantKnobs{}, kReciprocalBeforeAway};
    add("RunsOfWholeVectors", axes, kNarrowZeroPoints);
  }
  {
    // Runtime zero points mostly 0: groups of eight runs that are all
    // symmetric next to the others; one group per period, three, and
    // groups of runs of 64.
    SweepAxes axes;
    axes.packed = false;
    axes.expressed = {ValueType::F32, ValueType::F16};
    axes.layouts = {perAxis(8, 32), perAxis(24, 32), perAxis(16, 64)};
    axes.runtimeParams = {true};
    add("GroupsOfSymmetricAndAsymmetricRuns", axes,
        {.lanes = 64,
         .largeSize = 4099,
         .wideZeroPoints = true,
         .mostlyZeroZeroPoints = true});
    // Packed 4-bit dcast (asmjit loads its codes as laneBias + q).
    axes.ops = {KernelOp::DCast};
    axes.widths = {4};
    axes.packedOnly = true;
    axes.expressed = {ValueType::F32};
    add("GroupsOfBiasedPackedRuns", axes,
        {.lanes = 64,
         .largeSize = 4099,
         .wideZeroPoints = true,
         .mostlyZeroZeroPoints = true});
    add("GroupsOfBiasedPackedRunsFarZeroPoints", axes);
  }
  {
    // Per-axis parameters on the last axis (runs of one or two elements):
    // tables over whole vector blocks of periods, baked and runtime.
    SweepAxes axes;
    axes.packed = false;
    axes.layouts = {perAxis(3, 2)};
    for (int64_t channels : {1, 2, 3, 4, 5, 8, 12, 13, 16, 64})
      axes.layouts.push_back(perAxis(channels, 1));
    axes.runtimeParams = {false, true};
    axes.knobs = {QuantKnobs{}, kReciprocalBeforeAway};
    add("ShortPeriodsOnTheLastAxis", axes, kNarrowZeroPoints);
    add("ShortPeriodsOnTheLastAxisFarZeroPoints", axes);
    SweepAxes halves = axes;
    halves.signedness = {true};
    halves.expressed = {ValueType::F16, ValueType::BF16};
    halves.layouts = {perAxis(5, 1), perAxis(3, 2)};
    halves.runtimeParams = {true};
    add("ShortPeriodsOfHalfTypes", halves);
    axes.widths = {4};
    axes.packedOnly = true;
    axes.signedness = {true};
    axes.layouts = {perAxis(3, 1), perAxis(5, 1)};
    axes.runtimeParams = {false};
    add("ShortPeriodsOfPackedCodes", axes);
  }
  {
    // Packed 1-, 2- and 4-bit storage: runs starting inside a byte or on
    // one (blocks of 32), tails ending inside a byte.
    SweepAxes axes;
    axes.ops = {KernelOp::QCast, KernelOp::DCast, KernelOp::SCast};
    axes.widths = {1, 2, 4};
    axes.packedOnly = true;
    axes.narrowBounds = true;
    axes.layouts = representativeLayouts();
    for (const LayoutSpec &blocks : packedBlockLayouts())
      axes.layouts.push_back(blocks);
    axes.runtimeParams = {false, true};
    axes.knobs = {QuantKnobs{}, kReciprocalAway};
    add("PackedEveryLayout", axes);
  }
  {
    SweepAxes axes;
    axes.widths = {1, 2, 4};
    axes.packedOnly = true;
    axes.expressed = {ValueType::F16, ValueType::BF16, ValueType::F64};
    axes.layouts = {LayoutSpec{}, representativeLayouts()[2]};
    axes.runtimeParams = {false, true};
    axes.knobs = {QuantKnobs{}, kReciprocalAway, kAfterTowardZero};
    add("PackedExpressedTypes", axes, kWideZeroPoints, /*covered=*/false);
  }
  return all;
}

struct SweepCase {
  Sweep sweep;
  std::string backend;
  IsaLevel level;
};

std::vector<SweepCase> sweepCases() {
  std::vector<SweepCase> cases;
  for (const Sweep &sweep : sweeps())
    for (const char *backend : {"asmjit", "llvm"})
      for (IsaLevel level : runnableIsaLevels())
        if (std::string_view(backend) != "asmjit" || level >= IsaLevel::Avx2)
          cases.push_back({sweep, backend, level});
  return cases;
}

void PrintTo(const SweepCase &c, std::ostream *os) {
  *os << c.sweep.name << " with " << c.backend << " at "
      << isaLevelName(c.level);
}

class BackendSweepTest : public ::testing::TestWithParam<SweepCase> {};

TEST_P(BackendSweepTest, FittingSpecsMatchTheReferenceOthersAreRefused) {
  const SweepCase &c = GetParam();
  Expected<std::unique_ptr<Backend>> created =
      createBackend(c.backend, c.level);
  ASSERT_TRUE(created) << created.status().message();
  Backend &backend = **created;
  CompileOnlyTargets compileOnly(backend);
  uint64_t seed = testSeed();
  size_t checked = 0;
  std::vector<KernelSpec> specs =
      c.sweep.specs.empty() ? specSweep(c.sweep.axes) : c.sweep.specs;
  for (const KernelSpec &spec : specs) {
    SCOPED_TRACE(spec.canonicalString());
    compileOnly.generate(spec);
    KernelFit fit = backend.fit(spec);
    if (c.sweep.covered) {
      EXPECT_NE(fit, KernelFit::Unsupported) << backend.fitReason(spec);
    }
    Expected<CompiledCode> code = backend.compile(spec);
    if (fit == KernelFit::Unsupported) {
      ASSERT_FALSE(code) << "compiles a spec its fit() refuses";
      EXPECT_EQ(code.status().code(), ErrorCode::Unsupported)
          << code.status().message();
      continue;
    }
    ASSERT_TRUE(code) << code.status().message();
    EXPECT_LE(code->isa, c.level);
    KernelTester tester(spec, seed++, c.sweep.options);
    ASSERT_TRUE(tester.check(code->entry));
    ++checked;
  }
  EXPECT_GT(checked, 0u);
}

INSTANTIATE_TEST_SUITE_P(Sweeps, BackendSweepTest,
                         ::testing::ValuesIn(sweepCases()),
                         [](const ::testing::TestParamInfo<SweepCase> &info) {
                           return info.param.sweep.name + "_" +
                                  info.param.backend + "_" +
                                  std::string(isaLevelName(info.param.level));
                         });

} // namespace
} // namespace qjit::testing
