//===- Isa.cpp - Host ISA detection, the QJIT_MAX_ISA cap, feature masks --===//
#include "qjit/Isa.h"

#include "HostFeatures.h"

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

namespace {

/// QJIT_X86_FEATURES: comma-separated host features kernels may not use,
/// each as `-name`. VBMI is the only optional one the generators pick
/// (X86Isa::vbmi); masking it runs, on a VBMI host, the AVX-512 code a
/// host without it (Skylake-X, Cascade Lake) runs.
constexpr std::string_view kVbmiMask = "-avx512vbmi";

Status checkX86FeatureMask() {
  const char *env = std::getenv("QJIT_X86_FEATURES");
  std::string_view rest = env ? env : "";
  while (!rest.empty()) {
    size_t comma = rest.find(',');
    std::string_view entry = rest.substr(0, comma);
    if (entry != kVbmiMask)
      return Status::error(ErrorCode::InvalidArgument,
                           "QJIT_X86_FEATURES: unknown entry '" +
                               std::string(entry) + "' (expected " +
                               std::string(kVbmiMask) + ")");
    rest = comma == std::string_view::npos ? "" : rest.substr(comma + 1);
  }
  return Status::ok();
}

} // namespace

bool hostX86VbmiUsable() {
  if (!asmjit::CpuInfo::host().features().x86().hasAVX512_VBMI())
    return false;
  const char *env = std::getenv("QJIT_X86_FEATURES");
  return !env ||
         std::string_view(env).find(kVbmiMask) == std::string_view::npos;
}

Expected<IsaLevel> effectiveIsaLevel(std::optional<IsaLevel> requested) {
  if (Status mask = checkX86FeatureMask(); !mask)
    return mask;
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
