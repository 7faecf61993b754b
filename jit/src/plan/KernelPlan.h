//===- KernelPlan.h - What qjit generates for a spec, and why ---*- C++ -*-===//
//
// planKernel() makes, from the spec alone, the decisions both backends
// follow: the kernel family (KernelFamilies.def), how qcast forms
// u = x / s, whether a checked reciprocal (and the bracket) may replace the
// division, the storage bounds as compute values, whether a quantile search
// reads the input, and when stores stream. Code generators add only what
// depends on their instructions (registers, unrolling, Markstein's division
// where the target has FMA, whether they implement a checked form).
// describeKernelPlan() prints the plan for `qjit spec --plan`.
//
//===----------------------------------------------------------------------===//
#ifndef QJIT_JIT_PLAN_KERNELPLAN_H
#define QJIT_JIT_PLAN_KERNELPLAN_H

#include "CheckedReciprocal.h"
#include "ComputeBounds.h"

#include "qjit/KernelSpec.h"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace qjit::plan {

enum class KernelFamily : uint8_t {
#define QJIT_KERNEL_FAMILY(Id, name, op, takes, example) Id,
#include "KernelFamilies.def"
};

inline constexpr size_t kKernelFamilyCount = 0
#define QJIT_KERNEL_FAMILY(Id, name, op, takes, example) +1
#include "KernelFamilies.def"
    ;

std::string_view kernelFamilyName(KernelFamily family);
KernelOp kernelFamilyOp(KernelFamily family);
/// The family's example type (with kernelFamilyOp, baked parameters).
std::string_view kernelFamilyExample(KernelFamily family);
/// The specs a family takes, in words (the table's last column).
std::string_view kernelFamilyTakes(KernelFamily family);
/// The families whose arithmetic needs more than f32 (f64 lanes, or sums
/// wider than 32 bits).
bool kernelFamilyIsWide(KernelFamily family);
/// The family of `spec`'s kernel.
KernelFamily kernelFamily(const KernelSpec &spec);

/// How qcast forms u = x / s (docs/semantics.md, 2).
enum class Scaling : uint8_t {
  Divide,          ///< IEEE division (see KernelPlan::checked).
  ExactReciprocal, ///< x · (1/s), equal to x / s (ExactReciprocal.h).
  Reciprocal,      ///< x · fl(1/s): the `reciprocal` knob.
};
std::string_view scalingName(Scaling scaling);

struct KernelPlan {
  KernelFamily family = KernelFamily::Quantize;
  /// QCast only.
  Scaling scaling = Scaling::Divide;
  /// Divide: the checked reciprocal a generator may use instead.
  std::optional<CheckedReciprocalPlan> checked;
  /// QCast: the storage bounds in the compute type.
  ComputeBound low, high;
  /// Quantile qcast: the search compares x with thresholds moved to the
  /// input (QuantileInputThresholds.h), no division.
  bool searchesInput = false;
  /// 8-bit qcast: the bracket in 16.16 fixed point applies
  /// (FixedPointBracket.h; asmjit's AVX-512 kernels take it), and lanes
  /// whose low 16 bits are below this fail.
  uint32_t fixedPointFailBelow = 0;
  /// Runtime parameters: each run derives its reciprocal and range check
  /// once, which costs about a division, so the checked reciprocal pays
  /// only where runs are long (per tensor, or static runs of at least
  /// kCheckedRunElements broadcast elements).
  bool runtimeRunsAreLong = false;
  /// Calls writing at least this many bytes stream their stores (x86),
  /// and prefetch their input this far ahead (asmjit) unless every loop
  /// does (loopPrefetchBytes).
  int64_t streamingBytes = 0;
  int32_t streamingPrefetchBytes = 0;
  /// Every loop prefetches its input this far ahead into L1 (asmjit x86;
  /// 0: none): qcast kInputPrefetchBytes, and a dynamic qcast whose groups
  /// are runs the next chunk, which the range pass then reads from L1.
  int32_t loopPrefetchBytes = 0;
  /// Dynamic qcast (docs/semantics.md 11): the group ranges, then their
  /// parameters, then the quantizing pass the fields above describe.
  DynamicScheme dynamic = DynamicScheme::None;
  DynamicRule dynamicRule = DynamicRule::Default;
  ScaleRounding scaleRounding = ScaleRounding::Floor; ///< Mx only.
  /// Dynamic: one group (per tensor), or dynamicGroupRun (LayoutPeriod.h),
  /// the groups as runs.
  bool dynamicPerTensor = false;
  int64_t dynamicGroupRun = 0;
};

KernelPlan planKernel(const KernelSpec &spec);

/// KernelPlan::loopPrefetchBytes alone, for generators that need no more
/// of the plan.
int32_t loopPrefetchBytes(const KernelSpec &spec);

/// "key: value" lines, one decision each.
std::string describeKernelPlan(const KernelPlan &plan);

} // namespace qjit::plan

#endif
