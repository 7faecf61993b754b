//===- qjit/KernelSpec.h - What one kernel computes -------------*- C++ -*-===//
//
// A KernelSpec is the single plain value that says exactly what a kernel
// computes: the frontend lowers a parsed, normalized type plus an op and
// options into one; every backend (and the scalar reference) consumes it.
// It is comparable, hashable, and has a canonical string used as the cache
// key and printed by `qjit spec`. docs/semantics.md defines the arithmetic.
//
//===----------------------------------------------------------------------===//
#ifndef QJIT_KERNELSPEC_H
#define QJIT_KERNELSPEC_H

#include "qjit/Error.h"
#include "qjit/Export.h"
#include "qjit/QuantType.h"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace qjit {

enum class KernelOp : uint8_t {
  QCast, ///< expressed → stored
  DCast, ///< stored → expressed
  SCast, ///< stored bits → stored bits (repacking only, no arithmetic)
};

/// The host formats of expressed values kernels read and write.
enum class ValueType : uint8_t { F16, BF16, F32, F64 };

enum class RoundingMode : uint8_t { NearestEven, NearestAway, TowardZero };
enum class ScaleOp : uint8_t { Divide, Reciprocal };
enum class ZeroPointOrder : uint8_t { BeforeRounding, AfterRounding };

/// The qcast knobs of docs/semantics.md.
struct QJIT_API QuantKnobs {
  ScaleOp scaleOp = ScaleOp::Divide;
  ZeroPointOrder zeroPoint = ZeroPointOrder::BeforeRounding;
  RoundingMode rounding = RoundingMode::NearestEven;
  /// Float storage only (section 8.2): clamp overflow to the bounds rather
  /// than store NaN (f8E4M3FN) or ±inf (f8E5M2). Always on otherwise.
  bool saturate = true;
  friend bool operator==(const QuantKnobs &, const QuantKnobs &) = default;
};

/// Named knob sets compatible with other systems.
enum class SemanticsPreset : uint8_t {
  Default,
  Mlir,
  Onnx,
  PyTorch,
  TfLite,
  Xnnpack, ///< PyTorch's knobs; XNNPACK's qd8 dynamic rule (11.6).
  Ggml,    ///< x · fl(1/s) ties away; llama.cpp's q8_0 dynamic rule (11.9).
  Vllm,    ///< The default knobs; vLLM's per-token fp8 dynamic rule (11.10).
};
QJIT_API QuantKnobs knobsForPreset(SemanticsPreset preset);
/// "default", "mlir", "onnx", "pytorch", "tflite", "xnnpack", "ggml",
/// "vllm".
QJIT_API std::string_view semanticsPresetName(SemanticsPreset preset);
QJIT_API Expected<SemanticsPreset> parseSemanticsPreset(std::string_view name);

/// How stored values are represented in host memory.
struct QJIT_API StorageSpec {
  StorageType::Kind kind = StorageType::Kind::Integer;
  unsigned bits = 8;    ///< Stored value width (integer 1..32; fp8 8; fp4 4).
  bool isSigned = true; ///< Integer signedness; false for float codes.
  int64_t min = -128;   ///< Clamp bounds (inclusive; float: integer values).
  int64_t max = 127;
  /// Widths 1, 2, 4 only: several values per byte, first element in the
  /// lowest bits. Otherwise one value per container of containerBytes().
  bool packed = false;
  FloatType floatFormat = FloatType::F8E4M3FN; ///< Kind::Float only.
  /// Kind::Quantile only: entry k is the value of stored integer min + k,
  /// already rounded to the table's type and then to the compute type.
  std::vector<double> table;

  /// 1, 2 or 4: the smallest container holding `bits` (unpacked layout).
  unsigned containerBytes() const;
  friend bool operator==(const StorageSpec &, const StorageSpec &) = default;
};

