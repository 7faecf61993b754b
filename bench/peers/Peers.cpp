//===- Peers.cpp - The peers this build has -------------------------------===//
#include "Peers.h"

namespace qjit::bench {

std::vector<ImplementationFactory> peerImplementations() {
  std::vector<ImplementationFactory> rows;
#ifdef QJIT_BENCH_HAVE_XNNPACK
  rows.push_back(xnnpackImplementation());
  rows.push_back(xnnpackThreadedImplementation());
#endif
#ifdef QJIT_BENCH_HAVE_ONEDNN
  rows.push_back(onednnImplementation());
  rows.push_back(onednnThreadedImplementation());
#endif
  return rows;
}

std::vector<std::string> missingPeers() {
  std::vector<std::string> missing;
#ifndef QJIT_BENCH_HAVE_XNNPACK
  missing.push_back("XNNPACK");
#endif
#ifndef QJIT_BENCH_HAVE_ONEDNN
  missing.push_back("oneDNN");
#endif
  return missing;
}

} // namespace qjit::bench
