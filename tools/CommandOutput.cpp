//===- CommandOutput.cpp - Where a command's result goes ------------------===//
#include "CommandOutput.h"

#include "FileIO.h"
#include "Report.h"

#include <cstdint>
#include <cstdio>
#include <span>

namespace qjit::tool {

const char kOutputFlagHelp[] =
    "  -o FILE                     write the result to FILE (default -:\n"
    "                              stdout); written only when complete\n";

CommandOutput::CommandOutput(const CommandLine &flags)
    : path_(flags.getOr("o", "-")) {}

void CommandOutput::write(std::string_view text) {
  if (path_ != "-") {
    pending_ += text;
    return;
  }
  std::fwrite(text.data(), 1, text.size(), stdout);
  std::fflush(stdout);
}

Status CommandOutput::finish() {
  if (path_ == "-")
    return std::fflush(stdout) == 0
               ? Status::ok()
               : Status::error(ErrorCode::IOError, "cannot write <stdout>");
  std::span<const uint8_t> bytes(
      reinterpret_cast<const uint8_t *>(pending_.data()), pending_.size());
  std::span<const uint8_t> pieces[] = {bytes};
  return writeOutputFile(path_, pieces);
}

int finishOutput(std::string_view command, CommandOutput &out) {
  if (Status written = out.finish(); !written)
    return reportFailure(command, written);
  return kExitSuccess;
}

} // namespace qjit::tool
