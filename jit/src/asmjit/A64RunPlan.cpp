//===- A64RunPlan.cpp - Layouts as runs of one parameter ------------------===//
#include "A64RunPlan.h"

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
  std::vector<LayoutSpec::Dim> dims = layout.dims;
  if (layout.kind == LayoutSpec::Kind::PerAxis)
    dims = {{layout.channels, 1}, {layout.inner, layout.inner}};
  RunPlan plan;
  // At most one dynamic dim before the innermost one (dims[0] is static).
  for (size_t d = 1; d + 1 < dims.size(); ++d) {
    if (dims[d].extent != LayoutSpec::kDynamic)
      continue;
    if (plan.repeatExtent)
      return unsupportedLayout(
          "blocked layouts with two dynamic extents before "
          "the innermost dim");
    plan.repeatExtent = static_cast<unsigned>(d - 1);
    dims[d] = {1, 1};
  }
  LayoutSpec::Dim inner = dims.back();
  if (inner.extent == LayoutSpec::kDynamic) {
    plan.lengthExtent = layout.kind == LayoutSpec::Kind::PerAxis
                            ? 0u
                            : static_cast<unsigned>(dims.size() - 2);
    dims.back() = {1, 1};
  } else {
    plan.length = inner.block;
    dims.back() = {inner.extent / inner.block, 1};
  }
  if (plan.repeatExtent) {
    plan.repeatedRuns = 1;
    for (size_t d = *plan.repeatExtent + 2; d < dims.size(); ++d)
      plan.repeatedRuns *= static_cast<size_t>(dims[d].extent);
  }
  // Row-major walk over the runs of one period (the innermost dim now
  // counts runs); the parameter is the row-major grid index.
  size_t runs = 1;
  for (const LayoutSpec::Dim &dim : dims)
    runs *= static_cast<size_t>(dim.extent);
  if (runs > kMaxRunTableEntries)
    return unsupportedLayout("layouts of more than 32768 runs per period");
  for (size_t r = 0; r < runs; ++r) {
    size_t rest = r, index = 0, stride = 1;
    for (size_t d = dims.size(); d-- > 0;) {
      size_t extent = dims[d].extent, block = dims[d].block;
      index += ((rest % extent) / block) * stride;
      rest /= extent;
      stride *= extent / block;
    }
    plan.parameters.push_back(static_cast<uint32_t>(index));
  }
  return plan;
}

} // namespace qjit::asmjit_backend
