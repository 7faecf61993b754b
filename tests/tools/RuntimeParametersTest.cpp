//===- RuntimeParametersTest.cpp - run --scales, '?' types, packed shapes -===//
//
// `qjit run` with runtime scales and zero points from .npy files, '?' scale
// lists, the shape of packed output, and the model-scale case of issue 20:
// an 8192-channel per-axis type (over Linux's 128 KiB argument limit) from
// a file, stdin and an .mlir file, with runtime scales, against a reference
// computed here. The must-fail cases are in ToolInputErrorsTest.cpp.
//
//===----------------------------------------------------------------------===//
#include "NpyFiles.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>

namespace qjit::tool {
namespace {

using namespace ::qjit::testing;

class RuntimeParameters : public ::testing::Test {
protected:
  /// `qjit run TYPE --op=OP --in=in.npy --out=NAME EXTRA...` in dir.
  ToolResult run(const std::string &type, const std::string &op,
                 const std::string &out, std::vector<std::string> extra = {},
                 const ToolRunOptions &options = {}) {
    std::vector<std::string> args = {"run", type, "--op=" + op,
                                     "--in=" + dir.file("in.npy"),
                                     "--out=" + dir.file(out)};
    args.insert(args.end(), extra.begin(), extra.end());
    return runQjit(args, options);
  }

  std::string flag(const std::string &name, const std::string &file) {
    return "--" + name + "=" + dir.file(file);
  }

  /// The output of a run with runtime parameters equals the baked type's.
  void expectSameAsBaked(const std::string &runtimeType,
                         const std::string &bakedType, const std::string &op,
                         std::vector<std::string> parameterFlags) {
    ToolResult baked = run(bakedType, op, "baked.npy");
    expectSuccess(baked);
    ToolResult atRuntime =
        run(runtimeType, op, "runtime.npy", std::move(parameterFlags));
    expectSuccess(atRuntime);
    NpyArray a = readArray(dir.file("baked.npy"));
    NpyArray b = readArray(dir.file("runtime.npy"));
    EXPECT_EQ(a.shape, b.shape) << runtimeType;
    EXPECT_EQ(a.data, b.data) << runtimeType;
  }

