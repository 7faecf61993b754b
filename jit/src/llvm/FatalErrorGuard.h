//===- FatalErrorGuard.h - LLVM failures as errors, not exits ---*- C++ -*-===//
//
// LLVM reports what it cannot compile (instruction selection's "Cannot
// select", a register allocator out of registers, ...) through
// report_fatal_error, which ends the process. qjit runs every piece of
// work that drives LLVM under runGuarded: inside it, such an error (or a
// crash) unwinds back to runGuarded through llvm::CrashRecoveryContext, as
// libclang does for its parses, and comes back as a Status. The library's
// host process never ends because LLVM could not compile a kernel.
//
//===----------------------------------------------------------------------===//
#ifndef QJIT_JIT_LLVM_FATALERRORGUARD_H
#define QJIT_JIT_LLVM_FATALERRORGUARD_H

#include "qjit/Error.h"

#include <llvm/ADT/STLFunctionalExtras.h>

#include <memory>
#include <string>

namespace qjit::llvmjit {

/// Runs `work`; a fatal error or crash inside it returns BackendFailure
/// naming `what` and LLVM's reason. After a failure, the LLVM objects
/// `work` used may be inconsistent: the caller hands them to quarantine()
/// instead of using or destroying them.
[[nodiscard]] Status runGuarded(const std::string &what,
                                llvm::function_ref<Status()> work);

/// Keeps `object` (LLVM state a failed runGuarded left behind) alive and
/// untouched until the process ends: destroying it could crash, and it
/// stays reachable, so LeakSanitizer does not report it.
void quarantineObject(const void *object);
template <typename T> void quarantine(std::unique_ptr<T> &object) {
  if (object)
    quarantineObject(object.release());
}

} // namespace qjit::llvmjit

#endif
