//===- CompactCommandTest.cpp - fp8 / fp4 / quantile types in the CLI -----===//
//
// `qjit parse`, `qjit spec` and `qjit run` on float storage and quantile
// types, end to end through the built binary (docs/semantics.md section 8).
//
//===----------------------------------------------------------------------===//
#include "Npy.h"
#include "ToolTestSupport.h"

#include <gtest/gtest.h>

#include <cstring>

namespace qjit::tool {
namespace {

using ::qjit::testing::runQjit;
using ::qjit::testing::ScratchDir;
using ::qjit::testing::ToolResult;

constexpr char kFp8[] = "!quant.uniform<f8E4M3FN:f32, 0.5>";
constexpr char kNf2[] =
    "!quant.uniform<!quant.quantile<u2:f32, {-1.0, -0.25, 0.5, 1.0}>:f32, "
    "2.0>";

void expectOk(const ToolResult &result) {
  EXPECT_EQ(result.exitCode, 0) << result.err;
}

std::vector<uint8_t> floatBytes(const std::vector<float> &values) {
  std::vector<uint8_t> bytes(values.size() * 4);
  std::memcpy(bytes.data(), values.data(), bytes.size());
  return bytes;
}

std::vector<float> floatsOf(const std::vector<uint8_t> &bytes) {
  std::vector<float> values(bytes.size() / 4);
  std::memcpy(values.data(), bytes.data(), values.size() * 4);
  return values;
}

TEST(CompactCommands, ParsePrintsFloatAndQuantileStorage) {
  ToolResult result = runQjit({"parse", kFp8, kNf2});
  expectOk(result);
  EXPECT_NE(result.out.find("f8E4M3FN"), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("!quant.quantile<u2:f32"), std::string::npos)
      << result.out;
}

TEST(CompactCommands, SpecShowsSaturationAndTheTable) {
  ToolResult result = runQjit({"spec", kFp8, "--op=qcast"});
  expectOk(result);
  EXPECT_EQ(result.out,
            "qcast storage=f8E4M3FN<-448:448> unpacked expressed=f32 "
            "compute=f32 layout=per-tensor scales=[0.5] zero-points=[0] "
            "knobs=divide,before-rounding,nearest-even,saturate shape=none\n");
  result = runQjit(
      {"spec", kFp8, "--op=qcast", "--no-saturate", "--semantics=onnx"});
  expectOk(result);
  EXPECT_NE(result.out.find("knobs=divide,before-rounding,nearest-even,"
                            "no-saturate"),
            std::string::npos)
      << result.out;
  result = runQjit({"spec", kNf2, "--op=dcast"});
  expectOk(result);
  EXPECT_NE(result.out.find("storage=quantile-u2<0:3> packed "
                            "table=[-1,-0.25,0.5,1]"),
            std::string::npos)
      << result.out;
}

TEST(CompactCommands, RunQuantizesAndDequantizesFp8) {
  ScratchDir dir;
  ASSERT_TRUE(writeNpy(dir.file("in.npy"), NpyDtype::F4,
                       std::vector<int64_t>{5},
                       floatBytes({1.0f, -0.75f, 300.0f, 232.0f, -1e9f})));
  for (const char *backend : {"auto", "reference"}) {
    SCOPED_TRACE(backend);
    expectOk(runQjit({"run", kFp8, "--op=qcast", "--in=" + dir.file("in.npy"),
                      "--out=" + dir.file("q.npy"),
                      std::string("--backend=") + backend}));
    Expected<NpyArray> q = readNpy(dir.file("q.npy"));
    ASSERT_TRUE(q) << q.status().message();
    EXPECT_EQ(q->dtype, NpyDtype::U1);
    // 2 → 0x40, -1.5 → 0xBC, 600 and 464 (a tie) → 448, -2e9 → -448.
    EXPECT_EQ(q->data, (std::vector<uint8_t>{0x40, 0xBC, 0x7E, 0x7E, 0xFE}));
    expectOk(runQjit({"run", kFp8, "--op=dcast", "--in=" + dir.file("q.npy"),
                      "--out=" + dir.file("back.npy"),
                      std::string("--backend=") + backend}));
    Expected<NpyArray> back = readNpy(dir.file("back.npy"));
    ASSERT_TRUE(back) << back.status().message();
    EXPECT_EQ(floatsOf(back->data),
              (std::vector<float>{1.0f, -0.75f, 224.0f, 224.0f, -224.0f}));
  }
  // Without saturation f8E4M3FN overflow is NaN (0x7F / 0xFF).
  expectOk(
      runQjit({"run", kFp8, "--op=qcast", "--no-saturate",
               "--in=" + dir.file("in.npy"), "--out=" + dir.file("nan.npy")}));
  Expected<NpyArray> nan = readNpy(dir.file("nan.npy"));
  ASSERT_TRUE(nan);
  EXPECT_EQ(nan->data, (std::vector<uint8_t>{0x40, 0xBC, 0x7F, 0x7E, 0xFF}));
}

TEST(CompactCommands, RunQuantilePacksIndices) {
  ScratchDir dir;
  // u = x / 2: -2.2, 0.1, 1.4, -0.625 (a tie between entries -1 and -0.25:
  // the lower index), 0.9.
  ASSERT_TRUE(writeNpy(dir.file("in.npy"), NpyDtype::F4,
                       std::vector<int64_t>{5},
                       floatBytes({-4.4f, 0.2f, 2.8f, -1.25f, 1.8f})));
  expectOk(runQjit({"run", kNf2, "--op=qcast", "--in=" + dir.file("in.npy"),
                    "--out=" + dir.file("q.npy")}));
  Expected<NpyArray> q = readNpy(dir.file("q.npy"));
  ASSERT_TRUE(q) << q.status().message();
  // Indices 0, 1, 3, 0, 3, two bits each, first in the lowest bits.
  std::vector<uint8_t> want = {uint8_t(0 | (1 << 2) | (3 << 4) | (0 << 6)), 3};
  EXPECT_EQ(q->data, want);
  expectOk(
      runQjit({"run", kNf2, "--op=dcast", "--shape=5",
               "--in=" + dir.file("q.npy"), "--out=" + dir.file("back.npy")}));
  Expected<NpyArray> back = readNpy(dir.file("back.npy"));
  ASSERT_TRUE(back) << back.status().message();
  EXPECT_EQ(floatsOf(back->data),
            (std::vector<float>{-2.0f, -0.5f, 2.0f, -2.0f, 2.0f}));
}

} // namespace
} // namespace qjit::tool
