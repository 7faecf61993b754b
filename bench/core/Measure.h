//===- Measure.h - Shared measurement of benchmark rows ---------*- C++ -*-===//
//
// The one place that prepares a row (prepare, run once, check against the
// reference) and turns times into throughput. The Google Benchmark harness
// times rows with its own loop (its rates use CPU time); `qjit bench` uses
// timeRow(), which measures thread CPU time the same way.
//
//===----------------------------------------------------------------------===//
#ifndef QJIT_BENCH_MEASURE_H
#define QJIT_BENCH_MEASURE_H

#include "Implementation.h"
#include "OutputCheck.h"
#include "Workload.h"

#include <memory>
#include <optional>
#include <string>

namespace qjit::bench {

/// A row ready to be timed, or the reason it is skipped.
struct PreparedRow {
  std::string name;
  std::unique_ptr<Implementation> implementation;
  Status status; ///< Not ok: skip the row, say status.message().
  /// Set when the row's output was compared with the reference.
  std::optional<CheckResult> check;
  /// The check's summary, or why there was none.
  std::string checkNote;
};

/// Prepares `factory`'s row for `w`, runs it once and checks its output
/// against the reference under the row's semantics. Never fails: a row
/// that cannot run carries its status.
PreparedRow prepareRow(const ImplementationFactory &factory, Workload &w);

/// Bytes one run moves: the input read plus the output written.
size_t bytesPerRun(const Workload &w);

struct Throughput {
  double nsPerRun = 0;
  double elementsPerNs = 0;
  double gigabytesPerSecond = 0;
};

Throughput throughputOf(const Workload &w, double nsPerRun);

/// The median over `repetitions` of the mean thread CPU time per run, in
/// batches lasting at least minSeconds / repetitions each.
Throughput timeRow(Implementation &row, Workload &w, double minSeconds,
                   int repetitions = 5);

} // namespace qjit::bench

#endif
