//===- X86DynamicQuantize.cpp - asmjit's dynamic qcast --------------------===//
#include "X86DynamicQuantize.h"

#include "AsmjitAssembly.h"
#include "X86Generators.h"

#include "plan/KernelPlan.h"
#include "plan/LayoutPeriod.h"
#include "plan/PlanLimits.h"

#include "qjit/internal/DynamicKernelAbi.h"
#include "qjit/internal/DynamicParameters.h"
#include "qjit/internal/HostFloat.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>

namespace qjit::asmjit_backend {

namespace {

/// Groups [first, first + count): parameters from their ranges, the scales
/// written in the spec's scale format, each rounded once (docs/semantics.md
/// 11.7: the codes use the scale written, but under ggml's rule, 11.9,
/// the unrounded one). Returns the scales the quantize pass reads (in the
/// format quantizeWithChosenParameters gives it).
template <typename C>
const void *chooseGroups(const KernelSpec &spec,
                         const DynamicKernelBuffers *buffers, size_t first,
                         size_t count) {
  const C *lo = static_cast<const C *>(buffers->low) + first;
  const C *hi = static_cast<const C *>(buffers->high) + first;
  int64_t *zeroPoints = buffers->zeroPoints + first;
  if (spec.params.scaleFormat == ScaleFormat::Expressed) {
    C *scales = static_cast<C *>(buffers->scales) + first;
    chooseDynamicParameters(spec, lo, hi, count, scales, zeroPoints);
    return scales;
  }
  auto *written =
      static_cast<char *>(buffers->scales) + first * runtimeScaleBytes(spec);
  if constexpr (std::is_same_v<C, float>) {
    if (spec.params.dynamic == DynamicScheme::Mx) {
      // E8M0 scales, each 2^E exactly (11.8): the byte E + 127.
      chooseMxScaleBytes(spec, lo, hi, count,
                         reinterpret_cast<uint8_t *>(written), zeroPoints);
      return written;
    }
  }
  // The ranges are spent: each group's scale replaces its low end.
  C *chosen = static_cast<C *>(buffers->low) + first;
  chooseDynamicParameters(spec, lo, hi, count, chosen, zeroPoints);
  ValueType rounding = scaleValueType(spec).value_or(spec.expressed);
  for (size_t k = 0; k < count; ++k) {
    double scale = roundToValueType(static_cast<double>(chosen[k]), rounding);
    switch (spec.params.scaleFormat) {
    case ScaleFormat::Expressed: // Above.
    case ScaleFormat::F32: {
      auto value = static_cast<float>(scale);
      std::memcpy(written + 4 * k, &value, 4);
      break;
    }
    case ScaleFormat::F16: {
      uint16_t bits = doubleToHalfBits(scale);
      std::memcpy(written + 2 * k, &bits, 2);
      break;
    }
    case ScaleFormat::BF16: {
      uint16_t bits = doubleToBfloat16Bits(scale);
      std::memcpy(written + 2 * k, &bits, 2);
      break;
    }
    case ScaleFormat::E8M0: // Above: only mx writes it.
      break;
    }
  }
  return quantizesWithUnroundedScale(spec) ? static_cast<const void *>(chosen)
                                           : written;
}

/// Whether a per-axis call of `runs` runs of `inner` elements is one run
/// per group, each starting on a byte of the codes: then each chunk of runs
/// is ranged, given its parameters and quantized in turn (the quantize
/// pass runs a prefix of its period, its parameters advanced, as
/// Kernel::invokeRange does), one pass over memory.
bool quantizesRunByRun(const KernelSpec &spec, size_t inner, size_t runs,
                       size_t count) {
  const StorageSpec &storage = spec.storage;
  return runs != 0 && runs == count &&
         (!storage.packed || inner * storage.bits % 8 == 0);
}

/// Runs [0, runs) of `values`, `inner` each, ranged into lo[] and hi[]:
/// in batches where the parts have them; a batch holding ±inf or NaN, and
/// the runs after the last batch, run by run.
template <typename C>
void rangeRuns(const DynamicQuantizeParts *parts, const C *values, size_t inner,
               size_t runs, C *lo, C *hi) {
  size_t done = 0;
  while (parts->batches) {
    done += parts->batches(values + done * inner, inner, runs - done, lo + done,
                           hi + done);
    if (runs - done < parts->batchRuns)
      break;
    parts->range(values + done * inner, inner, parts->batchRuns, lo + done,
                 hi + done);
    done += parts->batchRuns;
  }
  if (done < runs)
    parts->range(values + done * inner, inner, runs - done, lo + done,
                 hi + done);
}

/// Runs [0, runs) of `values`, `inner` each, one group each starting at
/// group `first`: their parameters chosen in batches where the parts
/// choose (f32 values), a batch holding ±inf or NaN, and the runs after
/// the last batch, ranged and chosen run by run. Returns the scales.
template <typename C>
const void *chooseRunGroups(const DynamicQuantizeParts *parts,
                            const DynamicKernelBuffers *buffers,
                            const C *values, size_t inner, size_t first,
                            size_t runs) {
  C *lo = static_cast<C *>(buffers->low), *hi = static_cast<C *>(buffers->high);
  if constexpr (std::is_same_v<C, float>) {
    // f32 scales, or mx's E8M0 bytes.
    const size_t scaleBytes = runtimeScaleBytes(parts->spec);
    char *scales = static_cast<char *>(buffers->scales) + first * scaleBytes;
    int64_t *zeroPoints = buffers->zeroPoints + first;
    if (parts->chooseBatches) {
      for (size_t done = 0; done < runs;) {
        done +=
            parts->chooseBatches(values + done * inner, inner, runs - done,
                                 zeroPoints + done, scales + done * scaleBytes);
        if (done == runs)
          break;
        size_t rest = std::min(parts->batchRuns, runs - done);
        std::fill_n(lo + first + done, rest, C(0));
        std::fill_n(hi + first + done, rest, C(0));
        parts->range(values + done * inner, inner, rest, lo + first + done,
                     hi + first + done);
        chooseGroups<C>(parts->spec, buffers, first + done, rest);
        done += rest;
      }
      return scales;
    }
  }
  std::fill_n(lo + first, runs, C(0));
  std::fill_n(hi + first, runs, C(0));
  rangeRuns(parts, values, inner, runs, lo + first, hi + first);
  return chooseGroups<C>(parts->spec, buffers, first, runs);
}

/// docs/semantics.md 11: every group's range (the range pass over each
/// period's runs), every group's parameters, then the quantize pass with
/// them as its runtime parameters.
template <typename C>
void runDynamicQuantize(const void *src, void *dst, size_t n,
                        const KernelParams *params,
                        const DynamicKernelBuffers *buffers,
                        const DynamicQuantizeParts *parts) {
  const KernelSpec &spec = parts->spec;
  size_t count = static_cast<size_t>(spec.layout.parameterCount());
  C *lo = static_cast<C *>(buffers->low);
  C *hi = static_cast<C *>(buffers->high);
  const C *values = static_cast<const C *>(src);
  KernelParams chosen;
  chosen.extents = params ? params->extents : nullptr;
  size_t inner = 0, runs = 0;
  if (parts->runLength != 0) {
    inner = static_cast<size_t>(parts->runLength == LayoutSpec::kDynamic
                                    ? params->extents[0]
                                    : parts->runLength);
    runs = inner == 0 ? 0 : n / inner;
  }
  if (parts->runLength != 0 && quantizesRunByRun(spec, inner, runs, count)) {
    size_t chunkRuns = std::max<size_t>(
        1, static_cast<size_t>(plan::kDynamicChunkBytes) / (inner * sizeof(C)));
    unsigned codeBits = spec.storage.packed ? spec.storage.bits
                                            : spec.storage.containerBytes() * 8;
    for (size_t r = 0; r < runs; r += chunkRuns) {
      size_t k = std::min(chunkRuns, runs - r);
      chosen.scales =
          chooseRunGroups<C>(parts, buffers, values + r * inner, inner, r, k);
      chosen.zeroPoints = buffers->zeroPoints + r;
      parts->quantize(values + r * inner,
                      static_cast<char *>(dst) + r * inner * codeBits / 8,
                      k * inner, &chosen);
    }
    return;
  }
  std::fill_n(lo, count, C(0));
  std::fill_n(hi, count, C(0));
  if (parts->runLength == 0) {
    if (n != 0)
      parts->range(src, n, 1, lo, hi);
  } else {
    for (size_t r = 0; r < runs; r += count)
      rangeRuns(parts, values + r * inner, inner, std::min(count, runs - r), lo,
                hi);
  }
  chosen.scales = chooseGroups<C>(spec, buffers, 0, count);
  chosen.zeroPoints = buffers->zeroPoints;
  parts->quantize(src, dst, n, &chosen);
}

Status unsupported(std::string what) {
  return Status::error(ErrorCode::Unsupported,
                       "asmjit backend: dynamic qcast " + std::move(what) +
                           " is not generated yet; the llvm backend and the "
                           "reference compute it");
}

} // namespace

Status checkX86DynamicSupport(const KernelSpec &spec, const X86Isa &isa) {
  int64_t runLength = plan::dynamicGroupRun(spec.layout);
  if (spec.layout.kind != LayoutSpec::Kind::PerTensor && runLength == 0)
    return unsupported("with blocks across rows or of a dynamic extent");
  // Each group's parameters are chosen on the host, one at a time: worth
  // it for long runs, or short ones whose ranges take a vector of runs.
  if (runLength > 0 && runLength < plan::kCheckedRunElements &&
      !(spec.compute == ValueType::F32 && x86RangesInBatches(isa, runLength)))
    return unsupported("with runs of " + std::to_string(runLength) +
                       " elements (short runs: f32 values in whole vectors, "
                       "or " +
                       std::to_string(plan::kCheckedRunElements) +
                       " elements or more)");
  return checkX86Support(quantizeWithChosenParameters(spec), isa);
}

Status assembleX86DynamicKernel(asmjit::CodeHolder &code, const X86Isa &isa,
                                const KernelSpec &spec,
                                const DynamicQuantizeParts *parts,
                                X86DynamicLabels &labels) {
  if (Status status = checkX86DynamicSupport(spec, isa); !status)
    return status;
  KernelSpec quantize = quantizeWithChosenParameters(spec);
  AssemblyErrors errors;
  code.setErrorHandler(&errors);
  {
    x86::Assembler a(&code);
    // The entry: a DynamicKernelFn whose sixth argument is `parts`. A
    // listing (no parts) shows both addresses as 0, so it does not depend
    // on where this process is loaded.
    auto driver = spec.compute == ValueType::F64 ? &runDynamicQuantize<double>
                                                 : &runDynamicQuantize<float>;
    a.setInlineComment("DynamicQuantizeParts *");
    a.mov(x86::r9, reinterpret_cast<uint64_t>(parts));
    a.setInlineComment("runDynamicQuantize");
    a.mov(x86::rax, parts ? reinterpret_cast<uint64_t>(driver) : 0);
    a.jmp(x86::rax);
    labels.range = a.newLabel();
    labels.quantize = a.newLabel();
    a.align(asmjit::AlignMode::kCode, 64);
    a.bind(labels.range);
    // mx reads only the largest finite magnitude too (11.8).
    bool magnitudes = spec.params.dynamic == DynamicScheme::AbsMax ||
                      spec.params.dynamic == DynamicScheme::Mx;
    generateX86RangeRuns(a, isa, spec.compute, magnitudes);
    int64_t runLength = plan::dynamicGroupRun(spec.layout);
    if (runLength > 0 && runLength < plan::kCheckedRunElements) {
      labels.batches = a.newLabel();
      a.align(asmjit::AlignMode::kCode, 64);
      a.bind(labels.batches);
      generateX86RangeBatches(a, isa, runLength, magnitudes);
      if (x86ChoosesInBatches(spec, isa, runLength)) {
        labels.chooseBatches = a.newLabel();
        a.align(asmjit::AlignMode::kCode, 64);
        a.bind(labels.chooseBatches);
        generateX86ChooseBatches(a, isa, spec, runLength);
      }
    }
    a.align(asmjit::AlignMode::kCode, 64);
    a.bind(labels.quantize);
    generateX86Kernel(a, isa, quantize, {plan::loopPrefetchBytes(spec)});
  }
  code.resetErrorHandler();
  if (!errors.ok())
    return errors.status(spec);
  return Status::ok();
}

} // namespace qjit::asmjit_backend
