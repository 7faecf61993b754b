//===- QuantileSearch.cpp - Exact thresholds between table entries --------===//
#include "qjit/internal/QuantileSearch.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

namespace qjit {

namespace {

/// The sign of 2·v − (a + b), computed exactly for doubles a, b, v whose
/// magnitudes are at most 2^1000 (so nothing below overflows).
int compareTwiceWithSum(double v, double a, double b) {
  // TwoSum: s + e == a + b exactly.
  double s = a + b;
  double bVirtual = s - a;
  double aVirtual = s - bVirtual;
  double e = (a - aVirtual) + (b - bVirtual);
  double twice = 2 * v;
  auto sign = [](double x) { return x > 0 ? 1 : (x < 0 ? -1 : 0); };
  if (twice == s)
    return -sign(e);
  // Within a factor of two (same sign) the difference is exact (Sterbenz);
  // otherwise it dwarfs e, which is at most half an ulp of s.
  if ((s > 0 && twice >= s / 2 && twice <= 2 * s) ||
      (s < 0 && twice <= s / 2 && twice >= 2 * s)) {
    double d = twice - s;
    return d > e ? 1 : (d < e ? -1 : 0);
  }
  return sign(twice - s);
}

double nextUp(double v, ValueType compute) {
  if (compute == ValueType::F32)
    return std::nextafter(static_cast<float>(v),
                          std::numeric_limits<float>::infinity());
  return std::nextafter(v, std::numeric_limits<double>::infinity());
}

double nextDown(double v, ValueType compute) {
  if (compute == ValueType::F32)
    return std::nextafter(static_cast<float>(v),
                          -std::numeric_limits<float>::infinity());
  return std::nextafter(v, -std::numeric_limits<double>::infinity());
}

} // namespace

size_t QuantileSearch::positionOf(double v) const {
  size_t position = 0;
  for (double threshold : thresholds)
    position += v >= threshold ? 1 : 0;
  return position;
}

QuantileSearch buildQuantileSearch(const std::vector<double> &table,
                                   ValueType compute) {
  std::vector<size_t> order(table.size());
  std::iota(order.begin(), order.end(), size_t(0));
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t x, size_t y) { return table[x] < table[y]; });
  QuantileSearch search;
  for (size_t index : order) {
    // Equal entries: the stable sort keeps the lowest index first.
    if (!search.values.empty() && search.values.back() == table[index])
      continue;
    search.values.push_back(table[index]);
    search.tableIndex.push_back(static_cast<int64_t>(index));
  }
  // Scaling by a power of two changes no comparison and keeps the sums
  // finite for tables near the top of the f64 range.
  double largest = 0;
  for (double value : search.values)
    largest = std::max(largest, std::fabs(value));
  double scale = largest > 0x1p1000 ? 0x1p-24 : 1.0;
  for (size_t j = 0; j + 1 < search.values.size(); ++j) {
    double a = search.values[j], b = search.values[j + 1];
    bool tieToUpper = search.tableIndex[j + 1] < search.tableIndex[j];
    auto picksUpper = [&](double v) {
      int c = compareTwiceWithSum(v * scale, a * scale, b * scale);
      return c > 0 || (c == 0 && tieToUpper);
    };
    // Start near the midpoint, then walk to the exact boundary (a few
    // steps at most: the start is within an ulp or two).
    double candidate = a / 2 + b / 2;
    if (compute == ValueType::F32)
      candidate = static_cast<float>(candidate);
    candidate = std::clamp(candidate, a, b);
    while (!picksUpper(candidate))
      candidate = nextUp(candidate, compute);
    while (candidate > a && picksUpper(nextDown(candidate, compute)))
      candidate = nextDown(candidate, compute);
    search.thresholds.push_back(candidate);
  }
  return search;
}

} // namespace qjit
