//===- TypeInputTest.cpp - TYPE from files, stdin and .mlir; -o -----------===//
//
// The built binary with types given as @FILE, '-', --type-file and --mlir,
// and with results written by -o. The must-fail cases are in
// ToolInputErrorsTest.cpp.
//
//===----------------------------------------------------------------------===//
#include "NpyFiles.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace qjit::tool {
namespace {

using namespace ::qjit::testing;

constexpr char kPerAxis[] = "tensor<4x!quant.uniform<i8:f32:0, {1.0, 2.0,\n"
                            "  3.0, 4.0}>>\n";
constexpr char kPerAxisPrinted[] =
    "tensor<4x!quant.uniform<i8:f32:0, "
    "{1.000000e+00,2.000000e+00,3.000000e+00,4.000000e+00}>>\n";

TEST(TypeInput, EveryCommandReadsTypeFromFileStdinAndTypeFile) {
  ScratchDir dir;
  writeText(dir.file("type.txt"), kPerAxis);
  ToolRunOptions fromStdin;
  fromStdin.stdinText = kPerAxis;
  std::vector<std::vector<std::string>> commands = {
      {"spec", "--op=qcast"},
      {"spec", "--op=dcast", "--runtime-params"},
      {"ir", "--op=qcast", "--isa=avx2"},
      {"ir", "--op=dcast", "--isa=avx2", "--runtime-params"},
      {"asm", "--op=qcast", "--isa=avx2", "--backend=asmjit"}};
  for (const std::vector<std::string> &command : commands) {
    auto with = [&](const std::string &type) {
      std::vector<std::string> args = command;
      args.insert(args.begin() + 1, type);
      return args;
    };
    ToolResult argument = runQjit(with(kPerAxis));
    expectSuccess(argument);
    EXPECT_FALSE(argument.out.empty());
    for (const ToolResult &other :
         {runQjit(with("@" + dir.file("type.txt"))),
          runQjit(with("--type-file=" + dir.file("type.txt"))),
          runQjit(with("-"), fromStdin),
          runQjit(with("--type-file=-"), fromStdin)}) {
      expectSuccess(other);
      EXPECT_EQ(other.out, argument.out) << command[0];
    }
  }
}

TEST(TypeInput, BenchReadsTypeFromAFile) {
  ScratchDir dir;
  writeText(dir.file("type.txt"), "!quant.uniform<i8:f32,\n 0.5:3>\n");
  ToolResult result = runQjit({"bench", "@" + dir.file("type.txt"),
                               "--op=qcast", "--n=4096", "--min-time=0.001"});
  EXPECT_EQ(result.exitCode, 0) << result.err;
  EXPECT_NE(result.out.find(dir.file("type.txt")), std::string::npos)
      << result.out;
}

TEST(TypeInput, ParseSplitsAFileAtLineBreaksOutsideBrackets) {
  ScratchDir dir;
  writeText(dir.file("types.txt"),
            std::string("!quant.uniform<i8:f32, 2.0:10>\n\n") + kPerAxis +
                "  !quant.any<i8>\r\n");
  std::string expected = "!quant.uniform<i8:f32, 2.000000e+00:10>\n" +
                         std::string(kPerAxisPrinted) + "!quant.any<i8>\n";
  ToolResult fromFile = runQjit({"parse", "@" + dir.file("types.txt")});
  expectSuccess(fromFile);
  EXPECT_EQ(fromFile.out, expected);
  ToolRunOptions options;
  options.stdinText = readTextOf(dir.file("types.txt"));
  ToolResult fromStdin = runQjit({"parse", "-"}, options);
  expectSuccess(fromStdin);
  EXPECT_EQ(fromStdin.out, expected);
  // An argument is one type, line breaks and all.
  ToolResult argument = runQjit({"parse", kPerAxis});
  expectSuccess(argument);
  EXPECT_EQ(argument.out, kPerAxisPrinted);
}

TEST(TypeInput, DiagnosticsNameTheFileLineAndColumn) {
  ScratchDir dir;
  writeText(dir.file("types.txt"), "!quant.uniform<i8:f32, 2.0>\n"
                                   "tensor<2x!quant.uniform<i8:f32:0,\n"
                                   "  {1.0, 0.0}>>\n");
  ToolResult parsed = runQjit({"parse", "@" + dir.file("types.txt")});
  EXPECT_EQ(parsed.exitCode, 1);
  EXPECT_EQ(parsed.out, "!quant.uniform<i8:f32, 2.000000e+00>\n");
  std::string expected = "error: " + dir.file("types.txt") +
                         ":3:9: scale '0.0' must be greater than zero\n"
                         "  {1.0, 0.0}>>\n"
                         "        ^";
  EXPECT_NE(parsed.err.find(expected), std::string::npos) << parsed.err;

  ToolRunOptions options;
  options.stdinText = "\n\n!quant.uniform<i8:f33, 1.0>\n";
  ToolResult spec = runQjit({"spec", "-", "--op=qcast"}, options);
  expectFailure(spec, 1, "error: <stdin>:3:19: ");
}

constexpr char kUpstreamStyle[] =
    "// RUN: mlir-opt %s -split-input-file -verify-diagnostics | FileCheck "
    "%s\n"                                                    // 1
    "\n"                                                      // 2
    "// CHECK-LABEL: @per_tensor\n"                           // 3
    "!qalias = !quant.uniform<i8:f32, 1.0>\n"                 // 4
    "func.func @per_tensor(%arg0: tensor<2x?x4x!qalias>) {\n" // 5
    "  %0 = quant.dcast %arg0 : tensor<2x?x4x!qalias> to "    // 6
    "tensor<2x?x4xf32>\n"                                     //
    "  return\n"                                              // 7
    "}\n"                                                     // 8
    "\n"                                                      // 9
    "// -----\n"                                              // 10
    "\n"                                                      // 11
    "// A per-axis alias over two lines; \"!quant.uniform<x>\" in a string\n"
    "!qalias = !quant.uniform<i8:f32:2,\n"        // 13
    "                         {1.0, 2.0, 3.0}>\n" // 14
    "func.func @per_axis(%arg0: tensor<1x2x3xf32>) -> tensor<*x!qalias> {\n"
    "  %0 = quant.qcast %arg0 : tensor<1x2x3xf32> to tensor<1x2x3x!qalias>\n"
    "  %1 = \"test.op\"() {note = \"!quant.uniform<x>\"} : () -> "
    "!quant.any<i8:f32>\n" // 17
    "  %2 = quant.scast %0 : tensor<1x2x3x!quant.uniform<i8:f32:2, {1.0, "
    "2.0, 3.0}>> to tensor<1x2x3xi8>\n"     // 18
    "  return %0 : tensor<1x2x3x!qalias>\n" // 19
    "}\n";

TEST(MlirInput, ParseListsEveryQuantTypeWithItsLocation) {
  ScratchDir dir;
  std::string path = dir.file("ops.mlir");
  writeText(path, kUpstreamStyle);
  ToolResult result = runQjit({"parse", "--mlir=" + path});
  expectSuccess(result);
  std::string perTensor = "!quant.uniform<i8:f32, 1.000000e+00>";
  std::string perAxis = "!quant.uniform<i8:f32:2, "
                        "{1.000000e+00,2.000000e+00,3.000000e+00}>";
  EXPECT_EQ(result.out,
            path + ":4:11: " + perTensor + "\n" +                   //
                path + ":5:30: tensor<2x?x4x" + perTensor + ">\n" + //
                path + ":6:28: tensor<2x?x4x" + perTensor + ">\n" + //
                path + ":13:11: " + perAxis + "\n" +                //
                path + ":15:50: tensor<*x" + perAxis + ">\n" +      //
                path + ":16:49: tensor<1x2x3x" + perAxis + ">\n" +  //
                path + ":17:57: !quant.any<i8:f32>\n" +             //
                path + ":18:25: tensor<1x2x3x" + perAxis + ">\n" +  //
                path + ":19:15: tensor<1x2x3x" + perAxis + ">\n");
}

TEST(MlirInput, AliasUsesAreListedWhereTheyAreWritten) {
  ScratchDir dir;
  std::string path = dir.file("scalar.mlir");
  writeText(path, "!qalias = !quant.uniform<u8:f32, 0.5>\n"
                  "func.func @parse() -> !qalias {\n"
                  "  %0 = \"foo\"() : () -> !qalias\n"
                  "  return %0 : !qalias\n"
                  "}\n");
  ToolResult result = runQjit({"parse", "--mlir=" + path});
  expectSuccess(result);
  std::string type = " !quant.uniform<u8:f32, 5.000000e-01>\n";
  EXPECT_EQ(result.out, path + ":1:11:" + type + path + ":2:23:" + type + path +
                            ":3:24:" + type + path + ":4:15:" + type);
  // The same from stdin.
  ToolRunOptions options;
  options.stdinText = readTextOf(path);
  ToolResult fromStdin = runQjit({"parse", "--mlir=-"}, options);
  expectSuccess(fromStdin);
  EXPECT_EQ(fromStdin.out.substr(0, 16), "<stdin>:1:11: !q");
  ToolResult spec =
      runQjit({"spec", "--mlir=-", "--pick=2:23", "--op=qcast"}, options);
  expectSuccess(spec);
}

TEST(MlirInput, OtherCommandsPickByIndexOrPosition) {
  ScratchDir dir;
  std::string path = dir.file("ops.mlir");
  writeText(path, kUpstreamStyle);
  ToolResult direct =
      runQjit({"spec",
               "tensor<1x2x3x!quant.uniform<i8:f32:2, {1.0, 2.0, "
               "3.0}>>",
               "--op=dcast"});
  expectSuccess(direct);
  for (std::string pick : {"6", "16:49", "18:25"}) {
    ToolResult picked =
        runQjit({"spec", "--mlir=" + path, "--pick=" + pick, "--op=dcast"});
    expectSuccess(picked);
    EXPECT_EQ(picked.out, direct.out) << pick;
  }
  // A file that uses one type needs no --pick.
  writeText(dir.file("one.mlir"),
            "func.func @f(%a: tensor<4xf32>) -> tensor<4x!quant.uniform<"
            "i8:f32, 2.0>> {\n  %0 = \"x\"(%a) : (tensor<4xf32>) -> "
            "tensor<4x!quant.uniform<i8:f32, 2.0>>\n  return %0 : "
            "tensor<4x!quant.uniform<i8:f32, 2.0>>\n}\n");
  ToolResult one = runQjit({"parse", "--mlir=" + dir.file("one.mlir")});
  expectSuccess(one);
  EXPECT_EQ(std::count(one.out.begin(), one.out.end(), '\n'), 3);
  writeText(dir.file("single.mlir"),
            "// one type\n!q = !quant.uniform<u8:f32, 0.5:128>\n");
  expectSuccess(
      runQjit({"spec", "--mlir=" + dir.file("single.mlir"), "--op=qcast"}));
}

TEST(MlirInput, DiagnosticsInAnAliasPointAtItsDefinition) {
  ScratchDir dir;
  std::string path = dir.file("bad.mlir");
  writeText(path, "!qalias = !quant.uniform<i8:f32:0,\n"
                  "    {1.0, 2}>\n"
                  "func.func @f(%arg0: tensor<2x!qalias>) {\n"
                  "  return\n"
                  "}\n");
  ToolResult result = runQjit({"parse", "--mlir=" + path});
  EXPECT_EQ(result.exitCode, 1);
  // Both the definition and the tensor that uses it report line 2.
  std::string expected =
      "error: " + path + ":2:11: scale '2' is not a float literal";
  size_t first = result.err.find(expected);
  ASSERT_NE(first, std::string::npos) << result.err;
  EXPECT_NE(result.err.find(expected, first + 1), std::string::npos)
      << result.err;
  EXPECT_NE(result.err.find("    {1.0, 2}>\n          ^"), std::string::npos)
      << result.err;
}

TEST(OutputFlag, EveryWritingCommandWritesAFileOrStdout) {
  ScratchDir dir;
  std::string type = "!quant.uniform<i8:f32, 2.0:10>";
  std::vector<std::vector<std::string>> commands = {
      {"parse", type},
      {"spec", type, "--op=qcast"},
      {"ir", type, "--op=qcast", "--isa=avx2"},
      {"asm", type, "--op=qcast", "--isa=avx2"}};
  for (std::vector<std::string> command : commands) {
    ToolResult printed = runQjit(command);
    expectSuccess(printed);
    std::string file = dir.file(command[0] + ".out");
    command.push_back("-o");
    command.push_back(file);
    ToolResult written = runQjit(command);
    expectSuccess(written);
    EXPECT_EQ(written.out, "") << command[0];
    EXPECT_EQ(readTextOf(file), printed.out) << command[0];
    command.back() = "-";
    ToolResult toStdout = runQjit(command);
    expectSuccess(toStdout);
    EXPECT_EQ(toStdout.out, printed.out) << command[0];
  }
}

TEST(OutputFlag, RunTakesOAsItsOut) {
  ScratchDir dir;
  writeArray<float>(dir.file("in.npy"), NpyDtype::F4, {2}, {2.0f, 4.0f});
  ToolResult result =
      runQjit({"run", "!quant.uniform<i8:f32, 2.0>", "--op=qcast",
               "--in=" + dir.file("in.npy"), "-o", dir.file("out.npy")});
  expectSuccess(result);
  EXPECT_EQ(valuesOf<int8_t>(readArray(dir.file("out.npy"))),
            (std::vector<int8_t>{1, 2}));
}

} // namespace
} // namespace qjit::tool
