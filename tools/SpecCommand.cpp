//===- SpecCommand.cpp - qjit spec: a kernel's spec, and its plan ---------===//
#include "Commands.h"
#include "KernelOptions.h"
#include "Report.h"

#include "plan/KernelFits.h"
#include "plan/KernelPlan.h"

#include "qjit/Runtime.h"
#include "qjit/internal/Backend.h"

#include <cstdio>
#include <string>

namespace qjit::tool {

namespace {

constexpr std::string_view kCommand = "spec";

void printUsage() {
  std::printf(
      "usage: qjit spec TYPE --op=qcast|dcast|scast [--plan] [options]\n"
      "       qjit spec --families\n\n"
      "Prints the canonical string of the KernelSpec that TYPE (a quant type "
      "or a\ntensor of one) lowers to for the op. --plan also prints what "
      "qjit generates\nfor it and why: the kernel family, the decisions both "
      "backends follow, each\nbackend's fit at the ISA level, and the backend "
      "`auto` compiles with. --families prints the table of kernel families "
      "and\neach backend's fits (Markdown, as in docs/runtime.md).\n\n"
      "options:\n"
      "  --plan                      the plan, fits and auto's choice\n"
      "  --runtime-params            scales passed at call time "
      "(KernelParams)\n"
      "  --isa=scalar|sse4|avx2|avx512\n"
      "                              ISA level of the fits (default: the "
      "host's,\n"
      "                              capped by QJIT_MAX_ISA)\n%s",
      kKernelFlagsHelp);
}

/// The plan, every backend's fit at `isa`, and the kernel `auto` makes
/// (compiled, when the host runs `isa`).
int printPlan(const KernelSpec &spec, IsaLevel isa) {
  std::printf("%s", plan::describeKernelPlan(plan::planKernel(spec)).c_str());
  std::printf("isa: %s\n", std::string(isaLevelName(isa)).c_str());
  for (const char *name : {"asmjit", "llvm"}) {
    Expected<std::unique_ptr<Backend>> backend = createBackend(name, isa);
    std::string fit;
    if (!backend) {
      fit = "unavailable: " + backend.status().message();
    } else {
      fit = std::string(kernelFitName((*backend)->fit(spec)));
      if (std::string why = (*backend)->fitReason(spec); !why.empty())
        fit += ": " + why;
    }
    std::printf("fit %s: %s\n", name, fit.c_str());
  }
  if (isa > hostIsaLevel()) {
    std::printf("auto: not compiled (the host cannot run %s)\n",
                std::string(isaLevelName(isa)).c_str());
    return kExitSuccess;
  }
  RuntimeOptions options;
  options.maxIsa = isa;
  Expected<std::unique_ptr<Runtime>> runtime = Runtime::create(options);
  if (!runtime)
    return reportFailure(kCommand, runtime.status());
  Expected<std::shared_ptr<const Kernel>> kernel = (*runtime)->compile(spec);
  if (!kernel)
    return reportFailure(kCommand, kernel.status());
  std::printf("auto: %s at %s\n",
              std::string(backendKindName((*kernel)->backend())).c_str(),
              std::string(isaLevelName((*kernel)->isa())).c_str());
  return kExitSuccess;
}

} // namespace

int specCommand(int argc, char **argv) {
  CommandLine flags;
  addKernelFlags(flags);
  flags.flag("help").flag("plan").flag("families").flag("runtime-params");
  flags.value("isa");
  if (std::optional<int> done =
          parseCommandFlags(flags, argc, argv, kCommand, printUsage))
    return *done;
  if (flags.has("families")) {
    std::printf("%s", plan::kernelFamilyTable().c_str());
    return kExitSuccess;
  }
  Expected<KernelRequest> request = readKernelRequest(flags);
  if (!request)
    return reportUsageError(kCommand, request.status());
  request->lowering.runtimeParameters = flags.has("runtime-params");
  Expected<IsaLevel> isa = readIsaLevel(flags);
  if (!isa)
    return reportUsageError(kCommand, isa.status());
  Expected<KernelSpec> spec = lowerKernelRequest(*request);
  if (!spec)
    return reportFailure(kCommand, spec.status());
  std::printf("%s\n", spec->canonicalString().c_str());
  if (!flags.has("plan"))
    return kExitSuccess;
  return printPlan(*spec, *isa);
}

} // namespace qjit::tool