  ScratchDir dir;
};

std::vector<float> ramp(size_t n, float step) {
  std::vector<float> values(n);
  for (size_t i = 0; i < n; ++i)
    values[i] = (static_cast<float>(i % 23) - 11.0f) * step;
  return values;
}

TEST_F(RuntimeParameters, PerAxisQcastAndDcastMatchTheBakedType) {
  writeArray<float>(dir.file("in.npy"), NpyDtype::F4, {3, 8}, ramp(24, 0.7f));
  writeArray<float>(dir.file("s.npy"), NpyDtype::F4, {8},
                    {0.5f, 0.25f, 1.0f, 2.0f, 0.125f, 4.0f, 0.75f, 1.5f});
  writeArray<int64_t>(dir.file("z.npy"), NpyDtype::I8, {8},
                      {0, 1, -1, 2, -2, 3, -3, 4});
  std::string baked = "tensor<3x8x!quant.uniform<i8:f32:1, {0.5, 0.25:1, "
                      "1.0:-1, 2.0:2, 0.125:-2, 4.0:3, 0.75:-3, 1.5:4}>>";
  expectSameAsBaked("tensor<3x8x!quant.uniform<i8:f32:1, ?>>", baked, "qcast",
                    {flag("scales", "s.npy"), flag("zero-points", "z.npy")});
  writeArray<int8_t>(dir.file("in.npy"), NpyDtype::I1, {3, 8},
                     std::vector<int8_t>(24, 5));
  expectSameAsBaked("tensor<3x8x!quant.uniform<i8:f32:1, ?>>", baked, "dcast",
                    {flag("scales", "s.npy"), flag("zero-points", "z.npy")});
}

TEST_F(RuntimeParameters, BlockwiseTakesFlatOrScaleTensorShapedArrays) {
  writeArray<float>(dir.file("in.npy"), NpyDtype::F4, {2, 8}, ramp(16, 0.3f));
  std::vector<float> scales = {0.5f, 0.25f, 1.0f, 2.0f};
  writeArray<float>(dir.file("flat.npy"), NpyDtype::F4, {4}, scales);
  writeArray<float>(dir.file("grid.npy"), NpyDtype::F4, {2, 2}, scales);
  std::string baked = "tensor<2x8x!quant.uniform<u4:f32:{0:1, 1:4}, "
                      "{{0.5:8, 0.25:8}, {1.0:8, 2.0:8}}>>";
  writeArray<int32_t>(dir.file("z.npy"), NpyDtype::I4, {2, 2}, {8, 8, 8, 8});
  for (const char *file : {"flat.npy", "grid.npy"})
    expectSameAsBaked("tensor<2x8x!quant.uniform<u4:f32:{0:1, 1:4}, ?>>", baked,
                      "qcast",
                      {flag("scales", file), flag("zero-points", "z.npy")});
}

TEST_F(RuntimeParameters, HalfScalesAndAnyIntegerZeroPoints) {
  writeArray<uint16_t>(dir.file("in.npy"), NpyDtype::F2, {4},
                       {0x3C00, 0x4000, 0xC000, 0x4400}); // 1, 2, -2, 4
  writeArray<uint16_t>(dir.file("s.npy"), NpyDtype::F2, {1}, {0x3800}); // 0.5
  writeArray<uint8_t>(dir.file("z.npy"), NpyDtype::U1, {1}, {3});
  expectSameAsBaked("!quant.uniform<i8:f16, ?>",
                    "!quant.uniform<i8:f16, 0.5:3>", "qcast",
                    {flag("scales", "s.npy"), flag("zero-points", "z.npy")});
}

TEST_F(RuntimeParameters, ScalesReplaceTheTypesOwn) {
  writeArray<float>(dir.file("in.npy"), NpyDtype::F4, {4},
                    {1.0f, 2.0f, -3.0f, 8.0f});
  writeArray<float>(dir.file("s.npy"), NpyDtype::F4, {}, {2.0f});
  expectSameAsBaked("!quant.uniform<i8:f32, 1.0>",
                    "!quant.uniform<i8:f32, 2.0>", "qcast",
                    {flag("scales", "s.npy")});
}

TEST(PackedShape, TheLastAxisHoldsThePackedValues) {
  ScratchDir dir;
  std::string type = "!quant.uniform<i4:f32, 1.0>";
  std::vector<float> values(256);
  for (size_t i = 0; i < values.size(); ++i)
    values[i] = static_cast<float>(static_cast<int>(i % 16) - 8);
  writeArray<float>(dir.file("x.npy"), NpyDtype::F4, {4, 64}, values);
  expectSuccess(runQjit({"run", type, "--op=qcast", "--in=" + dir.file("x.npy"),
                         "--out=" + dir.file("q.npy")}));
  NpyArray packed = readArray(dir.file("q.npy"));
  EXPECT_EQ(packed.shape, (std::vector<int64_t>{4, 32}));
  // First element in the low nibble: -8, -7 → 0x8, 0x9 → 0x98.
  EXPECT_EQ(packed.data[0], 0x98);
  expectSuccess(runQjit({"run", type, "--op=dcast", "--in=" + dir.file("q.npy"),
                         "--out=" + dir.file("back.npy")}));
  NpyArray back = readArray(dir.file("back.npy"));
  EXPECT_EQ(back.shape, (std::vector<int64_t>{4, 64}));
  EXPECT_EQ(valuesOf<float>(back), values);
}

TEST(PackedShape, RowsSharingAByteAreOneDimensionalBytes) {
  ScratchDir dir;
  std::string type = "!quant.uniform<u4:f32, 1.0>";
  auto run = [&](std::vector<std::string> extra) {
    std::vector<std::string> args = {"run", type};
    args.insert(args.end(), extra.begin(), extra.end());
    expectSuccess(runQjit(args));
  };
  writeArray<float>(dir.file("x.npy"), NpyDtype::F4, {3, 3},
                    {0, 1, 2, 3, 4, 5, 6, 7, 8});
  run({"--op=qcast", "--in=" + dir.file("x.npy"),
       "--out=" + dir.file("q.npy")});
  EXPECT_EQ(readArray(dir.file("q.npy")).shape, (std::vector<int64_t>{5}));
  // Without a count, the padding nibble is an element too; --shape says 9.
  run({"--op=dcast", "--in=" + dir.file("q.npy"),
       "--out=" + dir.file("a.npy")});
  EXPECT_EQ(readArray(dir.file("a.npy")).shape, (std::vector<int64_t>{10}));
  run({"--op=dcast", "--shape=3x3", "--in=" + dir.file("q.npy"),
       "--out=" + dir.file("b.npy")});
  NpyArray b = readArray(dir.file("b.npy"));
  EXPECT_EQ(b.shape, (std::vector<int64_t>{3, 3}));
  EXPECT_EQ(valuesOf<float>(b),
            (std::vector<float>{0, 1, 2, 3, 4, 5, 6, 7, 8}));
}

// --- Issue 20's "done when" ------------------------------------------------

constexpr int kChannels = 8192;
constexpr int kInner = 4;

class ModelScaleType : public ::testing::Test {
protected:
  void SetUp() override {
    for (int c = 0; c < kChannels; ++c) {
      scales.push_back(0.001f +
                       0.05f * static_cast<float>((c * 7919) % 1000) / 1000.0f);
      zeroPoints.push_back(c % 9 - 4);
    }
    for (int i = 0; i < kChannels * kInner; ++i)
      input.push_back(static_cast<float>((i * 37) % 201 - 100) * 0.013f);
    // 9 significant digits read back as the same float.
    std::string list;
    char scale[32];
    for (int c = 0; c < kChannels; ++c) {
      std::snprintf(scale, sizeof scale, "%.8e", scales[c]);
      list += (c ? ", " : "") + std::string(scale) + ":" +
              std::to_string(zeroPoints[c]);
    }
    type = "tensor<" + std::to_string(kChannels) + "x" +
           std::to_string(kInner) + "x!quant.uniform<i8:f32:0, {" + list +
           "}>>";
    writeArray<float>(dir.file("x.npy"), NpyDtype::F4, {kChannels, kInner},
                      input);
    writeArray<float>(dir.file("s.npy"), NpyDtype::F4, {kChannels}, scales);
    writeArray<int64_t>(dir.file("z.npy"), NpyDtype::I8, {kChannels},
                        zeroPoints);
  }

