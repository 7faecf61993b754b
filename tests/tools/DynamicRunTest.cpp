//===- DynamicRunTest.cpp - qjit run --dynamic and its parameter files ----===//
//
// `qjit run --op=qcast --dynamic=...` writes codes and the parameters it
// computed (.npz and .npy), `--op=dcast --params=P.npz` (or --scales and
// --zero-points) reads them back, and the flag combinations that make no
// sense are usage errors that leave no file behind.
//
//===----------------------------------------------------------------------===//
#include "NpyFiles.h"
#include "Npz.h"

#include <gtest/gtest.h>

#include <filesystem>

namespace qjit::tool {
namespace {

using namespace ::qjit::testing;

constexpr char kRows[] = "tensor<2x4x!quant.uniform<i8:f32:0, ?>>";

class DynamicRun : public ::testing::Test {
protected:
  void SetUp() override {
    writeArray<float>(dir.file("x.npy"), NpyDtype::F4, {2, 4},
                      {127, 1, 2, 3, -254, 4, 6, 0});
  }

  ToolResult run(std::vector<std::string> args) {
    args.insert(args.begin(), "run");
    return runQjit(args);
  }

  std::string flag(const std::string &name, const std::string &file) {
    return "--" + name + "=" + dir.file(file);
  }

  NpyArray archived(const std::string &name) {
    Expected<NpyArray> array = readNpzArray(dir.file("p.npz"), name);
    EXPECT_TRUE(array) << array.status().message();
    return array ? *array : NpyArray{};
  }

