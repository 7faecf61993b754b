//===- QuantileInputThresholds.cpp - Quantile qcast without division ------===//
#include "QuantileInputThresholds.h"

#include "qjit/internal/HostFloat.h"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

namespace qjit::plan {

namespace {

/// Total order of the non-NaN values of C as unsigned integers.
template <typename C, typename Bits> Bits orderedKey(C value) {
  Bits bits;
  std::memcpy(&bits, &value, sizeof bits);
  Bits sign = Bits(1) << (8 * sizeof(Bits) - 1);
  return (bits & sign) ? ~bits : (bits | sign);
}

template <typename C, typename Bits> C fromOrderedKey(Bits key) {
  Bits sign = Bits(1) << (8 * sizeof(Bits) - 1);
  Bits bits = (key & sign) ? (key & ~sign) : ~key;
  C value;
  std::memcpy(&value, &bits, sizeof value);
  return value;
}

template <typename C, typename Bits>
std::vector<double> inputThresholds(const KernelSpec &spec,
                                    const std::vector<double> &thresholds) {
  C scale = static_cast<C>(bakedScale(spec, 0));
  C zero = static_cast<C>(spec.params.zeroPoints[0]);
  C reciprocal = C(1) / scale;
  bool divide = spec.knobs.scaleOp == ScaleOp::Divide;
  auto shifted = [&](C x) {
    C u = divide ? x / scale : x * reciprocal;
    return u + zero;
  };
  std::vector<double> moved;
  for (double threshold : thresholds) {
    C target = static_cast<C>(threshold);
    Bits low = orderedKey<C, Bits>(-std::numeric_limits<C>::infinity());
    Bits high = orderedKey<C, Bits>(std::numeric_limits<C>::infinity());
    while (low < high) { // shifted(+inf) = +inf reaches every threshold.
      Bits middle = low + (high - low) / 2;
      if (shifted(fromOrderedKey<C, Bits>(middle)) >= target)
        high = middle;
      else
        low = middle + 1;
    }
    moved.push_back(static_cast<double>(fromOrderedKey<C, Bits>(low)));
  }
  return moved;
}

} // namespace

bool quantileThresholdsMoveToInput(const KernelSpec &spec) {
  if (spec.params.runtime || spec.layout.kind != LayoutSpec::Kind::PerTensor)
    return false;
  double scale = bakedScale(spec, 0);
  double reciprocal = spec.compute == ValueType::F64
                          ? 1 / scale
                          : double(1.0f / static_cast<float>(scale));
  return scale > 0 && std::isfinite(scale) &&
         (spec.knobs.scaleOp != ScaleOp::Reciprocal ||
          std::isfinite(reciprocal));
}

std::vector<double>
quantileInputThresholds(const KernelSpec &spec,
                        const std::vector<double> &thresholds) {
  return spec.compute == ValueType::F64
             ? inputThresholds<double, uint64_t>(spec, thresholds)
             : inputThresholds<float, uint32_t>(spec, thresholds);
}

} // namespace qjit::plan
