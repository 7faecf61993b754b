//===- A64RunPlan.cpp - Layouts as runs of one parameter ------------------===//
#include "A64RunPlan.h"

#include "plan/LayoutPeriod.h"

#include <string>

namespace qjit::asmjit_backend {

namespace {

Status unsupportedLayout(const std::string &what) {
  return Status::error(ErrorCode::Unsupported,
                       "asmjit backend: AArch64 " + what +
                           " is not generated (the llvm backend covers it)");
}

} // namespace

Expected<RunPlan> planRuns(const LayoutSpec &layout) {
  std::vector<plan::PeriodDim> dims = plan::periodDims(layout);
  RunPlan runPlan;
  // At most one dynamic dim before the innermost one (dims[0] is static).
  for (size_t d = 1; d + 1 < dims.size(); ++d) {
    if (!dims[d].dynamic())
      continue;
    if (runPlan.repeatExtent)
      return unsupportedLayout(
          "blocked layouts with two dynamic extents before "
          "the innermost dim");
    runPlan.repeatExtent = dims[d].extentIndex;
    dims[d] = {1, 1};
  }
  plan::PeriodDim inner = dims.back();
  if (inner.dynamic()) {
    runPlan.lengthExtent = inner.extentIndex;
    dims.back() = {1, 1};
  } else {
    runPlan.length = inner.block;
    dims.back() = {inner.grid(), 1};
  }
  if (runPlan.repeatExtent) {
    runPlan.repeatedRuns = 1;
    for (size_t d = *runPlan.repeatExtent + 2; d < dims.size(); ++d)
      runPlan.repeatedRuns *= static_cast<size_t>(dims[d].extent);
  }
  // Row-major walk over the runs of one period (the innermost dim now
  // counts runs); the parameter is the row-major grid index.
  size_t runs = 1;
  for (const plan::PeriodDim &dim : dims)
    runs *= static_cast<size_t>(dim.extent);
  if (runs > kMaxRunTableEntries)
    return unsupportedLayout("layouts of more than 32768 runs per period");
  for (int64_t index : plan::periodParameterIndices(dims))
    runPlan.parameters.push_back(static_cast<uint32_t>(index));
  return runPlan;
}

} // namespace qjit::asmjit_backend
