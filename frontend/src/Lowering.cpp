//===- Lowering.cpp - Parsed quant type → KernelSpec ----------------------===//
//
// Maps a normalized !quant.uniform type to the spec of one op, and collapses
// its layout so that equivalent parameter mappings share one kernel:
//
//  1. Every tensor dim becomes (extent, block): a blocked or per-axis dim
//     keeps its block (1 for the per-axis dim), every other dim is a whole
//     block. A dynamic dim is always a whole block.
//  2. Dims of extent 1 are dropped, and so are leading whole dims: the
//     layout repeats over them (n is a multiple of the period).
//  3. Neighbours merge, left to right, when the merged dim maps elements to
//     the same parameters: (e1, 1) (e2, b2) → (e1·e2, b2); (e1, b1) (e2, e2)
//     → (e1·e2, b1·e2); two whole dims of which one is dynamic → a dynamic
//     whole dim.
//  4. Nothing left → per-tensor; one dim (e, b) → per-axis (e/b channels of
//     b elements); (e, 1) then a dynamic dim → per-axis with a dynamic inner
//     extent; anything else → blocked.
//
// The order of the type's scales (row-major over the scale tensor) is the
// order of the collapsed grid, so scales and zero points are copied as is.
//
//===----------------------------------------------------------------------===//
#include "qjit/KernelSpec.h"
#include "qjit/TypeParser.h"
#include "qjit/internal/HostFloat.h"

#include "FloatFormat.h"
#include "ShortestDecimal.h"

#include <cmath>
#include <optional>
#include <string>

namespace qjit {

namespace {

constexpr int64_t kDynamic = LayoutSpec::kDynamic;

Status unsupported(std::string message) {
  return Status::error(ErrorCode::Unsupported, std::move(message));
}

Status badShape(std::string message) {
  return Status::error(ErrorCode::InvalidArgument, std::move(message));
}

std::string shapeText(const std::vector<int64_t> &shape) {
  std::string text;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i != 0)
      text += 'x';
    text += shape[i] == kDynamic ? "?" : std::to_string(shape[i]);
  }
  return text.empty() ? "a scalar" : text;
}

/// One dim of the layout while it collapses. `extent` and `block` are what
/// the kernel is specialized on (kDynamic for a dynamic whole dim);
/// `callExtent` is the extent of the tensor a call will run on (kDynamic
/// when unknown), carried along for lowerCallExtents.
struct LayoutDim {
  int64_t extent = 1;
  int64_t block = 1;
  int64_t callExtent = 1;

  bool isDynamic() const { return extent == kDynamic; }
  bool isWhole() const { return isDynamic() || block == extent; }
};

Expected<ValueType> lowerExpressed(const QuantType &type) {
  if (!type.expressed)
    return unsupported("the type has no expressed type");
  switch (*type.expressed) {
  case FloatType::F16:
    return ValueType::F16;
  case FloatType::BF16:
    return ValueType::BF16;
  case FloatType::F32:
    return ValueType::F32;
  case FloatType::F64:
    return ValueType::F64;
  default:
    return unsupported("expressed type " +
                       std::string(floatTypeName(*type.expressed)) +
                       " is not supported: kernels read and write f16, bf16, "
                       "f32 or f64");
  }
}

bool isStorageFloatFormat(FloatType format) {
  return format == FloatType::F8E4M3FN || format == FloatType::F8E5M2 ||
         format == FloatType::F4E2M1FN;
}

Status checkStorage(const StorageType &storage) {
  switch (storage.kind) {
  case StorageType::Kind::Integer:
    return Status::ok();
  case StorageType::Kind::Float:
    if (isStorageFloatFormat(storage.floatType))
      return Status::ok();
    return unsupported("float storage " +
                       std::string(floatTypeName(storage.floatType)) +
                       " is not supported: kernels store f8E4M3FN, f8E5M2 "
                       "or f4E2M1FN");
  case StorageType::Kind::Quantile:
    if (!storage.quantile)
      return unsupported("quantile storage without its quantile type");
    if (storage.quantile->storage.kind != StorageType::Kind::Integer)
      return unsupported("a quantile type with float storage is not "
                         "supported: its stored values must be integers");
    return Status::ok();
  }
  return Status::ok();
}

