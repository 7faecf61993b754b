//===- CoreImplementations.cpp - The rows every build has -----------------===//
#include "Implementation.h"

namespace qjit::bench {

std::vector<ImplementationFactory> coreImplementations() {
  std::vector<ImplementationFactory> rows = qjitBackendImplementations();
  for (ImplementationFactory &row : qjitThreadedImplementations())
    rows.push_back(std::move(row));
  for (ImplementationFactory &row : dynamicQcastImplementations())
    rows.push_back(std::move(row));
  rows.push_back(referenceImplementation());
  rows.push_back(plainLoopImplementation());
  for (ImplementationFactory &row : memoryBoundImplementations())
    rows.push_back(std::move(row));
  return rows;
}

} // namespace qjit::bench
