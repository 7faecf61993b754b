//===- Measure.cpp - Shared measurement of benchmark rows -----------------===//
#include "Measure.h"

#include <algorithm>
#include <ctime>
#include <vector>

namespace qjit::bench {

PreparedRow prepareRow(const ImplementationFactory &factory, Workload &w) {
  PreparedRow row;
  row.name = factory.name;
  if (w.size() > factory.maxElements) {
    row.status =
        Status::error(ErrorCode::Unsupported,
                      "too slow for " + std::to_string(w.size()) + " elements");
    return row;
  }
  row.implementation = factory.create();
  row.status = row.implementation->prepare(w);
  if (!row.status)
    return row;
  row.implementation->run(w);
  std::optional<QuantKnobs> knobs = row.implementation->semantics();
  if (!knobs) {
    row.checkNote = "not checked";
    return row;
  }
  auto reference = w.referenceOutput(*knobs);
  if (!reference) {
    row.checkNote =
        "not checked (reference: " + reference.status().message() + ")";
    return row;
  }
  row.check =
      compareOutputs(w.spec(), w.output(), (*reference)->data(), w.size());
  row.checkNote = row.check->summary();
  return row;
}

size_t bytesPerRun(const Workload &w) {
  return w.inputBytes() + w.outputBytes();
}

Throughput throughputOf(const Workload &w, double nsPerRun) {
  Throughput t;
  t.nsPerRun = nsPerRun;
  if (nsPerRun > 0) {
    t.elementsPerNs = static_cast<double>(w.size()) / nsPerRun;
    t.gigabytesPerSecond = static_cast<double>(bytesPerRun(w)) / nsPerRun;
  }
  return t;
}

namespace {

/// CPU time of this thread: like Google Benchmark's default CPU-time
/// rates, and robust to other processes sharing the cores.
double threadSeconds() {
  timespec now{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
  return static_cast<double>(now.tv_sec) + 1e-9 * now.tv_nsec;
}

} // namespace

Throughput timeRow(Implementation &row, Workload &w, double minSeconds,
                   int repetitions) {
  auto secondsOf = [&](size_t runs) {
    double start = threadSeconds();
    for (size_t i = 0; i < runs; ++i)
      row.run(w);
    return threadSeconds() - start;
  };
  // Grow the batch until it lasts long enough to time reliably.
  double target = minSeconds / std::max(repetitions, 1);
  size_t runs = 1;
  double seconds = secondsOf(runs);
  while (seconds < target && runs < (size_t(1) << 40)) {
    runs = seconds > 0
               ? std::max(runs * 2,
                          static_cast<size_t>(runs * 1.2 * target / seconds))
               : runs * 10;
    seconds = secondsOf(runs);
  }
  std::vector<double> nsPerRun{seconds * 1e9 / runs};
  for (int r = 1; r < repetitions; ++r)
    nsPerRun.push_back(secondsOf(runs) * 1e9 / runs);
  std::nth_element(nsPerRun.begin(), nsPerRun.begin() + nsPerRun.size() / 2,
                   nsPerRun.end());
  return throughputOf(w, nsPerRun[nsPerRun.size() / 2]);
}

} // namespace qjit::bench
