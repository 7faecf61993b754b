//===- DefaultThreadPool.cpp - pthreadpool behind ThreadPool --------------===//
#include "qjit/ThreadPool.h"

#include <pthreadpool.h>

#include <string>

namespace qjit {

namespace {

void parallelizeWithPthreadpool(void *pool, ParallelTask task,
                                void *taskContext, size_t tasks) {
  pthreadpool_parallelize_1d(static_cast<pthreadpool_t>(pool), task,
                             taskContext, tasks, /*flags=*/0);
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
