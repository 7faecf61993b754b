//===- Isa.cpp - Host ISA detection and the QJIT_MAX_ISA cap --------------===//
#include "qjit/Isa.h"

#include <asmjit/core.h>

#include <algorithm>
#include <array>
#include <cstdlib>
#include <string>

namespace qjit {

namespace {
constexpr std::array<std::string_view, 4> kIsaNames = {"scalar", "sse4", "avx2",
                                                       "avx512"};
} // namespace

std::string_view isaLevelName(IsaLevel level) {
  return kIsaNames[static_cast<size_t>(level)];
}

Expected<IsaLevel> parseIsaLevel(std::string_view name) {
  for (size_t i = 0; i < kIsaNames.size(); ++i)
    if (kIsaNames[i] == name)
      return static_cast<IsaLevel>(i);
  return Status::error(ErrorCode::InvalidArgument,
                       "unknown ISA level '" + std::string(name) +
                           "' (expected scalar, sse4, avx2 or avx512)");
}

IsaLevel hostIsaLevel() {
  const asmjit::CpuFeatures::X86 &x86 =
      asmjit::CpuInfo::host().features().x86();
  // Kernels at a level may use everything listed here, so a level is only
  // reported when all of it is present (and enabled by the OS: asmjit
  // checks XCR0 before reporting AVX/AVX-512).
  if (x86.hasAVX512_F() && x86.hasAVX512_BW() && x86.hasAVX512_VL() &&
      x86.hasAVX512_DQ() && x86.hasAVX2() && x86.hasFMA() && x86.hasF16C())
    return IsaLevel::Avx512;
  if (x86.hasAVX2() && x86.hasFMA() && x86.hasF16C())
    return IsaLevel::Avx2;
  if (x86.hasSSE4_1())
    return IsaLevel::Sse4;
  return IsaLevel::Scalar;
}

Expected<IsaLevel> effectiveIsaLevel(std::optional<IsaLevel> requested) {
  IsaLevel level = hostIsaLevel();
  if (const char *env = std::getenv("QJIT_MAX_ISA"); env && *env) {
    Expected<IsaLevel> cap = parseIsaLevel(env);
    if (!cap)
      return Status::error(ErrorCode::InvalidArgument,
                           "QJIT_MAX_ISA: " + cap.status().message());
    level = std::min(level, *cap);
  }
  if (requested)
    level = std::min(level, *requested);
  return level;
}

} // namespace qjit
