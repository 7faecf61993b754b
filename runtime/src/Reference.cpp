//===- Reference.cpp - The scalar reference implementation ----------------===//
//
// runReference checks the call, gathers each parameter into the compute
// type once, then converts one element at a time: load, compute, store.
//
//===----------------------------------------------------------------------===//
#include "qjit/internal/Reference.h"

#include "CompactArithmetic.h"
#include "ElementAccess.h"
#include "ParameterLayout.h"
#include "ScalarArithmetic.h"

#include "qjit/KernelCall.h"
#include "qjit/internal/DynamicParameters.h"
#include "qjit/internal/HostFloat.h"

#include <cstring>
#include <string>
#include <vector>

namespace qjit {

namespace {

using reference::ParameterLayout;

Status badCall(std::string message) {
  return Status::error(ErrorCode::InvalidArgument,
                       "reference: " + std::move(message));
}

/// Scales (baked: rounded to the expressed type; runtime: decoded from
/// their format; both widened exactly to C) and zero points.
template <typename C> struct Parameters {
  std::vector<C> scales;
  std::vector<int64_t> zeroPoints;
};

/// `params` has non-null scales when the parameters are runtime ones
/// (checkKernelCall).
template <typename C>
Parameters<C> gatherParameters(const KernelSpec &spec,
                               const KernelParams *params) {
  size_t count = static_cast<size_t>(spec.layout.parameterCount());
  Parameters<C> gathered;
  gathered.scales.resize(count);
  gathered.zeroPoints.assign(count, 0);
  if (!spec.params.runtime) {
    for (size_t k = 0; k < count; ++k) {
      gathered.scales[k] = static_cast<C>(bakedScale(spec, k));
      gathered.zeroPoints[k] = spec.params.zeroPoints[k];
    }
    return gathered;
  }
  for (size_t k = 0; k < count; ++k) {
    gathered.scales[k] = static_cast<C>(decodeScale(
        spec.params.scaleFormat, spec.expressed, params->scales, k));
    if (params->zeroPoints)
      gathered.zeroPoints[k] = params->zeroPoints[k];
  }
  return gathered;
}

/// qcast of one element for the spec's storage kind.
template <typename C> class ElementQuantizer {
public:
  explicit ElementQuantizer(const KernelSpec &spec) : spec_(spec) {
    const StorageSpec &storage = spec.storage;
    if (storage.kind == StorageType::Kind::Float)
      target_ = {floatStorageFormat(storage.floatFormat),
                 floatStorageBounds(storage), spec.knobs.saturate};
    if (storage.kind == StorageType::Kind::Quantile)
      search_ = buildQuantileSearch(storage.table, spec.compute);
  }

  int64_t operator()(C x, C scale, int64_t zeroPoint) const {
    const StorageSpec &storage = spec_.storage;
    switch (storage.kind) {
    case StorageType::Kind::Integer:
      break;
    case StorageType::Kind::Float:
      return reference::quantizeToFloat(x, scale, zeroPoint, spec_.knobs,
                                        target_);
    case StorageType::Kind::Quantile:
      return reference::quantizeToQuantile(x, scale, zeroPoint, spec_.knobs,
                                           search_, storage.min);
    }
    return reference::quantizeValue(x, scale, zeroPoint, spec_.knobs,
                                    storage.min, storage.max);
  }

private:
  const KernelSpec &spec_;
  reference::FloatStorageTarget target_;
  QuantileSearch search_;
};

template <typename C>
C dequantizeElement(const KernelSpec &spec,
                    const FloatStorageFormat &floatFormat, int64_t stored,
                    C scale, int64_t zeroPoint) {
  switch (spec.storage.kind) {
  case StorageType::Kind::Integer:
    break;
  case StorageType::Kind::Float:
    return reference::dequantizeFloat(
        floatFormat, static_cast<uint32_t>(stored), scale, zeroPoint);
  case StorageType::Kind::Quantile:
    return reference::dequantizeQuantile(spec.storage.table, spec.storage.min,
                                         stored, scale, zeroPoint);
  }
  return reference::dequantizeValue(stored, scale, zeroPoint);
}

template <typename C>
void quantizeAll(const KernelSpec &spec, const ParameterLayout &layout,
                 const Parameters<C> &parameters, const void *src, void *dst,
                 size_t begin, size_t end) {
  ElementQuantizer<C> quantize(spec);
  for (size_t i = begin; i < end; ++i) {
    uint64_t k = reference::parameterIndex(layout, i);
    C x = static_cast<C>(reference::loadExpressed(spec.expressed, src, i));
    int64_t q = quantize(x, parameters.scales[k], parameters.zeroPoints[k]);
    reference::storeStored(spec.storage, dst, i, q);
  }
}

template <typename C>
void dequantizeAll(const KernelSpec &spec, const ParameterLayout &layout,
                   const Parameters<C> &parameters, const void *src, void *dst,
                   size_t begin, size_t end) {
  FloatStorageFormat floatFormat = floatStorageFormat(spec.storage.floatFormat);
  for (size_t i = begin; i < end; ++i) {
    uint64_t k = reference::parameterIndex(layout, i);
    int64_t q = reference::loadStored(spec.storage, src, i);
    C y = dequantizeElement(spec, floatFormat, q, parameters.scales[k],
                            parameters.zeroPoints[k]);
    reference::storeExpressed(spec.expressed, dst, i, y);
  }
}

void copyStoredValues(const StorageSpec &storage, const void *src, void *dst,
                      size_t begin, size_t end) {
  for (size_t i = begin; i < end; ++i)
    reference::storeStored(storage, dst, i,
                           reference::loadStored(storage, src, i));
}

template <typename C>
void convert(const KernelSpec &spec, const ParameterLayout &layout,
             const void *src, void *dst, size_t begin, size_t end,
             const KernelParams *params) {
  Parameters<C> parameters = gatherParameters<C>(spec, params);
  // The unused high bits of a packed output's last byte are zero. A byte
  // begin shares with the elements before it is updated field by field
  // (storeStored), so a range clears only the bytes it owns.
  if (spec.op != KernelOp::DCast && spec.storage.packed) {
    size_t first = storageBytes(spec.storage, begin);
    std::memset(static_cast<char *>(dst) + first, 0,
                storageBytes(spec.storage, end) - first);
  }
  switch (spec.op) {
  case KernelOp::QCast:
    quantizeAll(spec, layout, parameters, src, dst, begin, end);
    break;
  case KernelOp::DCast:
    dequantizeAll(spec, layout, parameters, src, dst, begin, end);
    break;
  case KernelOp::SCast:
    copyStoredValues(spec.storage, src, dst, begin, end);
    break;
  }
}

/// docs/semantics.md 11: each group's range, its parameters, then the
/// static qcast with them; the parameters go to `outputs` as well.
template <typename C>
void convertDynamic(const KernelSpec &spec, const ParameterLayout &layout,
                    const void *src, void *dst, size_t n,
                    const ParameterOutputs &outputs) {
  size_t count = static_cast<size_t>(spec.layout.parameterCount());
  std::vector<GroupRange<C>> ranges(count);
  for (size_t i = 0; i < n; ++i)
    ranges[reference::parameterIndex(layout, i)].add(
        static_cast<C>(reference::loadExpressed(spec.expressed, src, i)));
  // 11.7: a scale format other than E's rounds each scale once; the
  // codes use the scale written.
  ValueType written = scaleValueType(spec).value_or(spec.expressed);
  // ggml (11.9) quantizes with the unrounded scale.
  Parameters<C> parameters, quantizing;
  for (const GroupRange<C> &range : ranges) {
    DynamicParameter<C> chosen = chooseDynamicParameter(spec, range);
    parameters.scales.push_back(
        static_cast<C>(roundToValueType(chosen.scale, written)));
    parameters.zeroPoints.push_back(chosen.zeroPoint);
    quantizing.scales.push_back(quantizesWithUnroundedScale(spec)
                                    ? chosen.scale
                                    : parameters.scales.back());
  }
  quantizing.zeroPoints = parameters.zeroPoints;
  if (spec.storage.packed)
    std::memset(dst, 0, storageBytes(spec.storage, n));
  quantizeAll(spec, layout, quantizing, src, dst, 0, n);
  for (size_t k = 0; k < count; ++k) {
    if (spec.params.scaleFormat == ScaleFormat::E8M0) // mx: 2^E exactly.
      static_cast<uint8_t *>(outputs.scales)[k] =
          e8m0Byte(static_cast<float>(parameters.scales[k]));
    else
      reference::storeExpressed(written, outputs.scales, k,
                                parameters.scales[k]);
    if (outputs.zeroPoints)
      outputs.zeroPoints[k] = parameters.zeroPoints[k];
  }
}

} // namespace

Status runReferenceDynamic(const KernelSpec &spec, const void *src, void *dst,
                           size_t n, const KernelParams *params,
                           const ParameterOutputs &outputs) {
  if (Status status = verifyKernelSpec(spec); !status)
    return status;
  if (Status status = checkDynamicCall(spec, n, params, outputs); !status)
    return status;
  if (n != 0 && (!src || !dst))
    return badCall("null buffer for " + std::to_string(n) + " elements");
  Expected<ParameterLayout> layout = reference::resolveParameterLayout(
      spec.layout,
      parameterCounts(spec).extents != 0 ? params->extents : nullptr);
  if (!layout)
    return layout.status();
  if (spec.compute == ValueType::F64)
    convertDynamic<double>(spec, *layout, src, dst, n, outputs);
  else
    convertDynamic<float>(spec, *layout, src, dst, n, outputs);
  return Status::ok();
}

Status runReference(const KernelSpec &spec, const void *src, void *dst,
                    size_t n, const KernelParams *params) {
  return runReferenceRange(spec, src, dst, n, 0, n, params);
}

Status runReferenceRange(const KernelSpec &spec, const void *src, void *dst,
                         size_t n, size_t start, size_t count,
                         const KernelParams *params) {
  if (Status status = verifyKernelSpec(spec); !status)
    return status;
  // n fits the layout; params hold what the spec takes (runtime scales
  // included when n > 0).
  if (Status status = checkKernelCall(spec, n, params); !status)
    return status;
  if (start > n || count > n - start)
    return badCall("elements [" + std::to_string(start) + ", +" +
                   std::to_string(count) + ") are not a range of " +
                   std::to_string(n));
  if (count == 0)
    return Status::ok();
  if (!src || !dst)
    return badCall("null buffer for " + std::to_string(n) + " elements");
  if (!spec.takesParams())
    params = nullptr; // Nothing may be read from them.

  Expected<ParameterLayout> layout = reference::resolveParameterLayout(
      spec.layout, params ? params->extents : nullptr);
  if (!layout)
    return layout.status();

  if (spec.compute == ValueType::F64)
    convert<double>(spec, *layout, src, dst, start, start + count, params);
  else
    convert<float>(spec, *layout, src, dst, start, start + count, params);
  return Status::ok();
}

size_t storageBytes(const StorageSpec &storage, size_t n) {
  if (!storage.packed)
    return n * storage.containerBytes();
  size_t perByte = 8 / storage.bits;
  return n / perByte + (n % perByte != 0 ? 1 : 0);
}

size_t expressedBytes(ValueType type, size_t n) {
  return n * valueTypeBytes(type);
}

} // namespace qjit
