//===- KernelFits.cpp - The fit table as values ---------------------------===//
#include "KernelFits.h"

namespace qjit::plan {

namespace {

struct ConditionRow {
  std::string_view name, text;
};

constexpr ConditionRow kConditions[] = {
#define QJIT_FIT_CONDITION(Id, what) {#Id, what},
#include "KernelFits.def"
};

/// KernelFamilies.def's ids plus Any, for the table's family column.
enum class FamilyColumn : uint8_t {
  Any,
#define QJIT_KERNEL_FAMILY(Id, name, op, takes, example) Id,
#include "KernelFamilies.def"
};

constexpr std::optional<KernelFamily> familyOf(FamilyColumn column) {
  if (column == FamilyColumn::Any)
    return std::nullopt;
  return static_cast<KernelFamily>(static_cast<uint8_t>(column) - 1);
}

constexpr KernelFitRow kRows[] = {
#define QJIT_KERNEL_FIT(Backend, Level, Family, Condition, Fit, evidence,      \
                        type, op, runtime)                                     \
  {FitBackend::Backend,                                                        \
   IsaLevel::Level,                                                            \
   familyOf(FamilyColumn::Family),                                             \
   FitCondition::Condition,                                                    \
   KernelFit::Fit,                                                             \
   evidence,                                                                   \
   type,                                                                       \
   KernelOp::op,                                                               \
   runtime},
#include "KernelFits.def"
};

/// Table cells hold no `|`.
std::string cell(std::string_view text) {
  std::string out;
  for (char c : text)
    out += c == '|' ? '/' : c;
  return out;
}

} // namespace

std::string_view fitConditionName(FitCondition condition) {
  return kConditions[static_cast<size_t>(condition)].name;
}

std::string_view fitConditionText(FitCondition condition) {
  return kConditions[static_cast<size_t>(condition)].text;
}

std::string_view fitBackendName(FitBackend backend) {
  return backend == FitBackend::Asmjit ? "asmjit" : "llvm";
}

std::span<const KernelFitRow> kernelFitRows() { return kRows; }

std::string describeFitRow(const KernelFitRow &row) {
  return std::string(fitConditionText(row.condition)) + " (" +
         std::string(row.evidence) + ")";
}

std::string kernelFamilyTable() {
  constexpr FitBackend kBackends[] = {FitBackend::Llvm, FitBackend::Asmjit};
  std::string text = "| family | op | takes | example |";
  for (FitBackend backend : kBackends)
    text += " " + std::string(fitBackendName(backend)) + " fit |";
  text += "\n| --- | --- | --- | --- |";
  for (size_t k = 0; k < std::size(kBackends); ++k)
    text += " --- |";
  text += "\n";
  auto fits = [](FitBackend backend, std::optional<KernelFamily> family) {
    std::string text;
    for (const KernelFitRow &row : kRows)
      if (row.backend == backend && row.family == family)
        text += std::string(kernelFitName(row.fit)) +
                (row.level > IsaLevel::Scalar
                     ? " at " + std::string(isaLevelName(row.level))
                     : std::string()) +
                " for " + cell(fitConditionText(row.condition)) + "; ";
    if (!family)
      return text.empty() ? std::string("none")
                          : text.substr(0, text.size() - 2);
    return text + "specialized otherwise";
  };
  text += "| any family (rows matched first) | | | |";
  for (FitBackend backend : kBackends)
    text += " " + fits(backend, std::nullopt) + " |";
  text += "\n";
  for (size_t k = 0; k < kKernelFamilyCount; ++k) {
    auto family = static_cast<KernelFamily>(k);
    text += "| " + std::string(kernelFamilyName(family)) + " | " +
            std::string(kernelOpName(kernelFamilyOp(family))) + " | " +
            cell(kernelFamilyTakes(family)) + " | `" +
            cell(kernelFamilyExample(family)) + "` |";
    for (FitBackend backend : kBackends)
      text += " " + fits(backend, family) + " |";
    text += "\n";
  }
  return text;
}

} // namespace qjit::plan