  /// The type inside tensor<...>.
  std::string elementType() const {
    size_t begin = type.find("!quant");
    return type.substr(begin, type.size() - 1 - begin);
  }

  /// docs/semantics.md's default qcast in f32: x / s + z, rounded to
  /// nearest even, clamped.
  std::vector<int8_t> reference() const {
    std::vector<int8_t> out;
    for (int i = 0; i < kChannels * kInner; ++i) {
      int c = i / kInner;
      float v = input[i] / scales[c] + static_cast<float>(zeroPoints[c]);
      out.push_back(
          static_cast<int8_t>(std::clamp(std::nearbyint(v), -128.0f, 127.0f)));
    }
    return out;
  }

  void expectReference(const ToolResult &result, const std::string &how) {
    expectSuccess(result);
    NpyArray out = readArray(dir.file("out.npy"));
    EXPECT_EQ(out.shape, (std::vector<int64_t>{kChannels, kInner})) << how;
    EXPECT_TRUE(valuesOf<int8_t>(out) == reference()) << how;
    std::filesystem::remove(dir.file("out.npy"));
  }

  std::vector<std::string> runArgs(std::vector<std::string> typeArgs,
                                   bool runtimeScales) {
    std::vector<std::string> args = {"run"};
    args.insert(args.end(), typeArgs.begin(), typeArgs.end());
    args.insert(args.end(), {"--op=qcast", "--in=" + dir.file("x.npy"),
                             "--out=" + dir.file("out.npy")});
    if (runtimeScales)
      args.insert(args.end(), {"--scales=" + dir.file("s.npy"),
                               "--zero-points=" + dir.file("z.npy")});
    return args;
  }

  ScratchDir dir;
  std::vector<float> scales, input;
  std::vector<int64_t> zeroPoints;
  std::string type;
};

TEST_F(ModelScaleType, RunsFromAFileStdinAndAnMlirFileWithRuntimeScales) {
  ASSERT_GT(type.size(), 128u * 1024) << "must exceed one argument's limit";
  writeText(dir.file("type.txt"), type + "\n");
  writeText(dir.file("model.mlir"),
            "!weights = " + elementType() +
                "\n"
                "func.func @main(%arg0: tensor<8192x4xf32>) -> "
                "tensor<8192x4x!weights> {\n"
                "  %0 = quant.qcast %arg0 : tensor<8192x4xf32> to "
                "tensor<8192x4x!weights>\n"
                "  return %0 : tensor<8192x4x!weights>\n"
                "}\n");
  ToolRunOptions fromStdin;
  fromStdin.stdinText = type;
  for (bool runtimeScales : {false, true}) {
    std::string how = runtimeScales ? " with --scales" : " baked";
    expectReference(
        runQjit(runArgs({"@" + dir.file("type.txt")}, runtimeScales)),
        "@FILE" + how);
    expectReference(runQjit(runArgs({"-"}, runtimeScales), fromStdin),
                    "stdin" + how);
    expectReference(
        runQjit(runArgs({"--mlir=" + dir.file("model.mlir"), "--pick=3"},
                        runtimeScales)),
        ".mlir" + how);
  }
  // And without writing the scales at all.
  expectReference(
      runQjit(runArgs({"tensor<8192x4x!quant.uniform<i8:f32:0, ?>>"}, true)),
      "'?'");
}

} // namespace
} // namespace qjit::tool
