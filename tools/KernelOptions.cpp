//===- KernelOptions.cpp - The flags that select a kernel -----------------===//
#include "KernelOptions.h"

#include <charconv>
#include <cstdint>
#include <cstdio>
#include <initializer_list>
#include <optional>

namespace qjit::tool {

const char kKernelFlagsHelp[] =
    "  TYPE                        a quant type or a tensor of one; @FILE\n"
    "                              reads it from FILE, - from stdin (it may\n"
    "                              span lines)\n"
    "  --type-file=FILE            the same as @FILE\n"
    "  --mlir=FILE                 a type used in an .mlir file (qjit parse\n"
    "                              --mlir FILE lists them)\n"
    "  --pick=N|LINE:COL           with --mlir: the N-th type listed, or the\n"
    "                              one starting at LINE:COL (needed when the\n"
    "                              file uses more than one)\n"
    "  --op=qcast|dcast|scast      the conversion (required)\n"
    "  --shape=DxD...              fill a tensor type's dynamic dims, or\n"
    "                              shape a bare type\n"
    "  --unpacked                  1/2/4-bit storage one value per byte\n"
    "  --semantics=default|mlir|onnx|pytorch|tflite|xnnpack|ggml|vllm\n"
    "                              a named set of the three knobs below\n"
    "                              (pytorch: per-axis dcast in f64, as\n"
    "                              PyTorch's per-channel dequantize;\n"
    "                              xnnpack: dynamic minmax as XNNPACK's qd8;\n"
    "                              ggml: dynamic absmax as llama.cpp's q8_0;\n"
    "                              vllm: dynamic absmax as vLLM's fp8)\n"
    "  --rounding=nearest-even|nearest-away|toward-zero\n"
    "  --scale-op=divide|reciprocal\n"
    "  --zero-point=before-rounding|after-rounding\n"
    "                              knob flags override --semantics\n"
    "  --no-saturate               f8E4M3FN / f8E5M2 storage: overflow\n"
    "                              stores NaN / ±inf (ONNX saturate=0)\n"
    "  --dynamic=absmax|minmax|mx  qcast: compute each group's scale (and\n"
    "                              zero point) from the data\n"
    "                              (docs/semantics.md 11; --semantics=pytorch\n"
    "                              selects PyTorch's formula; mx: OCP MX\n"
    "                              power-of-two scales as e8m0 bytes)\n"
    "  --scale-rounding=floor|ceil|even\n"
    "                              --dynamic=mx: the scale's power of two\n"
    "                              (floor: the OCP MX spec, default; ceil:\n"
    "                              NVIDIA's RCEIL; even: PyTorch's\n"
    "                              to(float8_e8m0fnu))\n"
    "  --scale-format=expressed|f32|f16|bf16|e8m0\n"
    "                              runtime scales in this format (default:\n"
    "                              the expressed type's; e8m0: OCP MX bytes,\n"
    "                              2^(b-127)); needs runtime parameters;\n"
    "                              with --dynamic, the written scales\n"
    "                              (f16 or bf16 of f32 values, f32 of f64)\n";

const char kBackendFlagsHelp[] =
    "  --backend=auto|llvm|asmjit|reference\n"
    "                              code generator (auto: asmjit, llvm, then\n"
    "                              the scalar reference)\n"
    "  --isa=scalar|sse4|avx2|avx512\n"
    "                              highest ISA level (also capped by the host\n"
    "                              and QJIT_MAX_ISA)\n";

namespace {

Status usage(std::string message) {
  return Status::error(ErrorCode::InvalidArgument, std::move(message));
}

/// The value of --`flag` among `values` (named by `nameOf`); nullopt when
/// the flag is absent.
template <typename T>
Expected<std::optional<T>>
readChoice(const CommandLine &flags, const std::string &flag,
           std::initializer_list<T> values, std::string_view (*nameOf)(T)) {
  std::optional<std::string> text = flags.get(flag);
  if (!text)
    return std::optional<T>();
  std::string expected;
  for (T value : values) {
    if (nameOf(value) == *text)
      return std::optional<T>(value);
    expected += (expected.empty() ? "" : ", ") + std::string(nameOf(value));
  }
  return usage("invalid value '" + *text + "' for --" + flag +
               " (expected one of " + expected + ")");
}

/// --semantics (its lowering options), then the knob flags over it.
Expected<LoweringOptions> readSemantics(const CommandLine &flags) {
  auto preset = readChoice(flags, "semantics",
                           {SemanticsPreset::Default, SemanticsPreset::Mlir,
                            SemanticsPreset::Onnx, SemanticsPreset::PyTorch,
                            SemanticsPreset::TfLite, SemanticsPreset::Xnnpack,
                            SemanticsPreset::Ggml, SemanticsPreset::Vllm},
                           semanticsPresetName);
  if (!preset)
    return preset.status();
  auto rounding =
      readChoice(flags, "rounding",
                 {RoundingMode::NearestEven, RoundingMode::NearestAway,
                  RoundingMode::TowardZero},
                 roundingModeName);
  if (!rounding)
    return rounding.status();
  auto scaleOp = readChoice(
      flags, "scale-op", {ScaleOp::Divide, ScaleOp::Reciprocal}, scaleOpName);
  if (!scaleOp)
    return scaleOp.status();
  auto zeroPoint = readChoice(
      flags, "zero-point",
      {ZeroPointOrder::BeforeRounding, ZeroPointOrder::AfterRounding},
      zeroPointOrderName);
  if (!zeroPoint)
    return zeroPoint.status();

  LoweringOptions options =
      loweringForPreset(preset->value_or(SemanticsPreset::Default));
  QuantKnobs &knobs = options.knobs;
  knobs.rounding = rounding->value_or(knobs.rounding);
  knobs.scaleOp = scaleOp->value_or(knobs.scaleOp);
  knobs.zeroPoint = zeroPoint->value_or(knobs.zeroPoint);
  knobs.saturate = !flags.has("no-saturate");
  return options;
}

} // namespace

void addKernelFlags(CommandLine &flags) {
  addTypeFlags(flags);
  flags.value("op")
      .value("shape")
      .flag("unpacked")
      .value("semantics")
      .value("rounding")
      .value("scale-op")
      .value("zero-point")
      .flag("no-saturate")
      .value("dynamic")
      .value("scale-rounding")
      .value("scale-format");
}

Expected<KernelRequest> readKernelRequest(const CommandLine &flags) {
  KernelRequest request;
  Expected<TypeArgument> type = readTypeArgument(flags);
  if (!type)
    return type.status();
  request.type = std::move(*type);

  auto op = readChoice(flags, "op",
                       {KernelOp::QCast, KernelOp::DCast, KernelOp::SCast},
                       kernelOpName);
  if (!op)
    return op.status();
  if (!*op)
    return usage("missing --op=qcast|dcast|scast");
  request.op = **op;

  Expected<LoweringOptions> semantics = readSemantics(flags);
  if (!semantics)
    return semantics.status();
  request.lowering = *semantics;
  for (const char *knob : {"rounding", "scale-op", "zero-point", "no-saturate"})
    if (flags.has(knob))
      request.knobFlags.push_back(knob);
  request.lowering.unpacked = flags.has("unpacked");
  auto dynamic = readChoice(flags, "dynamic",
                            {DynamicScheme::None, DynamicScheme::AbsMax,
                             DynamicScheme::MinMax, DynamicScheme::Mx},
                            dynamicSchemeName);
  if (!dynamic)
    return dynamic.status();
  request.lowering.dynamicScheme = dynamic->value_or(DynamicScheme::None);
  auto scaleRounding = readChoice(
      flags, "scale-rounding",
      {ScaleRounding::Floor, ScaleRounding::Ceil, ScaleRounding::Even},
      scaleRoundingName);
  if (!scaleRounding)
    return scaleRounding.status();
  if (*scaleRounding && request.lowering.dynamicScheme != DynamicScheme::Mx)
    return usage("--scale-rounding is for --dynamic=mx");
  request.lowering.scaleRounding =
      scaleRounding->value_or(ScaleRounding::Floor);
  auto scaleFormat =
      readChoice(flags, "scale-format",
                 {ScaleFormat::Expressed, ScaleFormat::F32, ScaleFormat::F16,
                  ScaleFormat::BF16, ScaleFormat::E8M0},
                 scaleFormatName);
  if (!scaleFormat)
    return scaleFormat.status();
  request.lowering.scaleFormat = scaleFormat->value_or(ScaleFormat::Expressed);
  if (std::optional<std::string> shape = flags.get("shape")) {
    Expected<std::vector<int64_t>> dims = parseShape(*shape);
    if (!dims)
      return dims.status();
    request.lowering.shape = std::move(*dims);
  }
  return request;
}

void addBackendFlags(CommandLine &flags) {
  flags.value("backend").value("isa");
}

Expected<RuntimeOptions> readBackendFlags(const CommandLine &flags) {
  RuntimeOptions options;
  if (std::optional<std::string> name = flags.get("backend")) {
    Expected<BackendKind> backend = parseBackendKind(*name);
    if (!backend)
      return usage("--backend: " + backend.status().message());
    options.backend = *backend;
  }
  if (std::optional<std::string> name = flags.get("isa")) {
    Expected<IsaLevel> isa = parseIsaLevel(*name);
    if (!isa)
      return usage("--isa: " + isa.status().message());
    options.maxIsa = *isa;
  }
  return options;
}

Expected<IsaLevel> readIsaLevel(const CommandLine &flags) {
  Expected<IsaLevel> isa = effectiveIsaLevel();
  if (std::optional<std::string> name = flags.get("isa"))
    isa = parseIsaLevel(*name);
  return isa;
}

Expected<TypeDescriptor> readRequestType(const KernelRequest &request) {
  Expected<TypeText> text = loadType(request.type);
  if (!text)
    return text.status();
  return parseTypeTextOrError(*text);
}

Expected<KernelSpec> lowerKernelRequest(const KernelRequest &request) {
  Expected<TypeDescriptor> type = readRequestType(request);
  if (!type)
    return type.status();
  return lowerKernelRequest(request, *type);
}

namespace {

/// The knob's every setting, applied to `knobs` one at a time.
std::vector<QuantKnobs> knobVariants(const QuantKnobs &knobs,
                                     std::string_view knob) {
  std::vector<QuantKnobs> variants;
  auto with = [&](auto QuantKnobs::*field, auto value) {
    QuantKnobs variant = knobs;
    variant.*field = value;
    variants.push_back(variant);
  };
  if (knob == "rounding")
    for (RoundingMode mode :
         {RoundingMode::NearestEven, RoundingMode::NearestAway,
          RoundingMode::TowardZero})
      with(&QuantKnobs::rounding, mode);
  if (knob == "scale-op")
    for (ScaleOp op : {ScaleOp::Divide, ScaleOp::Reciprocal})
      with(&QuantKnobs::scaleOp, op);
  if (knob == "zero-point")
    for (ZeroPointOrder order :
         {ZeroPointOrder::BeforeRounding, ZeroPointOrder::AfterRounding})
      with(&QuantKnobs::zeroPoint, order);
  if (knob == "no-saturate")
    for (bool saturate : {true, false})
      with(&QuantKnobs::saturate, saturate);
  return variants;
}

/// Whether every setting of `knob` lowers to `spec` (or fails to lower:
/// a setting the storage refuses changes nothing that could run).
bool specIgnoresKnob(const KernelRequest &request, const TypeDescriptor &type,
                     const KernelSpec &spec, std::string_view knob) {
  std::string canonical = spec.canonicalString();
  for (const QuantKnobs &knobs : knobVariants(request.lowering.knobs, knob)) {
    LoweringOptions options = request.lowering;
    options.knobs = knobs;
    Expected<KernelSpec> variant = lowerToKernelSpec(type, request.op, options);
    if (variant && variant->canonicalString() != canonical)
      return false;
  }
  return true;
}

} // namespace

Expected<KernelSpec> lowerKernelRequest(const KernelRequest &request,
                                        const TypeDescriptor &type) {
  Expected<KernelSpec> spec =
      lowerToKernelSpec(type, request.op, request.lowering);
  if (!spec)
    return spec;
  for (const std::string &knob : request.knobFlags)
    if (specIgnoresKnob(request, type, *spec, knob))
      std::fprintf(stderr,
                   "qjit: warning: --%s changes nothing for %s of this type\n",
                   knob.c_str(), std::string(kernelOpName(request.op)).c_str());
  return spec;
}

Expected<std::vector<int64_t>> parseShape(std::string_view text) {
  std::vector<int64_t> dims;
  int64_t elements = 1;
  std::string_view rest = text;
  for (;;) {
    size_t end = rest.find('x');
    std::string_view dim = rest.substr(0, end);
    int64_t value = 0;
    auto [stop, error] =
        std::from_chars(dim.data(), dim.data() + dim.size(), value);
    if (dim.empty() || dim[0] == '-' || dim[0] == '+' || error != std::errc() ||
        stop != dim.data() + dim.size())
      return usage("invalid --shape '" + std::string(text) +
                   "' (expected static dims joined by 'x', e.g. 2x3)");
    if (value != 0 && elements > INT64_MAX / value)
      return usage("--shape '" + std::string(text) + "' has too many elements");
    elements *= value;
    dims.push_back(value);
    if (end == std::string_view::npos)
      return dims;
    rest.remove_prefix(end + 1);
  }
}

std::string formatShape(std::span<const int64_t> shape) {
  std::string text;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i != 0)
      text += 'x';
    text += shape[i] == TensorShape::kDynamic ? "?" : std::to_string(shape[i]);
  }
  return text;
}

} // namespace qjit::tool
