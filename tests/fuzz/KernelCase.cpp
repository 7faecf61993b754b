//===- KernelCase.cpp - Kernel calls made from fuzz input -----------------===//
#include "KernelCase.h"

#include "qjit/KernelCall.h"
#include "qjit/internal/HostFloat.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace qjit::fuzz {
namespace {

// Larger periods add nothing the small ones do not cover, only time.
constexpr uint64_t kMaxPeriod = 4096;
// Dynamic extents are whole-extent blocks: any positive value is valid.
constexpr int64_t kDynamicExtent = 3;

/// splitmix64: a cheap deterministic stream from the input's hash.
class Stream {
public:
  explicit Stream(std::span<const uint8_t> input) {
    for (uint8_t byte : input)
      state_ = (state_ ^ byte) * 0x100000001b3ull; // FNV-1a
  }
  uint64_t next() {
    uint64_t z = (state_ += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }

private:
  uint64_t state_ = 0xcbf29ce484222325ull;
};

LoweringOptions pickLowering(Stream &stream) {
  uint64_t bits = stream.next();
  LoweringOptions options;
  options.unpacked = bits & 1;
  options.knobs.rounding = static_cast<RoundingMode>((bits >> 1) % 3);
  options.knobs.scaleOp =
      (bits >> 3) & 1 ? ScaleOp::Reciprocal : ScaleOp::Divide;
  options.knobs.zeroPoint = (bits >> 4) & 1 ? ZeroPointOrder::AfterRounding
                                            : ZeroPointOrder::BeforeRounding;
  return options;
}

/// KernelParams::extents for the layout (dynamic ones kDynamicExtent) and
/// the period they give, or nothing past kMaxPeriod.
std::optional<uint64_t> fillExtents(const LayoutSpec &layout,
                                    std::vector<int64_t> &extents) {
  auto known = [](int64_t extent) {
    return extent == LayoutSpec::kDynamic ? kDynamicExtent : extent;
  };
  uint64_t period = 1;
  auto multiply = [&](int64_t extent) {
    return extent > 0 &&
           !__builtin_mul_overflow(period, uint64_t(extent), &period) &&
           period <= kMaxPeriod;
  };
  switch (layout.kind) {
  case LayoutSpec::Kind::PerTensor:
    return period;
  case LayoutSpec::Kind::PerAxis:
    extents = {known(layout.inner)};
    if (!multiply(layout.channels) || !multiply(extents[0]))
      return std::nullopt;
    return period;
  case LayoutSpec::Kind::Blocked:
    for (size_t d = 0; d < layout.dims.size(); ++d) {
      int64_t extent = known(layout.dims[d].extent);
      if (d > 0)
        extents.push_back(extent);
      if (!multiply(extent))
        return std::nullopt;
    }
    return period;
  }
  return std::nullopt;
}

/// Expressed values: raw bit patterns (NaN, inf, subnormals, ...) mixed
/// with multiples of a quarter of the first scale (ties, bounds).
void fillExpressed(const KernelSpec &spec, size_t n, Stream &stream,
                   std::vector<uint8_t> &src) {
  const unsigned bytes = valueTypeBytes(spec.expressed);
  const double scale = spec.params.scales.empty() ? 1.0 : spec.params.scales[0];
  for (size_t i = 0; i < n; ++i) {
    uint64_t bits = stream.next();
    if (i % 2 == 0) {
      double value = double(int64_t(bits % 2048) - 1024) * 0.25 * scale;
      switch (spec.expressed) {
      case ValueType::F16:
        bits = doubleToHalfBits(value);
        break;
      case ValueType::BF16:
        bits = doubleToBfloat16Bits(value);
        break;
      case ValueType::F32: {
        float narrow = float(value);
        uint32_t word;
        std::memcpy(&word, &narrow, sizeof word);
        bits = word;
        break;
      }
      case ValueType::F64:
        std::memcpy(&bits, &value, sizeof bits);
        break;
      }
    }
    std::memcpy(src.data() + i * bytes, &bits, bytes); // little endian
  }
}

} // namespace

KernelParams KernelCase::params() const {
  KernelParams params;
  params.extents = extents.empty() ? nullptr : extents.data();
  params.scales = scales.empty() ? nullptr : scales.data();
  params.zeroPoints = zeroPoints.empty() ? nullptr : zeroPoints.data();
  return params;
}

std::optional<KernelCase> makeKernelCase(const TypeDescriptor &type,
                                         KernelOp op,
                                         std::span<const uint8_t> input) {
  Stream stream(input);
  for (int skip = 0; skip < int(op); ++skip)
    stream.next(); // Different values per op.
  Expected<KernelSpec> spec = lowerToKernelSpec(type, op, pickLowering(stream));
  if (!spec)
    return std::nullopt;
  KernelCase call;
  call.spec = std::move(*spec);
  std::optional<uint64_t> period = fillExtents(call.spec.layout, call.extents);
  if (!period)
    return std::nullopt;
  // Up to three periods, so kernels see several channels and tails.
  call.n = size_t(*period) * (1 + stream.next() % 3);
  Expected<size_t> srcBytes =
      bufferBytes(call.spec, kernelInputSide(op), call.n);
  Expected<size_t> dstBytes =
      bufferBytes(call.spec, kernelOutputSide(op), call.n);
  if (!srcBytes || !dstBytes)
    return std::nullopt;
  call.src.resize(*srcBytes);
  call.dstBytes = *dstBytes;
  if (kernelInputSide(op) == BufferSide::Expressed) {
    fillExpressed(call.spec, call.n, stream, call.src);
  } else {
    for (uint8_t &byte : call.src)
      byte = uint8_t(stream.next());
  }
  return call;
}

std::optional<KernelCase> withRuntimeParameters(const TypeDescriptor &type,
                                                const KernelCase &baked,
                                                ScaleFormat format) {
  LoweringOptions options;
  options.knobs = baked.spec.knobs;
  options.unpacked = !baked.spec.storage.packed;
  options.runtimeParameters = true;
  options.scaleFormat = format;
  Expected<KernelSpec> spec = lowerToKernelSpec(type, baked.spec.op, options);
  if (!spec || !spec->params.runtime)
    return std::nullopt;
  KernelCase call = baked;
  call.spec = std::move(*spec);
  const unsigned bytes = runtimeScaleBytes(call.spec);
  call.scales.assign(baked.spec.params.scales.size() * bytes, 0);
  for (size_t k = 0; k < baked.spec.params.scales.size(); ++k) {
    double scale = baked.spec.params.scales[k];
    uint64_t bits = 0;
    if (call.spec.params.scaleFormat == ScaleFormat::E8M0) {
      // The power of two at or below |s|, clamped to the bytes; inf: NaN.
      int exponent = std::isfinite(scale) && scale != 0
                         ? std::ilogb(scale) + 127
                         : (scale == 0 ? 0 : 255);
      bits = static_cast<uint64_t>(std::clamp(exponent, 0, 255));
      std::memcpy(call.scales.data() + k, &bits, 1);
      continue;
    }
    switch (scaleValueType(call.spec).value_or(call.spec.expressed)) {
    case ValueType::F16:
      bits = doubleToHalfBits(scale);
      break;
    case ValueType::BF16:
      bits = doubleToBfloat16Bits(scale);
      break;
    case ValueType::F32: {
      float narrow = float(scale); // exact: baked scales are f32 values
      uint32_t word;
      std::memcpy(&word, &narrow, sizeof word);
      bits = word;
      break;
    }
    case ValueType::F64:
      std::memcpy(&bits, &scale, sizeof bits);
      break;
    }
    std::memcpy(call.scales.data() + k * bytes, &bits, bytes);
  }
  call.zeroPoints = baked.spec.params.zeroPoints;
  return call;
}

std::optional<KernelCase> asDynamic(const TypeDescriptor &type,
                                    const KernelCase &baked,
                                    DynamicScheme scheme, ScaleFormat format) {
  if (baked.spec.op != KernelOp::QCast)
    return std::nullopt;
  LoweringOptions options;
  options.knobs = baked.spec.knobs;
  options.unpacked = !baked.spec.storage.packed;
  options.dynamicScheme = scheme;
  options.scaleFormat = format;
  Expected<KernelSpec> spec = lowerToKernelSpec(type, KernelOp::QCast, options);
  if (!spec)
    return std::nullopt;
  KernelCase call = baked;
  call.spec = std::move(*spec);
  call.scales.clear();
  call.zeroPoints.clear();
  return call;
}

} // namespace qjit::fuzz
