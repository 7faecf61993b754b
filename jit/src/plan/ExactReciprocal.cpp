//===- ExactReciprocal.cpp - Scales whose division is a multiply ----------===//
#include "ExactReciprocal.h"

#include <cmath>

namespace qjit::plan {

std::optional<double> exactReciprocal(double scale, ValueType compute) {
  auto normalPowerOfTwo = [&](double v) {
    int exponent = 0;
    if (std::frexp(std::fabs(v), &exponent) != 0.5)
      return false;
    return compute == ValueType::F64
               ? std::isnormal(v)
               : std::isnormal(static_cast<float>(v)) &&
                     static_cast<double>(static_cast<float>(v)) == v;
  };
  if (!normalPowerOfTwo(scale))
    return std::nullopt;
  double reciprocal = 1.0 / scale; // Exact: a power of two of double.
  if (!normalPowerOfTwo(reciprocal))
    return std::nullopt;
  return reciprocal;
}

double computeScale(const KernelSpec &spec, size_t k) {
  double scale = bakedScale(spec, k);
  return spec.compute == ValueType::F64
             ? scale
             : static_cast<double>(static_cast<float>(scale));
}

bool scalesHaveExactReciprocals(const KernelSpec &spec) {
  if (spec.params.runtime)
    return false;
  for (size_t k = 0; k < spec.params.scales.size(); ++k)
    if (!exactReciprocal(computeScale(spec, k), spec.compute))
      return false;
  return true;
}

bool divisionIsMultiplication(const KernelSpec &spec) {
  if (spec.params.runtime)
    return spec.params.scaleFormat == ScaleFormat::E8M0;
  return scalesHaveExactReciprocals(spec);
}

} // namespace qjit::plan