/// How parameters map onto elements. The tensor is row-major; the layout
/// is stored in collapsed form so equivalent shapes share one kernel.
struct QJIT_API LayoutSpec {
  enum class Kind : uint8_t {
    PerTensor, ///< One scale and zero point.
    PerAxis,   ///< Flat element i uses parameter (i / inner) % channels.
    Blocked,   ///< See `dims`.
  };
  /// One collapsed dimension of a Blocked layout: `extent` elements split
  /// into blocks of `block` elements (extent % block == 0). Element with
  /// collapsed index (j0..jk) uses parameter number
  /// row-major((j0 / b0, ..., jk / bk)) over the grid (extent / block).
  /// Like PerAxis, the layout repeats: n is a multiple of the period
  /// (the product of the extents) and flat element i has the index of
  /// i % period. dims[0]'s extent is static; any other extent may be
  /// kDynamic, in which case it is read from KernelParams::extents at call
  /// time, and then `block == kDynamic` too (a whole-extent block).
  struct Dim {
    int64_t extent = 1;
    int64_t block = 1;
    friend bool operator==(const Dim &, const Dim &) = default;
  };
  static constexpr int64_t kDynamic = -1;

  Kind kind = Kind::PerTensor;
  int64_t channels = 1;  ///< PerAxis.
  int64_t inner = 1;     ///< PerAxis; kDynamic → KernelParams::extents[0].
  std::vector<Dim> dims; ///< Blocked, outermost first.

  /// Number of (scale, zero point) pairs the layout consumes.
  int64_t parameterCount() const;
  friend bool operator==(const LayoutSpec &, const LayoutSpec &) = default;
};

/// Dynamic qcast (docs/semantics.md, 11): how each group's parameters are
/// computed from the data.
enum class DynamicScheme : uint8_t {
  None,   ///< Parameters are baked or runtime inputs.
  AbsMax, ///< Symmetric: s from the largest magnitude, zero point 0.
  MinMax, ///< Asymmetric: s and zero point from [min(x, 0), max(x, 0)].
  Mx,     ///< OCP MX: a power-of-two scale per group, written as E8M0.
};
/// Which system's formula a dynamic scheme follows (11.3, 11.4, 11.6).
enum class DynamicRule : uint8_t { Default, PyTorch, Xnnpack, Ggml, Vllm };
/// How the mx scheme rounds a group's scale to a power of two (11.8).
enum class ScaleRounding : uint8_t {
  Floor, ///< OCP MX v1.0: 2^(floor(log2 amax) - emax of the element).
  Ceil,  ///< The smallest power of two >= amax / largest (NVIDIA's RCEIL).
  Even,  ///< amax / largest to E8M0 as PyTorch's to(float8_e8m0fnu) does.
};

/// The host format of runtime scales (docs/semantics.md, 2.3).
enum class ScaleFormat : uint8_t {
  Expressed, ///< The expressed type's host format.
  F32,
  F16,
  BF16, ///< The upper 16 bits of an f32.
  E8M0, ///< OCP MX: byte b is 2^(b - 127), 0xFF is NaN.
};

/// Where scales and zero points come from.
struct QJIT_API ParameterSpec {
  /// false: baked from the type (scales/zeroPoints below).
  /// true: the kernel is specialized on layout only and reads them from
  /// KernelParams at call time.
  bool runtime = false;
  /// Not None: a dynamic qcast (runtime is true). The kernel computes the
  /// parameters from its input and writes them (ParameterOutputs).
  DynamicScheme dynamic = DynamicScheme::None;
  DynamicRule dynamicRule = DynamicRule::Default; ///< Default unless dynamic.
  /// The mx scheme's power-of-two rounding; Floor for every other spec.
  ScaleRounding scaleRounding = ScaleRounding::Floor;
  /// Runtime parameters: the scales' host format (a dynamic qcast writes
  /// them in it). Lowering normalizes the expressed type's own format to
  /// Expressed.
  ScaleFormat scaleFormat = ScaleFormat::Expressed;
  /// Runtime parameters: every zero point lies within [storage.min,
  /// storage.max], as every dynamic scheme chooses them (a dynamic qcast's
  /// quantize pass has this set). f32 arithmetic then adds them exactly
  /// after rounding, so `after-rounding` qcast need not take the f64 kernels;
  /// calls are checked against it (checkKernelCall).
  bool zeroPointsInStorage = false;
  /// Baked scales, already rounded to the expressed type (held as double);
  /// with an f64 compute type for f32 values, the literals' doubles.
  std::vector<double> scales;
  std::vector<int64_t> zeroPoints;
  friend bool operator==(const ParameterSpec &,
                         const ParameterSpec &) = default;
};