Status checkComputable(const QuantType &type) {
  switch (type.family) {
  case QuantType::Family::Any:
    return unsupported("!quant.any has no scale or zero point: no kernel can "
                       "compute it");
  case QuantType::Family::Calibrated:
    return unsupported("!quant.calibrated records a range, not a scale and "
                       "zero point: no kernel can compute it");
  case QuantType::Family::Quantile:
    if (type.storage.kind != StorageType::Kind::Integer)
      return unsupported("a quantile type with float storage is not "
                         "supported: its stored values must be integers");
    // Standalone, the table type is the kernels' expressed type (8.4).
    if (type.integerTable)
      return unsupported("a standalone quantile type with integer table "
                         "type " +
                         integerTypeName(*type.integerTable) +
                         " has no float type to read and write: use it as "
                         "the storage of a !quant.uniform type");
    return Status::ok();
  case QuantType::Family::Uniform:
    break;
  }
  return checkStorage(type.storage);
}

/// The type's shape with dynamic dims filled from `fill` (LoweringOptions'
/// shape): nullopt when the rank is unknown (a bare type or an unranked
/// tensor without a fill).
Expected<std::optional<std::vector<int64_t>>>
resolveShape(const TypeDescriptor &type, const std::vector<int64_t> &fill) {
  const std::optional<TensorShape> &tensor = type.tensor;
  if (!tensor || !tensor->ranked) {
    if (fill.empty())
      return std::optional<std::vector<int64_t>>();
    return std::optional<std::vector<int64_t>>(fill);
  }
  if (fill.empty())
    return std::optional<std::vector<int64_t>>(tensor->dims);
  if (fill.size() != tensor->dims.size())
    return badShape("shape " + shapeText(fill) + " does not fit the type's " +
                    shapeText(tensor->dims) + ": different rank");
  for (size_t d = 0; d < fill.size(); ++d)
    if (tensor->dims[d] != kDynamic && fill[d] != tensor->dims[d])
      return badShape("shape " + shapeText(fill) + " does not fit the type's " +
                      shapeText(tensor->dims) + " in dim " + std::to_string(d));
  return std::optional<std::vector<int64_t>>(fill);
}

Status checkShapeValues(const std::vector<int64_t> &shape) {
  for (int64_t dim : shape)
    if (dim < 0 && dim != kDynamic)
      return badShape("shape " + shapeText(shape) + " has a negative dim");
  return Status::ok();
}

/// The known non-zero extents multiply without overflow, so no product the
/// collapse forms can overflow either (it skips the dims of extent 0, so
/// they must not hide an overflow of the others).
Status checkElementCount(const std::vector<LayoutDim> &dims) {
  int64_t extents = 1;
  int64_t callExtents = 1;
  auto known = [](int64_t extent) { return extent != kDynamic && extent != 0; };
  for (const LayoutDim &dim : dims)
    if ((known(dim.extent) &&
         __builtin_mul_overflow(extents, dim.extent, &extents)) ||
        (known(dim.callExtent) &&
         __builtin_mul_overflow(callExtents, dim.callExtent, &callExtents)))
      return badShape("the tensor has too many elements (its dims other than "
                      "0 multiply beyond 2^63 - 1)");
  return Status::ok();
}

/// Step 1 for a sub-channel type with `?` scales: the shape gives each
/// blocked dim's size, which the blocks must divide. `dims` holds the
/// whole-block dims of `shape`.
Expected<std::vector<LayoutDim>>
deferredSubChannelDims(const QuantType &type, const std::vector<int64_t> &shape,
                       std::vector<LayoutDim> dims) {
  for (const BlockSize &blockSize : type.blockSizes) {
    if (blockSize.axis < 0 ||
        static_cast<size_t>(blockSize.axis) >= shape.size() ||
        blockSize.size < 1)
      return badShape("block size " + std::to_string(blockSize.axis) + ":" +
                      std::to_string(blockSize.size) + " does not fit shape " +
                      shapeText(shape));
    size_t d = static_cast<size_t>(blockSize.axis);
    int64_t size = shape[d];
    if (size == kDynamic)
      return badShape("a sub-channel type with '?' scales needs the size of "
                      "its blocked dim " +
                      std::to_string(d) + " (shape " + shapeText(shape) + ")");
    if (size % blockSize.size != 0)
      return badShape("block size " + std::to_string(blockSize.size) +
                      " does not divide dim " + std::to_string(d) +
                      " of shape " + shapeText(shape));
    if (dims[d].callExtent != kDynamic && dims[d].callExtent != size)
      return badShape("call shape does not fit the type: dim " +
                      std::to_string(d) + " must be " + std::to_string(size));
    dims[d] = {size, blockSize.size, size};
  }
  return dims;
}

