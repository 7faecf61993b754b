//===- RunCommandTest.cpp - `qjit run` and `qjit spec` end to end ---------===//
//
// Runs the built binary on files written here, and checks outputs, exit
// codes and messages, including that no error leaves a file behind.
//
//===----------------------------------------------------------------------===//
#include "Npy.h"
#include "ToolTestSupport.h"

#include "qjit/KernelSpec.h"
#include "qjit/TypeParser.h"

#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <unistd.h>

namespace qjit::tool {
namespace {

using ::qjit::testing::readBytes;
using ::qjit::testing::runQjit;
using ::qjit::testing::ScratchDir;
using ::qjit::testing::ToolResult;
using ::qjit::testing::writeBytes;

constexpr char kType[] = "!quant.uniform<i8:f32, 2.0:10>";

template <typename T> std::vector<uint8_t> bytesOf(const std::vector<T> &v) {
  std::vector<uint8_t> bytes(v.size() * sizeof(T));
  std::memcpy(bytes.data(), v.data(), bytes.size());
  return bytes;
}

template <typename T> std::vector<T> valuesOf(const std::vector<uint8_t> &b) {
  std::vector<T> values(b.size() / sizeof(T));
  std::memcpy(values.data(), b.data(), values.size() * sizeof(T));
  return values;
}

template <typename T>
void writeArray(const std::string &path, NpyDtype dtype,
                std::vector<int64_t> shape, const std::vector<T> &values) {
  ASSERT_TRUE(writeNpy(path, dtype, shape, bytesOf(values)));
}

NpyArray readArray(const std::string &path) {
  Expected<NpyArray> array = readNpy(path);
  EXPECT_TRUE(array) << array.status().message();
  return array ? *array : NpyArray{};
}

/// Expects success and no diagnostics.
void expectOk(const ToolResult &result) {
  EXPECT_EQ(result.exitCode, 0) << result.err;
  EXPECT_EQ(result.err, "");
}

/// Expects exit code `code` with `needle` in stderr.
void expectError(const ToolResult &result, int code,
                 const std::string &needle) {
  EXPECT_EQ(result.exitCode, code) << result.err;
  EXPECT_NE(result.err.find(needle), std::string::npos)
      << "expected '" << needle << "' in: " << result.err;
}

class RunCommand : public ::testing::Test {
protected:
  /// `qjit run TYPE --op=OP --in=in.npy --out=out.npy EXTRA...`.
  ToolResult run(const std::string &type, const std::string &op,
                 std::vector<std::string> extra = {},
                 const std::string &in = "in.npy",
                 const std::string &out = "out.npy") {
    std::vector<std::string> args = {"run", type, "--op=" + op,
                                     "--in=" + dir.file(in),
                                     "--out=" + dir.file(out)};
    args.insert(args.end(), extra.begin(), extra.end());
    return runQjit(args);
  }

  /// qcast of kType's test inputs under the given flags.
  std::vector<int8_t> quantize(std::vector<std::string> flags) {
    writeArray<float>(dir.file("in.npy"), NpyDtype::F4, {6},
                      {0.0f, 2.0f, -2.0f, -1.0f, 1000.0f, -1000.0f});
    ToolResult result = run(kType, "qcast", std::move(flags));
    expectOk(result);
    NpyArray out = readArray(dir.file("out.npy"));
    EXPECT_EQ(out.dtype, NpyDtype::I1);
    return valuesOf<int8_t>(out.data);
  }