struct QJIT_API KernelSpec {
  KernelOp op = KernelOp::QCast;
  StorageSpec storage;
  ValueType expressed = ValueType::F32;
  /// F32, or F64 for f64 expressed values and for the dcast of
  /// LoweringOptions::perAxisDequantizeInF64.
  ValueType compute = ValueType::F32;
  LayoutSpec layout;
  ParameterSpec params;
  QuantKnobs knobs; ///< Meaningful for QCast only (normalized otherwise).
  /// The tensor shape the spec came from (kDynamic dims allowed; empty for
  /// a bare type). Informational: the layout carries what kernels need.
  std::vector<int64_t> shape;

  /// True when the kernel takes KernelParams (runtime parameters or a
  /// dynamic extent), i.e. its ABI is ParamKernelFn rather than KernelFn.
  bool takesParams() const;

  /// One line that determines the spec completely (the cache key).
  std::string canonicalString() const;
  /// A short C-identifier-safe name for logs, symbols and perf maps.
  std::string kernelName() const;
  size_t hash() const;

  friend bool operator==(const KernelSpec &, const KernelSpec &) = default;
};

/// Baked scale k as the spec's arithmetic uses it (docs/semantics.md, 3):
/// rounded to the expressed type, or held as is with an f64 compute type.
QJIT_API double bakedScale(const KernelSpec &spec, size_t k);

/// Call-time inputs of kernels whose spec takesParams().
struct QJIT_API KernelParams {
  /// PerAxis: {inner}. Blocked: extents of dims[1..] (dims[0] is implied).
  /// Only read where the layout says kDynamic; may be null otherwise.
  const int64_t *extents = nullptr;
  /// One scale per parameter, in the spec's ScaleFormat (by default the
  /// expressed type's host format; f16/bf16 as 16-bit patterns, E8M0 as
  /// bytes). Runtime parameters only.
  const void *scales = nullptr;
  /// One zero point per parameter; null means all zero.
  const int64_t *zeroPoints = nullptr;
};

// The two kernel ABIs. `n` counts elements (not bytes). Packed storage is
// addressed from the first byte; n need not be a multiple of the packing.
using KernelFn = void (*)(const void *src, void *dst, size_t n);
using ParamKernelFn = void (*)(const void *src, void *dst, size_t n,
                               const KernelParams *params);

/// Options that select among the computations a type allows.
struct QJIT_API LoweringOptions {
  QuantKnobs knobs;
  /// dcast of per-axis (not sub-channel) types with integer storage, f32
  /// expressed values and baked scales: multiply in f64 by each scale's
  /// double, unrounded, then round once to f32, as PyTorch's per-channel
  /// dequantize does (docs/semantics.md, 5.5). The spec says so through
  /// its compute type (f64) and scales.
  bool perAxisDequantizeInF64 = false;
  bool unpacked = false;          ///< Keep sub-byte storage one per byte.
  bool runtimeParameters = false; ///< Do not bake scales / zero points.
  /// qcast only: compute the parameters from the data (implies runtime
  /// parameters; the type's own scales, `?` or not, are not used).
  DynamicScheme dynamicScheme = DynamicScheme::None;
  DynamicRule dynamicRule = DynamicRule::Default;
  /// DynamicScheme::Mx only: how its scales round to powers of two.
  ScaleRounding scaleRounding = ScaleRounding::Floor;
  /// With runtime parameters: the format of the scales KernelParams holds,
  /// or a dynamic qcast writes. The mx scheme writes E8M0 (Expressed means
  /// E8M0 for it). Anything but Expressed needs runtime parameters.
  ScaleFormat scaleFormat = ScaleFormat::Expressed;
  /// Fills dynamic dims, or shapes a bare type (empty: keep the type's).
  std::vector<int64_t> shape;
};

