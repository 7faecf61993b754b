//===- X86Generators.cpp - What the x86 generators cover ------------------===//
#include "X86Generators.h"

#include "AsmjitAssembly.h"
#include "X86Conversions.h"

#include <algorithm>
#include <cstdint>
#include <string>

namespace qjit::asmjit_backend {

namespace {
Status unsupported(std::string what) {
  return Status::error(ErrorCode::Unsupported,
                       "asmjit backend: " + std::move(what) +
                           " is not generated yet; use the llvm backend or "
                           "the reference");
}
/// The f32 sum round(u) + fl(z) is exact for |z| <= 2^24 (see
/// X86QuantizeGenerator); runtime zero points may be any int64.
bool zeroPointsExactInF32(const KernelSpec &spec) {
  if (spec.params.runtime)
    return false;
  for (int64_t zero : spec.params.zeroPoints)
    if (zero < -(int64_t(1) << 24) || zero > (int64_t(1) << 24))
      return false;
  return true;
}
} // namespace

Status checkX86Support(const KernelSpec &spec, const X86Isa &isa) {
  if (isa.level() < IsaLevel::Avx2)
    return Status::error(
        ErrorCode::Unsupported,
        "asmjit backend: needs AVX2 (ISA level is " +
            std::string(isaLevelName(isa.level())) +
            "); the runtime should fall back to the llvm backend or the "
            "reference");
  if (!x86SupportsStorage(spec.storage))
    return unsupported("storage other than unpacked integers of 1..24 bits "
                       "and unpacked float storage");
  if (spec.op != KernelOp::SCast && !x86SupportsExpressed(spec.expressed))
    return unsupported(std::string(valueTypeName(spec.expressed)) +
                       " expressed values");
  if (spec.op == KernelOp::QCast &&
      spec.knobs.zeroPoint == ZeroPointOrder::AfterRounding &&
      !zeroPointsExactInF32(spec))
    return unsupported("after-rounding qcast with runtime zero points or "
                       "baked ones beyond ±2^24 (the exact int64 sum)");
  return Status::ok();
}

void generateX86Kernel(x86::Assembler &a, const X86Isa &isa,
                       const KernelSpec &spec) {
  switch (spec.op) {
  case KernelOp::QCast:
    generateX86Quantize(a, isa, spec);
    return;
  case KernelOp::DCast:
    generateX86Dequantize(a, isa, spec);
    return;
  case KernelOp::SCast:
    generateX86StorageCast(a, isa, spec);
    return;
  }
}

Status assembleX86Kernel(asmjit::CodeHolder &code, const X86Isa &levelIsa,
                         const KernelSpec &spec) {
  if (Status status = checkX86Support(spec, levelIsa); !status)
    return status;
  // Float storage kernels are AVX2 (VEX, ymm) code at the AVX-512 level
  // too: correct there, and the only form the (AVX2) development and CI
  // hosts can execute and test.
  X86Isa isa = spec.storage.kind == StorageType::Kind::Float
                   ? X86Isa(std::min(levelIsa.level(), IsaLevel::Avx2))
                   : levelIsa;
  AssemblyErrors errors;
  code.setErrorHandler(&errors);
  {
    x86::Assembler assembler(&code);
    generateX86Kernel(assembler, isa, spec);
  }
  // `errors` dies here; CodeHolder's own calls report by return value.
  code.resetErrorHandler();
  if (!errors.ok())
    return errors.status(spec);
  return Status::ok();
}

} // namespace qjit::asmjit_backend