/// Step 1: the uncollapsed dims of a per-axis or sub-channel type.
/// `callShape` (same rank, or empty) supplies call extents.
Expected<std::vector<LayoutDim>>
layoutDims(const QuantType &type,
           const std::optional<std::vector<int64_t>> &shape,
           const std::vector<int64_t> &callShape) {
  if (type.granularity == QuantType::Granularity::PerTensor)
    return std::vector<LayoutDim>();
  const char *kind = type.granularity == QuantType::Granularity::PerAxis
                         ? "a per-axis"
                         : "a sub-channel";
  if (!shape)
    return badShape(std::string(kind) +
                    " type needs a shape (a ranked tensor type or an "
                    "explicit shape)");
  size_t rank = shape->size();
  if (!callShape.empty() && callShape.size() != rank)
    return badShape("call shape " + shapeText(callShape) +
                    " does not fit the type's " + shapeText(*shape));

  std::vector<LayoutDim> dims(rank);
  for (size_t d = 0; d < rank; ++d) {
    int64_t extent = (*shape)[d];
    int64_t callExtent = callShape.empty() ? extent : callShape[d];
    if (extent != kDynamic && callExtent != extent)
      return badShape("call shape " + shapeText(callShape) +
                      " does not fit the type's " + shapeText(*shape));
    dims[d] = {extent, extent, callExtent}; // A whole block.
  }
  // `size` elements of dim d split into blocks of `block`.
  auto setBlocked = [&](size_t d, int64_t size, int64_t block) -> Status {
    if ((*shape)[d] != kDynamic && (*shape)[d] != size)
      return badShape("shape " + shapeText(*shape) +
                      " does not fit the "
                      "type: dim " +
                      std::to_string(d) + " must be " + std::to_string(size));
    if (dims[d].callExtent != kDynamic && dims[d].callExtent != size)
      return badShape("call shape " + shapeText(callShape) +
                      " does not fit "
                      "the type: dim " +
                      std::to_string(d) + " must be " + std::to_string(size));
    dims[d] = {size, block, size};
    return Status::ok();
  };

  if (type.granularity == QuantType::Granularity::PerAxis) {
    if (type.axis < 0 || static_cast<size_t>(type.axis) >= rank)
      return badShape("quantized axis " + std::to_string(type.axis) +
                      " is outside shape " + shapeText(*shape));
    int64_t channels = static_cast<int64_t>(type.scales.size());
    if (type.parametersAtCallTime) {
      // `?`: the dim's size is the number of scales.
      channels = (*shape)[type.axis];
      if (channels == kDynamic)
        return badShape("a per-axis type with '?' scales needs the size of "
                        "its quantized dim " +
                        std::to_string(type.axis) + " (shape " +
                        shapeText(*shape) + ")");
    }
    if (Status s = setBlocked(static_cast<size_t>(type.axis), channels, 1); !s)
      return s;
    return dims;
  }

  if (type.parametersAtCallTime)
    return deferredSubChannelDims(type, *shape, std::move(dims));
  if (type.scaleShape.size() != rank)
    return badShape("shape " + shapeText(*shape) +
                    " does not fit the "
                    "type's rank-" +
                    std::to_string(type.scaleShape.size()) + " scale tensor");
  for (const BlockSize &blockSize : type.blockSizes) {
    if (blockSize.axis < 0 || static_cast<size_t>(blockSize.axis) >= rank ||
        blockSize.size < 1)
      return badShape("block size " + std::to_string(blockSize.axis) + ":" +
                      std::to_string(blockSize.size) + " does not fit shape " +
                      shapeText(*shape));
    size_t d = static_cast<size_t>(blockSize.axis);
    int64_t size;
    if (type.scaleShape[d] < 1 ||
        __builtin_mul_overflow(type.scaleShape[d], blockSize.size, &size))
      return badShape("dim " + std::to_string(d) +
                      " of the scale tensor "
                      "does not fit block size " +
                      std::to_string(blockSize.size));
    if (Status s = setBlocked(d, size, blockSize.size); !s)
      return s;
  }
  // A dim without a block size is one whole block: one scale along it.
  for (size_t d = 0; d < rank; ++d)
    if (dims[d].isWhole() && type.scaleShape[d] != 1)
      return badShape("dim " + std::to_string(d) + " has no block size but " +
                      std::to_string(type.scaleShape[d]) + " scales");
  return dims;
}

