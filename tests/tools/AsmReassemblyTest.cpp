//===- AsmReassemblyTest.cpp - `qjit asm` listings are assembler input ----===//
//
// bench/model.py feeds `qjit asm` listings to llvm-mc and llvm-mca as they
// are printed, so every x86 listing must assemble: asmjit's (Intel syntax,
// X86ListingSyntax.cpp) for compact, per-axis, blockwise, runtime and
// dynamic kernels at both ISA levels, LLVM's (AT&T) for the CPUs the model
// reports, and both backends' AArch64 listings. Skipped where llvm-mc-22 is
// not installed.
//
//===----------------------------------------------------------------------===//
#include "Nf4Table.h"
#include "ToolTestSupport.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>
#include <sys/wait.h>
#include <vector>

namespace qjit::tool {
namespace {

using ::qjit::testing::runQjit;
using ::qjit::testing::ScratchDir;
using ::qjit::testing::ToolResult;

constexpr const char *kLlvmMc = "llvm-mc-22";

bool haveLlvmMc() {
  std::string probe = std::string(kLlvmMc) + " --version >/dev/null 2>&1";
  return std::system(probe.c_str()) == 0;
}

std::string nf4Quantile() { return std::string(::qjit::testing::kNf4Quantile); }

/// tensor<4x64> with one (scale, zero point) per column.
std::string perAxisLast() {
  std::string text = "tensor<4x64x!quant.uniform<i8:f32:1, {";
  for (int column = 0; column < 64; ++column)
    text += (column ? "," : "") + std::to_string(0.5 + column / 128.0) + ":" +
            std::to_string(column % 5 - 2);
  return text + "}>>";
}

std::vector<std::string> types() {
  return {
      "!quant.uniform<i8:f32, 0.05:-3>",
      "!quant.uniform<u8:f32, 0.05:128>",
      "!quant.uniform<i4:f32, 0.5:1>",
      "!quant.uniform<f8E4M3FN:f32, 0.0137>",
      nf4Quantile(),
      "!quant.uniform<" + nf4Quantile() + ":f32, 0.0137>",
      perAxisLast(),
      "tensor<2x64x!quant.uniform<i4:f32:{0:1, 1:32}, "
      "{{0.5:1,0.25:0},{0.75:0,1.5:2}}>>",
      "!quant.uniform<i8:bf16, 0.05:-3>",
  };
}

/// Assembles `listing` with llvm-mc; "" on success, else its diagnostics.
std::string assemble(const std::string &listing,
                     const std::vector<std::string> &flags) {
  ScratchDir dir;
  std::string source = dir.file("listing.s"), errors = dir.file("errors");
  std::ofstream(source, std::ios::binary) << listing;
  std::string command = kLlvmMc;
  for (const std::string &flag : flags)
    command += " " + flag;
  command += " -o /dev/null " + source + " 2>" + errors;
  int status = std::system(command.c_str());
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
    return "";
  std::ifstream in(errors, std::ios::binary);
  std::string text(std::istreambuf_iterator<char>(in), {});
  return text.empty() ? "llvm-mc failed" : text.substr(0, 2000);
}

class AsmReassembly : public ::testing::Test {
protected:
  void SetUp() override {
    if (!haveLlvmMc())
      GTEST_SKIP() << kLlvmMc << " is not installed";
  }

  void expectAssembles(const std::vector<std::string> &asmArgs,
                       const std::vector<std::string> &mcFlags) {
    ToolResult listing = runQjit(asmArgs);
    std::string what = asmArgs[1].substr(0, 60);
    for (size_t i = 2; i < asmArgs.size(); ++i)
      what += " " + asmArgs[i];
    ASSERT_EQ(listing.exitCode, 0) << what << ": " << listing.err;
    EXPECT_EQ(assemble(listing.out, mcFlags), "") << what;
  }
};

TEST_F(AsmReassembly, AsmjitListingsAssembleAsPrinted) {
  for (const std::string &type : types())
    for (const char *op : {"--op=qcast", "--op=dcast"})
      for (const char *isa : {"--isa=avx512", "--isa=avx2"}) {
        expectAssembles({"asm", type, op, "--backend=asmjit", isa},
                        {"-triple=x86_64"});
        expectAssembles(
            {"asm", type, op, "--backend=asmjit", isa, "--runtime-params"},
            {"-triple=x86_64"});
      }
}

TEST_F(AsmReassembly, AsmjitDynamicListingsAssembleAsPrinted) {
  // The driver's entry carries inline comments; short rows add the
  // batched range pass.
  for (const char *type : {"!quant.uniform<i8:f32, ?>",
                           "tensor<4x32x!quant.uniform<i8:f32:0, ?>>"})
    for (const char *scheme : {"--dynamic=absmax", "--dynamic=minmax"})
      for (const char *isa : {"--isa=avx512", "--isa=avx2"})
        expectAssembles(
            {"asm", type, "--op=qcast", "--backend=asmjit", isa, scheme},
            {"-triple=x86_64"});
}

TEST_F(AsmReassembly, LlvmListingsAssembleForTheModelledCpus) {
  const std::vector<std::pair<std::string, std::string>> cpus = {
      {"sapphirerapids", "--isa=avx512"},
      {"znver4", "--isa=avx512"},
      {"znver1", "--isa=avx2"}};
  for (const auto &[cpu, isa] : cpus)
    for (const std::string &type :
         {types()[0], types()[2], types()[5], types()[6]})
      for (const char *op : {"--op=qcast", "--op=dcast"})
        expectAssembles(
            {"asm", type, op, "--backend=llvm", isa, "-mcpu=" + cpu},
            {"-triple=x86_64", "-mcpu=" + cpu});
}

TEST_F(AsmReassembly, Aarch64ListingsOfBothBackendsAssemble) {
  const std::string triple = "-mtriple=aarch64-linux-gnu";
  for (const std::string &type : types())
    for (const char *op : {"--op=qcast", "--op=dcast"})
      expectAssembles({"asm", type, op, "--backend=llvm", triple},
                      {"-triple=aarch64-linux-gnu"});
  // asmjit's AArch64 generators: 8- and 16-bit integer storage.
  for (const std::string &type : {types()[0], types()[1], types()[6],
                                  std::string("!quant.uniform<i16:f32, 0.5>")})
    for (const char *op : {"--op=qcast", "--op=dcast"})
      for (bool runtime : {false, true}) {
        std::vector<std::string> args = {"asm", type, op, "--backend=asmjit",
                                         triple};
        if (runtime)
          args.push_back("--runtime-params");
        expectAssembles(args, {"-triple=aarch64-linux-gnu"});
      }
}

} // namespace
} // namespace qjit::tool
