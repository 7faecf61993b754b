//===- X86QuantizeGenerator.cpp - qcast: expressed → stored ---------------===//
//
// Decides an f32 qcast's main-loop form (X86QuantizeForms.h) and emits it
// through that form's body. (Storage wider than 24 bits, f64 values and
// zero points f32 cannot add exactly after rounding take X86WideGenerators
// instead: x86NeedsWideLanes.)
//
//===----------------------------------------------------------------------===//
#include "X86FixedBracketBody.h"
#include "X86FloatStorage.h"
#include "X86Generators.h"
#include "X86QuantileStorage.h"
#include "X86QuantizeBody.h"
#include "X86QuantizeForms.h"

#include "plan/CheckedReciprocal.h"
#include "plan/MarksteinDivision.h"

#include <algorithm>
#include <utility>
#include <vector>

namespace qjit::asmjit_backend {

namespace {

/// Integer storage: the plan's checked reciprocal (KernelPlan::checked,
/// where the scaling divides) serves 8-bit containers, on AVX2 checked or
/// bracketed, on AVX-512 bracketed only.
X86QuantizeForm integerForm(const KernelSpec &spec, const X86Isa &isa,
                            const X86Parameters &params) {
  X86QuantizeForm form;
  if (spec.storage.containerBytes() != 1 ||
      params.scaleInstruction() != x86::Inst::kIdVdivps)
    return form;
  // planKernel would plan the fixed-point bracket too: this is its
  // checked reciprocal alone, for the compile time.
  const std::optional<plan::CheckedReciprocalPlan> checked =
      plan::planCheckedReciprocal(spec);
  if (!checked)
    return form;
  // Runtime parameters after rounding: the limits follow each load of the
  // parameters, which per-axis groups do mid-loop.
  if (spec.params.runtime &&
      spec.knobs.zeroPoint == ZeroPointOrder::AfterRounding &&
      spec.layout.kind != LayoutSpec::Kind::PerTensor)
    return form;
  // z ± m live in two registers for the whole call: one zero point.
  const std::vector<int64_t> &zeros = spec.params.zeroPoints;
  bool bracketed = checked->bracket && !spec.storage.packed &&
                   !params.perElement() &&
                   std::all_of(zeros.begin(), zeros.end(),
                               [&](int64_t z) { return z == zeros.front(); });
  if (isa.avx512() && !bracketed)
    return form; // AVX-512 has the bracketed main loop only.
  form.loop = bracketed ? X86QuantizeLoop::BracketedReciprocal
                        : X86QuantizeLoop::CheckedReciprocal;
  form.checked = checked;
  return form;
}

/// Float storage: Markstein's division in half the vectors needs one baked
/// scale s in [2^-32, 1] (f32, per tensor, divided); the clamped input
/// also saturation (X86FloatEncoder::saturatingQuotient), zero points 0
/// and unpacked codes.
X86QuantizeForm floatForm(const KernelSpec &spec, const X86Isa &isa,
                          const X86Parameters &params) {
  X86QuantizeForm form;
  form.loop = X86QuantizeLoop::FloatEncoder;
  if (spec.params.runtime || spec.layout.kind != LayoutSpec::Kind::PerTensor ||
      spec.expressed != ValueType::F32 ||
      params.scaleInstruction() != x86::Inst::kIdVdivps)
    return form;
  auto s = static_cast<float>(bakedScale(spec, 0));
  if (!plan::marksteinScaleInRange(plan::MarksteinForm::OneCorrection, s))
    return form;
  form.marksteinReciprocal = 1.0f / s; // f32 division: fl(1/s).
  std::optional<double> top = X86FloatEncoder(spec, isa).saturatingQuotient();
  if (!top || !params.zeroPointsAreZero() || spec.storage.packed)
    return form;
  form.loop = X86QuantizeLoop::ClampedFloatEncoder;
  form.inputBound = static_cast<float>(*top * s); // RN of an exact product.
  return form;
}

} // namespace

X86QuantizeForm x86QuantizeForm(const KernelSpec &spec, const X86Isa &isa,
                                const X86Parameters &params) {
  switch (spec.storage.kind) {
  case StorageType::Kind::Quantile: {
    X86QuantizeForm form;
    form.loop = !isa.avx512() && x86EncodesPackedTable(spec)
                    ? X86QuantizeLoop::PackedTableSearch
                    : X86QuantizeLoop::QuantileSearch;
    return form;
  }
  case StorageType::Kind::Float:
    return floatForm(spec, isa, params);
  case StorageType::Kind::Integer:
    break;
  }
  return integerForm(spec, isa, params);
}

std::string describeX86QuantizeForm(const X86QuantizeForm &form) {
  std::string markstein =
      form.marksteinReciprocal
          ? ", Markstein's division in half the vectors instead of vdivps"
          : "";
  switch (form.loop) {
  case X86QuantizeLoop::FixedPointBracket:
    return "fixed-point bracket (one FMA and one conversion a vector, "
           "failing vectors divide)";
  case X86QuantizeLoop::Exact:
    return "exact (the scaling, zero point, clamp and rounding a vector)";
  case X86QuantizeLoop::CheckedReciprocal:
    return "checked reciprocal (x · fl(1/s), every lane checked, four "
           "vectors divide when one fails)";
  case X86QuantizeLoop::BracketedReciprocal:
    return "bracketed reciprocal (two FMAs and two conversions a vector, "
           "failing vectors divide)";
  case X86QuantizeLoop::FloatEncoder:
    return "float encoder (the scaling, then the format's encoder" + markstein +
           ")";
  case X86QuantizeLoop::ClampedFloatEncoder:
    return "clamped float encoder (|x| clamped before the scaling" + markstein +
           ")";
  case X86QuantizeLoop::QuantileSearch:
    return "quantile search (a search of the thresholds a vector)";
  case X86QuantizeLoop::PackedTableSearch:
    return "packed table search (four vectors' search ends on packed bytes)";
  }
  return "?";
}

std::string describeX86Quantize(const KernelSpec &spec, const X86Isa &isa) {
  if (x86FixedBracketApplies(spec, isa))
    return describeX86QuantizeForm(
        {X86QuantizeLoop::FixedPointBracket, std::nullopt, std::nullopt, 0});
  X86Parameters params(spec, isa, quantizeScaleUse(spec));
  return describeX86QuantizeForm(x86QuantizeForm(spec, isa, params));
}

void generateX86Quantize(x86::Assembler &a, const X86Isa &isa,
                         const KernelSpec &spec,
                         const X86FrameOptions &options) {
  // Before the parameters: the bracket has its own.
  if (x86FixedBracketApplies(spec, isa)) {
    generateX86FixedBracket(a, isa, spec, options);
    return;
  }
  X86Parameters params(spec, isa, quantizeScaleUse(spec));
  X86QuantizeForm form = x86QuantizeForm(spec, isa, params);
  switch (form.loop) {
  case X86QuantizeLoop::FixedPointBracket:
    break; // Emitted above.
  case X86QuantizeLoop::Exact:
  case X86QuantizeLoop::CheckedReciprocal:
  case X86QuantizeLoop::BracketedReciprocal:
    generateX86IntegerQuantize(a, isa, spec, std::move(params), form, options);
    return;
  case X86QuantizeLoop::FloatEncoder:
  case X86QuantizeLoop::ClampedFloatEncoder:
    generateX86FloatQuantize(a, isa, spec, std::move(params), form, options);
    return;
  case X86QuantizeLoop::QuantileSearch:
  case X86QuantizeLoop::PackedTableSearch:
    generateX86QuantileQuantize(a, isa, spec, std::move(params), form, options);
    return;
  }
}

} // namespace qjit::asmjit_backend
