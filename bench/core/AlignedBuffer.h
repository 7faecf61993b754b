//===- AlignedBuffer.h - Cache-line aligned benchmark buffers ---*- C++ -*-===//
//
// Benchmark buffers are 64-byte aligned (so non-temporal stores and vector
// peers see their best case) and zero-filled (so every page is mapped before
// timing starts). A size the machine cannot give is an error, not a crash.
//
//===----------------------------------------------------------------------===//
#ifndef QJIT_BENCH_ALIGNEDBUFFER_H
#define QJIT_BENCH_ALIGNEDBUFFER_H

#include "qjit/Error.h"

#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>

namespace qjit::bench {

class AlignedBuffer {
public:
  static constexpr size_t kAlignment = 64;

  AlignedBuffer() = default;
  static Expected<AlignedBuffer> allocate(size_t bytes) {
    size_t rounded = (bytes == 0 ? 1 : bytes) + (kAlignment - 1);
    void *memory =
        rounded < bytes
            ? nullptr
            : std::aligned_alloc(kAlignment, rounded / kAlignment * kAlignment);
    if (!memory)
      return Status::error(ErrorCode::InvalidArgument,
                           "cannot allocate " + std::to_string(bytes) +
                               " bytes for a benchmark buffer");
    AlignedBuffer buffer;
    buffer.bytes_ = bytes;
    buffer.data_.reset(static_cast<std::byte *>(memory));
    std::memset(memory, 0, rounded / kAlignment * kAlignment);
    return buffer;
  }

  std::byte *data() { return data_.get(); }
  const std::byte *data() const { return data_.get(); }
  size_t size() const { return bytes_; }

private:
  size_t bytes_ = 0;
  std::unique_ptr<std::byte, void (*)(void *)> data_{nullptr, &std::free};
};

} // namespace qjit::bench

#endif
