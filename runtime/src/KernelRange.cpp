//===- KernelRange.cpp - Ranges of a call, and calls split over threads ---===//
//
// A range of a call runs the JIT code wherever the code can start: at a
// period (parameters repeat every period), or, with runtime parameters, at
// a block row of the outermost dim, calling the code on a prefix of its
// period with the parameter arrays advanced by the rows skipped (the code
// walks its period from the start, so element j of the call gets the
// parameter of element start + j). Anything else runs the reference, which
// computes each parameter index from the absolute position.
//
//===----------------------------------------------------------------------===//
#include "KernelChecks.h"
#include "ParameterLayout.h"
#include "plan/PlanLimits.h"
#include "qjit/Runtime.h"
#include "qjit/internal/Reference.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>
#include <vector>

namespace qjit {

namespace {

/// Where the JIT code can start: every `rowElements` elements within a
/// period, with the parameters advanced by `rowParameters` per row.
struct RowSplit {
  uint64_t period = 1;
  uint64_t rowElements = 1;
  uint64_t rowParameters = 0;
};

/// `prefixes`: the backend's code runs a whole number of rows short of a
/// period (asmjit's frame stops at n; llvm's loops count whole periods, so
/// its code starts and ends on periods only).
Expected<RowSplit> rowSplit(const KernelSpec &spec, const KernelParams *params,
                            bool prefixes) {
  Expected<reference::ParameterLayout> layout =
      reference::resolveParameterLayout(
          spec.layout,
          spec.takesParams() && params ? params->extents : nullptr);
  if (!layout)
    return layout.status();
  RowSplit split{layout->period, layout->period, 0};
  // Baked parameters cannot be advanced: whole periods only.
  if (!prefixes || !spec.params.runtime || layout->dims.empty())
    return split;
  split.rowElements = layout->dims[0].block;
  split.rowParameters = 1;
  for (size_t d = 1; d < layout->dims.size(); ++d) {
    split.rowElements *= layout->dims[d].extent;
    split.rowParameters *= layout->dims[d].extent / layout->dims[d].block;
  }
  return split;
}

size_t elementsPerByte(const StorageSpec &storage) {
  return storage.packed ? 8 / storage.bits : 1;
}

const void *advance(const void *buffer, size_t bytes) {
  return static_cast<const char *>(buffer) + bytes;
}

void *advance(void *buffer, size_t bytes) {
  return static_cast<char *>(buffer) + bytes;
}

Status badRange(size_t n, size_t start, size_t count, size_t granularity) {
  return Status::error(
      ErrorCode::InvalidArgument,
      "elements [" + std::to_string(start) + ", +" + std::to_string(count) +
          ") are not a range of " + std::to_string(n) +
          " elements starting at a multiple of " + std::to_string(granularity));
}

/// Bytes before element `start` on `side` (start begins a byte).
size_t offsetBytes(const KernelSpec &spec, BufferSide side, size_t start) {
  return side == BufferSide::Expressed ? expressedBytes(spec.expressed, start)
                                       : storageBytes(spec.storage, start);
}

} // namespace

size_t Kernel::splitGranularity() const {
  return elementsPerByte(spec_.storage);
}

bool Kernel::codeRunsPeriodPrefixes() const {
  return backend_ == BackendKind::Asmjit;
}

Expected<size_t> Kernel::rowGranularity(const KernelParams *params) const {
  Expected<RowSplit> split = rowSplit(spec_, params, codeRunsPeriodPrefixes());
  if (!split)
    return split.status();
  return std::lcm(static_cast<size_t>(split->rowElements), splitGranularity());
}

Status Kernel::invokeRange(const void *src, void *dst, size_t n, size_t start,
                           size_t count, const KernelParams *params) const {
  if (!spec_.takesParams())
    params = nullptr;
  if (backend_ == BackendKind::Reference)
    return runReferenceRange(spec_, src, dst, n, start, count, params);
  bool prefixes = codeRunsPeriodPrefixes();
  Expected<RowSplit> split = rowSplit(spec_, params, prefixes);
  if (!split)
    return split.status();
  size_t period = split->period, row = split->rowElements;
  size_t granularity = splitGranularity();
  BufferSide in = kernelInputSide(spec_.op), out = kernelOutputSide(spec_.op);
  size_t scaleBytes = runtimeScaleBytes(spec_);
  while (count != 0) {
    size_t position = start % period;
    size_t length = std::min(count, position == 0 && count >= period
                                        ? count / period * period
                                        : period - position);
    // The code starts at a row (the period's first included), runs whole
    // periods unless it can stop short of one, and its packed bytes start
    // whole.
    if (position % row == 0 && (prefixes || length % period == 0) &&
        start % granularity == 0) {
      const void *from = advance(src, offsetBytes(spec_, in, start));
      void *to = advance(dst, offsetBytes(spec_, out, start));
      if (position == 0) {
        if (Status s = invoke(from, to, length, params); !s)
          return s;
      } else {
        size_t skipped = position / row * split->rowParameters;
        KernelParams shifted = *params;
        shifted.scales = advance(params->scales, skipped * scaleBytes);
        if (params->zeroPoints)
          shifted.zeroPoints = params->zeroPoints + skipped;
        if (Status s = invoke(from, to, length, &shifted); !s)
          return s;
      }
    } else if (Status s =
                   runReferenceRange(spec_, src, dst, n, start, length, params);
               !s) {
      return s;
    }
    start += length;
    count -= length;
  }
  return Status::ok();
}

Status Kernel::runRange(const void *src, size_t srcBytes, void *dst,
                        size_t dstBytes, size_t n, size_t start, size_t count,
                        const KernelParams *params,
                        const ParameterCounts *lengths) const {
  if (Status s = checkKernelCall(spec_, n, params, lengths); !s)
    return s;
  if (Status s = checkBuffers(spec_, src, srcBytes, dst, dstBytes, n); !s)
    return s;
  if (start > n || count > n - start || start % splitGranularity() != 0)
    return badRange(n, start, count, splitGranularity());
  if (count == 0)
    return Status::ok();
  return invokeRange(src, dst, n, start, count, params);
}

namespace {

/// One runParallel call, shared by its chunks (each writes its own status).
struct ParallelJob {
  const Kernel *kernel;
  const void *src;
  void *dst;
  size_t n;
  size_t chunkElements;
  const KernelParams *params;
  std::vector<Status> statuses; ///< One per chunk.
};

} // namespace

Status Kernel::runParallel(const ThreadPool &pool, const void *src,
                           size_t srcBytes, void *dst, size_t dstBytes,
                           size_t n, const KernelParams *params,
                           const ParameterCounts *lengths) const {
  if (Status s = checkKernelCall(spec_, n, params, lengths); !s)
    return s;
  if (Status s = checkBuffers(spec_, src, srcBytes, dst, dstBytes, n); !s)
    return s;
  if (n == 0)
    return Status::ok();
  Expected<size_t> row = rowGranularity(params);
  if (!row)
    return row.status();
  // Whole rows, whole packed bytes and whole 64-element runs (aligned
  // streamed stores stay whole when dst is aligned).
  size_t unit = std::lcm(*row, 64 * splitGranularity());
  // More chunks than threads, of about kChunkElements each: a pool that
  // hands out tasks as threads free up (pthreadpool's stealing) then
  // keeps every thread busy when one is descheduled or slower, where one
  // chunk per thread would wait for the slowest (a shared 2-core host ran
  // 2-thread calls 20x slower than one thread that way).
  constexpr size_t kChunkElements = size_t(1) << 18;
  size_t minChunk = unit;
  // A call that writes at least kStreamingOutputBytes streams its stores
  // past the caches (x86 kernels decide so from the bytes they are asked
  // to write). Where the output is the wider side, its chunks then write
  // as much each, or the split call pays the read-for-ownership the whole
  // call avoids. Narrowing calls (qcast) keep short chunks: their stores
  // are the small side, and streamed on both threads they ran slower.
  // 16M elements on 2 threads, AMD EPYC (AVX2, 2 cores), el/ns: i8 dcast
  // 3.5-4.3 in 2^18-element chunks, 5.2-9.8 in 8 MiB ones, 4.4-5.1 on one
  // thread; i8 qcast (asmjit) 3.8-4.8 in 2^18, 2.8-3.5 in 8 MiB.
  size_t outBytes = offsetBytes(spec_, kernelOutputSide(spec_.op), n);
  size_t inBytes = offsetBytes(spec_, kernelInputSide(spec_.op), n);
  if (outBytes >= size_t(plan::kStreamingOutputBytes) && outBytes >= inBytes) {
    // The elements of kStreamingOutputBytes of output, in whole units.
    double elements = std::ceil(double(plan::kStreamingOutputBytes) *
                                double(n) / double(outBytes));
    minChunk = (size_t(elements) + unit - 1) / unit * unit;
  }
  size_t chunks =
      std::min(std::max(pool.threads, n / kChunkElements), n / minChunk);
  if (!pool.parallelFor || pool.threads < 2 || n < kMinParallelElements ||
      chunks < 2)
    return invokeRange(src, dst, n, 0, n, params);
  // Whole units each, at least minChunk (n / chunks is); the last takes
  // the rest.
  size_t chunkElements = n / chunks / unit * unit;
  ParallelJob job{
      this, src, dst, n, chunkElements, params, std::vector<Status>(chunks)};
  pool.parallelFor(
      pool.pool,
      [](void *context, size_t index) {
        auto &job = *static_cast<ParallelJob *>(context);
        size_t start = index * job.chunkElements;
        size_t count = index + 1 == job.statuses.size() ? job.n - start
                                                        : job.chunkElements;
        job.statuses[index] = job.kernel->invokeRange(job.src, job.dst, job.n,
                                                      start, count, job.params);
      },
      &job, chunks);
  for (Status &s : job.statuses)
    if (!s)
      return std::move(s);
  return Status::ok();
}

} // namespace qjit
