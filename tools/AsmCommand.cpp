//===- AsmCommand.cpp - qjit asm: print a kernel's assembly ---------------===//
//
// Generic over backends (Backend::assembly): the listing starts with a
// comment naming the spec, backend, target and features.
//
//===----------------------------------------------------------------------===//
#include "Commands.h"
#include "FileIO.h"
#include "KernelOptions.h"
#include "Report.h"

#include "qjit/Isa.h"
#include "qjit/internal/Backend.h"

#include <cstdio>

namespace qjit::tool {

namespace {

constexpr std::string_view kCommand = "asm";

void printUsage() {
  std::printf(
      "usage: qjit asm TYPE --op=qcast|dcast|scast [options]\n\n"
      "Prints the assembly of a kernel, for this host or another target.\n\n"
      "options:\n%s"
      "  --backend=llvm|asmjit       code generator (default llvm)\n"
      "  --isa=scalar|sse4|avx2|avx512\n"
      "                              x86 ISA level (default: the host's, "
      "capped by\n"
      "                              QJIT_MAX_ISA; higher than the host is "
      "fine here)\n"
      "  --runtime-params            scales passed at call time "
      "(KernelParams)\n"
      "  -mtriple=TRIPLE             target, e.g. aarch64-linux-gnu\n"
      "  -mcpu=CPU                   target CPU: its features (within --isa);\n"
      "                              asmjit uses the highest ISA level\n"
      "                              they include\n"
      "  -mattr=+a,-b                target features, applied last\n"
      "  --x86-asm-syntax=att|intel  x86 syntax (default: att for llvm,\n"
      "                              intel for asmjit, which prints no att)\n"
      "  -filetype=asm|obj           a listing (default), or a relocatable\n"
      "                              ELF object defining the kernel's symbol\n"
      "                              (llvm)\n"
      "  -o FILE                     write to FILE ('-': stdout)\n",
      kKernelFlagsHelp);
}

Expected<AsmOptions> readAsmOptions(const CommandLine &flags) {
  AsmOptions options;
  options.triple = flags.getOr("mtriple", "");
  options.cpu = flags.getOr("mcpu", "");
  options.features = flags.getOr("mattr", "");
  std::string fileType = flags.getOr("filetype", "asm");
  if (fileType != "asm" && fileType != "obj")
    return Status::error(ErrorCode::InvalidArgument,
                         "-filetype must be asm or obj, not '" + fileType +
                             "'");
  options.objectFile = fileType == "obj";
  if (std::optional<std::string> syntax = flags.get("x86-asm-syntax")) {
    if (*syntax != "att" && *syntax != "intel")
      return Status::error(ErrorCode::InvalidArgument,
                           "--x86-asm-syntax must be att or intel, not '" +
                               *syntax + "'");
    options.syntax = *syntax == "intel" ? AsmSyntax::Intel : AsmSyntax::Att;
  }
  return options;
}

} // namespace

int asmCommand(int argc, char **argv) {
  CommandLine flags;
  addKernelFlags(flags);
  flags.value("backend").value("isa").value("mtriple").value("mcpu");
  flags.value("mattr").value("x86-asm-syntax").value("filetype").value("o");
  flags.flag("help");
  flags.flag("runtime-params");
  if (std::optional<int> done =
          parseCommandFlags(flags, argc, argv, kCommand, printUsage))
    return *done;
  Expected<IsaLevel> isa = readIsaLevel(flags);
  if (!isa)
    return reportUsageError(kCommand, isa.status());
  Expected<AsmOptions> options = readAsmOptions(flags);
  if (!options)
    return reportUsageError(kCommand, options.status());
  Expected<KernelRequest> request = readKernelRequest(flags);
  if (!request)
    return reportUsageError(kCommand, request.status());
  request->lowering.runtimeParameters = flags.has("runtime-params");
  Expected<std::unique_ptr<Backend>> backend =
      createBackend(flags.getOr("backend", "llvm"), *isa);
  if (!backend)
    return backend.status().code() == ErrorCode::InvalidArgument
               ? reportUsageError(kCommand, backend.status())
               : reportFailure(kCommand, backend.status());
  Expected<KernelSpec> spec = lowerKernelRequest(*request);
  if (!spec)
    return reportFailure(kCommand, spec.status());
  Expected<std::string> text = (*backend)->assembly(*spec, *options);
  if (!text)
    return reportFailure(kCommand, text.status());
  std::string out = flags.getOr("o", "-");
  std::span<const uint8_t> bytes(
      reinterpret_cast<const uint8_t *>(text->data()), text->size());
  std::span<const uint8_t> pieces[] = {bytes};
  if (Status written = writeOutputFile(out, pieces); !written)
    return reportFailure(kCommand, written);
  return kExitSuccess;
}

} // namespace qjit::tool
