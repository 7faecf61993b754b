//===- qjit/ThreadPool.h - The caller's threads -----------------*- C++ -*-===//
//
// qjit never starts a thread on its own: Kernel::runParallel splits a call
// into chunks and hands them to a pool the caller owns, through one
// parallel-for function (the shape of pthreadpool_parallelize_1d and of
// oneDNN's threadpool interface), so an inference engine passes its own
// pool. DefaultThreadPool is a ready one (pthreadpool) for callers that
// have none; it starts its threads when created, never before.
//
//===----------------------------------------------------------------------===//
#ifndef QJIT_THREADPOOL_H
#define QJIT_THREADPOOL_H

#include "qjit/Error.h"
#include "qjit/Export.h"

#include <cstddef>
#include <memory>

namespace qjit {

/// One chunk of a parallel run: called once for every index in [0, tasks).
using ParallelTask = void (*)(void *taskContext, size_t index);

/// A caller's pool. parallelFor(pool, task, taskContext, tasks) must call
/// task(taskContext, i) exactly once for every i in [0, tasks), on any
/// threads (the calling one included) in any order, and return when every
/// call has returned. Results never depend on the order or the threads.
struct QJIT_API ThreadPool {
  void (*parallelFor)(void *pool, ParallelTask task, void *taskContext,
                      size_t tasks) = nullptr;
  void *pool = nullptr;
  /// How many threads run tasks at once: runParallel makes this many
  /// chunks (fewer for small calls). 0 or 1: the calling thread only.
  size_t threads = 1;
};

/// Below this many elements Kernel::runParallel runs on the calling thread:
/// measured on a 2-core host (bench/, docs/runtime.md "Threads"), handing a
/// smaller call to a second thread costs more than the half it saves.
inline constexpr size_t kMinParallelElements = size_t(1) << 17;

/// A pthreadpool (libpthreadpool, the pool XNNPACK uses) behind the
/// ThreadPool interface. Its threads live as long as it does.
class QJIT_API DefaultThreadPool {
public:
  /// threads: how many run tasks (the caller's thread is one of them);
  /// 0 means one per core. Fails only when the threads cannot be started.
  static Expected<std::unique_ptr<DefaultThreadPool>> create(size_t threads);
  ~DefaultThreadPool();
  DefaultThreadPool(const DefaultThreadPool &) = delete;
  DefaultThreadPool &operator=(const DefaultThreadPool &) = delete;

  /// The interface to pass to Kernel::runParallel; valid while this is.
  ThreadPool pool() const;
  size_t threads() const;

private:
  explicit DefaultThreadPool(void *handle);
  void *handle_; ///< pthreadpool_t.
};

} // namespace qjit

#endif // QJIT_THREADPOOL_H
