//===- KernelFit.h - How well a backend's kernel fits a spec ----*- C++ -*-===//
//
// Backend::fit's answer, read from the kernel families' fit table
// (jit/src/plan/KernelFits.def), which says for each backend where its
// kernels are measured slower than another's.
//
//===----------------------------------------------------------------------===//
#ifndef QJIT_KERNELFIT_H
#define QJIT_KERNELFIT_H

#include <cstdint>
#include <string_view>

namespace qjit {

/// How well a backend's kernel for a spec fits it, best last: the runtime's
/// `auto` compiles with the best-fitting backend (BackendKind).
enum class KernelFit : uint8_t {
  /// compile() refuses the spec (ErrorCode::Unsupported).
  Unsupported,
  /// compile() makes a correct kernel composed from general building
  /// blocks, measured slower than another backend's kernel for the spec.
  Generic,
  /// compile() makes a kernel shaped for the spec; no other backend's is
  /// known to be faster.
  Specialized,
};

/// "unsupported", "generic", "specialized".
constexpr std::string_view kernelFitName(KernelFit fit) {
  switch (fit) {
  case KernelFit::Unsupported:
    return "unsupported";
  case KernelFit::Generic:
    return "generic";
  case KernelFit::Specialized:
    return "specialized";
  }
  return "?";
}

} // namespace qjit

#endif // QJIT_KERNELFIT_H
