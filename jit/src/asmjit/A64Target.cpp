//===- A64Target.cpp - AArch64 kernels as flat code bytes -----------------===//
#include "A64Target.h"

#include "A64Generators.h"
#include "A64ListingSyntax.h"
#include "AsmjitAssembly.h"

#include <asmjit/core.h>

namespace qjit::asmjit_backend {

namespace {

Status linkFailure(asmjit::Error err) {
  return Status::error(ErrorCode::BackendFailure,
                       std::string("asmjit backend: linking the AArch64 "
                                   "kernel failed: ") +
                           asmjit::DebugUtils::errorAsString(err));
}

} // namespace

Expected<TargetCode> a64TargetCode(const KernelSpec &spec,
                                   std::string_view triple) {
  asmjit::CodeHolder code;
  code.init(asmjit::Environment(asmjit::Arch::kAArch64));
  asmjit::StringLogger logger;
  configureListingLogger(logger);
  code.setLogger(&logger);
  AssemblyErrors errors;
  code.setErrorHandler(&errors);
  if (Status status = assembleA64Kernel(code, spec); !status)
    return status;
  if (!errors.ok())
    return errors.status(spec);
  // Everything is PC-relative within the one section; relocating to base
  // 0 resolves the label links and leaves no absolute address behind.
  if (asmjit::Error err = code.flatten())
    return linkFailure(err);
  if (asmjit::Error err = code.resolveUnresolvedLinks())
    return linkFailure(err);
  if (asmjit::Error err = code.relocateToBase(0))
    return linkFailure(err);
  TargetCode target;
  target.bytes.resize(code.codeSize());
  if (asmjit::Error err =
          code.copyFlattenedData(target.bytes.data(), target.bytes.size(),
                                 asmjit::CopySectionFlags::kPadTargetBuffer))
    return linkFailure(err);
  target.triple = std::string(triple);
  target.entryOffset = 0;
  target.listing = listingHeader(spec, "asmjit", triple, "+neon") +
                   "# flat image: " + std::to_string(target.bytes.size()) +
                   " bytes, entry at offset 0\n" + gasA64Listing(logger.data());
  return target;
}

} // namespace qjit::asmjit_backend
