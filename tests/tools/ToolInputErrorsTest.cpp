//===- ToolInputErrorsTest.cpp - Bad TYPE sources, picks, -o, parameters --===//
//
// The must-fail side of TypeInputTest.cpp and RuntimeParametersTest.cpp:
// each case exits 1 (a failure the command reports) or 2 (a usage error)
// with a message naming the problem, and leaves no output file.
//
//===----------------------------------------------------------------------===//
#include "NpyFiles.h"

#include <gtest/gtest.h>

#include <limits>

namespace qjit::tool {
namespace {

using namespace ::qjit::testing;

constexpr char kType[] = "!quant.uniform<i8:f32, 2.0:10>";

/// Every test gets a scratch dir and checks that only its inputs are left.
class ToolInputErrors : public ::testing::Test {
protected:
  void TearDown() override {
    for (const std::string &name : dir.entries())
      EXPECT_TRUE(name.ends_with(".in") || name.ends_with(".npy") ||
                  name.ends_with(".mlir") || name.ends_with(".txt"))
          << "left behind: " << name;
  }

  std::string out() const { return dir.file("result.out"); }

  ScratchDir dir;
};

using TypeInputErrors = ToolInputErrors;

TEST_F(TypeInputErrors, AnUnreadableTypeFileIsAFailureNamingIt) {
  std::string missing = dir.file("missing.txt");
  expectFailure(runQjit({"spec", "@" + missing, "--op=qcast", "-o", out()}), 1,
                missing);
  expectFailure(
      runQjit({"spec", "--type-file=" + missing, "--op=qcast", "-o", out()}), 1,
      missing);
  expectFailure(runQjit({"parse", "@" + missing, "-o", out()}), 1, missing);
}

TEST_F(TypeInputErrors, OneTypeSourceAtATime) {
  writeText(dir.file("t.txt"), kType);
  expectFailure(runQjit({"spec", kType, "--type-file=" + dir.file("t.txt"),
                         "--op=qcast"}),
                2, "give TYPE once");
  expectFailure(runQjit({"spec", "--pick=1", kType, "--op=qcast"}), 2,
                "--pick chooses a type of --mlir");
  expectFailure(runQjit({"spec", "--op=qcast"}), 2, "missing TYPE");
  expectFailure(runQjit({"parse", "-", "-"}), 2, "only once");
  expectFailure(runQjit({"parse", kType, "--mlir=" + dir.file("x.mlir")}), 2,
                "give no TYPE with it");
}

TEST_F(TypeInputErrors, AFileHoldsOneTypeForTheKernelCommands) {
  writeText(dir.file("t.txt"), std::string(kType) + "\n" + kType + "\n");
  expectFailure(
      runQjit({"spec", "@" + dir.file("t.txt"), "--op=qcast", "-o", out()}), 1,
      dir.file("t.txt") + ":2:1: unexpected");
}

using MlirInputErrors = ToolInputErrors;

TEST_F(MlirInputErrors, PicksThatMatchNothing) {
  std::string path = dir.file("two.mlir");
  writeText(path, "func.func @f(%a: !quant.uniform<i8:f32, 1.0>) -> "
                  "!quant.uniform<u8:f32, 2.0> {\n}\n");
  auto spec = [&](std::vector<std::string> extra) {
    std::vector<std::string> args = {"spec", "--mlir=" + path, "--op=qcast",
                                     "-o", out()};
    args.insert(args.end(), extra.begin(), extra.end());
    return runQjit(args);
  };
  expectFailure(spec({}), 1, "uses 2 quant types: choose one with --pick");
  expectFailure(spec({"--pick=3"}), 1, "--pick=3, but");
  expectFailure(spec({"--pick=0"}), 1, "invalid --pick '0'");
  expectFailure(spec({"--pick=1:x"}), 1, "invalid --pick");
  expectFailure(spec({"--pick=1:1"}), 1, "no quant type starts at");
  writeText(dir.file("none.mlir"),
            "// !quant.uniform<i8:f32, 1.0> in a comment\n"
            "func.func @f(%a: tensor<4xf32>) {\n  return\n}\n");
  expectFailure(runQjit({"spec", "--mlir=" + dir.file("none.mlir"),
                         "--op=qcast", "-o", out()}),
                1, "uses no quant type");
  expectFailure(runQjit({"parse", "--mlir=" + dir.file("absent.mlir")}), 1,
                "absent.mlir");
}

TEST_F(MlirInputErrors, NestedAliasesCannotExpandWithoutBound) {
  // Each alias uses the one before it 8 times: 8^13 copies of the first.
  std::string text = "!a0 = !quant.uniform<i8:f32, 1.0>\n";
  for (int i = 1; i < 14; ++i) {
    std::string previous = " !a" + std::to_string(i - 1);
    text += "!a" + std::to_string(i) + " = tensor<2x";
    for (int use = 0; use < 8; ++use)
      text += previous;
    text += ">\n";
  }
  text += "func.func @f(%x: !a13)\n";
  writeText(dir.file("laughs.mlir"), text);
  expectFailure(
      runQjit({"parse", "--mlir=" + dir.file("laughs.mlir"), "-o", out()}), 1,
      "its type aliases expand to more than 65536 copies");
}

using OutputFlagErrors = ToolInputErrors;

TEST_F(OutputFlagErrors, AFailedCommandWritesNoFile) {
  // parse prints the valid types on stdout only: a file waits for success.
  expectFailure(
      runQjit({"parse", kType, "!quant.uniform<i8:f33, 1.0>", "-o", out()}), 1,
      "f33");
  expectFailure(runQjit({"spec", "!quant.uniform<i8:f32, 0.0>", "--op=qcast",
                         "-o", out()}),
                1, "greater than zero");
  expectFailure(runQjit({"ir", "!quant.any<i8>", "--op=qcast", "-o", out()}), 1,
                "no kernel");
}

TEST_F(OutputFlagErrors, UnwritableTargetsAndConflictingOutputs) {
  expectFailure(
      runQjit({"spec", kType, "--op=qcast", "-o", dir.file("no/such/dir/x")}),
      1, "no/such/dir");
  writeArray<float>(dir.file("x.npy"), NpyDtype::F4, {1}, {1.0f});
  expectFailure(
      runQjit({"run", kType, "--op=qcast", "--in=" + dir.file("x.npy"), "-o",
               dir.file("a.npy"), "--out=" + dir.file("b.npy")}),
      2, "name different outputs");
}

class RuntimeParametersErrors : public ToolInputErrors {
protected:
  /// qcast of 4 f32 values in (2, 2) per-axis along dim 1, or `type`.
  ToolResult run(std::vector<std::string> extra,
                 std::string type = "tensor<2x2x!quant.uniform<i8:f32:1, ?>>") {
    writeArray<float>(dir.file("x.npy"), NpyDtype::F4, {2, 2},
                      {1.0f, 2.0f, 3.0f, 4.0f});
    std::vector<std::string> args = {"run", type, "--op=qcast",
                                     "--in=" + dir.file("x.npy"),
                                     "--out=" + dir.file("out.bin")};
    args.insert(args.end(), extra.begin(), extra.end());
    return runQjit(args);
  }
  std::string scales(const std::string &file) {
    return "--scales=" + dir.file(file);
  }
};

TEST_F(RuntimeParametersErrors, ScalesOfTheWrongDtypeCountOrShape) {
  writeArray<double>(dir.file("f8.npy"), NpyDtype::F8, {2}, {1.0, 2.0});
  expectFailure(run({scales("f8.npy")}), 1,
                "scales are f32 ('<f4'), the type's expressed type, not "
                "'<f8'");
  writeArray<float>(dir.file("three.npy"), NpyDtype::F4, {3}, {1, 2, 3});
  expectFailure(run({scales("three.npy")}), 1,
                "takes 2 parameters, so the array must be (2,), not 3");
  writeArray<float>(dir.file("grid.npy"), NpyDtype::F4, {1, 2}, {1, 2});
  expectFailure(run({scales("grid.npy")}), 1, "not 1x2");
  expectFailure(run({scales("absent.npy")}), 1, "absent.npy");
}

TEST_F(RuntimeParametersErrors, ScalesMustBeFiniteAndPositive) {
  struct Case {
    float value;
    const char *problem;
  };
  for (Case c :
       {Case{0.0f, "scale 1 is zero"}, Case{-0.0f, "scale 1 is zero"},
        Case{-1.0f, "scale 1 is negative"},
        Case{std::numeric_limits<float>::infinity(), "scale 1 is not finite"},
        Case{std::numeric_limits<float>::quiet_NaN(),
             "scale 1 is not finite"}}) {
    writeArray<float>(dir.file("s.npy"), NpyDtype::F4, {2}, {1.0f, c.value});
    expectFailure(run({scales("s.npy")}), 1, c.problem);
  }
  // f16 bit patterns: -1.0.
  writeArray<uint16_t>(dir.file("h.npy"), NpyDtype::F2, {2}, {0x3C00, 0xBC00});
  expectFailure(
      run({scales("h.npy")}, "tensor<2x2x!quant.uniform<i8:f16:1, ?>>"), 1,
      "scale 1 is negative");
}

TEST_F(RuntimeParametersErrors, ZeroPointsAreIntegersOfTheSameCount) {
  writeArray<float>(dir.file("s.npy"), NpyDtype::F4, {2}, {1.0f, 2.0f});
  writeArray<float>(dir.file("zf.npy"), NpyDtype::F4, {2}, {0.0f, 1.0f});
  expectFailure(run({scales("s.npy"), "--zero-points=" + dir.file("zf.npy")}),
                1, "zero points are integers, not '<f4'");
  writeArray<int64_t>(dir.file("z1.npy"), NpyDtype::I8, {1}, {3});
  expectFailure(run({scales("s.npy"), "--zero-points=" + dir.file("z1.npy")}),
                1, "z1.npy: the kernel's layout takes 2 parameters");
  expectFailure(run({"--zero-points=" + dir.file("z1.npy")}), 2,
                "--zero-points needs --scales");
}

TEST_F(RuntimeParametersErrors, QuestionMarkScalesNeedRuntimeParameters) {
  expectFailure(run({}), 1,
                "the type's scales are '?': give them with --scales");
  expectFailure(runQjit({"spec", "tensor<2x2x!quant.uniform<i8:f32:1, ?>>",
                         "--op=qcast", "-o", out()}),
                1, "compile it with runtime parameters");
  expectFailure(runQjit({"spec", "tensor<?x2x!quant.uniform<i8:f32:0, ?>>",
                         "--op=qcast", "--runtime-params", "-o", out()}),
                1, "needs the size of its quantized dim 0");
}

} // namespace
} // namespace qjit::tool
