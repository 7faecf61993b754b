//===- AsmjitAssembly.cpp - Listings and assembler errors -----------------===//
#include "AsmjitAssembly.h"

#include "X86Generators.h"
#include "X86ListingSyntax.h"
#include "qjit/internal/LlvmBackend.h"

namespace qjit::asmjit_backend {

Status AssemblyErrors::status(const KernelSpec &spec) const {
  return Status::error(ErrorCode::BackendFailure,
                       "asmjit backend: assembling " + spec.kernelName() +
                           " failed: " + message_ + " (" +
                           asmjit::DebugUtils::errorAsString(error_) + ")");
}

bool isAArch64Triple(std::string_view triple) {
  return triple.starts_with("aarch64") || triple.starts_with("arm64");
}

Expected<IsaLevel> listingIsaLevel(IsaLevel backendIsa,
                                   const AsmOptions &options) {
  if (!options.triple.empty() && !options.triple.starts_with("x86_64"))
    return Status::error(ErrorCode::Unsupported,
                         "asmjit backend: no generator for target '" +
                             options.triple + "' (x86_64 and aarch64 only)");
  if (options.syntax == AsmSyntax::Att)
    return Status::error(ErrorCode::Unsupported,
                         "asmjit backend: listings are in Intel syntax only "
                         "(asmjit's formatter has no AT&T)");
  if (options.cpu.empty() && options.features.empty())
    return backendIsa;
  return x86ListingIsaLevel(backendIsa, options);
}

std::string listingHeader(const KernelSpec &spec, std::string_view backend,
                          std::string_view target, std::string_view features) {
  std::string header;
  header += "# spec: " + spec.canonicalString() + "\n";
  header += "# backend: " + std::string(backend) + "\n";
  header += "# target: " + std::string(target) + "\n";
  header += "# features: " + std::string(features) + "\n";
  return header;
}

void configureListingLogger(asmjit::StringLogger &logger) {
  logger.setFlags(asmjit::FormatFlags::kHexImms |
                  asmjit::FormatFlags::kHexOffsets);
  logger.setIndentation(asmjit::FormatIndentationGroup::kCode, 2);
}

Expected<std::string> x86Assembly(const KernelSpec &spec, IsaLevel level,
                                  const AsmOptions &options) {
  X86Isa isa(level);
  asmjit::CodeHolder code;
  code.init(asmjit::Environment(asmjit::Arch::kX64));
  asmjit::StringLogger logger;
  configureListingLogger(logger);
  code.setLogger(&logger);
  if (Status status = assembleX86Kernel(code, isa, spec); !status)
    return status;
  X86Isa kernelIsa = x86KernelIsa(spec, isa);
  std::string features = kernelIsa.avx512()
                             ? "+avx2,+fma,+f16c,+bmi2,+avx512f,+avx512bw,"
                               "+avx512vl,+avx512dq"
                             : "+avx2,+fma,+f16c,-avx512f";
  if (kernelIsa.vbmi()) // Byte permutes where the host has them.
    features += ",+avx512vbmi";
  std::string triple =
      options.triple.empty() ? "x86_64-linux-gnu" : options.triple;
  return listingHeader(spec,
                       "asmjit (isa " +
                           std::string(isaLevelName(kernelIsa.level())) + ")",
                       triple + " (Intel syntax)", features) +
         gasIntelListing(logger.data());
}

} // namespace qjit::asmjit_backend
