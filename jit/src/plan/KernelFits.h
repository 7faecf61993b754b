//===- KernelFits.h - The fit table: where a backend is slower --*- C++ -*-===//
//
// The rows of KernelFits.def as values. Backend::fit follows fitFromTable
// for the specs its generators support; tests instantiate the rows'
// examples; kernelFamilyTable() prints families and fits for
// docs/runtime.md.
//
//===----------------------------------------------------------------------===//
#ifndef QJIT_JIT_PLAN_KERNELFITS_H
#define QJIT_JIT_PLAN_KERNELFITS_H

#include "KernelPlan.h"

#include "qjit/Isa.h"
#include "qjit/KernelSpec.h"
#include "qjit/internal/KernelFit.h"

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace qjit::plan {

enum class FitCondition : uint8_t {
#define QJIT_FIT_CONDITION(Id, what) Id,
#include "KernelFits.def"
};
std::string_view fitConditionName(FitCondition condition); ///< Its id.
std::string_view fitConditionText(FitCondition condition); ///< What holds.

enum class FitBackend : uint8_t { Asmjit, Llvm };
std::string_view fitBackendName(FitBackend backend); ///< "asmjit", "llvm".

struct KernelFitRow {
  FitBackend backend;
  IsaLevel level;                     ///< The lowest level the row applies at.
  std::optional<KernelFamily> family; ///< Unset: any family.
  FitCondition condition;
  KernelFit fit;
  std::string_view evidence; ///< The measurement, with machine and date.
  /// A spec meeting the condition at max(level, AVX2).
  std::string_view exampleType;
  KernelOp exampleOp;
  bool exampleRuntimeParameters;
};

std::span<const KernelFitRow> kernelFitRows();

/// The first row of `backend` at `level` for `spec`'s family whose
/// condition holds (`holds(FitCondition)`, evaluated by the backend), or
/// null.
template <typename Holds>
const KernelFitRow *matchingFitRow(FitBackend backend, IsaLevel level,
                                   const KernelSpec &spec, Holds &&holds) {
  KernelFamily family = kernelFamily(spec);
  for (const KernelFitRow &row : kernelFitRows())
    if (row.backend == backend && row.level <= level &&
        (!row.family || *row.family == family) && holds(row.condition))
      return &row;
  return nullptr;
}

/// Backend::fit of a spec the backend supports: the matching row's fit,
/// Specialized when none matches.
template <typename Holds>
KernelFit fitFromTable(FitBackend backend, IsaLevel level,
                       const KernelSpec &spec, Holds &&holds) {
  const KernelFitRow *row = matchingFitRow(backend, level, spec, holds);
  return row ? row->fit : KernelFit::Specialized;
}

/// "condition (evidence)" of a row, for `qjit spec --plan` and the log.
std::string describeFitRow(const KernelFitRow &row);

/// The family table with each backend's fit rows, as Markdown
/// (docs/runtime.md; `qjit spec --families`).
std::string kernelFamilyTable();

} // namespace qjit::plan

#endif
