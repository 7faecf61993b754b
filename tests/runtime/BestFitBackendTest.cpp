//===- BestFitBackendTest.cpp - The backend `auto` compiles with ----------===//
//
// compileWithBestFit over fake backends (fit and compile outcome chosen per
// test), then the real runtime on specs asmjit fits Specialized and
// Generic.
//
//===----------------------------------------------------------------------===//
#include "BestFitBackend.h"

#include "qjit/Isa.h"
#include "qjit/Runtime.h"
#include "qjit/TypeParser.h"
#include "qjit/internal/Backend.h"

#include "../support/Nf4Table.h"

#include <gtest/gtest.h>

#include <string>
#include <tuple>

namespace qjit {
namespace {

/// A backend whose fit and compile outcome are given; counts compiles.
class FakeBackend final : public Backend {
public:
  FakeBackend(KernelFit fit, bool compiles, int &compileCalls)
      : fit_(fit), compiles_(compiles), compileCalls_(compileCalls) {}

  std::string_view name() const override { return "fake"; }
  IsaLevel isa() const override { return IsaLevel::Avx2; }
  KernelFit fit(const KernelSpec &) const override { return fit_; }
  std::string fitReason(const KernelSpec &) const override { return {}; }
  Expected<CompiledCode> compile(const KernelSpec &) override {
    ++compileCalls_;
    if (!compiles_)
      return Status::error(ErrorCode::BackendFailure, "fake failure");
    CompiledCode code;
    code.entry = this; // Never called.
    return code;
  }
  Expected<std::string> assembly(const KernelSpec &,
                                 const AsmOptions &) override {
    return Status::error(ErrorCode::Unsupported, "fake");
  }
  Expected<TargetCode> emitForTarget(const KernelSpec &,
                                     const AsmOptions &) override {
    return Status::error(ErrorCode::Unsupported, "fake");
  }

private:
  KernelFit fit_;
  bool compiles_;
  int &compileCalls_;
};

struct FakeOutcome {
  KernelFit fit;
  bool compiles;
};

/// asmjit then llvm (the runtime's order), as `asmjit` and `llvm` say;
/// the kind of the backend chosen (Reference for none) and the compiles
/// each got.
struct Choice {
  BackendKind kind = BackendKind::Reference;
  int asmjitCompiles = 0, llvmCompiles = 0;
};
Choice choose(FakeOutcome asmjit, FakeOutcome llvm) {
  Choice choice;
  std::shared_ptr<SharedBackend> backends[] = {
      std::make_shared<SharedBackend>(
          BackendKind::Asmjit,
          std::make_unique<FakeBackend>(asmjit.fit, asmjit.compiles,
                                        choice.asmjitCompiles)),
      std::make_shared<SharedBackend>(
          BackendKind::Llvm,
          std::make_unique<FakeBackend>(llvm.fit, llvm.compiles,
                                        choice.llvmCompiles))};
  std::optional<BackendCode> code = compileWithBestFit(backends, KernelSpec{});
  if (code)
    choice.kind = code->backend->kind();
  return choice;
}

constexpr KernelFit kSpecialized = KernelFit::Specialized;
constexpr KernelFit kGeneric = KernelFit::Generic;
constexpr KernelFit kUnsupported = KernelFit::Unsupported;

TEST(BestFitBackend, EqualFitsKeepTheOrder) {
  Choice choice = choose({kSpecialized, true}, {kSpecialized, true});
  EXPECT_EQ(choice.kind, BackendKind::Asmjit);
  EXPECT_EQ(choice.llvmCompiles, 0);
  EXPECT_EQ(choose({kGeneric, true}, {kGeneric, true}).kind,
            BackendKind::Asmjit);
}

TEST(BestFitBackend, SpecializedBeforeGeneric) {
  Choice choice = choose({kGeneric, true}, {kSpecialized, true});
  EXPECT_EQ(choice.kind, BackendKind::Llvm);
  EXPECT_EQ(choice.asmjitCompiles, 0);
}

TEST(BestFitBackend, FallsBackWhenTheBestFails) {
  Choice choice = choose({kGeneric, true}, {kSpecialized, false});
  EXPECT_EQ(choice.kind, BackendKind::Asmjit);
  EXPECT_EQ(choice.llvmCompiles, 1);
  EXPECT_EQ(choose({kSpecialized, false}, {kSpecialized, true}).kind,
            BackendKind::Llvm);
  EXPECT_EQ(choose({kSpecialized, false}, {kGeneric, false}).kind,
            BackendKind::Reference);
}

TEST(BestFitBackend, UnsupportedIsNotAsked) {
  Choice choice = choose({kUnsupported, true}, {kGeneric, true});
  EXPECT_EQ(choice.kind, BackendKind::Llvm);
  EXPECT_EQ(choice.asmjitCompiles, 0);
  EXPECT_EQ(choose({kUnsupported, true}, {kUnsupported, true}).kind,
            BackendKind::Reference);
}

/// Packed NF4 qcast with a baked scale (asmjit's specialized search on
/// packed bytes) and with runtime parameters (a composition asmjit fits
/// Generic at AVX2): auto takes asmjit for the first and, at AVX2, llvm for
/// the second, while an explicit asmjit runtime compiles both.
/// The levels asmjit runs at here (the host's, capped by QJIT_MAX_ISA):
/// tests check the runtime's choice at each, capped by maxIsa, so that the
/// expectation never depends on the host.
std::vector<IsaLevel> asmjitLevels() {
  Expected<IsaLevel> top = effectiveIsaLevel();
  std::vector<IsaLevel> levels;
  for (IsaLevel level : {IsaLevel::Avx2, IsaLevel::Avx512})
    if (top && level <= *top)
      levels.push_back(level);
  return levels;
}

/// NF4 qcast: asmjit's baked kernel is Specialized; with runtime
/// parameters llvm's is faster than asmjit's AVX2 code, not than its
/// AVX-512 search (plan/KernelFits.def).
TEST(BestFitBackend, AutoTakesAsmjitOnlyWhereItIsSpecialized) {
  if (hostIsaLevel() < IsaLevel::Avx2)
    GTEST_SKIP() << "asmjit needs AVX2";
  std::string type =
      "!quant.uniform<" + std::string(testing::kNf4Quantile) + ":f32, 0.5>";
  for (IsaLevel level : asmjitLevels()) {
    SCOPED_TRACE(isaLevelName(level));
    RuntimeOptions capped, asmjitOnly;
    capped.maxIsa = asmjitOnly.maxIsa = level;
    asmjitOnly.backend = BackendKind::Asmjit;
    Expected<std::unique_ptr<Runtime>> automatic = Runtime::create(capped);
    Expected<std::unique_ptr<Runtime>> asmjit = Runtime::create(asmjitOnly);
    ASSERT_TRUE(automatic && asmjit);
    for (auto [runtimeParameters, autoBackend] :
         {std::pair{false, BackendKind::Asmjit},
          std::pair{true, level >= IsaLevel::Avx512 ? BackendKind::Asmjit
                                                    : BackendKind::Llvm}}) {
      SCOPED_TRACE(runtimeParameters ? "runtime parameters" : "baked");
      LoweringOptions lowering = (*automatic)->defaultLowering();
      lowering.runtimeParameters = runtimeParameters;
      Expected<std::shared_ptr<const Kernel>> chosen =
          (*automatic)->compile(type, KernelOp::QCast, lowering);
      ASSERT_TRUE(chosen) << chosen.status().message();
      EXPECT_EQ((*chosen)->backend(), autoBackend);
      Expected<std::shared_ptr<const Kernel>> forced =
          (*asmjit)->compile(type, KernelOp::QCast, lowering);
      ASSERT_TRUE(forced) << forced.status().message();
      EXPECT_EQ((*forced)->backend(), BackendKind::Asmjit);
    }
  }
}

/// f64 lanes: packed 2-bit dcast and packed f4E2M1FN qcast measured slower
/// in asmjit than in llvm (Generic), packed f4E2M1FN dcast not; fp8 qcast
/// only at AVX-512 (asmjit's is AVX2 code there).
TEST(BestFitBackend, AutoTakesLlvmForTheSlowerWideKernels) {
  if (hostIsaLevel() < IsaLevel::Avx2)
    GTEST_SKIP() << "asmjit needs AVX2";
  for (IsaLevel level : asmjitLevels()) {
    SCOPED_TRACE(isaLevelName(level));
    RuntimeOptions capped;
    capped.maxIsa = level;
    Expected<std::unique_ptr<Runtime>> automatic = Runtime::create(capped);
    ASSERT_TRUE(automatic) << automatic.status().message();
    for (auto [type, op, backend] :
         {std::tuple{"!quant.uniform<u2:f64, 0.5:1>", KernelOp::DCast,
                     BackendKind::Llvm},
          std::tuple{"!quant.uniform<f4E2M1FN:f64, 0.5>", KernelOp::QCast,
                     BackendKind::Llvm},
          std::tuple{"!quant.uniform<f4E2M1FN:f64, 0.5>", KernelOp::DCast,
                     BackendKind::Asmjit},
          std::tuple{"!quant.uniform<f8E4M3FN:f64, 0.5>", KernelOp::QCast,
                     level == IsaLevel::Avx2 ? BackendKind::Asmjit
                                             : BackendKind::Llvm}}) {
      Expected<std::shared_ptr<const Kernel>> kernel =
          (*automatic)->compile(type, op);
      ASSERT_TRUE(kernel) << kernel.status().message();
      EXPECT_EQ((*kernel)->backend(), backend) << type;
    }
  }
}

/// Per-axis parameters on the last axis with few channels take asmjit
/// (tables of whole vectors, baked or filled per call), except where the
/// runtime tables would not fit two pages of stack: qcast of 31 channels
/// on AVX2 (3 tables of 992 elements: asmjit would load them per
/// one-element run), so llvm there. AVX-512's tables stay one period long
/// (31 elements), and asmjit's kernel is the faster one (2048x31 qcast,
/// `qjit bench --runtime-params`, Xeon AVX-512, 2026-12-01: asmjit 5.2
/// el/ns, llvm 3.3; AVX2: asmjit 0.02, llvm 0.93). The fit is stated for
/// both levels on any host; the runtime's choice at the level it runs.
TEST(BestFitBackend, AutoTakesLlvmForShortRuntimeRunsWithoutTables) {
  const char *lastAxis =
      "tensor<16x4x!quant.uniform<i8:f32:1, {0.1:1, 0.2:-3, 0.3:0, 0.4:5}>>";
  std::string scales;
  for (int channel = 0; channel < 31; ++channel)
    scales += (channel ? ", " : "") + std::to_string(channel + 1) + ".0:1";
  std::string manyChannels =
      "tensor<2x31x!quant.uniform<i8:f32:1, {" + scales + "}>>";
  struct Case {
    const char *type;
    bool runtimeParameters;
    KernelOp op;
    KernelFit avx2, avx512; ///< asmjit's fit at each level.
  };
  const Case cases[] = {{lastAxis, false, KernelOp::QCast,
                         KernelFit::Specialized, KernelFit::Specialized},
                        {lastAxis, false, KernelOp::DCast,
                         KernelFit::Specialized, KernelFit::Specialized},
                        {lastAxis, true, KernelOp::QCast,
                         KernelFit::Specialized, KernelFit::Specialized},
                        {lastAxis, true, KernelOp::DCast,
                         KernelFit::Specialized, KernelFit::Specialized},
                        {manyChannels.c_str(), true, KernelOp::QCast,
                         KernelFit::Generic, KernelFit::Specialized},
                        {manyChannels.c_str(), true, KernelOp::DCast,
                         KernelFit::Specialized, KernelFit::Specialized}};
  Expected<IsaLevel> level = effectiveIsaLevel();
  ASSERT_TRUE(level) << level.status().message();
  Expected<std::unique_ptr<Runtime>> automatic = Runtime::create({});
  ASSERT_TRUE(automatic) << automatic.status().message();
  for (const Case &c : cases) {
    std::string what = std::string(c.type) +
                       (c.runtimeParameters ? " runtime " : " baked ") +
                       (c.op == KernelOp::QCast ? "qcast" : "dcast");
    LoweringOptions lowering = (*automatic)->defaultLowering();
    lowering.runtimeParameters = c.runtimeParameters;
    Expected<TypeDescriptor> type = parseTypeOrError(c.type);
    ASSERT_TRUE(type) << type.status().message();
    Expected<KernelSpec> spec = lowerToKernelSpec(*type, c.op, lowering);
    ASSERT_TRUE(spec) << spec.status().message();
    for (IsaLevel isa : {IsaLevel::Avx2, IsaLevel::Avx512}) {
      Expected<std::unique_ptr<Backend>> asmjit = createAsmjitBackend(isa);
      ASSERT_TRUE(asmjit) << asmjit.status().message();
      EXPECT_EQ((*asmjit)->fit(*spec),
                isa == IsaLevel::Avx2 ? c.avx2 : c.avx512)
          << what << " at " << isaLevelName(isa);
    }
    if (*level < IsaLevel::Avx2)
      continue; // The runtime's choice needs asmjit on the host.
    KernelFit fit = *level >= IsaLevel::Avx512 ? c.avx512 : c.avx2;
    Expected<std::shared_ptr<const Kernel>> kernel =
        (*automatic)->compile(c.type, c.op, lowering);
    ASSERT_TRUE(kernel) << kernel.status().message();
    EXPECT_EQ((*kernel)->backend(), fit == KernelFit::Specialized
                                        ? BackendKind::Asmjit
                                        : BackendKind::Llvm)
        << what << " at " << isaLevelName(*level);
  }
}

} // namespace
} // namespace qjit
