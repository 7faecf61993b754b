//===- DynamicParameters.cpp - A group's parameters from its data ---------===//
//
// Each formula is written as docs/semantics.md 11.2-11.4 states it, one
// IEEE operation per step, so the order of roundings can be checked
// against the text line by line. Rounding to nearest-even is std::rint
// in the default rounding mode, which qjit never changes (nearbyint, which
// saves and restores the environment, cost asmjit's per-tensor kernel 5%).
//
//===----------------------------------------------------------------------===//
#include "qjit/internal/DynamicParameters.h"

#include "qjit/internal/FloatStorage.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

namespace qjit {

namespace {

int64_t clampInteger(int64_t v, int64_t lo, int64_t hi) {
  return std::min(std::max(v, lo), hi);
}

/// std::max(a, b), lane by lane for vectors: b where a < b, else a.
template <typename V> V maxOf(V a, V b) { return a < b ? b : a; }

/// Four f32 lanes (GCC's vector extension, SSE or NEON): the absmax rules
/// are four divisions at once with the same IEEE results.
using Floats4 = float __attribute__((vector_size(16)));

/// 11.2: s = fl(a / Q); the pytorch rule first raises a to fl32(1e-5);
/// ggml's d (11.9) keeps 0; vllm's (11.10) is at least its smallest. Q
/// is largestStoredMagnitude in C. V is C or Floats4; the rule is a
/// template argument, so a loop over groups has no branch on it.
template <typename V, typename C, DynamicRule Rule>
V absMaxScale(V lo, V hi, C q) {
  auto all = [](C value) { return V{} + value; };
  // hi first: with lo = hi = +0, -lo is -0, and ggml writes d = +0.
  V amax = maxOf(hi, -lo);
  if constexpr (Rule == DynamicRule::PyTorch) {
    return maxOf(amax, all(static_cast<C>(kPyTorchSmallestAmax))) / all(q);
  } else if constexpr (Rule == DynamicRule::Vllm) {
    return maxOf(amax / all(q), all(static_cast<C>(kVllmSmallestScale)));
  } else if constexpr (Rule == DynamicRule::Ggml) {
    return amax / all(q);
  } else {
    V scale = amax / all(q);
    return scale == 0 ? all(1) : scale;
  }
}

/// `choose`(rule) with the spec's absmax rule as a compile-time value.
template <typename Choose>
auto byAbsMaxRule(const KernelSpec &spec, Choose choose) {
  switch (spec.params.dynamicRule) {
  case DynamicRule::PyTorch:
    return choose(std::integral_constant<DynamicRule, DynamicRule::PyTorch>{});
  case DynamicRule::Vllm:
    return choose(std::integral_constant<DynamicRule, DynamicRule::Vllm>{});
  case DynamicRule::Ggml:
    return choose(std::integral_constant<DynamicRule, DynamicRule::Ggml>{});
  case DynamicRule::Default:
  case DynamicRule::Xnnpack:
    break;
  }
  return choose(std::integral_constant<DynamicRule, DynamicRule::Default>{});
}

template <typename C>
DynamicParameter<C> chooseAbsMax(const KernelSpec &spec, C q,
                                 GroupRange<C> range) {
  DynamicParameter<C> result;
  result.scale = byAbsMaxRule(spec, [&](auto rule) {
    return absMaxScale<C, C, decltype(rule)::value>(range.lo, range.hi, q);
  });
  return result;
}

/// 11.8: s = 2^E, E from the group's largest magnitude.
/// The largest magnitude of mx's element format, found once per call: a
/// float format's bounds take a search (floatStorageBounds), which per
/// group was most of asmjit's mx driver.
struct MxElements {
  double largest;
  int largestExponent; ///< floor(log2 largest).
  explicit MxElements(const StorageSpec &storage)
      : largest(largestStoredMagnitude(storage)),
        largestExponent(std::ilogb(largest)) {}
};

/// Four int32 lanes beside Floats4: mx's exponents are taken on bits.
using Ints4 = int32_t __attribute__((vector_size(16)));

/// mxScaleExponent's E (see there) for amax = max(hi, -lo), on the bits of
/// amax or v, so that four groups take one pass of integer and compare
/// instructions. F and I are float and int32_t, or Floats4 and Ints4.
template <typename F, typename I>
I mxExponent(ScaleRounding rounding, const MxElements &elements, F lo, F hi) {
  auto all = [](int32_t value) { return I{} + value; };
  // hi first: lo = hi = +0 gives +0, not -0.
  F amax = maxOf(hi, -lo);
  I exponent;
  if (rounding == ScaleRounding::Floor) {
    // floor(log2 amax) is b - 127 for a normal amax of biased exponent b;
    // M >= 1 (verifyMx), so a zero or subnormal amax (b = 0) takes the
    // clamp's -127.
    I biased = std::bit_cast<I>(amax) >> 23;
    exponent =
        biased == 0 ? all(-127) : biased - (127 + elements.largestExponent);
  } else {
    F v = amax / (F{} + static_cast<float>(elements.largest));
    I bits = std::bit_cast<I>(v);
    I biased = bits >> 23, fraction = bits & 0x7FFFFF;
    // v = 2^k * m: a normal v has k = b - 127 and m = 1.f; a subnormal
    // one (or 0) k = -127 and m = f * 2^-22.
    I normalUp = rounding == ScaleRounding::Ceil
                     ? (fraction != 0 ? all(1) : all(0))
                     : (fraction >= 0x400000 ? all(1) : all(0));
    I subnormalUp = fraction > 0x400000 ? all(1) : all(0);
    exponent = biased == 0 ? subnormalUp - 127 : normalUp + biased - 127;
  }
  exponent = exponent < -127 ? all(-127) : exponent;
  return exponent > 127 ? all(127) : exponent;
}

/// 2^e for e in [-127, 127], exactly (2^-127 is the subnormal 0x400000).
template <typename F, typename I> F powerOfTwo(I e) {
  I bits = e > -127 ? (e + 127) << 23 : I{} + 0x400000;
  return std::bit_cast<F>(bits);
}

DynamicParameter<float> chooseMx(const KernelSpec &spec,
                                 const MxElements &elements,
                                 GroupRange<float> range) {
  DynamicParameter<float> result;
  result.scale = powerOfTwo<float>(mxExponent<float, int32_t>(
      spec.params.scaleRounding, elements, range.lo, range.hi));
  return result;
}

/// `each`(k, exponents) for the groups of ranges lo[k], hi[k], k < count,
/// four at a time (then one), with their mx exponents.
template <typename Each>
void eachMxExponent(const KernelSpec &spec, const float *lo, const float *hi,
                    size_t count, Each each) {
  const MxElements elements(spec.storage);
  const ScaleRounding rounding = spec.params.scaleRounding;
  size_t k = 0;
  for (; k + 4 <= count; k += 4) {
    Floats4 low, high;
    std::memcpy(&low, lo + k, sizeof low);
    std::memcpy(&high, hi + k, sizeof high);
    each(k, mxExponent<Floats4, Ints4>(rounding, elements, low, high));
  }
  for (; k < count; ++k)
    each(k, mxExponent<float, int32_t>(rounding, elements, lo[k], hi[k]));
}

/// 11.3: s = fl(fl(hi - lo) / fl(qmax - qmin)); z = qmin - rne(fl(lo / s)).
template <typename C>
DynamicParameter<C> chooseMinMax(const KernelSpec &spec, GroupRange<C> range) {
  const StorageSpec &storage = spec.storage;
  C span = static_cast<C>(storage.max - storage.min);
  C scale = (range.hi - range.lo) / span;
  if (scale == 0)
    scale = 1;
  if (std::isinf(scale))
    scale = std::numeric_limits<C>::max();
  C offset = std::rint(range.lo / scale);
  DynamicParameter<C> result;
  result.scale = scale;
  result.zeroPoint = clampInteger(storage.min - static_cast<int64_t>(offset),
                                  storage.min, storage.max);
  return result;
}

/// 11.4: ATen's ChooseQuantizationParams (reduce_range, preserve_sparsity
/// and force_scale_power_of_two off), f32 inputs with double steps.
DynamicParameter<float> choosePyTorchMinMax(const KernelSpec &spec,
                                            GroupRange<float> range) {
  constexpr float kSmallScale = 6.1e-5f;
  const double qmin = static_cast<double>(spec.storage.min);
  const double qmax = static_cast<double>(spec.storage.max);
  const int64_t span = spec.storage.max - spec.storage.min;
  float lo = range.lo;
  float hi = range.hi;
  double scale =
      (static_cast<double>(hi) - static_cast<double>(lo)) / (qmax - qmin);
  if (static_cast<float>(scale) == 0.0f ||
      std::isinf(1.0f / static_cast<float>(scale)))
    scale = 0.1;
  if (scale < static_cast<double>(kSmallScale)) {
    float original = static_cast<float>(scale);
    scale = static_cast<double>(kSmallScale);
    if (lo == 0.0f) {
      hi = kSmallScale * static_cast<float>(span);
    } else if (hi == 0.0f) {
      lo = -kSmallScale * static_cast<float>(span);
    } else {
      float amplifier = kSmallScale / original;
      lo *= amplifier;
      hi *= amplifier;
    }
  }
  double fromMin = qmin - static_cast<double>(lo) / scale;
  double fromMax = qmax - static_cast<double>(hi) / scale;
  double fromMinError =
      std::abs(qmin) - std::abs(static_cast<double>(lo) / scale);
  double fromMaxError =
      std::abs(qmax) - std::abs(static_cast<double>(hi) / scale);
  double initial = fromMinError < fromMaxError ? fromMin : fromMax;
  DynamicParameter<float> result;
  result.scale = static_cast<float>(scale);
  if (initial < qmin)
    result.zeroPoint = spec.storage.min;
  else if (initial > qmax)
    result.zeroPoint = spec.storage.max;
  else
    result.zeroPoint = static_cast<int64_t>(std::rint(initial));
  return result;
}

/// 11.6: XNNPACK's xnn_f32_qd8_asymmetric_quantization_params, i8 storage
/// of f32 values, every step in f32; 11.3 where its multiplier is 0 or ∞.
DynamicParameter<float> chooseXnnpackMinMax(const KernelSpec &spec,
                                            GroupRange<float> range) {
  const float qmin = -128.0f, qmax = 127.0f;
  float multiplier =
      range.lo == range.hi ? 1.0f : 255.0f / (range.hi - range.lo);
  if (multiplier == 0.0f || std::isinf(multiplier))
    return chooseMinMax(spec, range);
  float descaledMin = range.lo * multiplier;
  float descaledMax = range.hi * multiplier;
  float fromMinError = qmin + descaledMin;
  float fromMaxError = qmax + descaledMax;
  float zero = fromMinError + fromMaxError > 0.0f ? qmin - descaledMin
                                                  : qmax - descaledMax;
  zero = std::min(std::max(zero, qmin), qmax);
  DynamicParameter<float> result;
  result.scale = 1.0f / multiplier;
  result.zeroPoint = static_cast<int64_t>(std::rint(zero));
  return result;
}

template <typename C> C storedMagnitude(const KernelSpec &spec) {
  return static_cast<C>(largestStoredMagnitude(spec.storage));
}

/// `choose` of each group's range into scales[k] and zeroPoints[k].
template <typename C, typename Choose>
void chooseEach(const C *lo, const C *hi, size_t count, C *scales,
                int64_t *zeroPoints, Choose choose) {
  for (size_t k = 0; k < count; ++k) {
    DynamicParameter<C> chosen = choose(GroupRange<C>{lo[k], hi[k]});
    scales[k] = chosen.scale;
    zeroPoints[k] = chosen.zeroPoint;
  }
}

} // namespace

DynamicParameter<float> chooseDynamicParameter(const KernelSpec &spec,
                                               GroupRange<float> range) {
  if (spec.params.dynamic == DynamicScheme::AbsMax)
    return chooseAbsMax(spec, storedMagnitude<float>(spec), range);
  if (spec.params.dynamic == DynamicScheme::Mx)
    return chooseMx(spec, MxElements(spec.storage), range);
  if (spec.params.dynamicRule == DynamicRule::PyTorch)
    return choosePyTorchMinMax(spec, range);
  if (spec.params.dynamicRule == DynamicRule::Xnnpack)
    return chooseXnnpackMinMax(spec, range);
  return chooseMinMax(spec, range);
}

DynamicParameter<double> chooseDynamicParameter(const KernelSpec &spec,
                                                GroupRange<double> range) {
  // The pytorch and xnnpack rules and mx are for f32 values only
  // (verifyKernelSpec).
  if (spec.params.dynamic == DynamicScheme::AbsMax)
    return chooseAbsMax(spec, storedMagnitude<double>(spec), range);
  return chooseMinMax(spec, range);
}

void chooseDynamicParameters(const KernelSpec &spec, const float *lo,
                             const float *hi, size_t count, float *scales,
                             int64_t *zeroPoints) {
  if (spec.params.dynamic == DynamicScheme::AbsMax) {
    float q = storedMagnitude<float>(spec);
    byAbsMaxRule(spec, [&](auto rule) {
      constexpr DynamicRule kRule = decltype(rule)::value;
      size_t k = 0;
      for (; k + 4 <= count; k += 4) {
        Floats4 low, high;
        std::memcpy(&low, lo + k, sizeof low);
        std::memcpy(&high, hi + k, sizeof high);
        Floats4 chosen = absMaxScale<Floats4, float, kRule>(low, high, q);
        std::memcpy(scales + k, &chosen, sizeof chosen);
      }
      for (; k < count; ++k)
        scales[k] = absMaxScale<float, float, kRule>(lo[k], hi[k], q);
    });
    std::fill_n(zeroPoints, count, int64_t(0));
    return;
  }
  if (spec.params.dynamic == DynamicScheme::Mx) {
    eachMxExponent(spec, lo, hi, count, [&](size_t k, auto exponents) {
      using I = decltype(exponents);
      using F = std::conditional_t<std::is_same_v<I, Ints4>, Floats4, float>;
      F chosen = powerOfTwo<F>(exponents);
      std::memcpy(scales + k, &chosen, sizeof chosen);
    });
    std::fill_n(zeroPoints, count, int64_t(0));
    return;
  }
  chooseEach(lo, hi, count, scales, zeroPoints, [&](GroupRange<float> r) {
    return chooseDynamicParameter(spec, r);
  });
}

void chooseDynamicParameters(const KernelSpec &spec, const double *lo,
                             const double *hi, size_t count, double *scales,
                             int64_t *zeroPoints) {
  chooseEach(lo, hi, count, scales, zeroPoints, [&](GroupRange<double> r) {
    return chooseDynamicParameter(spec, r);
  });
}

KernelSpec quantizeWithChosenParameters(const KernelSpec &dynamicSpec) {
  KernelSpec spec = dynamicSpec;
  spec.params.dynamic = DynamicScheme::None;
  spec.params.dynamicRule = DynamicRule::Default;
  spec.params.scaleRounding = ScaleRounding::Floor;
  // Every scheme's zero point is 0 or nudged into [qmin, qmax] (11.2-11.6).
  spec.params.zeroPointsInStorage = true;
  // ggml quantizes with its d, not the f16 it writes (11.9).
  if (quantizesWithUnroundedScale(dynamicSpec))
    spec.params.scaleFormat = ScaleFormat::Expressed;
  return spec;
}

bool runtimeZeroPointsInStorage(const KernelSpec &spec) {
  return spec.params.runtime && (spec.params.zeroPointsInStorage ||
                                 spec.params.dynamic != DynamicScheme::None);
}

bool quantizesWithUnroundedScale(const KernelSpec &dynamicSpec) {
  return dynamicSpec.params.dynamicRule == DynamicRule::Ggml;
}

double largestStoredMagnitude(const StorageSpec &storage) {
  if (storage.kind == StorageType::Kind::Float) {
    FloatStorageBounds bounds = floatStorageBounds(storage);
    return std::min(bounds.hi, -bounds.lo);
  }
  return static_cast<double>(std::min(storage.max, -storage.min));
}

/// floor: E = floor(log2 amax) - floor(log2 M), with floor(log2 0) = -inf.
/// ceil and even round v = fl32(amax / fl32(M)) to a power of two 2^E:
/// ceil to the smallest >= v; even as PyTorch's fp8e8m0fnu_from_fp32_value
/// does, by v's bits: a normal v = 2^k * m (1 <= m < 2) goes up when
/// m >= 1.5 (the nearest power, the midpoint up: every E8M0 value is odd),
/// a subnormal v when it is above 2^-127. Then E is clamped to [-127, 127].
int mxScaleExponent(const KernelSpec &spec, float amax) {
  return mxExponent<float, int32_t>(spec.params.scaleRounding,
                                    MxElements(spec.storage), 0.0f, amax);
}

void chooseMxScaleBytes(const KernelSpec &spec, const float *lo,
                        const float *hi, size_t count, uint8_t *bytes,
                        int64_t *zeroPoints) {
  // E8M0's byte of 2^E is E + 127 (e8m0Byte).
  eachMxExponent(spec, lo, hi, count, [&](size_t k, auto exponents) {
    if constexpr (std::is_same_v<decltype(exponents), Ints4>) {
      for (int lane = 0; lane < 4; ++lane)
        bytes[k + lane] = static_cast<uint8_t>(exponents[lane] + 127);
    } else {
      bytes[k] = static_cast<uint8_t>(exponents + 127);
    }
  });
  std::fill_n(zeroPoints, count, int64_t(0));
}

uint8_t e8m0Byte(float powerOfTwo) {
  // The exponent field, but for the subnormal 2^-127 (byte 0).
  uint32_t bits = std::bit_cast<uint32_t>(powerOfTwo);
  return static_cast<uint8_t>(bits >= 0x00800000u ? bits >> 23 : 0);
}

} // namespace qjit
