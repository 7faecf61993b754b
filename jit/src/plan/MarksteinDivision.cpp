//===- MarksteinDivision.cpp - fl(x / s) without a divider ----------------===//
#include "MarksteinDivision.h"

#include "ExactReciprocal.h"

#include <algorithm>
#include <cmath>

namespace qjit::plan {

bool marksteinScaleInRange(MarksteinForm form, double scale) {
  double magnitude = std::fabs(scale);
  if (form == MarksteinForm::TwoCorrections)
    return magnitude >= 0x1p-60 && magnitude <= 0x1p60;
  return scale >= 0x1p-32 && scale <= 1.0;
}

bool marksteinCoversSpec(const KernelSpec &spec) {
  if (spec.op != KernelOp::QCast || spec.compute != ValueType::F32 ||
      spec.params.runtime)
    return false;
  for (size_t k = 0; k < spec.params.scales.size(); ++k)
    if (!marksteinScaleInRange(MarksteinForm::TwoCorrections,
                               computeScale(spec, k)))
      return false;
  return std::all_of(spec.params.zeroPoints.begin(),
                     spec.params.zeroPoints.end(), [](int64_t z) {
                       return z >= -kMarksteinZeroLimit &&
                              z <= kMarksteinZeroLimit;
                     });
}

float marksteinQuotient(MarksteinForm form, float x, float s, float y) {
  if (form == MarksteinForm::OneCorrection) {
    float q =
        std::clamp(x * y, -kMarksteinQuotientBound, kMarksteinQuotientBound);
    if (std::isnan(x))
      q = x;
    float r = std::fma(-q, s, x);
    return std::fma(r, y, q);
  }
  float limit = std::fabs(s) * 0x1p40f;
  float clamped = std::isnan(x) ? x : std::clamp(x, -limit, limit);
  float q0 = clamped * y;
  float e0 = std::fma(-s, q0, clamped);
  float q1 = std::fma(e0, y, q0);
  float e1 = std::fma(-s, q1, clamped);
  return std::fma(e1, y, q1);
}

} // namespace qjit::plan
