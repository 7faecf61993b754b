//===- qjit/Isa.h - ISA levels, the ISA cap, listing targets ----*- C++ -*-===//
#ifndef QJIT_ISA_H
#define QJIT_ISA_H

#include "qjit/Error.h"

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
Expected<IsaLevel> parseIsaLevel(std::string_view name);

/// The best level this CPU (and OS) supports.
IsaLevel hostIsaLevel();

/// min(host, QJIT_MAX_ISA from the environment, `requested`). An invalid
/// QJIT_MAX_ISA value is an error, not silently ignored.
Expected<IsaLevel> effectiveIsaLevel(std::optional<IsaLevel> requested = {});

/// What an assembly listing (`qjit asm`, Kernel::assembly) asks for: a target
/// other than the host, if any.
struct AsmOptions {
  std::string triple;       ///< Empty: the host.
  std::string cpu;          ///< Empty: host CPU (or generic when cross).
  std::string features;     ///< "+avx2,-avx512f" style, applied last.
  bool intelSyntax = false; ///< x86 only.
};

} // namespace qjit

#endif // QJIT_ISA_H