  ScratchDir dir;
};

TEST_F(RunCommand, QuantizesAndDequantizesNpyKeepingTheShape) {
  writeArray<float>(dir.file("in.npy"), NpyDtype::F4, {2, 3},
                    {0.0f, 2.0f, -2.0f, 4.0f, 500.0f, -500.0f});
  expectOk(run(kType, "qcast"));
  NpyArray q = readArray(dir.file("out.npy"));
  EXPECT_EQ(q.dtype, NpyDtype::I1);
  EXPECT_EQ(q.shape, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(valuesOf<int8_t>(q.data),
            (std::vector<int8_t>{10, 11, 9, 12, 127, -128}));

  expectOk(run(kType, "dcast", {}, "out.npy", "back.npy"));
  NpyArray d = readArray(dir.file("back.npy"));
  EXPECT_EQ(d.dtype, NpyDtype::F4);
  EXPECT_EQ(d.shape, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(valuesOf<float>(d.data),
            (std::vector<float>{0.0f, 2.0f, -2.0f, 4.0f, 234.0f, -276.0f}));
}

TEST_F(RunCommand, KnobFlagsAndPresets) {
  // -1.0 / 2.0 = -0.5 is a tie: the knobs decide. See docs/semantics.md.
  EXPECT_EQ(quantize({}), (std::vector<int8_t>{10, 11, 9, 10, 127, -128}));
  EXPECT_EQ(quantize({"--semantics=tflite"})[3], 9);       // away, after
  EXPECT_EQ(quantize({"--semantics=mlir"})[3], 9);         // trunc(9.5)
  EXPECT_EQ(quantize({"--semantics=onnx"})[3], 10);        // even(-0.5) + 10
  EXPECT_EQ(quantize({"--rounding=nearest-away"})[3], 10); // away(9.5)
  EXPECT_EQ(quantize({"--rounding=toward-zero"})[3], 9);
  // Knob flags override the preset, in any order.
  EXPECT_EQ(quantize({"--zero-point=after-rounding", "--semantics=mlir"})[3],
            10); // trunc(-0.5) + 10
  EXPECT_EQ(quantize({"--scale-op=reciprocal"})[1], 11);
}

// Large enough to split (2^18 elements, above kMinParallelElements), per
// tensor and per channel, there and back: every thread count writes what
// one thread writes.
TEST_F(RunCommand, ThreadsWriteWhatOneThreadWrites) {
  constexpr int64_t kRows = int64_t(1) << 16, kChannels = 4;
  std::vector<float> values(kRows * kChannels);
  for (size_t i = 0; i < values.size(); ++i)
    values[i] = static_cast<float>((i * 2654435761u) % 20011) * 0.0173f -
                173.0f + (i % 7 == 0 ? 0.5f : 0.0f);
  writeArray<float>(dir.file("in.npy"), NpyDtype::F4, {kRows, kChannels},
                    values);
  for (const std::string &type :
       {std::string(kType),
        std::string("!quant.uniform<i8:f32:1, {0.5:1, 0.25:-3, 2.0:7, "
                    "0.125:0}>")}) {
    SCOPED_TRACE(type);
    expectOk(run(type, "qcast", {}, "in.npy", "q1.npy"));
    expectOk(run(type, "dcast", {}, "q1.npy", "d1.npy"));
    for (const char *threads : {"--threads=2", "--threads=3", "--threads=0"}) {
      SCOPED_TRACE(threads);
      expectOk(run(type, "qcast", {threads}, "in.npy", "q.npy"));
      EXPECT_EQ(readArray(dir.file("q.npy")).data,
                readArray(dir.file("q1.npy")).data);
      expectOk(run(type, "dcast", {threads}, "q1.npy", "d.npy"));
      EXPECT_EQ(readArray(dir.file("d.npy")).data,
                readArray(dir.file("d1.npy")).data);
    }
  }
}

TEST_F(RunCommand, PacksSubByteStorageAsBytes) {
  const char *type = "!quant.uniform<i4:f32, 1.0>";
  writeArray<float>(dir.file("in.npy"), NpyDtype::F4, {5},
                    {1.0f, -1.0f, 7.0f, 0.0f, 2.0f});
  expectOk(run(type, "qcast"));
  NpyArray packed = readArray(dir.file("out.npy"));
  EXPECT_EQ(packed.dtype, NpyDtype::U1);
  EXPECT_EQ(packed.shape, std::vector<int64_t>{3});
  EXPECT_EQ(packed.data, (std::vector<uint8_t>{0xF1, 0x07, 0x02}));

  expectOk(run(type, "dcast", {"--shape=5"}, "out.npy", "back.npy"));
  NpyArray back = readArray(dir.file("back.npy"));
  EXPECT_EQ(back.shape, std::vector<int64_t>{5});
  EXPECT_EQ(valuesOf<float>(back.data),
            (std::vector<float>{1.0f, -1.0f, 7.0f, 0.0f, 2.0f}));

  // Without a shape every slot of every byte is an element.
  expectOk(run(type, "dcast", {}, "out.npy", "all.npy"));
  EXPECT_EQ(readArray(dir.file("all.npy")).shape, std::vector<int64_t>{6});

  expectOk(run(type, "qcast", {"--unpacked"}, "in.npy", "unpacked.npy"));
  NpyArray unpacked = readArray(dir.file("unpacked.npy"));
  EXPECT_EQ(unpacked.dtype, NpyDtype::I1);
  EXPECT_EQ(valuesOf<int8_t>(unpacked.data),
            (std::vector<int8_t>{1, -1, 7, 0, 2}));

  // Each convention's file given to the other says which flag reads it.
  ToolResult packedRead = run(type, "dcast", {}, "unpacked.npy", "x.npy");
  EXPECT_EQ(packedRead.exitCode, 1);
  EXPECT_NE(packedRead.err.find("--unpacked reads one value per byte"),
            std::string::npos)
      << packedRead.err;
  ToolResult unpackedRead =
      run(type, "dcast", {"--unpacked"}, "out.npy", "x.npy");
  EXPECT_EQ(unpackedRead.exitCode, 1);
  EXPECT_NE(unpackedRead.err.find("packed bytes are read without it"),
            std::string::npos)
      << unpackedRead.err;
}

TEST_F(RunCommand, ShapesComeFromTheTypeTheInputOrShape) {
  writeArray<float>(dir.file("in.npy"), NpyDtype::F4, {2, 3},
                    {4.0f, 4.0f, 4.0f, 8.0f, 8.0f, 8.0f});
  // Per-axis over dim 0 of a static tensor type.
  expectOk(run("tensor<2x3x!quant.uniform<i8:f32:0, {1.0, 2.0}>>", "qcast"));
  EXPECT_EQ(valuesOf<int8_t>(readArray(dir.file("out.npy")).data),
            (std::vector<int8_t>{4, 4, 4, 4, 4, 4}));
  // A bare per-axis type takes the .npy input's shape.
  const char *bare = "!quant.uniform<i8:f32:1, {1.0, 2.0, 4.0}>";
  expectOk(run(bare, "qcast"));
  EXPECT_EQ(valuesOf<int8_t>(readArray(dir.file("out.npy")).data),
            (std::vector<int8_t>{4, 2, 1, 8, 4, 2}));
  // Raw files have no shape: --shape gives it, or fills dynamic dims.
  writeBytes(dir.file("in.raw"),
             bytesOf<float>({4.0f, 4.0f, 4.0f, 8.0f, 8.0f, 8.0f}));
  expectError(run(bare, "qcast", {}, "in.raw", "out.raw"), 1, "needs a shape");
  expectOk(run(bare, "qcast", {"--shape=2x3"}, "in.raw", "out.raw"));
  EXPECT_EQ(valuesOf<int8_t>(readBytes(dir.file("out.raw"))),
            (std::vector<int8_t>{4, 2, 1, 8, 4, 2}));
  expectOk(run("tensor<?x3x!quant.uniform<i8:f32:1, {1.0, 2.0, 4.0}>>", "qcast",
               {"--shape=2x3"}, "in.raw", "out.npy"));
  NpyArray fromRaw = readArray(dir.file("out.npy"));
  EXPECT_EQ(fromRaw.shape, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(valuesOf<int8_t>(fromRaw.data),
            (std::vector<int8_t>{4, 2, 1, 8, 4, 2}));
}

TEST_F(RunCommand, HostFormatsMapToDtypes) {
  // bf16 and f16 travel as 16-bit patterns: 2.0 = 0x4000, -2.0 = 0xC000.
  writeArray<uint16_t>(dir.file("in.npy"), NpyDtype::U2, {2}, {0x4000, 0xC000});
  expectOk(run("!quant.uniform<i8:bf16, 2.0:10>", "qcast"));
  EXPECT_EQ(valuesOf<int8_t>(readArray(dir.file("out.npy")).data),
            (std::vector<int8_t>{11, 9}));
  expectOk(run("!quant.uniform<i8:f16, 2.0:10>", "dcast", {}, "out.npy",
               "half.npy"));
  NpyArray half = readArray(dir.file("half.npy"));
  EXPECT_EQ(half.dtype, NpyDtype::F2);
  EXPECT_EQ(valuesOf<uint16_t>(half.data),
            (std::vector<uint16_t>{0x4000, 0xC000}));

  writeArray<double>(dir.file("in.npy"), NpyDtype::F8, {}, {6.0});
  expectOk(run("!quant.uniform<u16:f64, 2.0>", "qcast"));
  NpyArray scalar = readArray(dir.file("out.npy"));
  EXPECT_EQ(scalar.dtype, NpyDtype::U2);
  EXPECT_EQ(scalar.shape, std::vector<int64_t>{});
  EXPECT_EQ(valuesOf<uint16_t>(scalar.data), std::vector<uint16_t>{3});

  writeArray<int32_t>(dir.file("in.npy"), NpyDtype::I4, {2}, {-5, 70000});
  expectOk(run("!quant.uniform<i32:f32, 1.0>", "scast"));
  NpyArray same = readArray(dir.file("out.npy"));
  EXPECT_EQ(same.dtype, NpyDtype::I4);
  EXPECT_EQ(valuesOf<int32_t>(same.data), (std::vector<int32_t>{-5, 70000}));
}

TEST_F(RunCommand, RawFilesInAndOut) {
  writeBytes(dir.file("in.bin"), bytesOf<float>({2.0f, -2.0f, 0.0f}));
  expectOk(run(kType, "qcast", {}, "in.bin", "out.bin"));
  EXPECT_EQ(valuesOf<int8_t>(readBytes(dir.file("out.bin"))),
            (std::vector<int8_t>{11, 9, 10}));
  expectOk(run(kType, "dcast", {}, "out.bin", "back.npy"));
  NpyArray back = readArray(dir.file("back.npy"));
  EXPECT_EQ(back.shape, std::vector<int64_t>{3});
  EXPECT_EQ(valuesOf<float>(back.data),
            (std::vector<float>{2.0f, -2.0f, 0.0f}));
}

TEST_F(RunCommand, ExplicitReferenceBackendAndIsaCap) {
  writeArray<float>(dir.file("in.npy"), NpyDtype::F4, {1}, {2.0f});
  expectOk(run(kType, "qcast", {"--backend=reference", "--isa=scalar"}));
  EXPECT_EQ(valuesOf<int8_t>(readArray(dir.file("out.npy")).data),
            std::vector<int8_t>{11});
}

// --- Errors: each one exits non-zero, names the problem, writes nothing. --

class RunCommandErrors : public RunCommand {
protected:
  void SetUp() override {
    writeArray<float>(dir.file("in.npy"), NpyDtype::F4, {2, 3},
                      {0.0f, 1.0f, 2.0f, 3.0f, 4.0f, 5.0f});
  }
  /// Nothing but the input (and whatever the test made) exists.
  void expectNoOutput() {
    for (const std::string &name : dir.entries())
      EXPECT_TRUE(name == "in.npy" || name == "in.raw" || name == "keep.npy")
          << "left behind: " << name;
  }
};

TEST_F(RunCommandErrors, InvalidTypeShowsACaretDiagnostic) {
  ToolResult result = run("!quant.uniform<i8:f32, 2.0:10", "qcast");
  expectError(result, 1, "^");
  EXPECT_NE(result.err.find("error"), std::string::npos);
  expectNoOutput();
}

TEST_F(RunCommandErrors, TypesNoKernelComputes) {
  expectError(run("!quant.any<i8:f32>", "qcast"), 1, "quant.any");
  expectNoOutput();
}

TEST_F(RunCommandErrors, WrongDtype) {
  writeArray<double>(dir.file("in.npy"), NpyDtype::F8, {2}, {1.0, 2.0});
  expectError(run(kType, "qcast"), 1, "'<f8' does not match");
  expectError(run(kType, "qcast"), 1, "'<f4'");
  expectError(run(kType, "dcast"), 1, "'|i1'");
  expectNoOutput();
}

TEST_F(RunCommandErrors, WrongShapeOrSize) {
  expectError(run("tensor<3x2x!quant.uniform<i8:f32, 1.0>>", "qcast"), 1,
              "shape");
  expectError(run(kType, "qcast", {"--shape=3x3"}), 1, "shape");
  writeBytes(dir.file("in.raw"), std::vector<uint8_t>(7));
  expectError(run(kType, "qcast", {}, "in.raw", "out.raw"), 1,
              "not a whole number of 4-byte elements");
  writeBytes(dir.file("in.raw"), std::vector<uint8_t>(20));
  expectError(run(kType, "qcast", {"--shape=2x3"}, "in.raw", "out.raw"), 1,
              "20 bytes; 6 elements take 24");
  // (2, 2) packed bytes hold (2, 4) elements, not the type's 4x4.
  writeArray<uint8_t>(dir.file("in.npy"), NpyDtype::U1, {2, 2}, {1, 2, 3, 4});
  expectError(run("tensor<4x4x!quant.uniform<i4:f32, 1.0>>", "dcast"), 1,
              "holds elements 2x4, which do not match the type's shape 4x4");
  expectNoOutput();
}

TEST_F(RunCommandErrors, MissingOrMalformedInput) {
  expectError(run(kType, "qcast", {}, "nope.npy"), 1, "nope.npy");
  writeBytes(dir.file("in.npy"), {'n', 'o', 't'});
  expectError(run(kType, "qcast"), 1, "not a valid .npy file");
  expectNoOutput();
}

TEST_F(RunCommandErrors, UsageErrorsExit2) {
  expectError(run(kType, "qcast", {"--frobnicate"}), 2, "unknown flag");
  expectError(run(kType, "qcast", {"--rounding=up"}), 2,
              "invalid value 'up' for --rounding");
  expectError(run(kType, "qcast", {"--semantics=numpy"}), 2, "--semantics");
  expectError(run(kType, "qcast", {"--scale-op=multiply"}), 2, "--scale-op");
  expectError(run(kType, "qcast", {"--zero-point=never"}), 2, "--zero-point");
  expectError(run(kType, "qcast", {"--backend=gpu"}), 2, "--backend");
  expectError(run(kType, "qcast", {"--isa=avx9"}), 2, "--isa");
  expectError(run(kType, "qcast", {"--shape=2x-3"}), 2, "--shape");
  expectError(run(kType, "qcast", {"--unpacked=yes"}), 2, "--unpacked");
  expectError(run(kType, "qcast", {"--threads=two"}), 2,
              "is not a thread count");
  expectError(run(kType, "qcast", {"--threads=1025"}), 2,
              "is not a thread count");
  expectError(run(kType, "qcast", {"--threads=-1"}), 2,
              "is not a thread count");
  expectError(run(kType, "qcast",
                  {"--rounding=toward-zero", "--rounding=nearest-even"}),
              2, "--rounding");
  expectError(run(kType, "requantize"), 2, "--op");
  expectError(runQjit({"run", kType, "--in=" + dir.file("in.npy"),
                       "--out=" + dir.file("out.npy")}),
              2, "missing --op");
  expectError(runQjit({"run", kType, "--op=qcast", "--out=" + dir.file("o")}),
              2, "missing --in");
  expectError(runQjit({"run", kType, "--op=qcast", "--in=" + dir.file("in")}),
              2, "missing --out");
  expectError(
      runQjit({"run", "!quant.uniform<i8:f32,", "2.0>", "--op=qcast",
               "--in=" + dir.file("in.npy"), "--out=" + dir.file("out.npy")}),
      2, "quote");
  expectNoOutput();
}

TEST_F(RunCommandErrors, UnwritableOutputLeavesNothingBehind) {
  expectError(run(kType, "qcast", {}, "in.npy", "missing/out.npy"), 1,
              "missing/out.npy");
  // The output path is a directory: the rename fails after the write.
  std::filesystem::create_directory(dir.path() / "taken.npy");
  expectError(run(kType, "qcast", {}, "in.npy", "taken.npy"), 1, "taken.npy");
  EXPECT_TRUE(dir.entries("taken.npy").empty());
  std::filesystem::remove(dir.path() / "taken.npy");
  if (::geteuid() != 0) { // root writes anywhere
    std::filesystem::create_directory(dir.path() / "locked");
    std::filesystem::permissions(dir.path() / "locked",
                                 std::filesystem::perms::owner_read |
                                     std::filesystem::perms::owner_exec);
    expectError(run(kType, "qcast", {}, "in.npy", "locked/out.npy"), 1,
                "locked/out.npy");
    EXPECT_TRUE(dir.entries("locked").empty());
    std::filesystem::remove(dir.path() / "locked");
  }
  expectNoOutput();
}

TEST_F(RunCommandErrors, FailedWriteKeepsThePreviousOutput) {
  // 64 Ki floats of output with a 16 KiB file size limit: the write fails
  // part way, with EFBIG.
  writeArray<int8_t>(dir.file("in.npy"), NpyDtype::I1, {65536},
                     std::vector<int8_t>(65536, 11));
  std::vector<uint8_t> previous = {1, 2, 3};
  writeBytes(dir.file("keep.npy"), previous);
  qjit::testing::ToolRunOptions limits;
  limits.maxFileBytes = 16384;
  ToolResult result =
      runQjit({"run", kType, "--op=dcast", "--in=" + dir.file("in.npy"),
               "--out=" + dir.file("keep.npy")},
              limits);
  expectError(result, 1, "keep.npy");
  EXPECT_EQ(readBytes(dir.file("keep.npy")), previous);
  // A failed check also leaves it alone.
  expectError(run(kType, "qcast", {}, "in.npy", "keep.npy"), 1, "dtype");
  EXPECT_EQ(readBytes(dir.file("keep.npy")), previous);
  expectNoOutput();
}

TEST_F(RunCommandErrors, OutOfMemoryIsAnErrorWithNoOutput) {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  GTEST_SKIP() << "sanitizers reserve more address space than the limit";
#endif
  // 256 MiB of i8 (a sparse file: no disk) dequantize to 1 GiB of f32,
  // more than the 768 MiB the child may map.
  std::string in = dir.file("big.raw");
  std::ofstream(in, std::ios::binary).close();
  std::filesystem::resize_file(in, size_t{256} << 20);
  qjit::testing::ToolRunOptions limits;
  limits.maxAddressSpaceBytes = uint64_t{768} << 20;
  ToolResult result = runQjit({"run", kType, "--op=dcast", "--in=" + in,
                               "--out=" + dir.file("out.raw")},
                              limits);
  expectError(result, 1, "out of memory");
  EXPECT_EQ(result.err.find("terminate"), std::string::npos) << result.err;
  std::filesystem::remove(in);
  expectNoOutput();
}

TEST(RunCommandHelp, PrintsUsage) {
  ToolResult result = runQjit({"run", "--help"});
  EXPECT_EQ(result.exitCode, 0);
  EXPECT_NE(result.out.find("usage: qjit run"), std::string::npos);
  EXPECT_NE(result.out.find("--semantics"), std::string::npos);
}

// --- qjit spec -------------------------------------------------------------

std::string expectedSpec(const std::string &type, KernelOp op,
                         LoweringOptions options = {}) {
  Expected<TypeDescriptor> parsed = parseTypeOrError(type);
  EXPECT_TRUE(parsed);
  Expected<KernelSpec> spec = lowerToKernelSpec(*parsed, op, options);
  EXPECT_TRUE(spec) << spec.status().message();
  return spec ? spec->canonicalString() + "\n" : "";
}

TEST(SpecCommand, PrintsTheCanonicalString) {
  ToolResult result = runQjit({"spec", kType, "--op=qcast"});
  expectOk(result);
  EXPECT_EQ(result.out, expectedSpec(kType, KernelOp::QCast));

  LoweringOptions options;
  options.knobs = knobsForPreset(SemanticsPreset::Onnx);
  options.knobs.rounding = RoundingMode::TowardZero;
  options.unpacked = true;
  options.shape = {2, 3};
  const char *i4 = "!quant.uniform<i4:f32:1, {1.0, 2.0, 3.0}>";
  result = runQjit({"spec", i4, "--op=qcast", "--semantics=onnx",
                    "--rounding=toward-zero", "--unpacked", "--shape=2x3"});
  expectOk(result);
  EXPECT_EQ(result.out, expectedSpec(i4, KernelOp::QCast, options));
}

TEST(SpecCommand, Errors) {
  expectError(runQjit({"spec", "!quant.uniform<i8:f32>", "--op=qcast"}), 1,
              "^");
  expectError(runQjit({"spec", kType}), 2, "missing --op");
  expectError(runQjit({"spec", kType, "--op=qcast", "--backend=llvm"}), 2,
              "unknown flag");
  expectError(runQjit({"spec", "--op=qcast"}), 2, "missing TYPE");
}

TEST_F(RunCommand, RefusesToWriteOverItsInputAndWritesStdout) {
  std::vector<float> values = {0.0f, 2.0f, -2.0f, 4.0f};
  writeArray<float>(dir.file("in.npy"), NpyDtype::F4, {4}, values);
  std::vector<uint8_t> before = qjit::testing::readBytes(dir.file("in.npy"));
  expectError(run(kType, "qcast", {}, "in.npy", "in.npy"), 2,
              "names the input file");
  std::filesystem::create_symlink(dir.file("in.npy"), dir.file("alias.npy"));
  expectError(run(kType, "qcast", {}, "in.npy", "alias.npy"), 2,
              "names the input file");
  EXPECT_EQ(qjit::testing::readBytes(dir.file("in.npy")), before);
  // --out=- is standard output (raw bytes), not a file named "-".
  ToolResult result = runQjit(
      {"run", kType, "--op=qcast", "--in=" + dir.file("in.npy"), "--out=-"});
  expectOk(result);
  EXPECT_EQ(result.out, std::string("\x0a\x0b\x09\x0c", 4));
  EXPECT_FALSE(std::filesystem::exists(dir.file("-")));
}

} // namespace
} // namespace qjit::tool
