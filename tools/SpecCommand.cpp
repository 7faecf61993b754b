//===- SpecCommand.cpp - qjit spec: print a kernel's canonical spec -------===//
#include "Commands.h"
#include "KernelOptions.h"
#include "Report.h"

#include <cstdio>

namespace qjit::tool {

namespace {

constexpr std::string_view kCommand = "spec";

void printUsage() {
  std::printf("usage: qjit spec TYPE --op=qcast|dcast|scast [options]\n\n"
              "Prints the canonical string of the KernelSpec that TYPE (a "
              "quant type or a\ntensor of one) lowers to for the op.\n\n"
              "options:\n%s",
              kKernelFlagsHelp);
}

} // namespace

int specCommand(int argc, char **argv) {
  CommandLine flags;
  addKernelFlags(flags);
  flags.flag("help");
  if (std::optional<int> done =
          parseCommandFlags(flags, argc, argv, kCommand, printUsage))
    return *done;
  Expected<KernelRequest> request = readKernelRequest(flags);
  if (!request)
    return reportUsageError(kCommand, request.status());
  Expected<KernelSpec> spec = lowerKernelRequest(*request);
  if (!spec)
    return reportFailure(kCommand, spec.status());
  std::printf("%s\n", spec->canonicalString().c_str());
  return kExitSuccess;
}

} // namespace qjit::tool
