//===- KernelPlan.cpp - What qjit generates for a spec, and why -----------===//
#include "KernelPlan.h"

#include "ExactReciprocal.h"
#include "FixedPointBracket.h"
#include "LayoutPeriod.h"
#include "PlanLimits.h"
#include "QuantileInputThresholds.h"

#include "qjit/internal/DynamicParameters.h"

#include <cstdio>

namespace qjit::plan {

namespace {

struct FamilyRow {
  std::string_view name;
  KernelOp op;
  std::string_view takes;
  std::string_view example;
};

constexpr FamilyRow kFamilies[] = {
#define QJIT_KERNEL_FAMILY(Id, name, op, takes, example)                       \
  {name, KernelOp::op, takes, example},
#include "KernelFamilies.def"
};

const FamilyRow &row(KernelFamily family) {
  return kFamilies[static_cast<size_t>(family)];
}

/// Integer qcast that f32 arithmetic cannot make exact: the wide families.
bool integerQuantizeIsWide(const KernelSpec &spec) {
  if (spec.compute == ValueType::F64 || spec.storage.bits > 24)
    return true;
  if (spec.knobs.zeroPoint != ZeroPointOrder::AfterRounding)
    return false;
  // f32 adds fl(z) after rounding: exact only for |z| <= 2^24, as zero
  // points within storage of up to 24 bits are (a dynamic qcast chooses
  // them there).
  if (spec.params.runtime)
    return !runtimeZeroPointsInStorage(spec);
  constexpr int64_t kExactInF32 = int64_t(1) << 24;
  for (int64_t zero : spec.params.zeroPoints)
    if (zero < -kExactInF32 || zero > kExactInF32)
      return true;
  return false;
}

} // namespace

std::string_view kernelFamilyName(KernelFamily family) {
  return row(family).name;
}

KernelOp kernelFamilyOp(KernelFamily family) { return row(family).op; }

std::string_view kernelFamilyExample(KernelFamily family) {
  return row(family).example;
}

std::string_view kernelFamilyTakes(KernelFamily family) {
  return row(family).takes;
}

bool kernelFamilyIsWide(KernelFamily family) {
  switch (family) {
  case KernelFamily::QuantizeWide:
  case KernelFamily::QuantizeCompactWide:
  case KernelFamily::DequantizeWide:
  case KernelFamily::DequantizeCompactWide:
    return true;
  default:
    return false;
  }
}

KernelFamily kernelFamily(const KernelSpec &spec) {
  if (spec.op == KernelOp::SCast)
    return KernelFamily::StorageCast;
  bool quantize = spec.op == KernelOp::QCast;
  bool f64 = spec.compute == ValueType::F64;
  if (spec.storage.kind == StorageType::Kind::Integer) {
    if (quantize)
      return integerQuantizeIsWide(spec) ? KernelFamily::QuantizeWide
                                         : KernelFamily::Quantize;
    return f64 ? KernelFamily::DequantizeWide : KernelFamily::Dequantize;
  }
  // Float and quantile storage: the codecs of the compact families.
  if (f64)
    return quantize ? KernelFamily::QuantizeCompactWide
                    : KernelFamily::DequantizeCompactWide;
  if (spec.storage.kind == StorageType::Kind::Float)
    return quantize ? KernelFamily::QuantizeFloat
                    : KernelFamily::DequantizeFloat;
  return quantize ? KernelFamily::QuantizeQuantile
                  : KernelFamily::DequantizeQuantile;
}

std::string_view scalingName(Scaling scaling) {
  switch (scaling) {
  case Scaling::Divide:
    return "divide";
  case Scaling::ExactReciprocal:
    return "exact-reciprocal";
  case Scaling::Reciprocal:
    return "reciprocal";
  }
  return "?";
}

int32_t loopPrefetchBytes(const KernelSpec &spec) {
  if (spec.op != KernelOp::QCast)
    return 0;
  if (spec.params.dynamic != DynamicScheme::None &&
      dynamicGroupRun(spec.layout) != 0)
    return static_cast<int32_t>(kDynamicChunkBytes);
  return kInputPrefetchBytes;
}

KernelPlan planKernel(const KernelSpec &spec) {
  KernelPlan plan;
  plan.family = kernelFamily(spec);
  plan.streamingBytes = kStreamingOutputBytes;
  plan.streamingPrefetchBytes = kInputPrefetchBytes;
  plan.loopPrefetchBytes = loopPrefetchBytes(spec);
  plan.dynamic = spec.params.dynamic;
  plan.dynamicRule = spec.params.dynamicRule;
  if (plan.dynamic != DynamicScheme::None) {
    plan.dynamicPerTensor = spec.layout.kind == LayoutSpec::Kind::PerTensor;
    plan.dynamicGroupRun = dynamicGroupRun(spec.layout);
  }
  plan.scaleRounding = spec.params.scaleRounding;
  if (spec.op != KernelOp::QCast)
    return plan;
  if (spec.knobs.scaleOp == ScaleOp::Reciprocal)
    plan.scaling = Scaling::Reciprocal;
  else if (divisionIsMultiplication(spec))
    plan.scaling = Scaling::ExactReciprocal;
  else
    plan.checked = planCheckedReciprocal(spec);
  const std::vector<PeriodDim> dims = periodDims(spec.layout);
  plan.runtimeRunsAreLong =
      spec.params.runtime &&
      (dims.empty() ||
       (!dims.back().dynamic() && dims.back().block >= kCheckedRunElements));
  plan.low = boundInCompute(spec.storage.min, BoundSide::Low, spec.compute);
  plan.high = boundInCompute(spec.storage.max, BoundSide::High, spec.compute);
  plan.searchesInput = spec.storage.kind == StorageType::Kind::Quantile &&
                       quantileThresholdsMoveToInput(spec);
  if (spec.storage.kind == StorageType::Kind::Integer)
    if (std::optional<FixedPointBracketPlan> fixed =
            planFixedPointBracket(spec))
      plan.fixedPointFailBelow = fixed->failBelow;
  return plan;
}

namespace {

std::string describeDynamicGroups(const KernelPlan &plan) {
  std::string chunked =
      "; asmjit (a call of one period) ranges, chooses and quantizes " +
      std::to_string(kDynamicChunkBytes >> 10) +
      " KiB of input at a time, prefetching the next " +
      std::to_string(plan.loopPrefetchBytes >> 10) + " KiB";
  std::string batched = " (short runs a vector's lanes at once)";
  std::string llvm = ", llvm ranges them all first";
  if (plan.dynamicGroupRun == LayoutSpec::kDynamic)
    return "rows of the call's inner extent" + chunked + llvm;
  if (plan.dynamicGroupRun > 0)
    return "runs of " + std::to_string(plan.dynamicGroupRun) +
           " consecutive elements" + chunked +
           (plan.dynamicGroupRun < kCheckedRunElements ? batched : "") + llvm;
  if (plan.dynamicPerTensor)
    return "the tensor: one pass for its range, one to quantize";
  return "not runs of consecutive elements (blocks across rows): one pass "
         "for every range, one to quantize (llvm; asmjit makes none)";
}

} // namespace

std::string describeKernelPlan(const KernelPlan &plan) {
  std::string text;
  auto line = [&](std::string_view key, const std::string &value) {
    text += std::string(key) + ": " + value + "\n";
  };
  auto number = [](double value) {
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%.9g", value);
    return std::string(buffer);
  };
  line("family", std::string(kernelFamilyName(plan.family)) + " (" +
                     std::string(kernelFamilyTakes(plan.family)) + ")");
  if (plan.dynamic != DynamicScheme::None)
    line("parameters",
         "from the data, " + std::string(dynamicSchemeName(plan.dynamic)) +
             " (" +
             (plan.dynamic == DynamicScheme::Mx
                  ? std::string(scaleRoundingName(plan.scaleRounding)) +
                        " scale rounding"
                  : std::string(dynamicRuleName(plan.dynamicRule)) + " rule") +
             "): each group's range, then its scale and zero point, "
             "then the quantizing pass below");
  if (plan.dynamic != DynamicScheme::None)
    line("groups", describeDynamicGroups(plan));
  if (row(plan.family).op == KernelOp::QCast) {
    line("scaling", std::string(scalingName(plan.scaling)));
    if (plan.checked)
      line("checked reciprocal",
           "allowed where the generator has it (limit " +
               number(plan.checked->limit) + ", threshold " +
               number(plan.checked->threshold) +
               (plan.checked->bracket ? "; bracket where FMA)" : ")"));
    else if (plan.scaling == Scaling::Divide)
      line("checked reciprocal", "no (the proof does not cover the spec)");
    if (plan.checked && plan.runtimeRunsAreLong)
      line("runtime parameters",
           "checked once per run, runs being long (llvm)");
    line("bounds in compute", "[" + number(plan.low.value) +
                                  (plan.low.exact ? "" : " (inside)") + ", " +
                                  number(plan.high.value) +
                                  (plan.high.exact ? "" : " (inside)") + "]");
  }
  if (plan.fixedPointFailBelow)
    line("fixed-point bracket",
         "where the generator has it (AVX-512 asmjit; lanes fail below " +
             std::to_string(plan.fixedPointFailBelow) + "/65536)");
  if (plan.searchesInput)
    line("quantile search", "input-side thresholds (no division)");
  if (plan.loopPrefetchBytes)
    line("input prefetch",
         std::string(plan.dynamic == DynamicScheme::None
                         ? "every loop, "
                         : "every loop of the quantizing pass, ") +
             std::to_string(plan.loopPrefetchBytes >> 10) +
             " KiB ahead (asmjit x86)");
  std::string prefetch =
      plan.loopPrefetchBytes
          ? ""
          : "; asmjit prefetches their input " +
                std::to_string(plan.streamingPrefetchBytes >> 10) +
                " KiB ahead";
  line("streaming stores", "calls writing at least " +
                               std::to_string(plan.streamingBytes >> 20) +
                               " MiB (x86" + prefetch + ")");
  return text;
}

} // namespace qjit::plan
