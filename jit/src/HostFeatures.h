//===- HostFeatures.h - Host features the generators use --------*- C++ -*-===//
#ifndef QJIT_JIT_HOSTFEATURES_H
#define QJIT_JIT_HOSTFEATURES_H

namespace qjit {

/// AVX-512 VBMI on this host, unless QJIT_X86_FEATURES masks it
/// (`-avx512vbmi`; effectiveIsaLevel rejects other entries).
bool hostX86VbmiUsable();

} // namespace qjit

#endif // QJIT_JIT_HOSTFEATURES_H
