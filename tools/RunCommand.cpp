//===- RunCommand.cpp - qjit run: one kernel on a file --------------------===//
//
// Reads the whole input, lowers the type (taking a missing shape from an
// .npy input), checks the input against the kernel's input side, runs the
// kernel into memory, and only then writes the output, atomically. So every
// error happens before anything is written.
//
//===----------------------------------------------------------------------===//
#include "Commands.h"
#include "FileIO.h"
#include "KernelOptions.h"
#include "Npy.h"
#include "Npz.h"
#include "PackedShape.h"
#include "Report.h"
#include "RuntimeParameters.h"

#include "qjit/KernelCall.h"
#include "qjit/Runtime.h"
#include "qjit/ThreadPool.h"
#include "qjit/TypeParser.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <climits>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <optional>

namespace qjit::tool {

namespace {

constexpr std::string_view kCommand = "run";

void printUsage() {
  std::printf(
      "usage: qjit run TYPE --op=qcast|dcast|scast --in=IN --out=OUT "
      "[options]\n\n"
      "Runs the kernel for TYPE (a quant type or a tensor of one) on IN and\n"
      "writes OUT. Files ending in .npy are numpy arrays whose dtype must\n"
      "match the side they hold: f32 '<f4', f16 '<f2', f64 '<f8', bf16 '<u2'\n"
      "bits; integer storage in its container ('|i1' '|u1' '<i2' '<u2' '<i4'\n"
      "'<u4'); fp8 codes '|u1'; packed 1/2/4-bit storage (and f4E2M1FN) as\n"
      "'|u1' bytes (below). Other files are raw little-endian data. Without\n"
      "--shape, an .npy input supplies the shape of a bare type or a tensor\n"
      "type's dynamic dims. The output keeps the input's shape and appears\n"
      "only when complete; --out=- writes it to standard output, and a\n"
      "device or FIFO is written in place, never replaced.\n\n"
      "Packed storage keeps the shape in its last axis: (4, 64) u4 values\n"
      "are (4, 32) bytes, and (4, 32) bytes are read back as (4, 64)\n"
      "values. When the last dim does not fill whole bytes (rows share a\n"
      "byte), the bytes are 1-D and their last byte is padded: 9 u4 values\n"
      "are 5 bytes, which read back as 10 values unless the type's shape or\n"
      "--shape=9 gives the count. Within a byte the first element is in the\n"
      "lowest bits.\n\n"
      "options:\n"
      "  --in=FILE                   input (.npy or raw)\n"
      "  --out=FILE, -o FILE         output (.npy or raw; - for stdout; not\n"
      "                              the input)\n"
      "  --scales=FILE.npy           runtime scales, one per parameter of the\n"
      "                              layout in the expressed type's dtype or\n"
      "                              --scale-format's; without the flag the\n"
      "                              dtype picks it ('<f4' f32, '<f2' f16,\n"
      "                              '|u1' e8m0; '<u2' bf16 needs the flag)\n"
      "                              (they replace the type's; a type may\n"
      "                              write '?' for its scale list)\n"
      "  --zero-points=FILE.npy      runtime zero points, integers (default "
      "0;\n"
      "                              needs --scales)\n"
      "  --params=FILE.npz           runtime scales and zero points as the\n"
      "                              arrays 'scales' and 'zero_points' (what\n"
      "                              --params-out writes)\n"
      "  --params-out=FILE.npz       with --dynamic: write the parameters\n"
      "                              computed, 'scales' in the expressed\n"
      "                              dtype and 'zero_points' int32 (int64 for\n"
      "                              u32 storage), shaped as the layout's\n"
      "                              parameter grid\n"
      "  --scales-out=FILE.npy, --zero-points-out=FILE.npy\n"
      "                              with --dynamic: the same arrays as .npy\n"
      "                              files\n"
      "  --threads=N                 split the run over N threads (a\n"
      "                              pthreadpool; 0: one per core; default "
      "1);\n"
      "                              the output is the same for every N\n"
      "%s%s",
      kKernelFlagsHelp, kBackendFlagsHelp);
}

Status mismatch(std::string message) {
  return Status::error(ErrorCode::InvalidArgument, std::move(message));
}

bool isNpyPath(const std::string &path) {
  std::string extension = std::filesystem::path(path).extension().string();
  std::transform(extension.begin(), extension.end(), extension.begin(),
                 [](unsigned char c) { return std::tolower(c); });
  return extension == ".npy";
}

/// An input file's data, with dtype and shape when it is an .npy file.
struct InputFile {
  std::vector<uint8_t> data;
  std::optional<NpyDtype> dtype;
  std::optional<std::vector<int64_t>> shape;
};

Expected<InputFile> readInput(const std::string &path) {
  InputFile input;
  if (!isNpyPath(path)) {
    Expected<std::vector<uint8_t>> data = readFile(path);
    if (!data)
      return data.status();
    input.data = std::move(*data);
    return input;
  }
  Expected<NpyArray> array = readNpy(path);
  if (!array)
    return array.status();
  input.data = std::move(array->data);
  input.dtype = array->dtype;
  input.shape = std::move(array->shape);
  return input;
}

bool isPacked(const KernelSpec &spec, BufferSide side) {
  return side == BufferSide::Storage && spec.storage.packed;
}

/// The .npy dtype of one side of a kernel.
NpyDtype sideDtype(const KernelSpec &spec, BufferSide side) {
  if (side == BufferSide::Expressed) {
    switch (spec.expressed) {
    case ValueType::F16:
      return NpyDtype::F2;
    case ValueType::BF16:
      return NpyDtype::U2; // The bit patterns.
    case ValueType::F32:
      return NpyDtype::F4;
    case ValueType::F64:
      return NpyDtype::F8;
    }
  }
  if (spec.storage.packed || spec.storage.kind == StorageType::Kind::Float)
    return NpyDtype::U1;
  bool isSigned = spec.storage.isSigned;
  switch (spec.storage.containerBytes()) {
  case 1:
    return isSigned ? NpyDtype::I1 : NpyDtype::U1;
  case 2:
    return isSigned ? NpyDtype::I2 : NpyDtype::U2;
  default:
    return isSigned ? NpyDtype::I4 : NpyDtype::U4;
  }
}

/// "f32 values", "packed u4 storage", ... for messages.
std::string sideLabel(const KernelSpec &spec, BufferSide side) {
  if (side == BufferSide::Expressed)
    return std::string(valueTypeName(spec.expressed)) + " values";
  std::string storage =
      spec.storage.kind == StorageType::Kind::Float
          ? std::string(floatTypeName(spec.storage.floatFormat))
          : (spec.storage.isSigned ? "i" : "u") +
                std::to_string(spec.storage.bits);
  return (spec.storage.packed ? "packed " : "") + storage + " storage";
}

std::string describeShape(std::span<const int64_t> shape) {
  return shape.empty() ? "a 0-d array" : "shape " + formatShape(shape);
}

bool isStaticShape(std::span<const int64_t> shape) {
  return !shape.empty() &&
         std::none_of(shape.begin(), shape.end(),
                      [](int64_t dim) { return dim == TensorShape::kDynamic; });
}

/// Whether the type has a shape with nothing left to fill.
bool typeFixesShape(const TypeDescriptor &type) {
  return type.tensor && type.tensor->ranked && isStaticShape(type.tensor->dims);
}

/// The storage the request lowers to, which does not depend on the layout:
/// the element's, lowered as per-tensor (a per-axis type needs a shape to
/// lower, and the input's shape is what is being worked out).
Expected<StorageSpec> lowerStorage(const KernelRequest &request,
                                   const TypeDescriptor &type) {
  TypeDescriptor probe;
  probe.element = type.element;
  probe.element.granularity = QuantType::Granularity::PerTensor;
  probe.element.scales = {1.0};
  probe.element.zeroPoints = {0};
  probe.element.scaleShape.clear();
  probe.element.blockSizes.clear();
  probe.element.parametersAtCallTime = false;
  KernelRequest perTensor = request;
  perTensor.lowering.shape.clear();
  perTensor.lowering.runtimeParameters = false;
  perTensor.lowering.dynamicScheme = DynamicScheme::None;
  Expected<KernelSpec> spec = lowerKernelRequest(perTensor, probe);
  if (!spec)
    return spec.status();
  return spec->storage;
}

/// The element shape an .npy input holds: its shape, or for packed bytes
/// the shape PackedShape.h recovers; nullopt when it does not say.
Expected<std::optional<std::vector<int64_t>>>
inputElementShape(const KernelRequest &request, const TypeDescriptor &type,
                  const InputFile &input) {
  using Shape = std::optional<std::vector<int64_t>>;
  if (!input.shape || input.shape->empty())
    return Shape();
  if (kernelInputSide(request.op) != BufferSide::Storage)
    return Shape(*input.shape);
  Expected<StorageSpec> storage = lowerStorage(request, type);
  if (!storage)
    return storage.status();
  if (!storage->packed)
    return Shape(*input.shape);
  return unpackedFileShape(*input.shape, storage->bits);
}

/// Lowers the request. Without --shape, an .npy input shapes a bare type
/// or fills a tensor type's dynamic dims with the element shape it holds.
Expected<KernelSpec> lowerForInput(const KernelRequest &request,
                                   const TypeDescriptor &type,
                                   const InputFile &input) {
  if (!request.lowering.shape.empty() || typeFixesShape(type))
    return lowerKernelRequest(request, type);
  Expected<std::optional<std::vector<int64_t>>> shape =
      inputElementShape(request, type, input);
  if (!shape)
    return shape.status();
  if (!*shape)
    return lowerKernelRequest(request, type);
  KernelRequest shaped = request;
  shaped.lowering.shape = **shape;
  Expected<KernelSpec> shapedSpec = lowerKernelRequest(shaped, type);
  if (shapedSpec)
    return shapedSpec;
  // A failure unrelated to the shape (an op no kernel computes) is the same
  // without it.
  Expected<KernelSpec> spec = lowerKernelRequest(request, type);
  if (!spec && spec.status().code() != ErrorCode::InvalidArgument)
    return spec;
  return Status::error(shapedSpec.status().code(),
                       "the input's " +
                           (**shape == *input.shape
                                ? describeShape(*input.shape)
                                : describeShape(*input.shape) +
                                      " of packed bytes (elements " +
                                      formatShape(**shape) + ")") +
                           ": " + shapedSpec.status().message());
}

/// What running the kernel on the input takes and gives.
struct RunPlan {
  size_t elements = 0;
  NpyDtype outputDtype = NpyDtype::U1;
  std::vector<int64_t> outputShape;
  size_t outputBytes = 0;
};

/// The element count the input holds, checked against everything known
/// about it: its dtype and shape (.npy) or size (raw), and the spec's
/// static shape.
Expected<size_t> countInputElements(const KernelSpec &spec,
                                    const InputFile &input) {
  BufferSide side = kernelInputSide(spec.op);
  NpyDtype dtype = sideDtype(spec, side);
  std::string reads = std::string(kernelOpName(spec.op)) + " reads " +
                      sideLabel(spec, side) + " ('" +
                      std::string(npyDescr(dtype)) + "')";
  if (input.dtype && *input.dtype != dtype) {
    // A sub-byte storage read one value per byte is the other convention.
    std::string hint;
    bool subByte = spec.storage.kind == StorageType::Kind::Integer &&
                   spec.storage.bits < 8 && side == BufferSide::Storage;
    if (subByte && spec.storage.packed)
      hint = " (packed, " + std::to_string(8 / spec.storage.bits) +
             " values per byte; --unpacked reads one value per byte)";
    else if (subByte && *input.dtype == NpyDtype::U1)
      hint = " (one value per byte under --unpacked; packed bytes are read "
             "without it)";
    return mismatch("the input's dtype '" +
                    std::string(npyDescr(*input.dtype)) +
                    "' does not match: " + reads + hint);
  }
  std::optional<uint64_t> specElements;
  if (isStaticShape(spec.shape))
    specElements = npyElementCount(spec.shape);

  if (isPacked(spec, side)) {
    std::optional<std::vector<int64_t>> elementShape;
    if (input.shape)
      elementShape = unpackedFileShape(*input.shape, spec.storage.bits);
    if (elementShape) {
      if (specElements && *elementShape != spec.shape)
        return mismatch(
            "the input's " + describeShape(*input.shape) +
            " of packed bytes holds elements " + formatShape(*elementShape) +
            ", which do not match the type's shape " + formatShape(spec.shape));
      return npyElementCount(*elementShape);
    }
    // 1-D bytes: without a shape, every value slot of every byte is an
    // element.
    return specElements ? *specElements
                        : input.data.size() * (8 / spec.storage.bits);
  }
  if (input.shape) {
    if (specElements && *input.shape != spec.shape)
      return mismatch("the input's " + describeShape(*input.shape) +
                      " does not match the type's shape " +
                      formatShape(spec.shape));
    return npyElementCount(*input.shape);
  }
  size_t itemBytes = npyItemBytes(dtype);
  if (input.data.size() % itemBytes != 0)
    return mismatch("the input has " + std::to_string(input.data.size()) +
                    " bytes, not a whole number of " +
                    std::to_string(itemBytes) + "-byte elements: " + reads);
  return specElements ? *specElements : input.data.size() / itemBytes;
}

/// Whether the kernel reads extents at call time, which run does not give.
bool hasDynamicLayout(const LayoutSpec &layout) {
  return layout.inner == LayoutSpec::kDynamic ||
         std::any_of(layout.dims.begin(), layout.dims.end(),
                     [](const LayoutSpec::Dim &dim) {
                       return dim.extent == LayoutSpec::kDynamic;
                     });
}

Expected<RunPlan> planRun(const KernelSpec &spec, const InputFile &input,
                          const KernelParams &params) {
  if (hasDynamicLayout(spec.layout))
    return mismatch("the kernel's layout depends on dims the type leaves "
                    "dynamic; give --shape (or an .npy input)");
  Expected<size_t> elements = countInputElements(spec, input);
  if (!elements)
    return elements.status();
  Expected<size_t> inputBytes =
      bufferBytes(spec, kernelInputSide(spec.op), *elements);
  if (!inputBytes)
    return inputBytes.status();
  if (input.data.size() != *inputBytes)
    return mismatch("the input has " + std::to_string(input.data.size()) +
                    " bytes; " + std::to_string(*elements) + " elements take " +
                    std::to_string(*inputBytes));
  // A dynamic qcast's call is checked when it runs (before any output).
  if (spec.params.dynamic == DynamicScheme::None)
    if (Status call = checkKernelCall(spec, *elements, &params); !call)
      return call;

  RunPlan plan;
  plan.elements = *elements;
  BufferSide side = kernelOutputSide(spec.op);
  plan.outputDtype = sideDtype(spec, side);
  Expected<size_t> outputBytes = bufferBytes(spec, side, *elements);
  if (!outputBytes)
    return outputBytes.status();
  plan.outputBytes = *outputBytes;
  // The elements' shape: the input's (its packed bytes unpacked), else the
  // type's, else 1-D.
  std::vector<int64_t> elementShape = {static_cast<int64_t>(plan.elements)};
  std::optional<std::vector<int64_t>> inputShape = input.shape;
  if (inputShape && isPacked(spec, kernelInputSide(spec.op)))
    inputShape = unpackedFileShape(*inputShape, spec.storage.bits);
  if (inputShape)
    elementShape = *inputShape;
  else if (isStaticShape(spec.shape))
    elementShape = spec.shape;
  plan.outputShape =
      isPacked(spec, side)
          ? packedFileShape(elementShape, spec.storage.bits, plan.outputBytes)
          : elementShape;
  return plan;
}

Status writeOutput(const std::string &path, const RunPlan &plan,
                   std::span<const uint8_t> data) {
  if (isNpyPath(path))
    return writeNpy(path, plan.outputDtype, plan.outputShape, data);
  std::array<std::span<const uint8_t>, 1> pieces = {data};
  return writeOutputFile(path, pieces);
}

/// Where a dynamic qcast's parameters go (each may be absent).
struct ParameterOutputFiles {
  std::optional<std::string> archive;
  std::optional<std::string> scales;
  std::optional<std::string> zeroPoints;
  bool any() const { return archive || scales || zeroPoints; }
};

/// The parameters a dynamic qcast computed, as the files hold them.
struct ComputedParameters {
  std::vector<uint8_t> scales;     ///< In the spec's scale format.
  std::vector<int64_t> zeroPoints; ///< One per scale.
};

Status writeParameters(const KernelSpec &spec, const ComputedParameters &params,
                       const ParameterOutputFiles &files) {
  std::vector<int64_t> shape = parameterShape(spec);
  NpyDtype scales = scaleDtype(spec, sideDtype(spec, BufferSide::Expressed));
  // int32 as numpy and PyTorch hold zero points, unless u32 needs more.
  bool wide = spec.storage.max > INT32_MAX;
  std::vector<uint8_t> zeroBytes;
  for (int64_t zero : params.zeroPoints) {
    uint8_t bytes[8];
    std::memcpy(bytes, &zero, sizeof zero); // Little-endian host.
    if (!wide) {
      int32_t narrow = static_cast<int32_t>(zero);
      std::memcpy(bytes, &narrow, sizeof narrow);
    }
    zeroBytes.insert(zeroBytes.end(), bytes, bytes + (wide ? 8 : 4));
  }
  NpyDtype zeroDtype = wide ? NpyDtype::I8 : NpyDtype::I4;
  if (files.archive) {
    std::array<NpzEntry, 2> entries = {
        NpzEntry{"scales", scales, shape, params.scales},
        NpzEntry{"zero_points", zeroDtype, shape, zeroBytes}};
    if (Status s = writeNpz(*files.archive, entries); !s)
      return s;
  }
  if (files.scales)
    if (Status s = writeNpy(*files.scales, scales, shape, params.scales); !s)
      return s;
  if (files.zeroPoints)
    return writeNpy(*files.zeroPoints, zeroDtype, shape, zeroBytes);
  return Status::ok();
}

/// --dynamic goes with parameter outputs and without parameter inputs.
Status checkDynamicFlags(bool dynamic, bool parameterInputs,
                         const ParameterOutputFiles &outputs) {
  if (dynamic && !outputs.any())
    return mismatch("--dynamic computes the parameters: write them with "
                    "--params-out=FILE.npz (or --scales-out=FILE.npy and "
                    "--zero-points-out=FILE.npy)");
  if (dynamic && parameterInputs)
    return mismatch("--dynamic computes the parameters: not with --scales, "
                    "--zero-points or --params");
  if (!dynamic && outputs.any())
    return mismatch("--params-out, --scales-out and --zero-points-out need "
                    "--dynamic=absmax|minmax|mx");
  return Status::ok();
}

/// --threads=N: a count of threads (0: one per core); 1 without the flag.
Expected<size_t> readThreadCount(const std::optional<std::string> &text) {
  if (!text)
    return size_t(1);
  size_t threads = 0;
  auto [end, error] =
      std::from_chars(text->data(), text->data() + text->size(), threads);
  if (error != std::errc() || end != text->data() + text->size() ||
      threads > 1024)
    return mismatch("--threads=" + *text +
                    " is not a thread count (0 to 1024)");
  return threads;
}

/// Everything after the command line was read; errors are failures.
Status run(const KernelRequest &request, const RuntimeOptions &options,
           const std::optional<ParameterFiles> &parameterFiles,
           bool inferScales, const ParameterOutputFiles &outputFiles,
           const std::string &inPath, const std::string &outPath,
           size_t threads) {
  Expected<TypeDescriptor> type = readRequestType(request);
  if (!type)
    return type.status();
  bool dynamic = request.lowering.dynamicScheme != DynamicScheme::None;
  if (type->element.parametersAtCallTime && !parameterFiles && !dynamic)
    return mismatch("the type's scales are '?': give them with "
                    "--scales=FILE.npy");
  Expected<InputFile> input = readInput(inPath);
  if (!input)
    return input.status();
  Expected<KernelSpec> spec = lowerForInput(request, *type, *input);
  if (!spec)
    return spec.status();
  // Without --scale-format the scales' dtype names their format.
  if (parameterFiles && inferScales) {
    Expected<ScaleFormat> format = inferScaleFormat(
        *parameterFiles, *spec, sideDtype(*spec, BufferSide::Expressed));
    if (!format)
      return format.status();
    if (*format != ScaleFormat::Expressed) {
      KernelRequest formatted = request;
      formatted.lowering.scaleFormat = *format;
      spec = lowerForInput(formatted, *type, *input);
      if (!spec)
        return spec.status();
    }
  }
  std::optional<RuntimeParameters> parameters;
  KernelParams params;
  if (parameterFiles) {
    Expected<RuntimeParameters> read = RuntimeParameters::read(
        *parameterFiles, *spec, type->element,
        scaleDtype(*spec, sideDtype(*spec, BufferSide::Expressed)));
    if (!read)
      return read.status();
    parameters = std::move(*read);
    params = parameters->params();
  }
  Expected<RunPlan> plan = planRun(*spec, *input, params);
  if (!plan)
    return plan.status();

  Expected<std::unique_ptr<Runtime>> runtime = Runtime::create(options);
  if (!runtime)
    return runtime.status();
  Expected<std::shared_ptr<const Kernel>> kernel = (*runtime)->compile(*spec);
  if (!kernel)
    return kernel.status();
  std::vector<uint8_t> output(plan->outputBytes);
  if (dynamic) {
    size_t count = parameterCounts(*spec).scales;
    ComputedParameters computed;
    computed.scales.resize(count * runtimeScaleBytes(*spec));
    computed.zeroPoints.resize(count);
    if (Status ran =
            (*kernel)->runDynamic(input->data.data(), input->data.size(),
                                  output.data(), output.size(), plan->elements,
                                  ParameterOutputs{computed.scales.data(),
                                                   computed.zeroPoints.data()},
                                  &params);
        !ran)
      return ran;
    if (Status s = writeOutput(outPath, *plan, output); !s)
      return s;
    return writeParameters(*spec, computed, outputFiles);
  }
  if (threads != 1) {
    Expected<std::unique_ptr<DefaultThreadPool>> pool =
        DefaultThreadPool::create(threads);
    if (!pool)
      return pool.status();
    if (Status ran = (*kernel)->runParallel(
            (*pool)->pool(), input->data.data(), input->data.size(),
            output.data(), output.size(), plan->elements, &params);
        !ran)
      return ran;
  } else if (Status ran = (*kernel)->run(input->data.data(), input->data.size(),
                                         output.data(), output.size(),
                                         plan->elements, &params);
             !ran) {
    return ran;
  }
  return writeOutput(outPath, *plan, output);
}

} // namespace

int runCommand(int argc, char **argv) {
  CommandLine flags;
  addKernelFlags(flags);
  addBackendFlags(flags);
  flags.value("in").value("out").value("o").flag("help");
  flags.value("scales").value("zero-points").value("params");
  flags.value("params-out").value("scales-out").value("zero-points-out");
  flags.value("threads");
  if (std::optional<int> done =
          parseCommandFlags(flags, argc, argv, kCommand, printUsage))
    return *done;
  Expected<KernelRequest> request = readKernelRequest(flags);
  if (!request)
    return reportUsageError(kCommand, request.status());
  std::optional<ParameterFiles> parameterFiles;
  if (std::optional<std::string> archive = flags.get("params")) {
    if (flags.has("scales") || flags.has("zero-points"))
      return reportUsageError(
          kCommand, mismatch("--params holds the scales and zero points: "
                             "not with --scales or --zero-points"));
    parameterFiles = ParameterFiles{*archive, std::nullopt, true};
    request->lowering.runtimeParameters = true;
  } else if (std::optional<std::string> scales = flags.get("scales")) {
    parameterFiles = ParameterFiles{*scales, flags.get("zero-points")};
    request->lowering.runtimeParameters = true;
  } else if (flags.has("zero-points")) {
    return reportUsageError(
        kCommand, mismatch("--zero-points needs --scales (the type's zero "
                           "points go with the type's scales)"));
  }
  Expected<RuntimeOptions> options = readBackendFlags(flags);
  if (!options)
    return reportUsageError(kCommand, options.status());
  std::optional<std::string> inPath = flags.get("in");
  std::optional<std::string> outPath = flags.get("out");
  if (std::optional<std::string> o = flags.get("o")) {
    if (outPath && *outPath != *o)
      return reportUsageError(kCommand,
                              mismatch("-o " + *o + " and --out=" + *outPath +
                                       " name different outputs"));
    outPath = o;
  }
  if (!inPath || !outPath)
    return reportUsageError(kCommand, mismatch(inPath ? "missing --out=FILE"
                                                      : "missing --in=FILE"));
  // Writing the output over the input would destroy it before it is read
  // (and a failed run would leave neither).
  if (*outPath != "-" && sameFile(*inPath, *outPath))
    return reportUsageError(
        kCommand, mismatch("--out=" + *outPath + " names the input file"));
  ParameterOutputFiles outputFiles{flags.get("params-out"),
                                   flags.get("scales-out"),
                                   flags.get("zero-points-out")};
  if (Status s = checkDynamicFlags(request->lowering.dynamicScheme !=
                                       DynamicScheme::None,
                                   parameterFiles.has_value(), outputFiles);
      !s)
    return reportUsageError(kCommand, s);
  Expected<size_t> threads = readThreadCount(flags.get("threads"));
  if (!threads)
    return reportUsageError(kCommand, threads.status());
  if (Status ran =
          run(*request, *options, parameterFiles, !flags.has("scale-format"),
              outputFiles, *inPath, *outPath, *threads);
      !ran)
    return reportFailure(kCommand, ran);
  return kExitSuccess;
}

} // namespace qjit::tool
