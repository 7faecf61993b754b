//===- Runtimes.cpp - The process's runtimes, one per backend choice ------===//
#include "Runtimes.h"

#include "Errors.h"

#include <map>
#include <memory>
#include <utility>

namespace qjit::python {

Runtime &runtimeFor(BackendKind backend, std::optional<IsaLevel> maxIsa) {
  using Key = std::pair<BackendKind, std::optional<IsaLevel>>;
  // Leaked on purpose: kernels held by Python objects may be released
  // during interpreter shutdown, after static destructors would have run.
  static auto *runtimes = new std::map<Key, std::unique_ptr<Runtime>>;
  Key key{backend, maxIsa};
  auto found = runtimes->find(key);
  if (found != runtimes->end())
    return *found->second;
  RuntimeOptions options;
  options.backend = backend;
  options.maxIsa = maxIsa;
  std::unique_ptr<Runtime> runtime = unwrap(Runtime::create(options));
  return *runtimes->emplace(key, std::move(runtime)).first->second;
}

} // namespace qjit::python
