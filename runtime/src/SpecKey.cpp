//===- SpecKey.cpp - A KernelSpec as a hash-map key -----------------------===//
#include "SpecKey.h"

#include <array>
#include <bit>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <vector>

namespace qjit {

namespace {

constexpr uint64_t kMultiplier = 0x9e3779b97f4a7c15ULL;

uint64_t mix(uint64_t state, uint64_t word) {
  state = (state ^ word) * kMultiplier;
  return state ^ (state >> 29);
}

template <typename T> uint64_t wordOf(T value) {
  if constexpr (std::is_floating_point_v<T>)
    return std::bit_cast<uint64_t>(static_cast<double>(value));
  else
    return static_cast<uint64_t>(value);
}

/// Hashes a vector four words at a time in independent lanes: per-axis
/// specs hold hundreds of scales, and one serial multiply chain over them
/// would dominate a cache hit.
template <typename T>
uint64_t mixVector(uint64_t state, const std::vector<T> &values) {
  std::array<uint64_t, 4> lanes = {state, state + 1, state + 2, state + 3};
  size_t i = 0;
  for (; i + 4 <= values.size(); i += 4)
    for (size_t lane = 0; lane < 4; ++lane)
      lanes[lane] = mix(lanes[lane], wordOf(values[i + lane]));
  for (; i < values.size(); ++i)
    lanes[0] = mix(lanes[0], wordOf(values[i]));
  for (uint64_t lane : lanes)
    state = mix(state, lane);
  return mix(state, values.size());
}

bool sameBits(const std::vector<double> &a, const std::vector<double> &b) {
  return a.size() == b.size() &&
         (a.empty() || std::memcmp(a.data(), b.data(),
                                   a.size() * sizeof(double)) == 0);
}

} // namespace

size_t structuralHash(const KernelSpec &spec) {
  const StorageSpec &storage = spec.storage;
  const LayoutSpec &layout = spec.layout;
  uint64_t state = 0;
  for (uint64_t word :
       {wordOf(spec.op), wordOf(storage.kind), wordOf(storage.bits),
        wordOf(storage.isSigned), wordOf(storage.min), wordOf(storage.max),
        wordOf(storage.packed), wordOf(storage.floatFormat),
        wordOf(spec.expressed), wordOf(spec.compute), wordOf(layout.kind),
        wordOf(layout.channels), wordOf(layout.inner),
        wordOf(spec.params.runtime), wordOf(spec.knobs.scaleOp),
        wordOf(spec.knobs.zeroPoint), wordOf(spec.knobs.rounding)})
    state = mix(state, word);
  for (const LayoutSpec::Dim &dim : layout.dims)
    state = mix(mix(state, wordOf(dim.extent)), wordOf(dim.block));
  state = mixVector(state, storage.table);
  state = mixVector(state, spec.params.scales);
  state = mixVector(state, spec.params.zeroPoints);
  state = mixVector(state, spec.shape);
  return static_cast<size_t>(state);
}

bool sameSpec(const KernelSpec &a, const KernelSpec &b) {
  // Bits first: they also reject what operator== would wrongly accept
  // (0.0 == -0.0) and are the cheapest test for the long vectors.
  if (!sameBits(a.params.scales, b.params.scales) ||
      !sameBits(a.storage.table, b.storage.table))
    return false;
  if (a == b)
    return true;
  // Equal bits yet unequal values: only NaNs do that (rare enough for
  // copies). Compare the rest without the doubles.
  KernelSpec aRest = a;
  KernelSpec bRest = b;
  for (KernelSpec *spec : {&aRest, &bRest}) {
    spec->params.scales.clear();
    spec->storage.table.clear();
  }
  return aRest == bRest;
}

} // namespace qjit
