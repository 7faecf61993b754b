//===- DynamicParameters.h - A group's parameters from its data -*- C++ -*-===//
//
// docs/semantics.md section 11: the scale and zero point a dynamic qcast
// chooses for one group, from the group's range of finite values. The
// reference and asmjit's dynamic kernels call these functions; the llvm
// backend emits the same steps (jit/src/llvm/DynamicIr.cpp), and the
// differential tests hold them together.
//
//===----------------------------------------------------------------------===//
#ifndef QJIT_DYNAMICPARAMETERS_H
#define QJIT_DYNAMICPARAMETERS_H

#include "qjit/KernelSpec.h"

#include <cstddef>
#include <cstdint>

namespace qjit {

/// The range of one group (11.1): lo = min(0, finite elements), hi =
/// max(0, finite elements). An empty group, or one without finite
/// elements, is [0, 0].
template <typename C> struct GroupRange {
  C lo = 0;
  C hi = 0;
  void add(C x) {
    if (x < lo && x - x == 0)
      lo = x;
    if (x > hi && x - x == 0)
      hi = x;
  }
};

/// A group's parameters: the scale (a value of the expressed type, which
/// is C for the f32 and f64 values dynamic qcast takes) and zero point.
template <typename C> struct DynamicParameter {
  C scale = 1;
  int64_t zeroPoint = 0;
};

DynamicParameter<float> chooseDynamicParameter(const KernelSpec &spec,
                                               GroupRange<float> range);
DynamicParameter<double> chooseDynamicParameter(const KernelSpec &spec,
                                                GroupRange<double> range);
/// chooseDynamicParameter for groups k < count, ranges [lo[k], hi[k]],
/// into scales[k] and zeroPoints[k]: what the scheme needs decided once,
/// not per group (asmjit's driver chooses thousands of blocks a call).
void chooseDynamicParameters(const KernelSpec &spec, const float *lo,
                             const float *hi, size_t count, float *scales,
                             int64_t *zeroPoints);
void chooseDynamicParameters(const KernelSpec &spec, const double *lo,
                             const double *hi, size_t count, double *scales,
                             int64_t *zeroPoints);

/// PyTorch's per-token rule raises amax to this before dividing (11.2).
constexpr float kPyTorchSmallestAmax = 1e-5f;

/// vLLM's min_scaling_factor, 1.0f / (FP8_E4M3_MAX * 512.f): the vllm
/// rule's smallest scale (11.10).
constexpr float kVllmSmallestScale = 1.0f / (448.0f * 512.0f);

/// The runtime-parameter qcast a dynamic qcast quantizes with once it has
/// chosen (and written) its parameters: the same spec without the scheme,
/// reading the scales as written, or unrounded where the rule says so.
KernelSpec quantizeWithChosenParameters(const KernelSpec &dynamicSpec);
/// Runtime zero points known within the storage range: promised by the
/// spec, or chosen there by its dynamic scheme (11.2-11.6).
bool runtimeZeroPointsInStorage(const KernelSpec &spec);
/// The ggml rule (11.9): the codes use each group's scale as computed in
/// the expressed type, not the one written in the scale format.
bool quantizesWithUnroundedScale(const KernelSpec &dynamicSpec);

/// The mx scheme (11.8): the largest magnitude M an element of the storage
/// holds within its bounds (f8E4M3FN 448, f8E5M2 57344, f4E2M1FN 6, i8
/// 127), and the exponent E of a group's scale 2^E (-127 <= E <= 127)
/// for its largest finite magnitude `amax`.
double largestStoredMagnitude(const StorageSpec &storage);
int mxScaleExponent(const KernelSpec &spec, float amax);
/// The E8M0 byte of the power of two 2^E, E in [-127, 127]: E + 127.
uint8_t e8m0Byte(float powerOfTwo);
/// The mx scheme's E8M0 bytes (E + 127) of groups k < count, ranges
/// [lo[k], hi[k]], and their zero points (0): chooseDynamicParameters and
/// e8m0Byte in one pass, four groups at a time.
void chooseMxScaleBytes(const KernelSpec &spec, const float *lo,
                        const float *hi, size_t count, uint8_t *bytes,
                        int64_t *zeroPoints);

} // namespace qjit

#endif // QJIT_DYNAMICPARAMETERS_H
