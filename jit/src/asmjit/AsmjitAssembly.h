//===- AsmjitAssembly.h - Listings and assembler errors ---------*- C++ -*-===//
//
// What the asmjit backend shares between compiling and printing: the
// assembler error collector, and the `qjit asm` listing (asmjit's Intel
// syntax formatter, rewritten for GNU as, behind a header comment: spec,
// backend, target, features).
//
//===----------------------------------------------------------------------===//
#ifndef QJIT_JIT_ASMJIT_ASMJITASSEMBLY_H
#define QJIT_JIT_ASMJIT_ASMJITASSEMBLY_H

#include "qjit/internal/Backend.h"

#include <asmjit/core.h>

#include <string>
#include <string_view>

namespace qjit::asmjit_backend {

/// Collects the first error an emitter reports (asmjit emitters report
/// through an ErrorHandler instead of failing each call site).
class AssemblyErrors final : public asmjit::ErrorHandler {
public:
  void handleError(asmjit::Error err, const char *message,
                   asmjit::BaseEmitter *) override {
    if (error_ == asmjit::kErrorOk) {
      error_ = err;
      message_ = message ? message : "";
    }
  }
  bool ok() const { return error_ == asmjit::kErrorOk; }
  Status status(const KernelSpec &spec) const;

private:
  asmjit::Error error_ = asmjit::kErrorOk;
  std::string message_;
};

bool isAArch64Triple(std::string_view triple);

/// The x86 level a listing uses: the backend's, or the highest within it
/// that AsmOptions' -mcpu and -mattr include (x86ListingIsaLevel). Refuses
/// AT&T syntax.
Expected<IsaLevel> listingIsaLevel(IsaLevel backendIsa,
                                   const AsmOptions &options);

/// The header comment of every listing (the LLVM backend's fields).
std::string listingHeader(const KernelSpec &spec, std::string_view backend,
                          std::string_view target, std::string_view features);

/// A formatter-backed logger for listings (Intel syntax, indented code).
void configureListingLogger(asmjit::StringLogger &logger);

/// The x86-64 listing of `spec` at `level`: assembler input (llvm-mc,
/// GNU as) after the header comment.
Expected<std::string> x86Assembly(const KernelSpec &spec, IsaLevel level,
                                  const AsmOptions &options);

} // namespace qjit::asmjit_backend

#endif // QJIT_JIT_ASMJIT_ASMJITASSEMBLY_H
