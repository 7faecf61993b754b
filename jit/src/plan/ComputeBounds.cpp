//===- ComputeBounds.cpp - Storage bounds as compute values ---------------===//
#include "ComputeBounds.h"

#include <cmath>
#include <limits>

namespace qjit::plan {

ComputeBound boundInCompute(int64_t bound, BoundSide side, ValueType compute) {
  double exact = static_cast<double>(bound); // |bound| <= 2^32: exact.
  if (compute == ValueType::F64)
    return {exact, true};
  float nearest = static_cast<float>(exact);
  constexpr float kInfinity = std::numeric_limits<float>::infinity();
  if (side == BoundSide::Low && static_cast<double>(nearest) < exact)
    nearest = std::nextafter(nearest, kInfinity);
  if (side == BoundSide::High && static_cast<double>(nearest) > exact)
    nearest = std::nextafter(nearest, -kInfinity);
  return {static_cast<double>(nearest), static_cast<double>(nearest) == exact};
}

} // namespace qjit::plan
