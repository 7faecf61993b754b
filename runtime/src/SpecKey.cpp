//===- SpecKey.cpp - A KernelSpec as a hash-map key -----------------------===//
#include "SpecKey.h"

#include "WordHash.h"

#include <bit>
#include <cstdint>
#include <cstring>
#include <tuple>
#include <type_traits>
#include <vector>

namespace qjit {

namespace {

using wordhash::finish;
using wordhash::mix;

template <typename T> uint64_t wordOf(T value) {
  if constexpr (std::is_floating_point_v<T>)
    return std::bit_cast<uint64_t>(static_cast<double>(value));
  else
    return static_cast<uint64_t>(value);
}

template <typename T>
uint64_t mixVector(uint64_t state, const std::vector<T> &values) {
  return wordhash::mixWords(state, values.size(),
                            [&](size_t i) { return wordOf(values[i]); });
}

/// The enums, flags and width, a byte each, rotated into one word (the
/// fields past the eighth overlap the first ones: a weaker hash, never a
/// wrong answer, since keys compare exactly).
uint64_t smallFields(const KernelSpec &spec) {
  const StorageSpec &storage = spec.storage;
  uint64_t word = 0;
  for (uint64_t field :
       {wordOf(spec.op), wordOf(storage.kind), wordOf(storage.bits),
        wordOf(storage.isSigned), wordOf(storage.packed),
        wordOf(storage.floatFormat), wordOf(spec.expressed),
        wordOf(spec.compute), wordOf(spec.layout.kind),
        wordOf(spec.params.runtime), wordOf(spec.params.dynamic),
        wordOf(spec.params.dynamicRule), wordOf(spec.params.scaleRounding),
        wordOf(spec.params.scaleFormat),
        wordOf(spec.params.zeroPointsInStorage), wordOf(spec.knobs.scaleOp),
        wordOf(spec.knobs.zeroPoint), wordOf(spec.knobs.rounding)})
    word = std::rotl(word, 8) ^ field;
  return word;
}

bool sameBits(const std::vector<double> &a, const std::vector<double> &b) {
  return a.size() == b.size() &&
         (a.empty() ||
          std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0);
}

} // namespace

size_t structuralHash(const KernelSpec &spec) {
  const LayoutSpec &layout = spec.layout;
  uint64_t state = 0;
  for (uint64_t word :
       {smallFields(spec), wordOf(spec.storage.min), wordOf(spec.storage.max),
        wordOf(layout.channels), wordOf(layout.inner)})
    state = mix(state, word);
  for (const LayoutSpec::Dim &dim : layout.dims)
    state = mix(mix(state, wordOf(dim.extent)), wordOf(dim.block));
  state = mixVector(state, spec.storage.table);
  state = mixVector(state, spec.params.scales);
  state = mixVector(state, spec.params.zeroPoints);
  return static_cast<size_t>(finish(state));
}

bool sameSpec(const KernelSpec &a, const KernelSpec &b) {
  // Bits, not operator== (0.0 == -0.0, NaN != NaN), and the cheapest test
  // for the long vectors first.
  if (!sameBits(a.params.scales, b.params.scales) ||
      !sameBits(a.storage.table, b.storage.table))
    return false;
  auto storage = [](const StorageSpec &s) {
    return std::tie(s.kind, s.bits, s.isSigned, s.min, s.max, s.packed,
                    s.floatFormat);
  };
  auto code = [](const KernelSpec &s) {
    return std::tie(s.op, s.expressed, s.compute, s.layout, s.knobs,
                    s.params.runtime, s.params.dynamic, s.params.dynamicRule,
                    s.params.scaleRounding, s.params.scaleFormat,
                    s.params.zeroPointsInStorage, s.params.zeroPoints);
  };
  return storage(a.storage) == storage(b.storage) && code(a) == code(b);
}

} // namespace qjit
