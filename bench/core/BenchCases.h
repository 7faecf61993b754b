//===- BenchCases.h - The one list of benchmark cases -----------*- C++ -*-===//
//
// Every case the harness (qjit_bench) and `qjit bench --case=NAME` measure,
// listed once. A case is a quant type family; caseTypeText() spells the MLIR
// type for a given element count with deterministic scales and zero points.
// Every case runs as qcast and dcast at every size of kBenchSizes.
//
//===----------------------------------------------------------------------===//
#ifndef QJIT_BENCH_BENCHCASES_H
#define QJIT_BENCH_BENCHCASES_H

#include "qjit/Error.h"
#include "qjit/KernelSpec.h"

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace qjit::bench {

enum class CaseLayout : uint8_t {
  PerTensor,
  PerAxisLast,  ///< tensor<R x kChannels>, axis 1.
  PerAxisFirst, ///< tensor<kChannels x R>, axis 0.
  Block32,      ///< tensor<R x kBlockRow>, blocks of 32 along the last axis.
  PerRow,       ///< tensor<R x kRow>, axis 0: one parameter per token row.
};

struct BenchCase {
  std::string_view name; ///< "i8_per_tensor": used in benchmark names.
  /// MLIR storage spelling: "i8", "u4", "f8E4M3FN", a !quant.quantile.
  std::string_view storage;
  CaseLayout layout;
  /// Non-zero zero points. Per-axis and blockwise cases are symmetric
  /// because oneDNN 2.6 reorders accept only a common zero point.
  bool asymmetric;
  /// Scales passed at call time (KernelParams) instead of baked: blockwise
  /// types carry n/32 parameters, which no one bakes into code.
  bool runtimeParameters;
  /// The runtime scales' format (E8M0: each type scale's power of two).
  ScaleFormat scaleFormat = ScaleFormat::Expressed;
  /// The knobs of this preset (docs/semantics.md 11). They select among
  /// qcast computations only, so a case with a preset has no dcast rows.
  SemanticsPreset preset = SemanticsPreset::Default;
};

inline constexpr int64_t kChannels = 256;
inline constexpr int64_t kBlockRow = 1024;
inline constexpr int64_t kBlock = 32;
/// A hidden size of the models the per-row case stands for.
inline constexpr int64_t kRow = 4096;
inline constexpr int64_t kBenchSizes[] = {4096, 65536, 1 << 20, 1 << 24};

std::span<const BenchCase> benchCases();
/// The lowering every runner of `benchCase` uses: runtime parameters and
/// their scale format.
LoweringOptions caseLowering(const BenchCase &benchCase);
const BenchCase *findBenchCase(std::string_view name);
/// Whether `benchCase` runs as `op` (see BenchCase::preset).
bool caseRunsAs(const BenchCase &benchCase, KernelOp op);

/// The full MLIR type of `benchCase` over n elements (n a multiple of
/// kBlockRow and kChannels). Fails when n does not fit the case.
Expected<std::string> caseTypeText(const BenchCase &benchCase, int64_t n);

} // namespace qjit::bench

#endif