/// Steps 2 and 3.
std::vector<LayoutDim> collapse(const std::vector<LayoutDim> &dims) {
  std::vector<LayoutDim> merged;
  for (const LayoutDim &dim : dims) {
    // Extent 1 maps every element to one parameter; extent 0 means the
    // tensor is empty, so any layout computes it.
    if (dim.extent == 1 || dim.extent == 0)
      continue;
    if (merged.empty() && dim.isWhole())
      continue; // The layout repeats over leading whole dims.
    if (merged.empty()) {
      merged.push_back(dim);
      continue;
    }
    LayoutDim &last = merged.back();
    int64_t callExtent =
        last.callExtent == kDynamic || dim.callExtent == kDynamic
            ? kDynamic
            : last.callExtent * dim.callExtent;
    if (!last.isDynamic() && !dim.isDynamic() &&
        (last.block == 1 || dim.block == dim.extent)) {
      int64_t block = last.block == 1 ? dim.block : last.block * dim.extent;
      last = {last.extent * dim.extent, block, callExtent};
    } else if (last.isWhole() && dim.isWhole()) {
      last = {kDynamic, kDynamic, callExtent};
    } else {
      merged.push_back(dim);
    }
  }
  return merged;
}

/// Step 4.
LayoutSpec toLayoutSpec(const std::vector<LayoutDim> &dims) {
  LayoutSpec layout;
  if (dims.empty())
    return layout;
  if (dims.size() == 1) {
    layout.kind = LayoutSpec::Kind::PerAxis;
    layout.channels = dims[0].extent / dims[0].block;
    layout.inner = dims[0].block;
    return layout;
  }
  if (dims.size() == 2 && dims[0].block == 1 && dims[1].isDynamic()) {
    layout.kind = LayoutSpec::Kind::PerAxis;
    layout.channels = dims[0].extent;
    layout.inner = kDynamic;
    return layout;
  }
  layout.kind = LayoutSpec::Kind::Blocked;
  for (const LayoutDim &dim : dims)
    layout.dims.push_back({dim.extent, dim.block});
  return layout;
}

/// The one scale format a dynamic scheme or rule writes: E8M0 for mx
/// (11.8), f16 for ggml's d (11.9).
std::optional<ScaleFormat> fixedScaleFormat(const ParameterSpec &params) {
  if (params.dynamic == DynamicScheme::Mx)
    return ScaleFormat::E8M0;
  if (params.dynamicRule == DynamicRule::Ggml)
    return ScaleFormat::F16;
  return std::nullopt;
}

/// A dynamic qcast takes its parameters from the data (semantics 11); what
/// it cannot compute is Unsupported rather than an invalid spec.
Status lowerDynamic(KernelSpec &spec, const LoweringOptions &options) {
  if (options.dynamicScheme != DynamicScheme::Mx &&
      options.scaleRounding != ScaleRounding::Floor)
    return Status::error(
        ErrorCode::InvalidArgument,
        "a scale rounding (" +
            std::string(scaleRoundingName(options.scaleRounding)) +
            ") is for the mx dynamic scheme only");
  if (options.dynamicScheme == DynamicScheme::None)
    return Status::ok();
  if (spec.op != KernelOp::QCast)
    return unsupported("dynamic parameters are computed by qcast only; "
                       "dcast reads them as runtime parameters");
  spec.params.dynamic = options.dynamicScheme;
  spec.params.dynamicRule = options.dynamicRule;
  spec.params.scaleRounding = options.scaleRounding;
  // The mx scheme has no rule (a preset's is for absmax and minmax); mx
  // and ggml write one scale format, and lowerScaleFormat checks a format
  // the request names against it.
  if (options.dynamicScheme == DynamicScheme::Mx)
    spec.params.dynamicRule = DynamicRule::Default;
  if (std::optional<ScaleFormat> fixed = fixedScaleFormat(spec.params))
    spec.params.scaleFormat = *fixed;
  if (Status s = verifyKernelSpec(spec); !s)
    return Status::error(ErrorCode::Unsupported, s.message());
  return Status::ok();
}

