//===- X86DynamicQuantize.h - asmjit's dynamic qcast ------------*- C++ -*-===//
//
// A dynamic qcast (docs/semantics.md 11) as XNNPACK builds an operator
// from microkernels: two JIT'd passes and, between them, the parameter
// choice of qjit/internal/DynamicParameters.h itself, called once per
// group. The kernel's entry is a stub that passes the passes (and the
// spec) to runDynamicQuantize. Groups are runs of at least
// plan::kCheckedRunElements elements, so the choice on the host costs
// little beside the runs' conversions. When each group is one run (a call
// of one period), the driver takes the passes in turn over chunks of about
// 16 KiB of input, so the quantize pass reads each chunk from L1.
//
//===----------------------------------------------------------------------===//
#ifndef QJIT_JIT_ASMJIT_X86DYNAMICQUANTIZE_H
#define QJIT_JIT_ASMJIT_X86DYNAMICQUANTIZE_H

#include "X86Isa.h"
#include "X86RangeGenerator.h"

#include "qjit/Error.h"
#include "qjit/KernelSpec.h"

#include <asmjit/core.h>

namespace qjit::asmjit_backend {

/// What the entry stub hands the driver: the dynamic spec and the
/// addresses of its two passes, set once the code is mapped.
struct DynamicQuantizeParts {
  KernelSpec spec;
  RangeRunsFn range = nullptr;
  ParamKernelFn quantize = nullptr;
};

/// Ok when asmjit generates `spec`'s dynamic qcast at `isa`: per-tensor or
/// per-axis layouts whose runs are long (static, at least 256), and a
/// quantize pass checkX86Support accepts. Otherwise Unsupported, naming
/// what is missing.
Status checkX86DynamicSupport(const KernelSpec &spec, const X86Isa &isa);

/// Where the passes start in the code (offsets from its base).
struct X86DynamicLabels {
  asmjit::Label range;
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