  ScratchDir dir;
};

TEST_F(DynamicRun, WritesCodesAndParametersThatDcastReadsBack) {
  expectSuccess(
      run({kRows, "--op=qcast", "--dynamic=absmax", flag("in", "x.npy"),
           flag("out", "q.npy"), flag("params-out", "p.npz"),
           flag("scales-out", "s.npy"), flag("zero-points-out", "z.npy")}));
  NpyArray codes = readArray(dir.file("q.npy"));
  EXPECT_EQ(codes.shape, (std::vector<int64_t>{2, 4}));
  EXPECT_EQ(valuesOf<int8_t>(codes),
            (std::vector<int8_t>{127, 1, 2, 3, -127, 2, 3, 0}));
  NpyArray scales = archived("scales");
  NpyArray zeroPoints = archived("zero_points");
  EXPECT_EQ(scales.dtype, NpyDtype::F4);
  EXPECT_EQ(scales.shape, (std::vector<int64_t>{2}));
  EXPECT_EQ(valuesOf<float>(scales), (std::vector<float>{1, 2}));
  EXPECT_EQ(zeroPoints.dtype, NpyDtype::I4);
  EXPECT_EQ(valuesOf<int32_t>(zeroPoints), (std::vector<int32_t>{0, 0}));
  EXPECT_EQ(readArray(dir.file("s.npy")).data, scales.data);
  EXPECT_EQ(readArray(dir.file("z.npy")).data, zeroPoints.data);

  expectSuccess(run({kRows, "--op=dcast", flag("params", "p.npz"),
                     flag("in", "q.npy"), flag("out", "y.npy")}));
  EXPECT_EQ(valuesOf<float>(readArray(dir.file("y.npy"))),
            (std::vector<float>{127, 1, 2, 3, -254, 4, 6, 0}));
  expectSuccess(run({kRows, "--op=dcast", flag("scales", "s.npy"),
                     flag("zero-points", "z.npy"), flag("in", "q.npy"),
                     flag("out", "y2.npy")}));
  EXPECT_EQ(readArray(dir.file("y2.npy")).data,
            readArray(dir.file("y.npy")).data);
}

TEST_F(DynamicRun, F16ScalesAreWrittenAsF16AndReadBackByTheirDtype) {
  // Row scales 1 and 2 are f16 values: the same codes, scales as '<f2',
  // and the dcast infers the format from the dtype (docs/semantics.md 11.7).
  expectSuccess(run({kRows, "--op=qcast", "--dynamic=absmax",
                     "--scale-format=f16", flag("in", "x.npy"),
                     flag("out", "q.npy"), flag("params-out", "p.npz")}));
  EXPECT_EQ(valuesOf<int8_t>(readArray(dir.file("q.npy"))),
            (std::vector<int8_t>{127, 1, 2, 3, -127, 2, 3, 0}));
  NpyArray scales = archived("scales");
  EXPECT_EQ(scales.dtype, NpyDtype::F2);
  EXPECT_EQ(valuesOf<uint16_t>(scales),
            (std::vector<uint16_t>{0x3c00, 0x4000}));
  expectSuccess(run({kRows, "--op=dcast", flag("params", "p.npz"),
                     flag("in", "q.npy"), flag("out", "y.npy")}));
  EXPECT_EQ(valuesOf<float>(readArray(dir.file("y.npy"))),
            (std::vector<float>{127, 1, 2, 3, -254, 4, 6, 0}));
}

TEST_F(DynamicRun, PerTensorMinMaxWritesZeroDimensionalParameters) {
  writeArray<float>(dir.file("u.npy"), NpyDtype::F4, {3}, {-1, 2, 0});
  const char *type = "!quant.uniform<u8:f32, ?>";
  expectSuccess(
      run({type, "--op=qcast", "--dynamic=minmax", flag("in", "u.npy"),
           flag("out", "q.npy"), flag("params-out", "p.npz")}));
  EXPECT_EQ(valuesOf<uint8_t>(readArray(dir.file("q.npy"))),
            (std::vector<uint8_t>{0, 255, 85}));
  NpyArray scales = archived("scales");
  EXPECT_TRUE(scales.shape.empty());
  EXPECT_EQ(valuesOf<float>(scales), (std::vector<float>{3.0f / 255.0f}));
  EXPECT_EQ(valuesOf<int32_t>(archived("zero_points")),
            (std::vector<int32_t>{85}));
  expectSuccess(run({type, "--op=dcast", flag("params", "p.npz"),
                     flag("in", "q.npy"), flag("out", "y.npy")}));
  EXPECT_EQ(valuesOf<float>(readArray(dir.file("y.npy")))[2], 0.0f);
}

TEST_F(DynamicRun, BlocksRoundTripThroughTheArchive) {
  writeArray<float>(dir.file("b.npy"), NpyDtype::F4, {2, 8},
                    {127, 1, 2, 3, 254, 2, 0, -3, 0, 0, 0, 0, 1, 1, 1, 1});
  const char *type = "tensor<2x8x!quant.uniform<i8:f32:{0:1, 1:4}, ?>>";
  expectSuccess(
      run({type, "--op=qcast", "--dynamic=absmax", flag("in", "b.npy"),
           flag("out", "q.npy"), flag("params-out", "p.npz")}));
  EXPECT_EQ(valuesOf<float>(archived("scales")),
            (std::vector<float>{1, 2, 1, 1.0f / 127.0f}));
  expectSuccess(run({type, "--op=dcast", flag("params", "p.npz"),
                     flag("in", "q.npy"), flag("out", "y.npy")}));
  std::vector<float> y = valuesOf<float>(readArray(dir.file("y.npy")));
  EXPECT_EQ(y[0], 127.0f);
  EXPECT_EQ(y[4], 254.0f);
  EXPECT_EQ(y[8], 0.0f);
}

TEST_F(DynamicRun, MxWritesE8m0BytesThatDcastReadsBack) {
  writeArray<float>(dir.file("b.npy"), NpyDtype::F4, {2, 8},
                    {127, 1, 2, 3, 254, 2, 0, -3, 0, 0, 0, 0, 1, 1, 1, 1});
  const char *type = "tensor<2x8x!quant.uniform<f8E4M3FN:f32:{0:1, 1:4}, ?>>";
  expectSuccess(run({type, "--op=qcast", "--dynamic=mx", flag("in", "b.npy"),
                     flag("out", "q.npy"), flag("params-out", "p.npz")}));
  // floor(log2 amax) - 8 (448 = 1.75 * 2^8), as E8M0 bytes; an all-zero
  // block has 2^-127 (byte 0).
  NpyArray scales = archived("scales");
  EXPECT_EQ(scales.dtype, NpyDtype::U1);
  EXPECT_EQ(valuesOf<uint8_t>(scales),
            (std::vector<uint8_t>{125, 126, 0, 119}));
  expectSuccess(run({type, "--op=dcast", flag("params", "p.npz"),
                     flag("in", "q.npy"), flag("out", "y.npy")}));
  std::vector<float> y = valuesOf<float>(readArray(dir.file("y.npy")));
  EXPECT_EQ(y[0], 112.0f); // 127 / 2^-2 = 508 saturates to 448.
  EXPECT_EQ(y[8], 0.0f);
  EXPECT_EQ(y[12], 1.0f);
  // ceil keeps 127 / 448 from saturating: 2^-1; 1 / 448 goes up to 2^-8.
  expectSuccess(run({type, "--op=qcast", "--dynamic=mx",
                     "--scale-rounding=ceil", flag("in", "b.npy"),
                     flag("out", "q.npy"), flag("params-out", "p.npz")}));
  EXPECT_EQ(valuesOf<uint8_t>(archived("scales")),
            (std::vector<uint8_t>{126, 127, 0, 119}));
  ToolResult spec = runQjit(
      {"spec", type, "--op=qcast", "--dynamic=mx", "--scale-rounding=even"});
  EXPECT_EQ(spec.exitCode, 0) << spec.err;
  EXPECT_NE(spec.out.find("params=dynamic(mx,even,scales=e8m0)"),
            std::string::npos)
      << spec.out;
}

TEST_F(DynamicRun, SpecPrintsTheScheme) {
  ToolResult spec = runQjit({"spec", "!quant.uniform<u8:f32, ?>", "--op=qcast",
                             "--dynamic=minmax", "--semantics=pytorch"});
  EXPECT_EQ(spec.exitCode, 0) << spec.err;
  EXPECT_NE(spec.out.find("params=dynamic(minmax,pytorch)"), std::string::npos)
      << spec.out;
  ToolResult ggml = runQjit({"spec", "!quant.uniform<i8:f32, ?>", "--op=qcast",
                             "--dynamic=absmax", "--semantics=ggml"});
  EXPECT_EQ(ggml.exitCode, 0) << ggml.err;
  EXPECT_NE(ggml.out.find("params=dynamic(absmax,ggml,scales=f16) "
                          "knobs=reciprocal,after-rounding,nearest-away"),
            std::string::npos)
      << ggml.out;
}

TEST_F(DynamicRun, FlagMisusesAreUsageErrorsAndWriteNothing) {
  std::vector<std::string> io = {flag("in", "x.npy"), flag("out", "q.npy")};
  auto with = [&](std::vector<std::string> args) {
    args.insert(args.end(), io.begin(), io.end());
    return run(args);
  };
  expectFailure(with({kRows, "--op=qcast", "--dynamic=absmax"}), 2,
                "--params-out");
  expectFailure(with({kRows, "--op=qcast", flag("params-out", "p.npz")}), 2,
                "need --dynamic");
  expectFailure(with({kRows, "--op=qcast", "--dynamic=absmax",
                      flag("params-out", "p.npz"), flag("params", "p.npz")}),
                2, "not with --scales");
  expectFailure(
      with({kRows, "--op=qcast", "--dynamic=rms", flag("params-out", "p.npz")}),
      2, "--dynamic");
  expectFailure(with({kRows, "--op=dcast", flag("params", "p.npz"),
                      flag("scales", "s.npy")}),
                2, "--params holds");
  expectFailure(with({kRows, "--op=dcast", "--dynamic=absmax",
                      flag("params-out", "p.npz")}),
                1, "qcast only");
  expectFailure(with({kRows, "--op=qcast", "--dynamic=absmax",
                      "--backend=asmjit", flag("params-out", "p.npz")}),
                1, "dynamic qcast");
  expectFailure(with({kRows, "--op=dcast", flag("params", "x.npy")}), 1, "zip");
  expectFailure(with({kRows, "--op=qcast", "--dynamic=absmax",
                      "--scale-rounding=ceil", flag("params-out", "p.npz")}),
                2, "--dynamic=mx");
  expectFailure(with({kRows, "--op=qcast", "--dynamic=mx", "--scale-format=f16",
                      flag("params-out", "p.npz")}),
                1, "e8m0");
  EXPECT_FALSE(std::filesystem::exists(dir.file("q.npy")));
  EXPECT_FALSE(std::filesystem::exists(dir.file("p.npz")));
}

} // namespace
} // namespace qjit::tool