/// The lowering options a preset names: its knobs, for PyTorch
/// perAxisDequantizeInF64 and DynamicRule::PyTorch, for XNNPACK
/// DynamicRule::Xnnpack, for ggml DynamicRule::Ggml, for vLLM
/// DynamicRule::Vllm.
QJIT_API LoweringOptions loweringForPreset(SemanticsPreset preset);

/// Lowers a verified type to the spec of `op`. Normalizes first. Fails with
/// ErrorCode::Unsupported for what no kernel computes (!quant.any,
/// !quant.calibrated, expressed types other than f16/bf16/f32/f64, ...).
QJIT_API Expected<KernelSpec>
lowerToKernelSpec(const TypeDescriptor &type, KernelOp op,
                  const LoweringOptions &options = {});

/// KernelParams::extents for running the spec lowered from `type` and
/// `options` on a tensor of the fully known `callShape`: PerAxis with a
/// dynamic inner extent → {inner}; Blocked → the extents of dims[1..]
/// (static ones included); otherwise empty. Dynamic dims of the collapsed
/// layout are products of source dims, which this computes.
QJIT_API Expected<std::vector<int64_t>>
lowerCallExtents(const TypeDescriptor &type, const LoweringOptions &options,
                 const std::vector<int64_t> &callShape);

/// Checks the invariants kernels rely on: storage width, bounds and
/// packing; compute type; layout arithmetic (blocks divide extents, only
/// whole-extent blocks are dynamic); baked parameter counts. Fails with
/// ErrorCode::InvalidArgument naming the first violation.
QJIT_API Status verifyKernelSpec(const KernelSpec &spec);

QJIT_API std::string_view kernelOpName(KernelOp op);
QJIT_API std::string_view valueTypeName(ValueType type);
QJIT_API unsigned valueTypeBytes(ValueType type);
QJIT_API std::string_view roundingModeName(RoundingMode mode);
QJIT_API std::string_view scaleOpName(ScaleOp op);
QJIT_API std::string_view zeroPointOrderName(ZeroPointOrder order);
QJIT_API std::string_view dynamicSchemeName(DynamicScheme scheme);
QJIT_API std::string_view dynamicRuleName(DynamicRule rule);
QJIT_API Expected<DynamicScheme> parseDynamicScheme(std::string_view name);
/// "floor", "ceil", "even".
QJIT_API std::string_view scaleRoundingName(ScaleRounding rounding);
QJIT_API Expected<ScaleRounding> parseScaleRounding(std::string_view name);
/// "expressed", "f32", "f16", "bf16", "e8m0".
QJIT_API std::string_view scaleFormatName(ScaleFormat format);
QJIT_API Expected<ScaleFormat> parseScaleFormat(std::string_view name);
/// Bytes of one runtime scale of `spec` (its ScaleFormat, or the expressed
/// type's for Expressed).
QJIT_API unsigned runtimeScaleBytes(const KernelSpec &spec);
/// The value type whose host format `spec`'s runtime scales are in (the
/// expressed type for Expressed); none for E8M0 bytes.
QJIT_API std::optional<ValueType> scaleValueType(const KernelSpec &spec);
/// Scale `k` of a runtime scale array in `format` (Expressed: `expressed`'s
/// host format) as its exact value (docs/semantics.md, 2.3). The one
/// decoder of runtime scales: the reference, the tool and the Python module
/// use it. Defined with the host float conversions (HostFloat.cpp).
QJIT_API double decodeScale(ScaleFormat format, ValueType expressed,
                            const void *scales, size_t k);

} // namespace qjit

#endif // QJIT_KERNELSPEC_H
