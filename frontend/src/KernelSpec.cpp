//===- KernelSpec.cpp - Names, canonical form and checks of KernelSpec ----===//
#include "qjit/KernelSpec.h"

#include "qjit/internal/DynamicParameters.h"
#include "qjit/internal/FloatStorage.h"
#include "qjit/internal/HostFloat.h"

#include "ShortestDecimal.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <optional>
#include <string>
#include <utility>

namespace qjit {

QuantKnobs knobsForPreset(SemanticsPreset preset) {
  switch (preset) {
  case SemanticsPreset::Default:
  case SemanticsPreset::Vllm: // x / scale, as its per-token kernel divides
    return {};
  case SemanticsPreset::Mlir:
    return {ScaleOp::Divide, ZeroPointOrder::BeforeRounding,
            RoundingMode::TowardZero};
  case SemanticsPreset::Onnx:
    return {ScaleOp::Divide, ZeroPointOrder::AfterRounding,
            RoundingMode::NearestEven};
  case SemanticsPreset::PyTorch:
  case SemanticsPreset::Xnnpack: // x · fl(1/s), as f32-qs8-vcvt multiplies
    return {ScaleOp::Reciprocal, ZeroPointOrder::AfterRounding,
            RoundingMode::NearestEven};
  case SemanticsPreset::TfLite:
    return {ScaleOp::Divide, ZeroPointOrder::AfterRounding,
            RoundingMode::NearestAway};
  case SemanticsPreset::Ggml: // roundf(x * id), id = 1/d
    return {ScaleOp::Reciprocal, ZeroPointOrder::AfterRounding,
            RoundingMode::NearestAway};
  }
  return {};
}

std::string_view semanticsPresetName(SemanticsPreset preset) {
  switch (preset) {
  case SemanticsPreset::Default:
    return "default";
  case SemanticsPreset::Mlir:
    return "mlir";
  case SemanticsPreset::Onnx:
    return "onnx";
  case SemanticsPreset::PyTorch:
    return "pytorch";
  case SemanticsPreset::TfLite:
    return "tflite";
  case SemanticsPreset::Xnnpack:
    return "xnnpack";
  case SemanticsPreset::Ggml:
    return "ggml";
  case SemanticsPreset::Vllm:
    return "vllm";
  }
  return "?";
}

Expected<SemanticsPreset> parseSemanticsPreset(std::string_view name) {
  for (SemanticsPreset preset :
       {SemanticsPreset::Default, SemanticsPreset::Mlir, SemanticsPreset::Onnx,
        SemanticsPreset::PyTorch, SemanticsPreset::TfLite,
        SemanticsPreset::Xnnpack, SemanticsPreset::Ggml, SemanticsPreset::Vllm})
    if (name == semanticsPresetName(preset))
      return preset;
  return Status::error(ErrorCode::InvalidArgument,
                       "semantics '" + std::string(name) +
                           "' is not one of default, mlir, onnx, pytorch, "
                           "tflite, xnnpack, ggml, vllm");
}

LoweringOptions loweringForPreset(SemanticsPreset preset) {
  LoweringOptions options;
  options.knobs = knobsForPreset(preset);
  options.perAxisDequantizeInF64 = preset == SemanticsPreset::PyTorch;
  options.dynamicRule =
      preset == SemanticsPreset::PyTorch   ? DynamicRule::PyTorch
      : preset == SemanticsPreset::Xnnpack ? DynamicRule::Xnnpack
      : preset == SemanticsPreset::Ggml    ? DynamicRule::Ggml
      : preset == SemanticsPreset::Vllm    ? DynamicRule::Vllm
                                           : DynamicRule::Default;
  return options;
}

double bakedScale(const KernelSpec &spec, size_t k) {
  double scale = spec.params.scales[k];
  return spec.compute == ValueType::F64
             ? scale
             : roundToValueType(scale, spec.expressed);
}

std::string_view kernelOpName(KernelOp op) {
  switch (op) {
  case KernelOp::QCast:
    return "qcast";
  case KernelOp::DCast:
    return "dcast";
  case KernelOp::SCast:
    return "scast";
  }
  return "?";
}

std::string_view valueTypeName(ValueType type) {
  switch (type) {
  case ValueType::F16:
    return "f16";
  case ValueType::BF16:
    return "bf16";
  case ValueType::F32:
    return "f32";
  case ValueType::F64:
    return "f64";
  }
  return "?";
}

unsigned valueTypeBytes(ValueType type) {
  switch (type) {
  case ValueType::F16:
  case ValueType::BF16:
    return 2;
  case ValueType::F32:
    return 4;
  case ValueType::F64:
    return 8;
  }
  return 0;
}

std::string_view roundingModeName(RoundingMode mode) {
  switch (mode) {
  case RoundingMode::NearestEven:
    return "nearest-even";
  case RoundingMode::NearestAway:
    return "nearest-away";
  case RoundingMode::TowardZero:
    return "toward-zero";
  }
  return "?";
}

std::string_view scaleOpName(ScaleOp op) {
  switch (op) {
  case ScaleOp::Divide:
    return "divide";
  case ScaleOp::Reciprocal:
    return "reciprocal";
  }
  return "?";
}

std::string_view zeroPointOrderName(ZeroPointOrder order) {
  switch (order) {
  case ZeroPointOrder::BeforeRounding:
    return "before-rounding";
  case ZeroPointOrder::AfterRounding:
    return "after-rounding";
  }
  return "?";
}

std::string_view dynamicSchemeName(DynamicScheme scheme) {
  switch (scheme) {
  case DynamicScheme::None:
    return "none";
  case DynamicScheme::AbsMax:
    return "absmax";
  case DynamicScheme::MinMax:
    return "minmax";
  case DynamicScheme::Mx:
    return "mx";
  }
  return "?";
}

std::string_view dynamicRuleName(DynamicRule rule) {
  switch (rule) {
  case DynamicRule::Default:
    return "default";
  case DynamicRule::PyTorch:
    return "pytorch";
  case DynamicRule::Xnnpack:
    return "xnnpack";
  case DynamicRule::Ggml:
    return "ggml";
  case DynamicRule::Vllm:
    return "vllm";
  }
  return "?";
}

Expected<DynamicScheme> parseDynamicScheme(std::string_view name) {
  for (DynamicScheme scheme : {DynamicScheme::None, DynamicScheme::AbsMax,
                               DynamicScheme::MinMax, DynamicScheme::Mx})
    if (name == dynamicSchemeName(scheme))
      return scheme;
  return Status::error(ErrorCode::InvalidArgument,
                       "unknown dynamic scheme '" + std::string(name) +
                           "' (none, absmax, minmax, mx)");
}

std::string_view scaleRoundingName(ScaleRounding rounding) {
  switch (rounding) {
  case ScaleRounding::Floor:
    return "floor";
  case ScaleRounding::Ceil:
    return "ceil";
  case ScaleRounding::Even:
    return "even";
  }
  return "?";
}

Expected<ScaleRounding> parseScaleRounding(std::string_view name) {
  for (ScaleRounding rounding :
       {ScaleRounding::Floor, ScaleRounding::Ceil, ScaleRounding::Even})
    if (name == scaleRoundingName(rounding))
      return rounding;
  return Status::error(ErrorCode::InvalidArgument, "unknown scale rounding '" +
                                                       std::string(name) +
                                                       "' (floor, ceil, even)");
}

std::string_view scaleFormatName(ScaleFormat format) {
  switch (format) {
  case ScaleFormat::Expressed:
    return "expressed";
  case ScaleFormat::F32:
    return "f32";
  case ScaleFormat::F16:
    return "f16";
  case ScaleFormat::BF16:
    return "bf16";
  case ScaleFormat::E8M0:
    return "e8m0";
  }
  return "?";
}

Expected<ScaleFormat> parseScaleFormat(std::string_view name) {
  for (ScaleFormat format :
       {ScaleFormat::Expressed, ScaleFormat::F32, ScaleFormat::F16,
        ScaleFormat::BF16, ScaleFormat::E8M0})
    if (name == scaleFormatName(format))
      return format;
  return Status::error(ErrorCode::InvalidArgument,
                       "unknown scale format '" + std::string(name) +
                           "' (expressed, f32, f16, bf16, e8m0)");
}

unsigned runtimeScaleBytes(const KernelSpec &spec) {
  switch (spec.params.scaleFormat) {
  case ScaleFormat::Expressed:
    return valueTypeBytes(spec.expressed);
  case ScaleFormat::F32:
    return 4;
  case ScaleFormat::F16:
  case ScaleFormat::BF16:
    return 2;
  case ScaleFormat::E8M0:
    return 1;
  }
  return valueTypeBytes(spec.expressed);
}

std::optional<ValueType> scaleValueType(const KernelSpec &spec) {
  switch (spec.params.scaleFormat) {
  case ScaleFormat::Expressed:
    return spec.expressed;
  case ScaleFormat::F32:
    return ValueType::F32;
  case ScaleFormat::F16:
    return ValueType::F16;
  case ScaleFormat::BF16:
    return ValueType::BF16;
  case ScaleFormat::E8M0:
    return std::nullopt;
  }
  return std::nullopt;
}

unsigned StorageSpec::containerBytes() const {
  if (bits <= 8)
    return 1;
  if (bits <= 16)
    return 2;
  return 4;
}

int64_t LayoutSpec::parameterCount() const {
  switch (kind) {
  case Kind::PerTensor:
    return 1;
  case Kind::PerAxis:
    return channels;
  case Kind::Blocked: {
    // Dynamic extents always come with whole-extent blocks (grid 1), so
    // the count never depends on call-time extents.
    int64_t count = 1;
    for (const Dim &dim : dims)
      if (dim.block != kDynamic && dim.block > 0)
        count *= dim.extent / dim.block;
    return count;
  }
  }
  return 1;
}

bool KernelSpec::takesParams() const {
  if (params.runtime)
    return true;
  if (layout.kind == LayoutSpec::Kind::PerAxis)
    return layout.inner == LayoutSpec::kDynamic;
  if (layout.kind == LayoutSpec::Kind::Blocked)
    for (const LayoutSpec::Dim &dim : layout.dims)
      if (dim.extent == LayoutSpec::kDynamic)
        return true;
  return false;
}

namespace {

void appendNumber(std::string &out, double value) {
  out += shortestDecimal(value);
}

void appendNumber(std::string &out, int64_t value) {
  out += std::to_string(value);
}

void appendExtent(std::string &out, int64_t extent) {
  if (extent == LayoutSpec::kDynamic)
    out += '?';
  else
    appendNumber(out, extent);
}

template <typename T>
void appendList(std::string &out, const std::vector<T> &values) {
  out += '[';
  for (size_t i = 0; i < values.size(); ++i) {
    if (i != 0)
      out += ',';
    appendNumber(out, values[i]);
  }
  out += ']';
}

/// "i8", "u4", "f8E4M3FN", "quantile-u4".
std::string storageName(const StorageSpec &storage) {
  std::string integer =
      (storage.isSigned ? "i" : "u") + std::to_string(storage.bits);
  switch (storage.kind) {
  case StorageType::Kind::Integer:
    return integer;
  case StorageType::Kind::Float:
    return std::string(floatTypeName(storage.floatFormat));
  case StorageType::Kind::Quantile:
    return "quantile-" + integer;
  }
  return integer;
}

std::string_view layoutKindName(LayoutSpec::Kind kind) {
  switch (kind) {
  case LayoutSpec::Kind::PerTensor:
    return "per-tensor";
  case LayoutSpec::Kind::PerAxis:
    return "per-axis";
  case LayoutSpec::Kind::Blocked:
    return "blocked";
  }
  return "?";
}

void appendLayout(std::string &out, const LayoutSpec &layout) {
  out += layoutKindName(layout.kind);
  switch (layout.kind) {
  case LayoutSpec::Kind::PerTensor:
    return;
  case LayoutSpec::Kind::PerAxis:
    out += "(channels=";
    appendNumber(out, layout.channels);
    out += ",inner=";
    appendExtent(out, layout.inner);
    out += ')';
    return;
  case LayoutSpec::Kind::Blocked:
    out += '(';
    for (size_t i = 0; i < layout.dims.size(); ++i) {
      if (i != 0)
        out += ',';
      appendExtent(out, layout.dims[i].extent);
      out += '/';
      appendExtent(out, layout.dims[i].block);
    }
    out += ')';
    return;
  }
}

/// FNV-1a, 64 bit: stable across runs and platforms, unlike std::hash.
uint64_t fnv1a(std::string_view text) {
  uint64_t hash = 0xcbf29ce484222325ULL;
  for (unsigned char c : text) {
    hash ^= c;
    hash *= 0x100000001b3ULL;
  }
  return hash;
}

Status invalid(std::string message) {
  return Status::error(ErrorCode::InvalidArgument,
                       "invalid KernelSpec: " + std::move(message));
}

Status verifyStorage(const StorageSpec &storage) {
  if (storage.min > storage.max)
    return invalid("storage min > max");
  switch (storage.kind) {
  case StorageType::Kind::Integer:
  case StorageType::Kind::Quantile: {
    if (storage.bits < 1 || storage.bits > 32)
      return invalid("integer storage width must be 1..32");
    int64_t lowest = storage.isSigned ? -(int64_t(1) << (storage.bits - 1)) : 0;
    int64_t highest = storage.isSigned ? (int64_t(1) << (storage.bits - 1)) - 1
                                       : (int64_t(1) << storage.bits) - 1;
    if (storage.min < lowest || storage.max > highest)
      return invalid("storage bounds outside the range of " +
                     storageName(storage));
    if (storage.kind == StorageType::Kind::Quantile &&
        static_cast<int64_t>(storage.table.size()) !=
            storage.max - storage.min + 1)
      return invalid("quantile table needs one entry per storage value");
    break;
  }
  case StorageType::Kind::Float: {
    if (storage.floatFormat != FloatType::F8E4M3FN &&
        storage.floatFormat != FloatType::F8E5M2 &&
        storage.floatFormat != FloatType::F4E2M1FN)
      return invalid("float storage must be f8E4M3FN, f8E5M2 or f4E2M1FN");
    if (storage.bits != floatTypeBits(storage.floatFormat))
      return invalid("float storage width does not match its format");
    if (storage.isSigned)
      return invalid("float storage codes are unsigned bit patterns");
    int64_t largest = floatStorageLargest(storage.floatFormat);
    if (storage.min < -largest || storage.max > largest)
      return invalid("storage bounds outside the range of " +
                     storageName(storage));
    // Bounds between two neighbouring format values hold none: the clamp
    // to [lo, hi] would have no answer (lo > hi).
    FloatStorageBounds bounds = floatStorageBounds(storage);
    if (bounds.lo > bounds.hi) {
      std::string text = storageName(storage) + " bounds [";
      appendNumber(text, storage.min);
      text += ", ";
      appendNumber(text, storage.max);
      text += "] hold no value of the format (its nearest are ";
      appendNumber(text, bounds.hi);
      text += " and ";
      appendNumber(text, bounds.lo);
      return invalid(text + ")");
    }
    break;
  }
  }
  if (storage.kind == StorageType::Kind::Quantile)
    for (double entry : storage.table)
      if (!std::isfinite(entry))
        return invalid("quantile table entries must be finite");
  if (storage.packed && storage.bits != 1 && storage.bits != 2 &&
      storage.bits != 4)
    return invalid("only 1-, 2- and 4-bit storage can be packed");
  return Status::ok();
}

Status verifyLayout(const LayoutSpec &layout) {
  switch (layout.kind) {
  case LayoutSpec::Kind::PerTensor:
    return Status::ok();
  case LayoutSpec::Kind::PerAxis:
    if (layout.channels < 1)
      return invalid("per-axis layout needs at least one channel");
    if (layout.inner < 1 && layout.inner != LayoutSpec::kDynamic)
      return invalid("per-axis inner extent must be positive or dynamic");
    return Status::ok();
  case LayoutSpec::Kind::Blocked:
    if (layout.dims.empty())
      return invalid("blocked layout without dims");
    for (size_t i = 0; i < layout.dims.size(); ++i) {
      const LayoutSpec::Dim &dim = layout.dims[i];
      if (dim.extent == LayoutSpec::kDynamic) {
        if (i == 0)
          return invalid("the outermost blocked dim must be static");
        if (dim.block != LayoutSpec::kDynamic)
          return invalid("a dynamic blocked dim needs a whole-extent block");
        continue;
      }
      if (dim.extent < 1 || dim.block < 1 || dim.extent % dim.block != 0)
        return invalid("blocked dim " + std::to_string(i) +
                       ": block must be positive and divide the extent");
    }
    return Status::ok();
  }
  return invalid("unknown layout kind");
}

/// The mx scheme (11.8): f32 values to integer or float storage, E8M0
/// scales, no rule (its variants are the scale roundings).
Status verifyMx(const KernelSpec &spec) {
  const ParameterSpec &params = spec.params;
  if (params.dynamicRule != DynamicRule::Default)
    return invalid("the mx scheme has no " +
                   std::string(dynamicRuleName(params.dynamicRule)) +
                   " rule: its variants are its scale roundings (floor, "
                   "ceil, even)");
  if (spec.expressed != ValueType::F32)
    return invalid("the mx scheme needs f32 expressed values");
  if (spec.storage.kind == StorageType::Kind::Quantile)
    return invalid("the mx scheme needs integer or float storage");
  if (params.scaleFormat != ScaleFormat::E8M0)
    return invalid("the mx scheme writes e8m0 scales, not " +
                   std::string(scaleFormatName(params.scaleFormat)));
  if (largestStoredMagnitude(spec.storage) < 1)
    return invalid("the mx scheme needs bounds with min <= -1 and max >= 1");
  return Status::ok();
}

/// What docs/semantics.md section 11 defines a dynamic qcast for.
Status verifyDynamic(const KernelSpec &spec) {
  const ParameterSpec &params = spec.params;
  if (params.dynamic != DynamicScheme::Mx &&
      params.scaleRounding != ScaleRounding::Floor)
    return invalid("a scale rounding is for the mx scheme only");
  if (params.dynamic == DynamicScheme::None)
    return params.dynamicRule == DynamicRule::Default
               ? Status::ok()
               : invalid("a dynamic rule without a dynamic scheme");
  if (spec.op != KernelOp::QCast || !params.runtime)
    return invalid("dynamic parameters are for qcast with runtime "
                   "parameters only");
  if (params.dynamic == DynamicScheme::Mx)
    return verifyMx(spec);
  bool floatAbsMax = spec.storage.kind == StorageType::Kind::Float &&
                     params.dynamic == DynamicScheme::AbsMax;
  if (spec.storage.kind != StorageType::Kind::Integer && !floatAbsMax)
    return invalid("dynamic qcast needs integer storage (absmax: integer or "
                   "float storage)");
  if (spec.expressed != ValueType::F32 && spec.expressed != ValueType::F64)
    return invalid("dynamic qcast needs f32 or f64 expressed values");
  const StorageSpec &storage = spec.storage;
  bool fullByte = storage.bits == 8 &&
                  (storage.isSigned ? storage.min == -128 && storage.max == 127
                                    : storage.min == 0 && storage.max == 255);
  if (params.dynamicRule == DynamicRule::PyTorch &&
      (spec.expressed != ValueType::F32 || !fullByte))
    return invalid("the pytorch dynamic rule needs f32 expressed values and "
                   "i8 or u8 storage of the full range (qint8, quint8)");
  bool qd8 = spec.expressed == ValueType::F32 && fullByte && storage.isSigned &&
             params.dynamic == DynamicScheme::MinMax;
  if (params.dynamicRule == DynamicRule::Xnnpack && !qd8)
    return invalid("the xnnpack dynamic rule is minmax of f32 values to i8 "
                   "storage of the full range (XNNPACK's qd8)");
  if (params.dynamicRule == DynamicRule::Ggml &&
      (spec.expressed != ValueType::F32 || !fullByte || !storage.isSigned ||
       params.dynamic != DynamicScheme::AbsMax))
    return invalid("the ggml dynamic rule is absmax of f32 values to i8 "
                   "storage of the full range (llama.cpp's q8_0)");
  if (params.dynamicRule == DynamicRule::Ggml &&
      params.scaleFormat != ScaleFormat::F16)
    return invalid("the ggml dynamic rule writes f16 scales");
  bool e4m3 = spec.storage.kind == StorageType::Kind::Float &&
              spec.storage.floatFormat == FloatType::F8E4M3FN &&
              largestStoredMagnitude(storage) == 448;
  if (params.dynamicRule == DynamicRule::Vllm &&
      (spec.expressed != ValueType::F32 || !e4m3 ||
       params.dynamic != DynamicScheme::AbsMax))
    return invalid("the vllm dynamic rule is absmax of f32 values to "
                   "f8E4M3FN storage of the full range (vLLM's per-token "
                   "fp8)");
  if (params.dynamic == DynamicScheme::AbsMax &&
      largestStoredMagnitude(spec.storage) < 1)
    return invalid("absmax needs bounds with min <= -1 and max >= 1");
  if (params.dynamic == DynamicScheme::MinMax &&
      spec.storage.min >= spec.storage.max)
    return invalid("minmax needs bounds with min < max");
  return Status::ok();
}

/// A scale format other than Expressed is for runtime, non-dynamic
/// parameters, and is never the expressed type's own (lowering normalizes
/// that to Expressed, so one computation has one spec).
Status verifyScaleFormat(const KernelSpec &spec) {
  ScaleFormat format = spec.params.scaleFormat;
  if (format == ScaleFormat::Expressed)
    return Status::ok();
  if (!spec.params.runtime)
    return invalid("a scale format other than expressed needs runtime "
                   "parameters");
  // Dynamic qcast rounds its scales to the format once (semantics 11.7).
  bool dynamicFormat =
      spec.expressed == ValueType::F32
          ? format == ScaleFormat::F16 || format == ScaleFormat::BF16
          : format == ScaleFormat::F32;
  if (spec.params.dynamic == DynamicScheme::Mx)
    return Status::ok(); // verifyMx: E8M0.
  if (spec.params.dynamic != DynamicScheme::None && !dynamicFormat)
    return invalid("dynamic qcast writes scales as f16 or bf16 of f32 "
                   "values, or f32 of f64 values, not " +
                   std::string(scaleFormatName(format)));
  bool own = (format == ScaleFormat::F32 && spec.expressed == ValueType::F32) ||
             (format == ScaleFormat::F16 && spec.expressed == ValueType::F16) ||
             (format == ScaleFormat::BF16 && spec.expressed == ValueType::BF16);
  if (own)
    return invalid("scale format " + std::string(scaleFormatName(format)) +
                   " is the expressed type's: the spec says expressed");
  return Status::ok();
}

} // namespace

Status verifyKernelSpec(const KernelSpec &spec) {
  if (Status status = verifyStorage(spec.storage); !status)
    return status;
  ValueType wantCompute =
      spec.expressed == ValueType::F64 ? ValueType::F64 : ValueType::F32;
  bool f64Dequantize =
      spec.op == KernelOp::DCast && spec.expressed == ValueType::F32 &&
      spec.storage.kind == StorageType::Kind::Integer && !spec.params.runtime;
  if (spec.compute != wantCompute &&
      !(f64Dequantize && spec.compute == ValueType::F64))
    return invalid("compute type must be " +
                   std::string(valueTypeName(wantCompute)) + " for " +
                   std::string(valueTypeName(spec.expressed)) +
                   " expressed values" +
                   (f64Dequantize ? " (or f64 for this dcast)" : ""));
  if (Status status = verifyLayout(spec.layout); !status)
    return status;
  if (!spec.knobs.saturate && (spec.storage.kind != StorageType::Kind::Float ||
                               spec.storage.floatFormat == FloatType::F4E2M1FN))
    return invalid("only f8E4M3FN and f8E5M2 storage can turn saturation off");
  if (!spec.params.runtime) {
    size_t count = static_cast<size_t>(spec.layout.parameterCount());
    if (spec.params.scales.size() != count ||
        spec.params.zeroPoints.size() != count)
      return invalid("the layout takes " + std::to_string(count) +
                     " baked scales and zero points, the spec has " +
                     std::to_string(spec.params.scales.size()) + " and " +
                     std::to_string(spec.params.zeroPoints.size()));
  } else if (!spec.params.scales.empty() || !spec.params.zeroPoints.empty()) {
    return invalid("runtime parameters with baked values");
  }
  if (spec.params.zeroPointsInStorage &&
      (!spec.params.runtime || spec.params.dynamic != DynamicScheme::None))
    return invalid("zero points promised within the storage range are for "
                   "runtime parameters that the caller supplies");
  if (Status status = verifyScaleFormat(spec); !status)
    return status;
  return verifyDynamic(spec);
}

std::string KernelSpec::canonicalString() const {
  std::string out;
  out += kernelOpName(op);
  out += " storage=";
  out += storageName(storage);
  out += '<';
  appendNumber(out, storage.min);
  out += ':';
  appendNumber(out, storage.max);
  out += '>';
  out += storage.packed ? " packed" : " unpacked";
  if (storage.kind == StorageType::Kind::Quantile) {
    out += " table=";
    appendList(out, storage.table);
  }
  out += " expressed=";
  out += valueTypeName(expressed);
  out += " compute=";
  out += valueTypeName(compute);
  out += " layout=";
  appendLayout(out, layout);
  if (params.dynamic != DynamicScheme::None) {
    out += " params=dynamic(";
    out += dynamicSchemeName(params.dynamic);
    if (params.dynamic == DynamicScheme::Mx) {
      out += ',';
      out += scaleRoundingName(params.scaleRounding);
    }
    if (params.dynamicRule != DynamicRule::Default) {
      out += ',';
      out += dynamicRuleName(params.dynamicRule);
    }
    if (params.scaleFormat != ScaleFormat::Expressed) {
      out += ",scales=";
      out += scaleFormatName(params.scaleFormat);
    }
    out += ')';
  } else if (params.runtime) {
    out += " params=runtime";
    char open = '(';
    if (params.scaleFormat != ScaleFormat::Expressed) {
      out += std::exchange(open, ',');
      out += "scales=";
      out += scaleFormatName(params.scaleFormat);
    }
    if (params.zeroPointsInStorage) {
      out += std::exchange(open, ',');
      out += "zero-points=in-storage";
    }
    if (open == ',')
      out += ')';
  } else {
    out += " scales=";
    appendList(out, params.scales);
    out += " zero-points=";
    appendList(out, params.zeroPoints);
  }
  out += " knobs=";
  out += scaleOpName(knobs.scaleOp);
  out += ',';
  out += zeroPointOrderName(knobs.zeroPoint);
  out += ',';
  out += roundingModeName(knobs.rounding);
  if (storage.kind == StorageType::Kind::Float)
    out += knobs.saturate ? ",saturate" : ",no-saturate";
  out += " shape=";
  if (shape.empty())
    out += "none";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i != 0)
      out += 'x';
    appendExtent(out, shape[i]);
  }
  return out;
}

std::string KernelSpec::kernelName() const {
  std::string name = "qjit_";
  name += kernelOpName(op);
  name += '_';
  std::string storagePart = storageName(storage);
  for (char &c : storagePart)
    if (c == '-')
      c = '_';
  name += storagePart;
  name += '_';
  name += valueTypeName(expressed);
  switch (layout.kind) {
  case LayoutSpec::Kind::PerTensor:
    name += "_pt";
    break;
  case LayoutSpec::Kind::PerAxis:
    name += "_pa";
    break;
  case LayoutSpec::Kind::Blocked:
    name += "_blk";
    break;
  }
  char digits[17];
  auto [end, error] =
      std::to_chars(digits, digits + 16, fnv1a(canonicalString()), 16);
  (void)error; // 16 hex digits always fit.
  name += '_';
  name.append(digits, end);
  return name;
}

size_t KernelSpec::hash() const {
  return static_cast<size_t>(fnv1a(canonicalString()));
}

} // namespace qjit