/// The scale format of runtime parameters (semantics 2.3): the expressed
/// type's own format is Expressed, so f32 scales of f32 values select
/// today's kernel, and so is any format of an scast, which reads no scales.
/// A dynamic qcast writes its scales in the format (11.7).
Status lowerScaleFormat(KernelSpec &spec, const LoweringOptions &options) {
  ScaleFormat format = options.scaleFormat;
  if (spec.op == KernelOp::SCast)
    return Status::ok(); // scast reads no scales.
  if (std::optional<ScaleFormat> fixed = fixedScaleFormat(spec.params)) {
    if (format == ScaleFormat::Expressed || format == *fixed)
      return Status::ok();
    return Status::error(ErrorCode::InvalidArgument,
                         std::string(spec.params.dynamic == DynamicScheme::Mx
                                         ? "the mx scheme"
                                         : "the ggml dynamic rule") +
                             " writes " + std::string(scaleFormatName(*fixed)) +
                             " scales, not " +
                             std::string(scaleFormatName(format)));
  }
  bool own = (format == ScaleFormat::F32 && spec.expressed == ValueType::F32) ||
             (format == ScaleFormat::F16 && spec.expressed == ValueType::F16) ||
             (format == ScaleFormat::BF16 && spec.expressed == ValueType::BF16);
  if (format == ScaleFormat::Expressed || own)
    return Status::ok();
  std::string name(scaleFormatName(format));
  if (!spec.params.runtime)
    return Status::error(
        ErrorCode::InvalidArgument,
        "scale format " + name +
            " is the format of runtime scales: compile with runtime "
            "parameters (LoweringOptions::runtimeParameters; "
            "--runtime-params, --scales or --params)");
  if (spec.params.dynamic != DynamicScheme::None && format == ScaleFormat::E8M0)
    return Status::error(ErrorCode::InvalidArgument,
                         "dynamic qcast writes e8m0 scales in the mx scheme "
                         "only (--dynamic=mx)");
  spec.params.scaleFormat = format;
  return Status::ok();
}

Expected<ParameterSpec> lowerParameters(const QuantType &type,
                                        ValueType expressed, bool runtime) {
  ParameterSpec params;
  params.runtime = runtime;
  if (runtime)
    return params;
  if (type.parametersAtCallTime)
    return unsupported("the type's scales are '?', given at call time: "
                       "compile it with runtime parameters "
                       "(LoweringOptions::runtimeParameters; qjit run "
                       "--scales, spec/ir/asm --runtime-params)");
  // A standalone quantile type is its table: scale 1, zero point 0.
  if (type.family == QuantType::Family::Quantile) {
    params.scales = {1.0};
    params.zeroPoints = {0};
    return params;
  }
  for (double scale : type.scales) {
    double rounded = roundToValueType(scale, expressed);
    if (!(rounded > 0.0) || std::isinf(rounded))
      return unsupported("scale " + shortestDecimal(scale) + " is " +
                         shortestDecimal(rounded) + " in " +
                         std::string(valueTypeName(expressed)) +
                         ": scales must be positive and finite there");
    params.scales.push_back(rounded);
  }
  params.zeroPoints = type.zeroPoints;
  params.zeroPoints.resize(params.scales.size(), 0);
  return params;
}

/// Quantile entries as kernels use them: rounded to a float table type (an
/// integer table's entries are exact already), then to the compute type
/// (docs/semantics.md, 8.4).
std::vector<double> lowerTable(const QuantType &quantile, ValueType compute) {
  std::vector<double> table;
  for (double entry : quantile.table) {
    double held = entry;
    if (quantile.expressed)
      held =
          detail::roundToFloatType(entry, *quantile.expressed).value_or(entry);
    table.push_back(roundToValueType(held, compute));
  }
  return table;
}

/// `element` is the type being lowered: a uniform type, or a standalone
/// quantile type (whose own storage indexes its table).
StorageSpec lowerStorage(const QuantType &element, ValueType compute,
                         bool unpacked) {
  const StorageType &storage = element.storage;
  StorageSpec spec;
  spec.kind = storage.kind;
  spec.bits = storage.width;
  spec.isSigned = storage.isSigned;
  spec.min = storage.min;
  spec.max = storage.max;
  if (storage.kind == StorageType::Kind::Float) {
    spec.floatFormat = storage.floatType;
    spec.bits = floatTypeBits(storage.floatType);
    spec.isSigned = false; // Codes are bit patterns.
  } else if (storage.kind == StorageType::Kind::Quantile) {
    spec.table = lowerTable(*storage.quantile, compute);
  } else if (element.family == QuantType::Family::Quantile) {
    spec.kind = StorageType::Kind::Quantile;
    spec.table = lowerTable(element, compute);
  }
  bool packable = spec.bits == 1 || spec.bits == 2 || spec.bits == 4;
  spec.packed = packable && !unpacked;
  return spec;
}

