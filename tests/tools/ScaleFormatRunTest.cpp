//===- ScaleFormatRunTest.cpp - qjit run with scales in their formats -----===//
//
// `qjit run --op=dcast` on MXFP4 data as gpt-oss ships it: packed f4E2M1FN
// codes and one E8M0 byte scale per block of 32, from an .npz (--params)
// and from an .npy (--scales), against the OCP MX v1.0 formula computed
// here (value = F4(code) · 2^(b − 127), b = 255 NaN), independently of
// qjit's decoders. The dtype of the scales picks the format unless
// --scale-format says it; mismatches fail before any output is written.
//
//===----------------------------------------------------------------------===//
#include "NpyFiles.h"
#include "Npz.h"
#include "TestSeed.h"

#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <limits>
#include <random>

namespace qjit::tool {
namespace {

using namespace ::qjit::testing;

constexpr int64_t kRows = 4, kColumns = 128, kBlock = 32;
constexpr int64_t kBlocks = kRows * kColumns / kBlock;
const std::string kType =
    "tensor<4x128x!quant.uniform<f4E2M1FN:f32:{0:1, 1:32}, ?>>";

/// OCP MX: E2M1 codes 0..7 are 0, 0.5, 1, 1.5, 2, 3, 4, 6; bit 3 the sign.
double fp4Value(uint8_t code) {
  static constexpr double kMagnitudes[] = {0, 0.5, 1, 1.5, 2, 3, 4, 6};
  double magnitude = kMagnitudes[code & 7];
  return (code & 8) ? -magnitude : magnitude;
}

double mxScale(uint8_t code) {
  return code == 255 ? std::numeric_limits<double>::quiet_NaN()
                     : std::ldexp(1.0, static_cast<int>(code) - 127);
}

class ScaleFormatRun : public ::testing::Test {
protected:
  void SetUp() override {
    std::mt19937_64 rng(testSeed());
    codes.resize(kRows * kColumns);
    for (uint8_t &code : codes)
      code = static_cast<uint8_t>(rng() % 16);
    // The codes MX gives a meaning of its own, then random ones.
    scales = {0, 1, 126, 127, 128, 254, 255, 120};
    for (size_t k = scales.size(); k < kBlocks; ++k)
      scales.push_back(static_cast<uint8_t>(rng() % 256));
    std::vector<uint8_t> packed(codes.size() / 2);
    for (size_t i = 0; i < packed.size(); ++i)
      packed[i] = static_cast<uint8_t>(codes[2 * i] | (codes[2 * i + 1] << 4));
    writeArray<uint8_t>(dir.file("w.npy"), NpyDtype::U1, {kRows, kColumns / 2},
                        packed);
    writeArray<uint8_t>(dir.file("s.npy"), NpyDtype::U1,
                        {kRows, kColumns / kBlock}, scales);
    std::vector<uint8_t> zeros(kBlocks * 4, 0);
    std::array<NpzEntry, 2> entries = {
        NpzEntry{"scales", NpyDtype::U1, {kRows, kColumns / kBlock}, scales},
        NpzEntry{
            "zero_points", NpyDtype::I4, {kRows, kColumns / kBlock}, zeros}};
    ASSERT_TRUE(writeNpz(dir.file("p.npz"), entries));
  }

  ToolResult dcast(std::vector<std::string> extra) {
    std::vector<std::string> args = {"run", kType, "--op=dcast",
                                     "--in=" + dir.file("w.npy"),
                                     "--out=" + dir.file("x.npy")};
    args.insert(args.end(), extra.begin(), extra.end());
    return runQjit(args);
  }

  /// x.npy holds the MX formula's values, rounded once to f32.
  void expectMxValues() {
    NpyArray out = readArray(dir.file("x.npy"));
    EXPECT_EQ(out.shape, (std::vector<int64_t>{kRows, kColumns}));
    std::vector<float> values = valuesOf<float>(out);
    ASSERT_EQ(values.size(), codes.size());
    for (size_t i = 0; i < codes.size(); ++i) {
      auto expected =
          static_cast<float>(fp4Value(codes[i]) * mxScale(scales[i / kBlock]));
      if (std::isnan(expected)) {
        EXPECT_TRUE(std::isnan(values[i])) << "element " << i;
        continue;
      }
      uint32_t want, got;
      std::memcpy(&want, &expected, 4);
      std::memcpy(&got, &values[i], 4);
      EXPECT_EQ(got, want) << "element " << i << ": code " << int(codes[i])
                           << ", scale byte " << int(scales[i / kBlock]) << ": "
                           << values[i] << " != " << expected;
    }
  }

