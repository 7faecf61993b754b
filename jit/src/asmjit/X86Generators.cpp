//===- X86Generators.cpp - What the x86 generators cover ------------------===//
#include "X86Generators.h"

#include "AsmjitAssembly.h"
#include "X86Conversions.h"
#include "X86DynamicQuantize.h"
#include "X86FixedBracketBody.h"
#include "X86FloatStorage.h"
#include "X86PeriodicRuns.h"
#include "X86QuantileStorage.h"
#include "X86WideCompact.h"

#include "plan/KernelFits.h"
#include "plan/KernelPlan.h"

#include <algorithm>
#include <cstdint>
#include <string>

namespace qjit::asmjit_backend {

namespace {
Status unsupported(std::string what) {
  return Status::error(ErrorCode::Unsupported,
                       "asmjit backend: " + std::move(what) +
                           " is not generated yet; use the llvm backend or "
                           "the reference");
}
} // namespace

Status checkX86Support(const KernelSpec &spec, const X86Isa &isa) {
  if (isa.level() < IsaLevel::Avx2)
    return Status::error(
        ErrorCode::Unsupported,
        "asmjit backend: needs AVX2 (ISA level is " +
            std::string(isaLevelName(isa.level())) +
            "); the runtime should fall back to the llvm backend or the "
            "reference");
  if (spec.params.dynamic != DynamicScheme::None)
    return checkX86DynamicSupport(spec, isa);
  if (spec.compute == ValueType::F64 && spec.expressed != ValueType::F64)
    return unsupported("f64 arithmetic on f32 values (the pytorch preset's "
                       "per-axis dcast)");
  if (x86NeedsWideLanes(spec) &&
      spec.storage.kind != StorageType::Kind::Integer) {
    if (!x86WideSupportsCompact(spec.storage))
      return unsupported("f64 expressed values with quantile tables of more "
                         "than 65536 entries");
    return Status::ok();
  }
  // A packed scast copies bytes, whatever the stored values mean.
  bool packedCopy = spec.op == KernelOp::SCast && spec.storage.packed;
  if (!packedCopy && !x86SupportsStorage(spec.storage) &&
      !x86SupportsQuantile(spec.storage) && !x86DecodesPackedTable(spec) &&
      !x86EncodesPackedFloat(spec))
    return unsupported("storage other than integers (unpacked, or packed "
                       "1/2/4 bits), float storage and quantile tables of "
                       "at most 65536 entries (packed or not)");
  return Status::ok();
}

bool x86FitConditionHolds(plan::FitCondition condition, const KernelSpec &spec,
                          const X86Isa &isa) {
  const StorageSpec &storage = spec.storage;
  switch (condition) {
  case plan::FitCondition::FloatCodes:
    return storage.kind == StorageType::Kind::Float;
  case plan::FitCondition::ShortRuntimeRuns:
    return hasShortRuntimeRuns(spec, x86KernelIsa(spec, isa).vectorBytes() / 4);
  case plan::FitCondition::PackedLowBitCodes:
    return storage.packed && storage.kind == StorageType::Kind::Integer &&
           storage.bits <= 2;
  case plan::FitCondition::PackedFloatCodes:
    return storage.packed && storage.kind == StorageType::Kind::Float;
  case plan::FitCondition::PackedTableSearchPerVector:
    return x86SearchesPackedTablePerVector(spec) &&
           !x86KernelIsa(spec, isa).avx512();
  }
  return false;
}

const plan::KernelFitRow *x86FitRow(const KernelSpec &spec, const X86Isa &isa) {
  return plan::matchingFitRow(plan::FitBackend::Asmjit, isa.level(), spec,
                              [&](plan::FitCondition condition) {
                                return x86FitConditionHolds(condition, spec,
                                                            isa);
                              });
}

KernelFit x86KernelFit(const KernelSpec &spec, const X86Isa &isa) {
  if (!checkX86Support(spec, isa))
    return KernelFit::Unsupported;
  const plan::KernelFitRow *row = x86FitRow(spec, isa);
  return row ? row->fit : KernelFit::Specialized;
}

X86Isa x86KernelIsa(const KernelSpec &spec, const X86Isa &isa) {
  // Packed codes: AVX-512 only in the fixed-point bracket's qcast, in
  // the float encoder's and the quantile search's (f32 lanes), and in the
  // packed 4-bit tables' lookups, the only storage other than integers
  // that has AVX-512.
  const plan::KernelFamily family = plan::kernelFamily(spec);
  bool compactEvex = (family == plan::KernelFamily::QuantizeFloat &&
                      (!spec.storage.packed || x86EncodesPackedFloat(spec))) ||
                     (family == plan::KernelFamily::QuantizeQuantile &&
                      x86SearchesQuantileOnZmm(spec)) ||
                     x86LooksUpNibblesOnZmm(spec);
  bool avx2Only =
      (spec.storage.packed && !compactEvex &&
       !x86FixedBracketApplies(spec, isa)) ||
      (spec.storage.kind != StorageType::Kind::Integer && !compactEvex) ||
      x86NeedsWideLanes(spec) ||
      (spec.op == KernelOp::DCast && spec.storage.bits > 24);
  return avx2Only ? X86Isa(std::min(isa.level(), IsaLevel::Avx2)) : isa;
}

void generateX86Kernel(x86::Assembler &a, const X86Isa &level,
                       const KernelSpec &spec, const X86FrameOptions &options) {
  X86Isa isa = x86KernelIsa(spec, level);
  switch (plan::kernelFamily(spec)) {
  case plan::KernelFamily::Quantize:
  case plan::KernelFamily::QuantizeFloat:
  case plan::KernelFamily::QuantizeQuantile:
    generateX86Quantize(a, isa, spec, options);
    return;
  case plan::KernelFamily::Dequantize:
  case plan::KernelFamily::DequantizeFloat:
  case plan::KernelFamily::DequantizeQuantile:
    generateX86Dequantize(a, isa, spec);
    return;
  case plan::KernelFamily::QuantizeWide:
  case plan::KernelFamily::DequantizeWide:
  case plan::KernelFamily::QuantizeCompactWide:
  case plan::KernelFamily::DequantizeCompactWide:
    generateX86Wide(a, spec);
    return;
  case plan::KernelFamily::StorageCast:
    generateX86StorageCast(a, isa, spec);
    return;
  }
}

Status assembleX86Kernel(asmjit::CodeHolder &code, const X86Isa &isa,
                         const KernelSpec &spec) {
  if (spec.params.dynamic != DynamicScheme::None) {
    X86DynamicLabels labels;
    return assembleX86DynamicKernel(code, isa, spec, nullptr, labels);
  }
  if (Status status = checkX86Support(spec, isa); !status)
    return status;
  AssemblyErrors errors;
  code.setErrorHandler(&errors);
  {
    x86::Assembler assembler(&code);
    generateX86Kernel(assembler, isa, spec, {plan::loopPrefetchBytes(spec)});
  }
  // `errors` dies here; CodeHolder's own calls report by return value.
  code.resetErrorHandler();
  if (!errors.ok())
    return errors.status(spec);
  return Status::ok();
}

} // namespace qjit::asmjit_backend
