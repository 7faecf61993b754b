//===- SpecCommand.cpp - qjit spec: a kernel's spec, and its plan ---------===//
#include "CommandOutput.h"
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
      "backends follow, each\nbackend's fit at the ISA level (and the form of "
      "its main loop where it has\nseveral), and the backend "
      "`auto` compiles with. --families prints the table of kernel families "
      "and\neach backend's fits (Markdown, as in docs/runtime.md).\n\n"
      "options:\n"
      "  --plan                      the plan, fits and auto's choice\n"
      "  --runtime-params            scales passed at call time "
      "(KernelParams)\n"
      "  --isa=scalar|sse4|avx2|avx512\n"
      "                              ISA level of the fits (default: the "
      "host's,\n"
      "                              capped by QJIT_MAX_ISA)\n%s%s",
      kOutputFlagHelp, kKernelFlagsHelp);
}

/// The plan, every backend's fit at `isa`, and the kernel `auto` makes
/// (compiled, when the host runs `isa`).
int printPlan(const KernelSpec &spec, IsaLevel isa, CommandOutput &out) {
  out.write(plan::describeKernelPlan(plan::planKernel(spec)));
  out.write("isa: " + std::string(isaLevelName(isa)) + "\n");
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
    out.write("fit " + std::string(name) + ": " + fit + "\n");
    if (backend)
      if (std::string loop = (*backend)->mainLoop(spec); !loop.empty())
        out.write("main loop " + std::string(name) + ": " + loop + "\n");
  }
  if (isa > hostIsaLevel()) {
    out.write("auto: not compiled (the host cannot run " +
              std::string(isaLevelName(isa)) + ")\n");
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
  out.write("auto: " + std::string(backendKindName((*kernel)->backend())) +
            " at " + std::string(isaLevelName((*kernel)->isa())) + "\n");
  return kExitSuccess;
}

} // namespace

int specCommand(int argc, char **argv) {
  CommandLine flags;
  addKernelFlags(flags);
  flags.flag("help").flag("plan").flag("families").flag("runtime-params");
  flags.value("isa").value("o");
  if (std::optional<int> done =
          parseCommandFlags(flags, argc, argv, kCommand, printUsage))
    return *done;
  CommandOutput out(flags);
  if (flags.has("families")) {
    out.write(plan::kernelFamilyTable());
    return finishOutput(kCommand, out);
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
  out.write(spec->canonicalString() + "\n");
  if (flags.has("plan"))
    if (int code = printPlan(*spec, *isa, out); code != kExitSuccess)
      return code;
  return finishOutput(kCommand, out);
}

} // namespace qjit::tool
