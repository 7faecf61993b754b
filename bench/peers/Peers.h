//===- Peers.h - Other libraries' conversions as benchmark rows -*- C++ -*-===//
//
// The peers found at configure time (XNNPACK, oneDNN). Each lives in its
// own file, compiled only when its library is installed.
//
//===----------------------------------------------------------------------===//
#ifndef QJIT_BENCH_PEERS_H
#define QJIT_BENCH_PEERS_H

#include "Implementation.h"

#include <string>
#include <vector>

namespace qjit::bench {

/// The rows of every peer this build has.
std::vector<ImplementationFactory> peerImplementations();
/// Names of the peers this build lacks ("XNNPACK", "oneDNN").
std::vector<std::string> missingPeers();

ImplementationFactory xnnpackImplementation();
ImplementationFactory onednnImplementation();
// kBenchThreads-thread rows.
ImplementationFactory xnnpackThreadedImplementation();
ImplementationFactory onednnThreadedImplementation();

} // namespace qjit::bench

#endif
