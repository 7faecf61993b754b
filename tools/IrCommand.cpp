//===- IrCommand.cpp - qjit ir: print a kernel's optimized LLVM IR --------===//
#include "CommandOutput.h"
#include "Commands.h"
#include "KernelOptions.h"
#include "Report.h"

#include "qjit/Isa.h"
#include "qjit/internal/LlvmBackend.h"

#include <cstdio>
#include <string>

namespace qjit::tool {

namespace {

constexpr std::string_view kCommand = "ir";

void printUsage() {
  std::printf("usage: qjit ir TYPE --op=qcast|dcast|scast [-O0|-O1|-O2|-O3] "
              "[options]\n\n"
              "Prints the LLVM IR of the kernel the llvm backend compiles for "
              "this host,\nafter the optimization pipeline of the given level "
              "(default: the JIT's,\n-O0: the IR is explicit vector code "
              "already).\n\noptions:\n%s"
              "  --isa=scalar|sse4|avx2|avx512\n"
              "                              ISA level (default: the host's, "
              "capped by QJIT_MAX_ISA)\n"
              "  --runtime-params            scales passed at call time "
              "(KernelParams)\n%s",
              kKernelFlagsHelp, kOutputFlagHelp);
}

} // namespace

int irCommand(int argc, char **argv) {
  CommandLine flags;
  addKernelFlags(flags);
  flags.value("isa").flag("O0").flag("O1").flag("O2").flag("O3").flag("help");
  flags.value("o").flag("runtime-params");
  if (std::optional<int> done =
          parseCommandFlags(flags, argc, argv, kCommand, printUsage))
    return *done;
  int optLevel = kLlvmJitOptLevel;
  for (int level = 0; level <= 3; ++level)
    if (flags.has("O" + std::to_string(level)))
      optLevel = level;
  Expected<IsaLevel> isa = readIsaLevel(flags);
  if (!isa)
    return reportUsageError(kCommand, isa.status());
  Expected<KernelRequest> request = readKernelRequest(flags);
  if (!request)
    return reportUsageError(kCommand, request.status());
  request->lowering.runtimeParameters = flags.has("runtime-params");
  Expected<KernelSpec> spec = lowerKernelRequest(*request);
  if (!spec)
    return reportFailure(kCommand, spec.status());
  Expected<std::string> ir = llvmIr(*spec, optLevel, *isa);
  if (!ir)
    return reportFailure(kCommand, ir.status());
  CommandOutput out(flags);
  out.write(*ir);
  return finishOutput(kCommand, out);
}

} // namespace qjit::tool
