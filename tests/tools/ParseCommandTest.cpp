//===- ParseCommandTest.cpp - `qjit parse` end to end ---------------------===//
//
// The built binary on arguments and stdin: canonical output, exit codes,
// located diagnostics on stderr, --normalize.
//
//===----------------------------------------------------------------------===//
#include "ToolTestSupport.h"

#include <gtest/gtest.h>

namespace qjit::tool {
namespace {

using ::qjit::testing::runQjit;
using ::qjit::testing::ToolResult;
using ::qjit::testing::ToolRunOptions;

TEST(ParseCommand, PrintsEachCanonicalFormOnItsOwnLine) {
  ToolResult result =
      runQjit({"parse", "!quant.uniform<si8:f32, 2.0:10>",
               "!quant.uniform<ui8<0:255>:f32, 0.5>",
               "tensor<2x3x!quant.uniform<i8:f32:1, {0.5:1, 0.25, 2.}>>"});
  EXPECT_EQ(result.exitCode, 0) << result.err;
  EXPECT_EQ(result.out, "!quant.uniform<i8:f32, 2.000000e+00:10>\n"
                        "!quant.uniform<u8:f32, 5.000000e-01>\n"
                        "tensor<2x3x!quant.uniform<i8:f32:1, "
                        "{5.000000e-01:1,2.500000e-01,2.000000e+00}>>\n");
  EXPECT_EQ(result.err, "");
}

TEST(ParseCommand, InvalidTypeExitsOneWithACaretUnderTheProblem) {
  ToolResult result = runQjit({"parse", "!quant.uniform<i8:f32, 2.0:10>",
                               "!quant.uniform<i8:f33, 2.0>"});
  EXPECT_EQ(result.exitCode, 1);
  // The valid type still prints; the invalid one is reported on stderr.
  EXPECT_EQ(result.out, "!quant.uniform<i8:f32, 2.000000e+00:10>\n");
  EXPECT_NE(result.err.find("error: <input>:1:19: "), std::string::npos)
      << result.err;
  EXPECT_NE(result.err.find("f33"), std::string::npos) << result.err;
  EXPECT_NE(result.err.find("\n!quant.uniform<i8:f33, 2.0>\n"
                            "                  ^"),
            std::string::npos)
      << result.err;
}

TEST(ParseCommand, ReadsOneTypePerLineFromStdin) {
  ToolRunOptions options;
  options.stdinText = "!quant.uniform<i8:f32, 2.0:10>\n"
                      "\n"
                      "!quant.uniform<u8:f32, 1.0:-1\n";
  ToolResult result = runQjit({"parse", "-"}, options);
  EXPECT_EQ(result.exitCode, 1);
  EXPECT_EQ(result.out, "!quant.uniform<i8:f32, 2.000000e+00:10>\n");
  // Diagnostics name stdin and the real line number.
  EXPECT_NE(result.err.find("error: <stdin>:3:"), std::string::npos)
      << result.err;
}

TEST(ParseCommand, NormalizeRewritesSubChannelTypes) {
  ToolResult result =
      runQjit({"parse", "--normalize",
               "tensor<4x8x!quant.uniform<i8:f32:{0:1}, "
               "{{1.0}, {2.0}, {3.0}, {4.0}}>>",
               "tensor<4x8x!quant.uniform<i8:f32:{}, {{1.0:3}}>>"});
  EXPECT_EQ(result.exitCode, 0) << result.err;
  EXPECT_EQ(result.out,
            "tensor<4x8x!quant.uniform<i8:f32:0, "
            "{1.000000e+00,2.000000e+00,3.000000e+00,4.000000e+00}>>\n"
            "tensor<4x8x!quant.uniform<i8:f32, 1.000000e+00:3>>\n");
}

TEST(ParseCommand, UsageErrorsExitTwo) {
  EXPECT_EQ(runQjit({"parse"}).exitCode, 2);
  ToolResult unknown = runQjit({"parse", "--frobnicate", "x"});
  EXPECT_EQ(unknown.exitCode, 2);
  EXPECT_NE(unknown.err.find("--frobnicate"), std::string::npos);
  EXPECT_EQ(runQjit({"no-such-command"}).exitCode, 2);
}

TEST(StatsFlag, PrintsCacheCountersAtExit) {
  ToolResult result = runQjit(
      {"--stats", "spec", "!quant.uniform<i8:f32, 2.0:10>", "--op=qcast"});
  EXPECT_EQ(result.exitCode, 0) << result.err;
  EXPECT_NE(result.err.find("hits"), std::string::npos) << result.err;
  EXPECT_NE(result.err.find("compiles"), std::string::npos) << result.err;
}

TEST(StatsFlag, IsAcceptedAfterTheCommandToo) {
  ToolResult result = runQjit(
      {"spec", "!quant.uniform<i8:f32, 2.0:10>", "--stats", "--op=qcast"});
  EXPECT_EQ(result.exitCode, 0) << result.err;
  EXPECT_NE(result.err.find("hits"), std::string::npos) << result.err;
  EXPECT_NE(result.out.find("qcast"), std::string::npos) << result.out;
}

TEST(StatsFlag, PrintsDiskCacheCountersWhenOneWasUsed) {
  testing::ScratchDir dir;
  testing::writeBytes(dir.file("in.bin"), std::vector<uint8_t>(64, 0x41));
  ToolRunOptions options;
  options.environment = {"QJIT_CACHE_DIR=" + dir.file("cache")};
  for (const char *want : {"0 hits, 1 misses, 1 writes", "1 hits, 0 misses"}) {
    ToolResult result =
        runQjit({"--stats", "run", "!quant.uniform<i8:f32, 2.0:10>",
                 "--op=qcast", "--backend=llvm", "--in=" + dir.file("in.bin"),
                 "--out=" + dir.file("out.bin")},
                options);
    EXPECT_EQ(result.exitCode, 0) << result.err;
    EXPECT_NE(result.err.find(std::string("qjit disk cache: ") + want),
              std::string::npos)
        << result.err;
  }
}

TEST(VersionFlag, NamesQjitItsCodeGeneratorsAndTheHost) {
  ToolResult result = runQjit({"--version"});
  EXPECT_EQ(result.exitCode, 0) << result.err;
  EXPECT_EQ(result.out.rfind("qjit 0.", 0), 0u) << result.out;
  for (const char *part :
       {"llvm=22.", "asmjit=", "Host: ", "CPU ", "ISA level "})
    EXPECT_NE(result.out.find(part), std::string::npos) << part << result.out;
}

TEST(AsmCommand, PrintsHeaderAndKernelForEveryTarget) {
  for (const char *backend : {"llvm", "asmjit"}) {
    ToolResult x86 =
        runQjit({"asm", "!quant.uniform<i8:f32, 2.0:10>", "--op=qcast",
                 std::string("--backend=") + backend, "--isa=avx2"});
    EXPECT_EQ(x86.exitCode, 0) << backend << ": " << x86.err;
    EXPECT_NE(x86.out.find("backend"), std::string::npos) << x86.out;
    EXPECT_NE(x86.out.find("ymm"), std::string::npos) << x86.out;
    EXPECT_EQ(x86.out.find("zmm"), std::string::npos) << x86.out;

    ToolResult a64 = runQjit({"asm", "!quant.uniform<i8:f32, 2.0:10>",
                              "--op=qcast", std::string("--backend=") + backend,
                              "-mtriple=aarch64-linux-gnu"});
    EXPECT_EQ(a64.exitCode, 0) << backend << ": " << a64.err;
    EXPECT_NE(a64.out.find("fcvt"), std::string::npos) << a64.out;
  }
}

size_t occurrences(const std::string &text, const std::string &word) {
  size_t count = 0;
  for (size_t at = text.find(word); at != std::string::npos;
       at = text.find(word, at + 1))
    ++count;
  return count;
}

TEST(AsmCommand, CpuSelectsItsFeaturesInBothBackends) {
  // At --isa=avx512 on any host: Zen 1 has no AVX-512, Sapphire Rapids has.
  for (const char *backend : {"llvm", "asmjit"}) {
    auto listing = [&](const std::string &cpu) {
      ToolResult result =
          runQjit({"asm", "!quant.uniform<i8:f32, 2.0:10>", "--op=qcast",
                   std::string("--backend=") + backend, "--isa=avx512",
                   "-mcpu=" + cpu});
      EXPECT_EQ(result.exitCode, 0) << backend << " " << cpu << result.err;
      return result.out;
    };
    EXPECT_EQ(listing("znver1").find("zmm"), std::string::npos) << backend;
    EXPECT_NE(listing("znver1").find("ymm"), std::string::npos) << backend;
    EXPECT_NE(listing("sapphirerapids").find("zmm"), std::string::npos)
        << backend;

    ToolResult bogus =
        runQjit({"asm", "!quant.uniform<i8:f32, 2.0:10>", "--op=qcast",
                 std::string("--backend=") + backend, "-mcpu=bogus"});
    EXPECT_EQ(bogus.exitCode, 1) << backend;
    EXPECT_EQ(occurrences(bogus.err, "bogus"), 1u) << bogus.err;
    EXPECT_EQ(bogus.out, "");
  }
}

TEST(AsmCommand, AsmjitPrintsIntelSyntaxOnly) {
  const std::string type = "!quant.uniform<i8:f32, 2.0:10>";
  ToolResult att = runQjit(
      {"asm", type, "--op=qcast", "--backend=asmjit", "--x86-asm-syntax=att"});
  EXPECT_EQ(att.exitCode, 1);
  EXPECT_NE(att.err.find("Intel syntax only"), std::string::npos) << att.err;
  for (const char *flag : {"--x86-asm-syntax=intel", "--op=qcast"}) {
    ToolResult intel =
        runQjit({"asm", type, "--op=qcast", "--backend=asmjit", flag});
    EXPECT_EQ(intel.exitCode, 0) << intel.err;
    EXPECT_NE(intel.out.find("(Intel syntax)"), std::string::npos);
  }
  ToolResult llvm =
      runQjit({"asm", type, "--op=qcast", "--backend=llvm", "--isa=avx2"});
  EXPECT_NE(llvm.out.find("%ymm"), std::string::npos) << llvm.out; // AT&T.
}

TEST(AsmCommand, ObjectFileIsRelocatableElfWithTheKernelSymbol) {
  qjit::testing::ScratchDir dir;
  const std::string type = "!quant.uniform<i8:f32, 2.0:10>";
  for (const char *triple : {"x86_64-linux-gnu", "aarch64-linux-gnu"}) {
    std::string object = dir.file(std::string(triple) + ".o");
    ToolResult result = runQjit(
        {"asm", type, "--op=qcast", "--backend=llvm", "--isa=avx2",
         std::string("-mtriple=") + triple, "-filetype=obj", "-o", object});
    ASSERT_EQ(result.exitCode, 0) << triple << result.err;
    std::vector<uint8_t> bytes = qjit::testing::readBytes(object);
    ASSERT_GT(bytes.size(), 64u);
    EXPECT_EQ(std::string(bytes.begin(), bytes.begin() + 4), "\x7f"
                                                             "ELF");
    EXPECT_EQ(bytes[16], 1) << "e_type ET_REL";
    EXPECT_NE(std::string(bytes.begin(), bytes.end()).find("qjit_"),
              std::string::npos);
  }
  ToolResult asmjit =
      runQjit({"asm", type, "--op=qcast", "--backend=asmjit", "-filetype=obj"});
  EXPECT_EQ(asmjit.exitCode, 1);
  EXPECT_NE(asmjit.err.find("--backend=llvm"), std::string::npos) << asmjit.err;
  EXPECT_EQ(runQjit({"asm", type, "--op=qcast", "-filetype=exe"}).exitCode, 2);
}

TEST(KnobFlags, ThoseTheKernelIgnoresAreWarnedAboutOnce) {
  auto spec = [](std::vector<std::string> args) {
    args.insert(args.begin(), "spec");
    ToolResult result = runQjit(args);
    EXPECT_EQ(result.exitCode, 0) << result.err;
    return result.err;
  };
  const std::string i8 = "!quant.uniform<i8:f32, 2.0:10>";
  std::string dcast = spec({i8, "--op=dcast", "--rounding=toward-zero"});
  EXPECT_EQ(occurrences(dcast, "warning: --rounding changes nothing for "
                               "dcast"),
            1u)
      << dcast;
  std::string integer = spec({i8, "--op=qcast", "--no-saturate"});
  EXPECT_NE(integer.find("warning: --no-saturate changes nothing"),
            std::string::npos)
      << integer;
  // Flags that matter say nothing.
  EXPECT_EQ(spec({i8, "--op=qcast", "--rounding=toward-zero"}), "");
  EXPECT_EQ(spec({"!quant.uniform<f8E4M3FN:f32, 2.0>", "--op=qcast",
                  "--no-saturate"}),
            "");
}

TEST(SpecCommand, PlanNamesTheFamilyDecisionsAndFits) {
  // Fits at avx2 are stated on any host (no code is generated for them).
  auto plan = [](std::vector<std::string> args) {
    args.insert(args.begin(), "spec");
    args.push_back("--plan");
    args.push_back("--isa=avx2");
    ToolResult result = runQjit(args);
    EXPECT_EQ(result.exitCode, 0) << result.err;
    return result.out;
  };
  std::string divide = plan({"!quant.uniform<i8:f32, 0.0173:3>", "--op=qcast"});
  for (const char *line : {"\nfamily: quantize (", "\nscaling: divide\n",
                           "\nchecked reciprocal: allowed", "bracket where FMA",
                           "\nbounds in compute: [-128, 127]\n",
                           "\nisa: avx2\n", "\nfit asmjit: specialized\n",
                           "\nmain loop asmjit: bracketed reciprocal (",
                           "\nfit llvm: specialized\n", "\nauto: "})
    EXPECT_NE(divide.find(line), std::string::npos) << line << "\n" << divide;
  std::string powerOfTwo =
      plan({"!quant.uniform<u8:f32, 0.25:3>", "--op=qcast"});
  EXPECT_NE(powerOfTwo.find("\nscaling: exact-reciprocal\n"), std::string::npos)
      << powerOfTwo;
  std::string wide = plan({"!quant.uniform<u2:f64, 0.5:1>", "--op=dcast"});
  EXPECT_NE(wide.find("\nfamily: dequantize-wide ("), std::string::npos)
      << wide;
  EXPECT_EQ(wide.find("main loop"), std::string::npos) << wide;
  EXPECT_NE(wide.find("\nfit asmjit: generic: packed 1- and 2-bit integer "
                      "codes ("),
            std::string::npos)
      << wide;
  std::string runtime =
      plan({"tensor<3x5x!quant.uniform<i8:f64:0, {0.5:1, 0.25:2, 0.125:3}>>",
            "--op=dcast", "--runtime-params"});
  EXPECT_NE(runtime.find("params=runtime"), std::string::npos) << runtime;
  EXPECT_NE(runtime.find("\nfit asmjit: generic: runtime per-axis runs"),
            std::string::npos)
      << runtime;
  std::string bare =
      runQjit({"spec", "!quant.uniform<i8:f32, 0.5>", "--op=dcast"}).out;
  EXPECT_EQ(bare.find("family:"), std::string::npos) << bare;
}

TEST(SpecCommand, FamiliesPrintsTheTableOfFamiliesAndFits) {
  ToolResult result = runQjit({"spec", "--families"});
  EXPECT_EQ(result.exitCode, 0) << result.err;
  EXPECT_EQ(result.out.rfind("| family | op | takes | example | llvm fit | "
                             "asmjit fit |\n",
                             0),
            0u)
      << result.out;
  for (const char *row :
       {"\n| quantize | qcast | ", "\n| storage-cast | scast | ",
        "generic for packed 1- and 2-bit integer codes"})
    EXPECT_NE(result.out.find(row), std::string::npos) << row;
}

TEST(IrCommand, PrintsAFunctionOfLlvmIr) {
  ToolResult result =
      runQjit({"ir", "!quant.uniform<i8:f32, 2.0:10>", "--op=dcast", "-O2"});
  EXPECT_EQ(result.exitCode, 0) << result.err;
  EXPECT_NE(result.out.find("define"), std::string::npos) << result.out;
  EXPECT_EQ(
      runQjit({"ir", "!quant.uniform<i8:f32, 2.0:10>", "--op=dcast", "-O7"})
          .exitCode,
      2);
}

} // namespace
} // namespace qjit::tool
