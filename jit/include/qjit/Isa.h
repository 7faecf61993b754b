//===- qjit/Isa.h - Instruction-set levels and the ISA cap ------*- C++ -*-===//
#ifndef QJIT_ISA_H
#define QJIT_ISA_H

#include "qjit/Error.h"

#include <cstdint>
#include <optional>
#include <string_view>

namespace qjit {

/// x86-64 levels a kernel may use, lowest first. `Scalar` means no vector
/// instructions beyond the x86-64 baseline.
enum class IsaLevel : uint8_t { Scalar, Sse4, Avx2, Avx512 };

std::string_view isaLevelName(IsaLevel level); ///< "scalar", "sse4", ...
Expected<IsaLevel> parseIsaLevel(std::string_view name);

/// The best level this CPU (and OS) supports.
IsaLevel hostIsaLevel();

/// min(host, QJIT_MAX_ISA from the environment, `requested`). An invalid
/// QJIT_MAX_ISA value is an error, not silently ignored.
Expected<IsaLevel> effectiveIsaLevel(std::optional<IsaLevel> requested = {});

} // namespace qjit

#endif // QJIT_ISA_H
