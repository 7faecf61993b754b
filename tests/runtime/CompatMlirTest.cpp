//===- CompatMlirTest.cpp - The mlir preset against MLIR 22 itself --------===//
//
// Lowers per-tensor i8:f32 qcast and dcast with MLIR 22's
// `--lower-quant-ops`, runs the result with mlir-runner and compares with
// the reference: qcast with the `mlir` preset on in-range values (where
// MLIR's fptosi is defined), dcast on every i8 value (bit for bit). The
// casts sit in their own functions so nothing is constant-folded: the
// numbers come from executed code. Skips when the MLIR tools are missing.
//
//===----------------------------------------------------------------------===//
#include "ReferenceTestSupport.h"
#include "TestSeed.h"

#include <gtest/gtest.h>

#include <array>
#include <bit>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

namespace qjit {
namespace {

namespace fs = std::filesystem;

const fs::path kLlvmRoot = "/usr/lib/llvm-22";

/// The first existing path among `candidates`, or empty.
fs::path firstExisting(const std::vector<fs::path> &candidates) {
  for (const fs::path &path : candidates)
    if (fs::exists(path))
      return path;
  return {};
}

struct MlirTools {
  fs::path opt, runner, runnerUtils, cRunnerUtils;
};

std::optional<MlirTools> findTools() {
  MlirTools tools;
  fs::path lib = kLlvmRoot / "lib";
  tools.opt = firstExisting({kLlvmRoot / "bin/mlir-opt"});
  tools.runner = firstExisting({kLlvmRoot / "bin/mlir-runner"});
  tools.runnerUtils = firstExisting(
      {lib / "libmlir_runner_utils.so", lib / "libmlir_runner_utils.so.22.1"});
  tools.cRunnerUtils = firstExisting({lib / "libmlir_c_runner_utils.so",
                                      lib / "libmlir_c_runner_utils.so.22.1"});
  if (tools.opt.empty() || tools.runner.empty() || tools.runnerUtils.empty() ||
      tools.cRunnerUtils.empty())
    return std::nullopt;
  return tools;
}

/// Runs a shell command; its stdout, or nullopt when it fails.
std::optional<std::string> runCommand(const std::string &command) {
  FILE *pipe = popen(command.c_str(), "r");
  if (!pipe)
    return std::nullopt;
  std::string output;
  std::array<char, 4096> buffer;
  size_t read;
  while ((read = fread(buffer.data(), 1, buffer.size(), pipe)) > 0)
    output.append(buffer.data(), read);
  if (pclose(pipe) != 0)
    return std::nullopt;
  return output;
}

/// The integers of every printMemref data line ("[1,  2, ...]").
std::vector<std::vector<int64_t>> parseMemrefs(const std::string &output) {
  std::vector<std::vector<int64_t>> memrefs;
  std::istringstream lines(output);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.empty() || line[0] != '[')
      continue;
    for (char &c : line)
      if (c == '[' || c == ']' || c == ',')
        c = ' ';
    std::istringstream numbers(line);
    std::vector<int64_t> values;
    int64_t value;
    while (numbers >> value)
      values.push_back(value);
    memrefs.push_back(values);
  }
  return memrefs;
}

std::string floatLiteral(float value) {
  char text[32];
  std::snprintf(text, sizeof(text), "%.8e", static_cast<double>(value));
  return text;
}

/// qcast of `inputs` and dcast of every i8 through `!quant.uniform<i8:f32,
/// scale:zeroPoint>`, printed as i32 (dcast results as their bits).
std::string moduleText(double scale, int64_t zeroPoint,
                       const std::vector<float> &inputs) {
  std::string n = std::to_string(inputs.size());
  std::ostringstream out;
  out << "!q = !quant.uniform<i8:f32, " << floatLiteral(float(scale)) << ":"
      << zeroPoint << ">\n";
  out << "func.func @qcast(%x: tensor<" << n << "xf32>) -> tensor<" << n
      << "xi8> {\n"
      << "  %q = quant.qcast %x : tensor<" << n << "xf32> to tensor<" << n
      << "x!q>\n"
      << "  %s = quant.scast %q : tensor<" << n << "x!q> to tensor<" << n
      << "xi8>\n"
      << "  return %s : tensor<" << n << "xi8>\n}\n";
  out << "func.func @dcast(%s: tensor<256xi8>) -> tensor<256xf32> {\n"
      << "  %q = quant.scast %s : tensor<256xi8> to tensor<256x!q>\n"
      << "  %y = quant.dcast %q : tensor<256x!q> to tensor<256xf32>\n"
      << "  return %y : tensor<256xf32>\n}\n";
  out << "func.func @main() {\n  %x = arith.constant dense<[";
  for (size_t i = 0; i < inputs.size(); ++i)
    out << (i ? ", " : "") << floatLiteral(inputs[i]);
  out << "]> : tensor<" << n << "xf32>\n"
      << "  %s = call @qcast(%x) : (tensor<" << n << "xf32>) -> tensor<" << n
      << "xi8>\n"
      << "  %w = arith.extsi %s : tensor<" << n << "xi8> to tensor<" << n
      << "xi32>\n"
      << "  %wu = tensor.cast %w : tensor<" << n << "xi32> to tensor<*xi32>\n"
      << "  call @printMemrefI32(%wu) : (tensor<*xi32>) -> ()\n"
      << "  %all = arith.constant dense<[";
  for (int q = -128; q <= 127; ++q)
    out << (q > -128 ? ", " : "") << q;
  out << "]> : tensor<256xi8>\n"
      << "  %y = call @dcast(%all) : (tensor<256xi8>) -> tensor<256xf32>\n"
      << "  %b = arith.bitcast %y : tensor<256xf32> to tensor<256xi32>\n"
      << "  %bu = tensor.cast %b : tensor<256xi32> to tensor<*xi32>\n"
      << "  call @printMemrefI32(%bu) : (tensor<*xi32>) -> ()\n"
      << "  return\n}\n"
      << "func.func private @printMemrefI32(tensor<*xi32>)\n";
  return out.str();
}

