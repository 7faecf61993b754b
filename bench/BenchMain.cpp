//===- BenchMain.cpp - The qjit_bench throughput harness ------------------===//
//
// Registers one Google Benchmark per case x op x size x row, named
// "OP/CASE/ROW/N", and one per kernel-table example x qjit backend, named
// "table/ID/ROW/N" (bench/report.py parses these names). A workload is built
// on first use and kept only while its benchmarks run (2^24-element
// buffers are large); each row is prepared and checked against the
// reference once per workload. Rows that do not apply are skipped with a
// message, never failed.
//
//===----------------------------------------------------------------------===//
#include "BenchCases.h"
#include "CompileBenchmarks.h"
#include "Measure.h"
#include "Peers.h"
#include "TableCases.h"

#include <benchmark/benchmark.h>

#include <cstdio>
#include <functional>
#include <map>
#include <string>

namespace qjit::bench {

namespace {

/// The workload of the benchmarks running now and its prepared rows.
struct CurrentWorkload {
  std::string key;
  Status status;
  std::unique_ptr<Workload> workload;
  std::map<std::string, PreparedRow> rows;
};

/// The workload `key` names, built from `makeRequest` when it is not the
/// current one.
CurrentWorkload &
currentWorkload(const std::string &key,
                const std::function<Expected<WorkloadRequest>()> &makeRequest) {
  static CurrentWorkload current;
  if (current.key == key)
    return current;
  // Free the previous buffers before allocating the next ones.
  current.rows.clear();
  current.workload.reset();
  current.key = key;
  current.status = Status::ok();
  Expected<WorkloadRequest> request = makeRequest();
  if (!request) {
    current.status = request.status();
    return current;
  }
  auto workload = Workload::create(std::move(*request));
  if (!workload)
    current.status = workload.status();
  else
    current.workload = std::move(*workload);
  return current;
}

CurrentWorkload &currentWorkload(const BenchCase &benchCase, KernelOp op,
                                 int64_t n) {
  std::string key = std::string(kernelOpName(op)) + "/" +
                    std::string(benchCase.name) + "/" + std::to_string(n);
  return currentWorkload(key, [&]() -> Expected<WorkloadRequest> {
    auto text = caseTypeText(benchCase, n);
    if (!text)
      return text.status();
    WorkloadRequest request;
    request.name = std::string(benchCase.name);
    request.typeText = std::move(*text);
    request.op = op;
    request.lowering = caseLowering(benchCase);
    request.n = n;
    return request;
  });
}

PreparedRow &preparedRow(CurrentWorkload &current,
                         const ImplementationFactory &factory) {
  auto found = current.rows.find(factory.name);
  if (found != current.rows.end())
    return found->second;
  PreparedRow &row =
      current.rows.emplace(factory.name, prepareRow(factory, *current.workload))
          .first->second;
  if (row.status)
    std::fprintf(stderr, "%s/%s: check: %s\n", current.key.c_str(),
                 row.name.c_str(), row.checkNote.c_str());
  return row;
}

void runRow(benchmark::State &state, CurrentWorkload &current,
            const ImplementationFactory &factory) {
  if (!current.status) {
    state.SkipWithError(("workload: " + current.status.message()).c_str());
    return;
  }
  PreparedRow &row = preparedRow(current, factory);
  if (!row.status) {
    state.SkipWithError(("skipped: " + row.status.message()).c_str());
    return;
  }
  Workload &w = *current.workload;
  for (auto _ : state) {
    row.implementation->run(w);
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(w.size()));
  state.SetBytesProcessed(state.iterations() *
                          static_cast<int64_t>(bytesPerRun(w)));
  if (row.check)
    state.counters["mismatch"] = row.check->mismatchFraction();
  std::string label = row.implementation->detail();
  if (row.check && row.check->mismatches)
    label += (label.empty() ? "" : " ") + std::string("MISMATCH");
  state.SetLabel(label);
}

void registerThroughputBenchmarks(
    const std::vector<ImplementationFactory> &rows) {
  for (const BenchCase &benchCase : benchCases())
    for (KernelOp op : {KernelOp::QCast, KernelOp::DCast})
      for (int64_t n : kBenchSizes)
        for (const ImplementationFactory &row : rows) {
          if (!caseRunsAs(benchCase, op) ||
              static_cast<size_t>(n) < row.minElements)
            continue;
          std::string name = std::string(kernelOpName(op)) + "/" +
                             std::string(benchCase.name) + "/" + row.name +
                             "/" + std::to_string(n);
          benchmark::internal::Benchmark *benchmark =
              benchmark::RegisterBenchmark(
                  name.c_str(),
                  [&benchCase, op, n, row](benchmark::State &state) {
                    runRow(state, currentWorkload(benchCase, op, n), row);
                  })
                  ->Unit(benchmark::kMicrosecond);
          if (row.multiThreaded)
            benchmark->UseRealTime();
        }
}

/// "table/ID/ROW/N": each kernel family's example and each fit row's
/// example (TableCases.h) with qjit's backends, so that every family is
/// measured and every Generic row's measurement is taken again.
void registerTableBenchmarks(const std::vector<ImplementationFactory> &rows) {
  static const std::vector<TableCase> cases = tableCases(); // Outlives main.
  for (const TableCase &tableCase : cases)
    for (const ImplementationFactory &row : rows) {
      if (static_cast<size_t>(tableCase.request.n) < row.minElements)
        continue;
      std::string name = "table/" + tableCase.id + "/" + row.name + "/" +
                         std::to_string(tableCase.request.n);
      benchmark::RegisterBenchmark(name.c_str(), [&tableCase, row](
                                                     benchmark::State &state) {
        runRow(state,
               currentWorkload("table/" + tableCase.id,
                               [&]() -> Expected<WorkloadRequest> {
                                 return tableCase.request;
                               }),
               row);
      })->Unit(benchmark::kMicrosecond);
    }
}

} // namespace

} // namespace qjit::bench

int main(int argc, char **argv) {
  using namespace qjit::bench;
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv))
    return 2;
  std::vector<ImplementationFactory> rows = coreImplementations();
  for (ImplementationFactory &peer : peerImplementations())
    rows.push_back(std::move(peer));
  std::string missing;
  for (const std::string &peer : missingPeers())
    missing += (missing.empty() ? "" : ", ") + peer;
  if (!missing.empty())
    std::fprintf(stderr, "qjit_bench: built without %s\n", missing.c_str());
  benchmark::AddCustomContext("qjit_build_type", QJIT_BENCH_BUILD_TYPE);
  benchmark::AddCustomContext("qjit_missing_peers",
                              missing.empty() ? "none" : missing);
  registerThroughputBenchmarks(rows);
  registerTableBenchmarks(qjitBackendImplementations());
  registerCompileBenchmarks();
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
