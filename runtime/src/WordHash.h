//===- WordHash.h - Fast non-cryptographic hashing of words -----*- C++ -*-===//
//
// The hashes of the cache keys (SpecKey, the type-text memo). In-process
// only: values may change between builds. Long inputs are hashed in four
// independent lanes, since one serial multiply chain over thousands of
// scales (or bytes of type text) would dominate a cache hit.
//
//===----------------------------------------------------------------------===//
#ifndef QJIT_RUNTIME_WORDHASH_H
#define QJIT_RUNTIME_WORDHASH_H

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

namespace qjit::wordhash {

inline constexpr uint64_t kMultiplier = 0x9e3779b97f4a7c15ULL;

/// One step: an xor and a multiply, the shortest dependency chain that
/// still spreads each word upwards; finish() spreads it downwards. For a
/// fixed word the step is a bijection, so inputs differing in one word
/// always hash differently.
inline uint64_t mix(uint64_t state, uint64_t word) {
  return (state ^ word) * kMultiplier;
}

inline uint64_t finish(uint64_t state) {
  state ^= state >> 32;
  state *= kMultiplier;
  return state ^ (state >> 29);
}

/// Mixes `count` and the words wordAt(0) .. wordAt(count - 1).
template <typename WordAt>
uint64_t mixWords(uint64_t state, size_t count, WordAt wordAt) {
  state = mix(state, count);
  size_t i = 0;
  if (count >= 8) {
    std::array<uint64_t, 4> lanes = {state, state + 1, state + 2, state + 3};
    for (; i + 4 <= count; i += 4)
      for (size_t lane = 0; lane < 4; ++lane)
        lanes[lane] = mix(lanes[lane], wordAt(i + lane));
    for (uint64_t lane : lanes)
      state = mix(state, finish(lane));
  }
  for (; i < count; ++i)
    state = mix(state, wordAt(i));
  return state;
}

/// Mixes the length and the bytes of `bytes`, eight at a time.
inline uint64_t mixBytes(uint64_t state, std::string_view bytes) {
  size_t fullWords = bytes.size() / 8;
  state = mixWords(state, fullWords, [&](size_t i) {
    uint64_t word;
    std::memcpy(&word, bytes.data() + 8 * i, 8);
    return word;
  });
  // The tail as the last eight bytes (overlapping the last full word): a
  // fixed-size load, where a variable-length copy would call memcpy.
  uint64_t tail = 0;
  if (bytes.size() >= 8)
    std::memcpy(&tail, bytes.data() + bytes.size() - 8, 8);
  else
    for (size_t i = 0; i < bytes.size(); ++i)
      tail |= uint64_t(static_cast<unsigned char>(bytes[i])) << (8 * i);
  return mix(mix(state, tail), bytes.size());
}

} // namespace qjit::wordhash

#endif // QJIT_RUNTIME_WORDHASH_H
