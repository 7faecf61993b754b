//===- QuantileSearch.h - Nearest table entry by counting -------*- C++ -*-===//
//
// qcast to quantile storage stores the index of the table entry nearest to
// v, ties to the lower index (docs/semantics.md, 8.4). Over the sorted
// distinct entries that is a count: entry j + 1 beats entry j exactly when
// v >= threshold j, the smallest compute-type value for which it does. The
// reference and the JIT kernels share these thresholds; computing them is
// the only place the exact tie analysis lives.
//
//===----------------------------------------------------------------------===//
#ifndef QJIT_QUANTILESEARCH_H
#define QJIT_QUANTILESEARCH_H

#include "qjit/KernelSpec.h"

#include <cstdint>
#include <vector>

namespace qjit {

struct QuantileSearch {
  /// The distinct table entries, ascending.
  std::vector<double> values;
  /// For each of `values`, the lowest table index holding it.
  std::vector<int64_t> tableIndex;
  /// thresholds[j] (values.size() - 1 of them): the smallest value of the
  /// compute type closer to values[j + 1] than to values[j] (or as close,
  /// when values[j + 1] has the lower table index). Ascending.
  std::vector<double> thresholds;

  /// The position in `values` of the entry nearest to `v` (not NaN).
  size_t positionOf(double v) const;
};

/// The search over `table` (finite values of `compute`, f32 or f64).
QuantileSearch buildQuantileSearch(const std::vector<double> &table,
                                   ValueType compute);

} // namespace qjit

#endif // QJIT_QUANTILESEARCH_H
