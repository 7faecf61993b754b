//===- KernelCase.h - Kernel calls made from fuzz input ---------*- C++ -*-===//
//
// Turns a parsed type and the bytes of the fuzz input into kernel calls:
// the spec of each op (with lowering options picked from the input), a
// valid element count (whole layout periods, with dynamic extents filled),
// call-time parameters and an input buffer of exactly the right size.
//
//===----------------------------------------------------------------------===//
#ifndef QJIT_TESTS_FUZZ_KERNELCASE_H
#define QJIT_TESTS_FUZZ_KERNELCASE_H

#include "qjit/KernelSpec.h"
#include "qjit/QuantType.h"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

namespace qjit::fuzz {

/// One call: a spec, n elements, what KernelParams points to and the input.
struct KernelCase {
  KernelSpec spec;
  size_t n = 0;
  std::vector<int64_t> extents;
  std::vector<uint8_t> scales; ///< Runtime parameters, in E's host format.
  std::vector<int64_t> zeroPoints;
  std::vector<uint8_t> src;
  size_t dstBytes = 0;

  KernelParams params() const;
};

/// The baked-parameter case of `op`, or nothing when the type does not
/// lower for it or its layout period is too large to run cheaply. `input`
/// picks the lowering options, the element count and the input values.
std::optional<KernelCase> makeKernelCase(const TypeDescriptor &type,
                                         KernelOp op,
                                         std::span<const uint8_t> input);

/// The same call with runtime parameters holding the baked scales and zero
/// points of `baked`, the scales in `format` (docs/semantics.md 2.3: rounded
/// to it once; E8M0 takes each scale's power of two, 2^-127 and NaN at the
/// ends). Expressed computes the same output as `baked`.
std::optional<KernelCase>
withRuntimeParameters(const TypeDescriptor &type, const KernelCase &baked,
                      ScaleFormat format = ScaleFormat::Expressed);

/// The qcast of `baked` (same input) as a dynamic qcast of `scheme`
/// (docs/semantics.md 11) writing scales in `format`, or nothing where that
/// is not defined.
std::optional<KernelCase>
asDynamic(const TypeDescriptor &type, const KernelCase &baked,
          DynamicScheme scheme, ScaleFormat format = ScaleFormat::Expressed);

} // namespace qjit::fuzz

#endif // QJIT_TESTS_FUZZ_KERNELCASE_H
