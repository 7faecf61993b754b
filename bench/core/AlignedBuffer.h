//===- AlignedBuffer.h - Cache-line aligned benchmark buffers ---*- C++ -*-===//
//
// Benchmark buffers are 64-byte aligned (so non-temporal stores and vector
// peers see their best case) and zero-filled (so every page is mapped before
// timing starts).
//
//===----------------------------------------------------------------------===//
#ifndef QJIT_BENCH_ALIGNEDBUFFER_H
#define QJIT_BENCH_ALIGNEDBUFFER_H

#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <memory>

namespace qjit::bench {

class AlignedBuffer {
public:
  static constexpr size_t kAlignment = 64;

  AlignedBuffer() = default;
  explicit AlignedBuffer(size_t bytes)
      : bytes_(bytes), data_(static_cast<std::byte *>(std::aligned_alloc(
                                 kAlignment, roundUp(bytes == 0 ? 1 : bytes))),
                             &std::free) {
    std::memset(data_.get(), 0, roundUp(bytes == 0 ? 1 : bytes));
  }

  std::byte *data() { return data_.get(); }
  const std::byte *data() const { return data_.get(); }
  size_t size() const { return bytes_; }

private:
  static size_t roundUp(size_t bytes) {
    return (bytes + kAlignment - 1) / kAlignment * kAlignment;
  }

  size_t bytes_ = 0;
  std::unique_ptr<std::byte, void (*)(void *)> data_{nullptr, &std::free};
};

} // namespace qjit::bench

#endif
