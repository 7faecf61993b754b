//===- TableCases.cpp - Benchmark cases from the kernel tables ------------===//
#include "TableCases.h"

#include "plan/KernelFits.h"

#include "qjit/TypeParser.h"

namespace qjit::bench {

namespace {

/// kTableElements rounded up to whole periods of the type's static shape
/// (per-axis and blockwise examples are tensors of one period).
int64_t elementsFor(const std::string &typeText) {
  Expected<TypeDescriptor> type = parseTypeOrError(typeText);
  int64_t period = 1;
  if (type && type->tensor)
    for (int64_t dim : type->tensor->dims)
      if (dim > 0)
        period *= dim;
  return (kTableElements + period - 1) / period * period;
}

TableCase tableCase(std::string id, std::string_view type, KernelOp op,
                    bool runtimeParameters) {
  TableCase c;
  c.id = std::move(id);
  c.request.name = c.id;
  c.request.typeText = std::string(type);
  c.request.op = op;
  c.request.lowering.runtimeParameters = runtimeParameters;
  c.request.n = elementsFor(c.request.typeText);
  return c;
}

} // namespace

std::vector<TableCase> tableCases() {
  std::vector<TableCase> cases;
  for (size_t k = 0; k < plan::kKernelFamilyCount; ++k) {
    auto family = static_cast<plan::KernelFamily>(k);
    cases.push_back(
        tableCase("family-" + std::string(plan::kernelFamilyName(family)),
                  plan::kernelFamilyExample(family),
                  plan::kernelFamilyOp(family), false));
  }
  for (const plan::KernelFitRow &row : plan::kernelFitRows())
    cases.push_back(tableCase(
        "fit-" + std::string(plan::fitBackendName(row.backend)) + "-" +
            std::string(plan::fitConditionName(row.condition)) + "-" +
            (row.family ? std::string(plan::kernelFamilyName(*row.family))
                        : std::string("any")),
        row.exampleType, row.exampleOp, row.exampleRuntimeParameters));
  return cases;
}

} // namespace qjit::bench
