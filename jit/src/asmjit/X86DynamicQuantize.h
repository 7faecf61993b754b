//===- X86DynamicQuantize.h - asmjit's dynamic qcast ------------*- C++ -*-===//
//
// A dynamic qcast (docs/semantics.md 11) as XNNPACK builds an operator
// from microkernels: two JIT'd passes and, between them, the parameter
// choice of qjit/internal/DynamicParameters.h itself, called once per
// group. The kernel's entry is a stub that passes the passes (and the
// spec) to runDynamicQuantize. Groups are the tensor, or runs of at least
// plan::kCheckedRunElements elements, or shorter runs of whole vectors of
// f32 values (blocks of 32, short rows), one group each, whose ranges the
// range pass takes a vector's lanes of runs at a time
// (X86RangeBatchGenerator.h); where each run of the call is a group, an
// absmax batch goes on to its runs' parameters in the same code. Scales in a
// format other than the values' (f32, f16, bf16) are written rounded once (mx's
// E8M0 bytes exactly), and the quantize pass reads them as written (ggml's
// rule: the unrounded ones). When each group is one run (a call of one period),
// the driver takes the passes in turn over chunks of about 16 KiB of input, so
// the quantize pass reads each chunk from L1.
//
//===----------------------------------------------------------------------===//
#ifndef QJIT_JIT_ASMJIT_X86DYNAMICQUANTIZE_H
#define QJIT_JIT_ASMJIT_X86DYNAMICQUANTIZE_H

#include "X86Isa.h"
#include "X86RangeBatchGenerator.h"
#include "X86RangeGenerator.h"

#include "qjit/Error.h"
#include "qjit/KernelSpec.h"

#include <asmjit/core.h>

namespace qjit::asmjit_backend {

/// What the entry stub hands the driver: the dynamic spec, the layout's
/// run length (plan::dynamicGroupRun: 0 per tensor, LayoutSpec::kDynamic
/// for a dynamic row) and
/// the addresses of its passes, set once the code is mapped (`batches`
/// only for runs ranged in batches of `batchRuns`).
struct DynamicQuantizeParts {
  KernelSpec spec;
  int64_t runLength = 0;
  RangeRunsFn range = nullptr;
  RangeBatchesFn batches = nullptr;
  /// Where each run of a call is a group of its own, `batches` carried on
  /// to the parameters (null unless x86ChoosesInBatches).
  ChooseBatchesFn chooseBatches = nullptr;
  size_t batchRuns = 0;
  ParamKernelFn quantize = nullptr;
};

/// Ok when asmjit generates `spec`'s dynamic qcast at `isa`: per tensor,
/// per axis, or rows of blocks (runs of one group each, plan::
/// consecutiveGroupRun), the runs static and long (at least 256) or whole
/// vectors of f32 values, or one dynamic row per group; and a quantize pass
/// checkX86Support accepts. Otherwise Unsupported, naming what is missing.
Status checkX86DynamicSupport(const KernelSpec &spec, const X86Isa &isa);

/// Where the passes start in the code (offsets from its base); `batches`
/// is bound only when the runs are ranged in batches, `chooseBatches` when
/// they are chosen in batches too.
struct X86DynamicLabels {
  asmjit::Label range;
  asmjit::Label batches;
  asmjit::Label chooseBatches;
  asmjit::Label quantize;
};

/// Checks `spec`, then emits the entry stub (passing `parts`, which may be
/// null for a listing), the range pass and the quantize pass into `code`.
Status assembleX86DynamicKernel(asmjit::CodeHolder &code, const X86Isa &isa,
                                const KernelSpec &spec,
                                const DynamicQuantizeParts *parts,
                                X86DynamicLabels &labels);

} // namespace qjit::asmjit_backend

#endif // QJIT_JIT_ASMJIT_X86DYNAMICQUANTIZE_H
