//===- Isa.cpp - Host ISA detection and the QJIT_MAX_ISA cap --------------===//
#include "qjit/Isa.h"

#include <asmjit/core.h>

#include <algorithm>
#include <cstdlib>
#include <string>

namespace qjit {

Expected<IsaLevel> parseIsaLevel(std::string_view name) {
  for (IsaLevel level :
       {IsaLevel::Scalar, IsaLevel::Sse4, IsaLevel::Avx2, IsaLevel::Avx512})
    if (isaLevelName(level) == name)
      return level;
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
