//===- DefaultThreadPool.cpp - pthreadpool behind ThreadPool --------------===//
#include "qjit/ThreadPool.h"

#include <pthreadpool.h>

#include <atomic>
#include <string>

namespace qjit {

namespace {

// pthreadpool hands tasks to its workers through its own atomics and
// futexes, which ThreadSanitizer cannot see in Debian's uninstrumented
// library. The same hand-off made once more with C++ atomics, a release
// before the tasks and an acquire after them, orders the caller's writes
// before every task and every task's writes before the return, in a way
// the sanitizer follows (and that costs two atomics per task).
struct OrderedTasks {
  ParallelTask task;
  void *taskContext;
  std::atomic<bool> published{false};
  std::atomic<size_t> finished{0};
};

void runOrderedTask(void *context, size_t index) {
  auto &tasks = *static_cast<OrderedTasks *>(context);
  (void)tasks.published.load(std::memory_order_acquire);
  tasks.task(tasks.taskContext, index);
  tasks.finished.fetch_add(1, std::memory_order_release);
}

void parallelizeWithPthreadpool(void *pool, ParallelTask task,
                                void *taskContext, size_t tasks) {
  OrderedTasks ordered{task, taskContext};
  ordered.published.store(true, std::memory_order_release);
  pthreadpool_parallelize_1d(static_cast<pthreadpool_t>(pool), runOrderedTask,
                             &ordered, tasks, /*flags=*/0);
  (void)ordered.finished.load(std::memory_order_acquire);
}

} // namespace

Expected<std::unique_ptr<DefaultThreadPool>>
DefaultThreadPool::create(size_t threads) {
  pthreadpool_t handle = pthreadpool_create(threads);
  if (!handle)
    return Status::error(ErrorCode::BackendFailure,
                         "pthreadpool_create could not start " +
                             std::to_string(threads) + " threads");
  return std::unique_ptr<DefaultThreadPool>(new DefaultThreadPool(handle));
}

DefaultThreadPool::DefaultThreadPool(void *handle) : handle_(handle) {}

DefaultThreadPool::~DefaultThreadPool() {
  pthreadpool_destroy(static_cast<pthreadpool_t>(handle_));
}

ThreadPool DefaultThreadPool::pool() const {
  return ThreadPool{parallelizeWithPthreadpool, handle_, threads()};
}

size_t DefaultThreadPool::threads() const {
  return pthreadpool_get_threads_count(static_cast<pthreadpool_t>(handle_));
}

} // namespace qjit