/// The knobs that select a different qcast for `storage` (8.2, 8.4): the
/// others are normalized so equal computations share one kernel.
QuantKnobs lowerKnobs(QuantKnobs knobs, const StorageSpec &storage) {
  if (storage.kind != StorageType::Kind::Integer) {
    knobs.zeroPoint = ZeroPointOrder::BeforeRounding;
    knobs.rounding = RoundingMode::NearestEven;
  }
  if (storage.kind != StorageType::Kind::Float ||
      storage.floatFormat == FloatType::F4E2M1FN)
    knobs.saturate = true;
  return knobs;
}

/// Everything lowering and lowerCallExtents share: the checks, the shape
/// and the collapsed dims.
struct LoweredLayout {
  std::optional<std::vector<int64_t>> shape;
  std::vector<LayoutDim> dims;
};

Expected<LoweredLayout> lowerLayout(const QuantType &element,
                                    const TypeDescriptor &type,
                                    const LoweringOptions &options,
                                    const std::vector<int64_t> &callShape) {
  if (Status s = checkComputable(element); !s)
    return s;
  if (Status s = checkShapeValues(options.shape); !s)
    return s;
  Expected<std::optional<std::vector<int64_t>>> shape =
      resolveShape(type, options.shape);
  if (!shape)
    return shape.status();
  Expected<std::vector<LayoutDim>> dims =
      layoutDims(element, *shape, callShape);
  if (!dims)
    return dims.status();
  if (Status s = checkElementCount(*dims); !s)
    return s;
  return LoweredLayout{*shape, collapse(*dims)};
}

} // namespace

Expected<KernelSpec> lowerToKernelSpec(const TypeDescriptor &type, KernelOp op,
                                       const LoweringOptions &options) {
  TypeDescriptor normalized = normalizeType(type);
  const QuantType &element = normalized.element;
  Expected<LoweredLayout> layout =
      lowerLayout(element, normalized, options, {});
  if (!layout)
    return layout.status();
  Expected<ValueType> expressed = lowerExpressed(element);
  if (!expressed)
    return expressed.status();

  KernelSpec spec;
  spec.op = op;
  spec.expressed = *expressed;
  spec.compute = *expressed == ValueType::F64 ? ValueType::F64 : ValueType::F32;
  // PyTorch's per-channel dequantize: f64 arithmetic, unrounded scales.
  if (op == KernelOp::DCast && options.perAxisDequantizeInF64 &&
      element.family == QuantType::Family::Uniform &&
      element.granularity == QuantType::Granularity::PerAxis &&
      element.storage.kind == StorageType::Kind::Integer &&
      *expressed == ValueType::F32 && !options.runtimeParameters)
    spec.compute = ValueType::F64;
  spec.storage = lowerStorage(element, spec.compute, options.unpacked);
  spec.layout = toLayoutSpec(layout->dims);
  Expected<ParameterSpec> params = lowerParameters(
      element, spec.compute == ValueType::F64 ? ValueType::F64 : *expressed,
      options.runtimeParameters ||
          options.dynamicScheme != DynamicScheme::None);
  if (!params)
    return params.status();
  spec.params = std::move(*params);
  if (Status s = lowerDynamic(spec, options); !s)
    return s;
  if (Status s = lowerScaleFormat(spec, options); !s)
    return s;
  if (op == KernelOp::QCast)
    spec.knobs = lowerKnobs(options.knobs, spec.storage);
  if (layout->shape)
    spec.shape = *layout->shape;
  if (Status s = verifyKernelSpec(spec); !s)
    return s;
  return spec;
}

Expected<std::vector<int64_t>>
lowerCallExtents(const TypeDescriptor &type, const LoweringOptions &options,
                 const std::vector<int64_t> &callShape) {
  for (int64_t dim : callShape)
    if (dim < 0)
      return badShape("call shape " + shapeText(callShape) +
                      " must be fully known");
  TypeDescriptor normalized = normalizeType(type);
  Expected<LoweredLayout> layout =
      lowerLayout(normalized.element, normalized, options, callShape);
  if (!layout)
    return layout.status();
  LayoutSpec spec = toLayoutSpec(layout->dims);
  std::vector<int64_t> extents;
  if (spec.kind == LayoutSpec::Kind::PerAxis && spec.inner == kDynamic)
    extents.push_back(layout->dims[1].callExtent);
  if (spec.kind == LayoutSpec::Kind::Blocked)
    for (size_t d = 1; d < layout->dims.size(); ++d)
      extents.push_back(layout->dims[d].callExtent);
  return extents;
}

} // namespace qjit
