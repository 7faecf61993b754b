//===- BenchCases.cpp - The one list of benchmark cases -------------------===//
#include "BenchCases.h"

#include <cstdio>
#include <vector>

namespace qjit::bench {

namespace {

/// NF4 (QLoRA's 4-bit NormalFloat table) as the storage of a uniform type.
constexpr std::string_view kNf4Storage =
    "!quant.quantile<u4:f32, {-1.0, -0.6961928009986877, -0.5250730514526367, "
    "-0.39491748809814453, -0.28444138169288635, -0.18477343022823334, "
    "-0.09105003625154495, 0.0, 0.07958029955625534, 0.16093020141124725, "
    "0.24611230194568634, 0.33791524171829224, 0.44070982933044434, "
    "0.5626170039176941, 0.7229568362236023, 1.0}>";

constexpr BenchCase kCases[] = {
    {"i8_per_tensor", "i8", CaseLayout::PerTensor, true, false},
    {"u8_per_tensor", "u8", CaseLayout::PerTensor, true, false},
    // XNNPACK's own formula (x · fl(1/s), zero point after rounding).
    {"i8_per_tensor_xnnpack_knobs", "i8", CaseLayout::PerTensor, true, false,
     ScaleFormat::Expressed, SemanticsPreset::Xnnpack},
    {"i8_per_axis_last", "i8", CaseLayout::PerAxisLast, false, false},
    {"i8_per_axis_first", "i8", CaseLayout::PerAxisFirst, false, false},
    {"i8_block32", "i8", CaseLayout::Block32, false, true},
    // Per token: the layout of dynamic activation quantization.
    {"i8_per_row", "i8", CaseLayout::PerRow, false, true},
    {"i4_per_tensor", "i4", CaseLayout::PerTensor, true, false},
    // Compact formats (docs/semantics.md section 8), measured against the
    // int8 cases above: packed int4 blockwise (the GPTQ / q4 shape), fp8
    // and NF4.
    {"i4_block32", "i4", CaseLayout::Block32, false, true},
    {"f8e4m3fn_per_tensor", "f8E4M3FN", CaseLayout::PerTensor, false, false},
    {"nf4_per_tensor", kNf4Storage, CaseLayout::PerTensor, false, false},
    // OCP MXFP4 (gpt-oss's weights): f4E2M1FN codes, E8M0 block scales.
    {"mxfp4_block32", "f4E2M1FN", CaseLayout::Block32, false, true,
     ScaleFormat::E8M0},
};

/// A scale with all 24 significand bits in play (so neither division nor
/// its reciprocal is exact), varying with the parameter index.
std::string scaleText(int64_t index) {
  float scale =
      0.0137f * (1.0f + 0.37f * static_cast<float>(index % 17) / 17.0f);
  char text[32];
  std::snprintf(text, sizeof text, "%.9g", static_cast<double>(scale));
  return text;
}

/// Zero points inside the storage range, odd so that adding them before
/// or after rounding gives different results at ties.
int64_t zeroPoint(std::string_view storage, int64_t index) {
  int64_t spread = index % 5;
  if (storage == "u8")
    return 125 + 2 * spread;
  if (storage == "i4")
    return 1;
  return 3 - 2 * spread;
}

std::string parameterText(const BenchCase &benchCase, int64_t index) {
  return scaleText(index) + ":" +
         std::to_string(
             benchCase.asymmetric ? zeroPoint(benchCase.storage, index) : 0);
}

std::string parameterList(const BenchCase &benchCase, int64_t first,
                          int64_t count) {
  std::string list = "{";
  for (int64_t i = 0; i < count; ++i) {
    if (i)
      list += ",";
    list += parameterText(benchCase, first + i);
  }
  return list + "}";
}

} // namespace

std::span<const BenchCase> benchCases() { return kCases; }

LoweringOptions caseLowering(const BenchCase &benchCase) {
  LoweringOptions options;
  options.runtimeParameters = benchCase.runtimeParameters;
  options.scaleFormat = benchCase.scaleFormat;
  options.knobs = knobsForPreset(benchCase.preset);
  return options;
}

bool caseRunsAs(const BenchCase &benchCase, KernelOp op) {
  return op == KernelOp::QCast || benchCase.preset == SemanticsPreset::Default;
}

const BenchCase *findBenchCase(std::string_view name) {
  for (const BenchCase &c : kCases)
    if (c.name == name)
      return &c;
  return nullptr;
}

Expected<std::string> caseTypeText(const BenchCase &benchCase, int64_t n) {
  if (n <= 0 || n % kBlockRow || n % kChannels)
    return Status::error(ErrorCode::InvalidArgument,
                         "case " + std::string(benchCase.name) +
                             " needs n to be a positive multiple of " +
                             std::to_string(kBlockRow));
  std::string storage(benchCase.storage);
  switch (benchCase.layout) {
  case CaseLayout::PerTensor:
    return "!quant.uniform<" + storage + ":f32, " +
           parameterText(benchCase, 0) + ">";
  case CaseLayout::PerAxisLast:
    return "tensor<" + std::to_string(n / kChannels) + "x" +
           std::to_string(kChannels) + "x!quant.uniform<" + storage +
           ":f32:1, " + parameterList(benchCase, 0, kChannels) + ">>";
  case CaseLayout::PerAxisFirst:
    return "tensor<" + std::to_string(kChannels) + "x" +
           std::to_string(n / kChannels) + "x!quant.uniform<" + storage +
           ":f32:0, " + parameterList(benchCase, 0, kChannels) + ">>";
  case CaseLayout::PerRow:
    if (n % kRow)
      return Status::error(ErrorCode::InvalidArgument,
                           "case " + std::string(benchCase.name) +
                               " needs n to be a multiple of " +
                               std::to_string(kRow));
    return "tensor<" + std::to_string(n / kRow) + "x" + std::to_string(kRow) +
           "x!quant.uniform<" + storage + ":f32:0, " +
           parameterList(benchCase, 0, n / kRow) + ">>";
  case CaseLayout::Block32: {
    int64_t rowCount = n / kBlockRow, blocksPerRow = kBlockRow / kBlock;
    std::string text = "tensor<" + std::to_string(rowCount) + "x" +
                       std::to_string(kBlockRow) + "x!quant.uniform<" +
                       storage + ":f32:{0:1, 1:" + std::to_string(kBlock) +
                       "}, {";
    text.reserve(text.size() + static_cast<size_t>(n / kBlock) * 16);
    for (int64_t r = 0; r < rowCount; ++r) {
      if (r)
        text += ",";
      text += parameterList(benchCase, r * blocksPerRow, blocksPerRow);
    }
    return text + "}>>";
  }
  }
  return Status::error(ErrorCode::InvalidArgument, "unknown case layout");
}

} // namespace qjit::bench
