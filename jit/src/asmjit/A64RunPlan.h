//===- A64RunPlan.h - Layouts as runs of one parameter ----------*- C++ -*-===//
//
// How the AArch64 kernels walk per-axis and blocked layouts: the elements
// of one layout period split into runs of the innermost block length that
// share one parameter, listed in a table, so the kernel loads parameters
// once per run instead of computing an index per element.
//
//===----------------------------------------------------------------------===//
#ifndef QJIT_JIT_ASMJIT_A64RUNPLAN_H
#define QJIT_JIT_ASMJIT_A64RUNPLAN_H

#include "qjit/Error.h"
#include "qjit/KernelSpec.h"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

namespace qjit::asmjit_backend {

/// Tables in the code section are addressed with `adr` (±1 MiB): run and
/// parameter tables stay below this many entries.
constexpr size_t kMaxRunTableEntries = size_t(1) << 15;

/// `parameters` lists each run's parameter index over one period; a run
/// has `length` elements, or extents[lengthExtent] when the innermost
/// extent is dynamic. A dynamic dim further out (a whole block: it adds
/// nothing to the parameter index) repeats each group of `repeatedRuns`
/// consecutive runs extents[repeatExtent] times.
struct RunPlan {
  std::vector<uint32_t> parameters;
  int64_t length = 0;
  std::optional<unsigned> lengthExtent;
  std::optional<unsigned> repeatExtent;
  size_t repeatedRuns = 0;
};

/// The runs of a per-axis or blocked layout; ErrorCode::Unsupported for
/// two dynamic dims before the innermost one or too many runs.
Expected<RunPlan> planRuns(const LayoutSpec &layout);

} // namespace qjit::asmjit_backend

#endif // QJIT_JIT_ASMJIT_A64RUNPLAN_H