  ScratchDir dir;
  std::vector<uint8_t> codes;  ///< One per element.
  std::vector<uint8_t> scales; ///< E8M0, one per block of 32.
};

TEST_F(ScaleFormatRun, MxFp4FromAnNpzMatchesTheMxFormula) {
  expectSuccess(dcast({"--params=" + dir.file("p.npz")}));
  expectMxValues();
}

TEST_F(ScaleFormatRun, MxFp4FromAnNpyWithTheFormatNamed) {
  for (const char *backend : {"auto", "llvm", "reference"}) {
    SCOPED_TRACE(backend);
    expectSuccess(dcast({"--scales=" + dir.file("s.npy"), "--scale-format=e8m0",
                         std::string("--backend=") + backend}));
    expectMxValues();
  }
}

TEST_F(ScaleFormatRun, SpecNamesTheFormat) {
  ToolResult spec = runQjit(
      {"spec", kType, "--op=dcast", "--runtime-params", "--scale-format=e8m0"});
  expectSuccess(spec);
  EXPECT_NE(spec.out.find(" params=runtime(scales=e8m0) "), std::string::npos)
      << spec.out;
  ToolResult own = runQjit(
      {"spec", kType, "--op=dcast", "--runtime-params", "--scale-format=f32"});
  expectSuccess(own);
  EXPECT_NE(own.out.find(" params=runtime "), std::string::npos) << own.out;
}

TEST_F(ScaleFormatRun, F16AndBf16ScalesMatchTheirF32Values) {
  // Scales 2^(b-127) for b in 120..135 are exact in f16, bf16 and f32.
  std::vector<float> asF32;
  std::vector<uint16_t> asF16, asBf16;
  for (uint8_t &b : scales)
    b = static_cast<uint8_t>(120 + b % 16);
  for (uint8_t b : scales) {
    float value = std::ldexp(1.0f, b - 127);
    asF32.push_back(value);
    uint32_t bits;
    std::memcpy(&bits, &value, 4);
    asBf16.push_back(static_cast<uint16_t>(bits >> 16));
    asF16.push_back(static_cast<uint16_t>((b - 127 + 15) << 10));
  }
  writeArray<uint8_t>(dir.file("s.npy"), NpyDtype::U1, {kBlocks}, scales);
  writeArray<float>(dir.file("f32.npy"), NpyDtype::F4, {kBlocks}, asF32);
  writeArray<uint16_t>(dir.file("f16.npy"), NpyDtype::F2, {kBlocks}, asF16);
  writeArray<uint16_t>(dir.file("bf16.npy"), NpyDtype::U2, {kBlocks}, asBf16);
  // The dtype picks f32, f16 and e8m0; u2 needs the flag.
  for (const char *file : {"s.npy", "f32.npy", "f16.npy"}) {
    SCOPED_TRACE(file);
    expectSuccess(dcast({"--scales=" + dir.file(file)}));
    expectMxValues();
  }
  expectSuccess(
      dcast({"--scales=" + dir.file("bf16.npy"), "--scale-format=bf16"}));
  expectMxValues();
}

TEST_F(ScaleFormatRun, MismatchesFailWithoutOutput) {
  std::string out = dir.file("x.npy");
  writeArray<uint16_t>(dir.file("u2.npy"), NpyDtype::U2, {kBlocks},
                       std::vector<uint16_t>(kBlocks, 0x3F80));
  expectFailure(dcast({"--scales=" + dir.file("u2.npy")}), 1,
                "--scale-format=bf16");
  EXPECT_FALSE(std::filesystem::exists(out));
  expectFailure(dcast({"--scales=" + dir.file("s.npy"), "--scale-format=f16"}),
                1, "scales are f16 ('<f2'), the scale format, not '|u1'");
  EXPECT_FALSE(std::filesystem::exists(out));
  writeArray<double>(dir.file("f64.npy"), NpyDtype::F8, {kBlocks},
                     std::vector<double>(kBlocks, 1.0));
  expectFailure(dcast({"--scales=" + dir.file("f64.npy")}), 1,
                "nor in a scale format");
  EXPECT_FALSE(std::filesystem::exists(out));
  expectFailure(dcast({"--scales=" + dir.file("s.npy"), "--scale-format=e4m3"}),
                2, "--scale-format");
  EXPECT_FALSE(std::filesystem::exists(out));
  // Baked scales have no format of their own.
  ToolResult baked = runQjit({"spec", "!quant.uniform<i8:f32, 1.0>",
                              "--op=dcast", "--scale-format=e8m0"});
  expectFailure(baked, 1, "runtime parameters");
}

} // namespace
} // namespace qjit::tool
