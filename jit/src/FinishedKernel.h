//===- FinishedKernel.h - The choke point every JIT'd kernel passes -*- C++
//-*-===//
//
// Like oneDNN's jit_generator::register_jit_code: each backend hands every
// kernel it finishes to finishKernel() exactly once. That single place logs
// it (logger "qjit.jit", debug: name, backend, ISA, bytes, microseconds),
// counts it, and, when QJIT_DUMP_DIR is set, writes the raw code bytes to
// $QJIT_DUMP_DIR/<kernel name>.<backend>.bin for offline disassembly, and,
// when QJIT_PERF_MAP=1, appends "<start> <size> qjit:<name>:<backend>" to
// /tmp/perf-<pid>.map so `perf report` names the kernels.
//
//===----------------------------------------------------------------------===//
#ifndef QJIT_JIT_FINISHEDKERNEL_H
#define QJIT_JIT_FINISHEDKERNEL_H

#include "qjit/Backend.h"

#include <cstdint>

namespace qjit::detail {

/// Process-wide totals over every kernel any backend finished.
struct JitTotals {
  uint64_t kernels = 0;
  uint64_t codeBytes = 0;
  uint64_t compileNanoseconds = 0;
};

void finishKernel(const KernelSpec &spec, const CompiledCode &code,
                  uint64_t compileNanoseconds);
JitTotals jitTotals();

} // namespace qjit::detail

#endif
