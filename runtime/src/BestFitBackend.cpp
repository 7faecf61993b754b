//===- BestFitBackend.cpp - The backend `auto` compiles with --------------===//
#include "BestFitBackend.h"

#include "Log.h"

#include <algorithm>
#include <vector>

namespace qjit {

std::optional<BackendCode>
compileWithBestFit(std::span<const std::shared_ptr<SharedBackend>> backends,
                   const KernelSpec &spec) {
  struct Candidate {
    std::shared_ptr<SharedBackend> backend;
    KernelFit fit;
  };
  std::vector<Candidate> candidates;
  for (const std::shared_ptr<SharedBackend> &backend : backends)
    candidates.push_back({backend, backend->fit(spec)});
  std::stable_sort(
      candidates.begin(), candidates.end(),
      [](const Candidate &a, const Candidate &b) { return a.fit > b.fit; });
  for (const Candidate &candidate : candidates) {
    std::string_view name = backendKindName(candidate.backend->kind());
    if (candidate.fit == KernelFit::Unsupported) {
      runtimeLogger().debug("{} does not support {}", name, spec.kernelName());
      continue;
    }
    Expected<CompiledCode> code = candidate.backend->compile(spec);
    if (code && code->entry)
      return BackendCode{candidate.backend, std::move(*code)};
    runtimeLogger().debug("{} cannot compile {} ({}); trying the next backend",
                          name, spec.kernelName(),
                          code ? std::string_view("no code returned")
                               : code.status().message());
  }
  return std::nullopt;
}

} // namespace qjit
