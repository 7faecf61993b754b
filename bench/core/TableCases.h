//===- TableCases.h - Benchmark cases from the kernel tables ----*- C++ -*-===//
//
// One case per kernel family (its example in jit/src/plan/KernelFamilies.def)
// and one per fit row (its example in KernelFits.def), at about
// kTableElements elements (whole periods of the example's layout). The
// harness runs them with qjit's backends as "table/ID/ROW/N"; report.py
// prints them beside the table's fits, so every Generic row's measurement
// is taken again in each run.
//
//===----------------------------------------------------------------------===//
#ifndef QJIT_BENCH_TABLECASES_H
#define QJIT_BENCH_TABLECASES_H

#include "Workload.h"

#include <cstdint>
#include <string>
#include <vector>

namespace qjit::bench {

inline constexpr int64_t kTableElements = 65536;

struct TableCase {
  /// "family-quantize", or "fit-asmjit-ShortRuntimeRuns-any".
  std::string id;
  WorkloadRequest request;
};

std::vector<TableCase> tableCases();

} // namespace qjit::bench

#endif
