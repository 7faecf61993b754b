//===- MemoryBound.cpp - The speed of light for a conversion --------------===//
//
// Reads every input byte and writes every output byte of a workload with
// the least work in between (an xor of the loaded vectors), with ordinary
// or non-temporal stores. No conversion can beat these rows by much; they
// show how close the others are to the memory system's limit. Built with
// -O3 -march=native (bench/CMakeLists.txt).
//
//===----------------------------------------------------------------------===//
#include "Implementation.h"

#include <immintrin.h>

#include <algorithm>
#include <cstring>

namespace qjit::bench {

namespace {

#ifdef __AVX2__
using Vec = __m256i;
Vec load(const std::byte *p) {
  return _mm256_loadu_si256(reinterpret_cast<const Vec *>(p));
}
Vec combine(Vec a, Vec b) { return _mm256_xor_si256(a, b); }
void store(std::byte *p, Vec v) {
  _mm256_store_si256(reinterpret_cast<Vec *>(p), v);
}
void streamStore(std::byte *p, Vec v) {
  _mm256_stream_si256(reinterpret_cast<Vec *>(p), v);
}
#else
using Vec = __m128i;
Vec load(const std::byte *p) {
  return _mm_loadu_si128(reinterpret_cast<const Vec *>(p));
}
Vec combine(Vec a, Vec b) { return _mm_xor_si128(a, b); }
void store(std::byte *p, Vec v) {
  _mm_store_si128(reinterpret_cast<Vec *>(p), v);
}
void streamStore(std::byte *p, Vec v) {
  _mm_stream_si128(reinterpret_cast<Vec *>(p), v);
}
#endif

constexpr size_t kVec = sizeof(Vec);

/// Each step reads In vectors and writes Out vectors; the byte ratio of
/// the workload picks In:Out. Leftover bytes go through a byte loop.
template <int In, int Out, bool NonTemporal>
void touch(const std::byte *src, size_t srcBytes, std::byte *dst,
           size_t dstBytes) {
  size_t steps = std::min(srcBytes / (In * kVec), dstBytes / (Out * kVec));
  for (size_t s = 0; s < steps; ++s) {
    Vec v = load(src);
    for (int i = 1; i < In; ++i)
      v = combine(v, load(src + i * kVec));
    for (int o = 0; o < Out; ++o) {
      if constexpr (NonTemporal)
        streamStore(dst + o * kVec, v);
      else
        store(dst + o * kVec, v);
    }
    src += In * kVec;
    dst += Out * kVec;
  }
  if constexpr (NonTemporal)
    _mm_sfence();
  size_t srcLeft = srcBytes - steps * In * kVec;
  size_t dstLeft = dstBytes - steps * Out * kVec;
  unsigned char acc = 0;
  for (size_t i = 0; i < srcLeft; ++i)
    acc ^= static_cast<unsigned char>(src[i]);
  std::memset(dst, acc, dstLeft);
}

using TouchFn = void (*)(const std::byte *, size_t, std::byte *, size_t);

template <bool NonTemporal> TouchFn touchFor(size_t in, size_t out) {
  if (in == out)
    return touch<1, 1, NonTemporal>;
  if (in == 2 * out)
    return touch<2, 1, NonTemporal>;
  if (in == 4 * out)
    return touch<4, 1, NonTemporal>;
  if (in == 8 * out)
    return touch<8, 1, NonTemporal>;
  if (out == 2 * in)
    return touch<1, 2, NonTemporal>;
  if (out == 4 * in)
    return touch<1, 4, NonTemporal>;
  if (out == 8 * in)
    return touch<1, 8, NonTemporal>;
  return nullptr;
}

class MemoryBoundImplementation final : public Implementation {
public:
  explicit MemoryBoundImplementation(bool nonTemporal)
      : nonTemporal_(nonTemporal) {}

  Status prepare(Workload &w) override {
    touch_ = nonTemporal_ ? touchFor<true>(w.inputBytes(), w.outputBytes())
                          : touchFor<false>(w.inputBytes(), w.outputBytes());
    if (!touch_)
      return Status::error(ErrorCode::Unsupported,
                           "byte ratio not in 1, 2, 4, 8 either way");
    return Status::ok();
  }

  void run(Workload &w) override {
    touch_(static_cast<const std::byte *>(w.input()), w.inputBytes(),
           static_cast<std::byte *>(w.output()), w.outputBytes());
  }

  std::optional<QuantKnobs> semantics() const override { return std::nullopt; }

private:
  bool nonTemporal_;
  TouchFn touch_ = nullptr;
};

} // namespace

std::vector<ImplementationFactory> memoryBoundImplementations() {
  return {
      {"memory",
       [] { return std::make_unique<MemoryBoundImplementation>(false); }},
      {"memory_nt",
       [] { return std::make_unique<MemoryBoundImplementation>(true); }},
  };
}

} // namespace qjit::bench
