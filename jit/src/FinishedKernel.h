//===- FinishedKernel.h - Where every JIT'd kernel passes -------*- C++ -*-===//
//
// Like oneDNN's jit_generator::register_jit_code: each backend hands every
// kernel it finishes to finishKernel() exactly once. That single place logs
// it (logger "qjit.jit", debug: name, family, backend, ISA, bytes,
// microseconds), and, when QJIT_DUMP_DIR is set, writes the raw code bytes
// to $QJIT_DUMP_DIR/<kernel name>.<backend>.bin for offline disassembly,
// and, when QJIT_PERF_MAP=1, appends "<start> <size>
// qjit:<name>:<family>:<backend>" to /tmp/perf-<pid>.map so `perf report`
// names the kernels.
//
//===----------------------------------------------------------------------===//
#ifndef QJIT_JIT_FINISHEDKERNEL_H
#define QJIT_JIT_FINISHEDKERNEL_H

#include "qjit/internal/Backend.h"

#include <cstdint>

namespace qjit::detail {

void finishKernel(const KernelSpec &spec, const CompiledCode &code,
                  uint64_t compileNanoseconds);

} // namespace qjit::detail

#endif