/// Inputs whose u + z stays inside (-128, 128), including exact ties.
std::vector<float> inRangeInputs(std::mt19937_64 &rng, double scale,
                                 int64_t zeroPoint) {
  float s = static_cast<float>(scale);
  std::vector<float> inputs = {0.0f, -0.0f, s, -s, s / 2, -s / 2};
  // u + z = k + 0.5 (a tie whenever x and u are exact).
  for (int k = -120; k <= 120; k += 7)
    inputs.push_back((static_cast<float>(k - zeroPoint) + 0.5f) * s);
  double low = (-127.0 - static_cast<double>(zeroPoint)) * scale;
  double high = (127.0 - static_cast<double>(zeroPoint)) * scale;
  std::uniform_real_distribution<double> pick(low, high);
  for (int i = 0; i < 200; ++i)
    inputs.push_back(static_cast<float>(pick(rng)));
  return inputs;
}

TEST(CompatMlir, LowerQuantOpsMatchesTheMlirPreset) {
  std::optional<MlirTools> tools = findTools();
  if (!tools)
    GTEST_SKIP() << "mlir-opt, mlir-runner or the MLIR runner utils of LLVM "
                    "22 are not installed under "
                 << kLlvmRoot;
  std::mt19937_64 rng(qjit::testing::testSeed());
  fs::path dir =
      fs::temp_directory_path() / ("qjit-compat-mlir-" + std::to_string(rng()));
  fs::create_directories(dir);

  const std::vector<std::pair<double, int64_t>> types = {
      {0.5, 3}, {0.1, -7}, {3.0, 0}, {0.0123, 40}};
  for (const auto &[scale, zeroPoint] : types) {
    std::vector<float> inputs = inRangeInputs(rng, scale, zeroPoint);
    fs::path source = dir / "quant.mlir";
    fs::path lowered = dir / "lowered.mlir";
    std::ofstream(source) << moduleText(scale, zeroPoint, inputs);
    std::string lower =
        tools->opt.string() + " " + source.string() +
        " --lower-quant-ops --canonicalize --convert-elementwise-to-linalg"
        " --one-shot-bufferize=bufferize-function-boundaries"
        " --convert-linalg-to-loops --expand-strided-metadata --lower-affine"
        " --convert-scf-to-cf --convert-to-llvm --reconcile-unrealized-casts"
        " -o " +
        lowered.string() + " 2>&1";
    ASSERT_TRUE(runCommand(lower).has_value()) << "failed: " << lower;
    std::string run = tools->runner.string() + " " + lowered.string() +
                      " -e main -entry-point-result=void -shared-libs=" +
                      tools->runnerUtils.string() + "," +
                      tools->cRunnerUtils.string() + " 2>&1";
    std::optional<std::string> output = runCommand(run);
    ASSERT_TRUE(output.has_value()) << "failed: " << run;
    std::vector<std::vector<int64_t>> memrefs = parseMemrefs(*output);
    ASSERT_EQ(memrefs.size(), 2u) << *output;

    KernelSpec qcast = testing::perTensorSpec(
        KernelOp::QCast, testing::integerStorage(8, true), ValueType::F32,
        scale, zeroPoint, knobsForPreset(SemanticsPreset::Mlir));
    EXPECT_EQ(testing::quantize(
                  qcast, std::vector<double>(inputs.begin(), inputs.end())),
              memrefs[0])
        << "scale " << scale << " zero point " << zeroPoint;

    KernelSpec dcast = qcast;
    dcast.op = KernelOp::DCast;
    dcast.knobs = {};
    std::vector<int64_t> all;
    for (int64_t q = -128; q <= 127; ++q)
      all.push_back(q);
    std::vector<int64_t> bits;
    for (double y : testing::dequantize(dcast, all))
      bits.push_back(std::bit_cast<int32_t>(static_cast<float>(y)));
    EXPECT_EQ(bits, memrefs[1])
        << "scale " << scale << " zero point " << zeroPoint;
  }
  fs::remove_all(dir);
}

} // namespace
} // namespace qjit
