//===- FatalErrorGuard.cpp - LLVM failures as errors, not exits -----------===//
#include "FatalErrorGuard.h"

#include <llvm/Support/CrashRecoveryContext.h>
#include <llvm/Support/ErrorHandling.h>

#include <cctype>
#include <cstdio>
#include <mutex>
#include <vector>

namespace qjit::llvmjit {

namespace {

/// The reason of the fatal error inside this thread's runGuarded.
thread_local std::string *guardedReason = nullptr;

void fatalErrorHandler(void *, const char *reason, bool) {
  if (llvm::CrashRecoveryContext *context =
          llvm::CrashRecoveryContext::GetCurrent()) {
    if (guardedReason)
      *guardedReason = reason;
    context->HandleExit(1); // Back to RunSafely; does not return.
  }
  // Outside runGuarded (LLVM used by the host, not qjit): LLVM's own
  // message; LLVM then ends the process as it would have.
  std::fprintf(stderr, "LLVM ERROR: %s\n", reason);
}

/// Process-wide, once: CrashRecoveryContext's signal handlers (they pass
/// every signal outside a guarded region on to the handlers before them)
/// and the fatal error handler.
void enableRecovery() {
  static std::once_flag once;
  std::call_once(once, [] {
    llvm::CrashRecoveryContext::Enable();
    llvm::install_fatal_error_handler(fatalErrorHandler);
  });
}

} // namespace

Status runGuarded(const std::string &what, llvm::function_ref<Status()> work) {
  enableRecovery();
  std::string reason;
  Status status = Status::ok();
  std::string *outer = guardedReason;
  guardedReason = &reason;
  llvm::CrashRecoveryContext context;
  bool finished = context.RunSafely([&] { status = work(); });
  guardedReason = outer;
  if (finished)
    return status;
  while (!reason.empty() &&
         std::isspace(static_cast<unsigned char>(reason.back())))
    reason.pop_back();
  return Status::error(ErrorCode::BackendFailure,
                       "llvm: " + what + " failed inside LLVM: " +
                           (reason.empty() ? "a crash (signal)" : reason));
}

void quarantineObject(const void *object) {
  static std::mutex mutex;
  static auto *kept = new std::vector<const void *>; // Never destroyed.
  std::lock_guard<std::mutex> lock(mutex);
  kept->push_back(object);
}

} // namespace qjit::llvmjit
