//===- qjit/Isa.h - ISA levels, the ISA cap, listing targets ----*- C++ -*-===//
#ifndef QJIT_ISA_H
#define QJIT_ISA_H

#include "qjit/Error.h"
#include "qjit/Export.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace qjit {

/// x86-64 levels a kernel may use, lowest first. `Scalar` means no vector
/// instructions beyond the x86-64 baseline.
enum class IsaLevel : uint8_t { Scalar, Sse4, Avx2, Avx512 };

/// "scalar", "sse4", "avx2", "avx512".
constexpr std::string_view isaLevelName(IsaLevel level) {
  switch (level) {
  case IsaLevel::Scalar:
    return "scalar";
  case IsaLevel::Sse4:
    return "sse4";
  case IsaLevel::Avx2:
    return "avx2";
  case IsaLevel::Avx512:
    return "avx512";
  }
  return "?";
}
QJIT_API Expected<IsaLevel> parseIsaLevel(std::string_view name);

/// The best level this CPU (and OS) supports.
QJIT_API IsaLevel hostIsaLevel();

/// min(host, QJIT_MAX_ISA from the environment, `requested`). An invalid
/// QJIT_MAX_ISA value is an error, not silently ignored.
QJIT_API Expected<IsaLevel>
effectiveIsaLevel(std::optional<IsaLevel> requested = {});

/// The x86 syntax of a listing. The LLVM backend prints either (AT&T by
/// default, as llc); asmjit's formatter prints Intel only, so asmjit refuses
/// Att.
enum class AsmSyntax : uint8_t { Default, Att, Intel };

/// What an assembly listing (`qjit asm`, Kernel::assembly) asks for: a target
/// other than the host, if any. The LLVM backend generates for the CPU and
/// features given; asmjit, which targets ISA levels, generates for the
/// highest level within its own whose baseline they include.
struct QJIT_API AsmOptions {
  std::string triple;   ///< Empty: the host.
  std::string cpu;      ///< Empty: host CPU (or generic when cross).
  std::string features; ///< "+avx2,-avx512f" style, applied last.
  AsmSyntax syntax = AsmSyntax::Default; ///< x86 only.
  /// A relocatable ELF object defining the kernel's symbol instead of a
  /// listing (`-filetype=obj`; the LLVM backend only).
  bool objectFile = false;
};

} // namespace qjit

#endif // QJIT_ISA_H
