//===- MxExponentTest.cpp - mx's exponents on bits vs ilogb and ldexp -----===//
//
// DynamicParameters.cpp takes mx's shared exponent (docs/semantics.md 11.8)
// on the bits of amax or v, four groups at a time. This holds it to the
// section's formula written independently with ilogb and ldexp, for each
// element format's M and each scale rounding, over amax at and around
// every binade's edges and midpoints, around every M·2^k and 1.5·M·2^k, the
// subnormals, and a stride through every finite f32; through the four-lane
// and the one-group paths (chooseMxScaleBytes, chooseDynamicParameters and
// chooseDynamicParameter agree on each).
//
//===----------------------------------------------------------------------===//
#include "qjit/KernelSpec.h"
#include "qjit/TypeParser.h"
#include "qjit/internal/DynamicParameters.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

namespace qjit {
namespace {

/// 11.8 as the text states it: floor(log2 amax) - floor(log2 M); or v =
/// fl32(amax / fl32(M)) = 2^k · m rounded up to 2^(k+1) when m > 1 (ceil,
/// and a subnormal v) or m >= 1.5 (even); clamped to [-127, 127].
int formulaExponent(ScaleRounding rounding, double largest, float amax) {
  int exponent = -127;
  if (rounding == ScaleRounding::Floor) {
    if (amax != 0)
      exponent = std::ilogb(amax) - std::ilogb(largest);
  } else {
    float v = amax / static_cast<float>(largest);
    if (v != 0) {
      int k = std::max(std::ilogb(v), -127);
      float m = std::ldexp(v, -k);
      bool up =
          rounding == ScaleRounding::Ceil || k == -127 ? m > 1 : m >= 1.5f;
      exponent = k + (up ? 1 : 0);
    }
  }
  return std::clamp(exponent, -127, 127);
}

float fromBits(uint32_t bits) { return std::bit_cast<float>(bits); }

/// The largest magnitudes probed: around every binade's edges and
/// midpoint, around M·2^k and 1.5·M·2^k, and a stride through all.
std::vector<float> probedMagnitudes(double largest) {
  std::vector<float> values;
  auto around = [&](float center) {
    if (!std::isfinite(center))
      return;
    uint32_t bits = std::bit_cast<uint32_t>(center);
    for (uint32_t d = 0; d < 4; ++d) {
      if (bits >= d)
        values.push_back(fromBits(bits - d));
      if (bits + d < 0x7F800000u)
        values.push_back(fromBits(bits + d));
    }
  };
  for (uint32_t biased = 0; biased < 255; ++biased)
    for (uint32_t fraction : {0u, 0x400000u, 0x7FFFFFu, 0x200000u})
      around(fromBits(biased << 23 | fraction));
  for (int k = -160; k <= 130; ++k) {
    around(static_cast<float>(std::ldexp(largest, k)));
    around(static_cast<float>(std::ldexp(1.5 * largest, k)));
  }
  for (uint64_t bits = 0; bits < 0x7F800000u; bits += 4099)
    values.push_back(fromBits(static_cast<uint32_t>(bits)));
  return values;
}

KernelSpec mxSpec(const std::string &storage, ScaleRounding rounding) {
  Expected<TypeDescriptor> type =
      parseTypeOrError("!quant.uniform<" + storage + ":f32, ?>");
  EXPECT_TRUE(type) << type.status().message();
  LoweringOptions options;
  options.dynamicScheme = DynamicScheme::Mx;
  options.scaleRounding = rounding;
  Expected<KernelSpec> spec =
      lowerToKernelSpec(*type, KernelOp::QCast, options);
  EXPECT_TRUE(spec) << spec.status().message();
  return spec ? *spec : KernelSpec{};
}

TEST(MxExponent, BitsAgreeWithTheFormulaForEveryFormatAndRounding) {
  for (const char *storage : {"f8E4M3FN", "f8E5M2", "f4E2M1FN", "i8", "i4"}) {
    for (ScaleRounding rounding :
         {ScaleRounding::Floor, ScaleRounding::Ceil, ScaleRounding::Even}) {
      SCOPED_TRACE(std::string(storage) + " " +
                   std::string(scaleRoundingName(rounding)));
      KernelSpec spec = mxSpec(storage, rounding);
      double largest = largestStoredMagnitude(spec.storage);
      std::vector<float> hi = probedMagnitudes(largest);
      // The same magnitudes as the low ends of ranges whose high end is
      // smaller: amax is max(hi, -lo).
      std::vector<float> lo(hi.size()), lowHi(hi.size());
      for (size_t k = 0; k < hi.size(); ++k) {
        lo[k] = -hi[k];
        lowHi[k] = hi[k] / 3;
      }
      // An odd count: the last groups take the one-group path.
      size_t count = hi.size() | 1;
      hi.resize(count, 0.0f), lo.resize(count, 0.0f), lowHi.resize(count, 0.0f);
      std::vector<float> zeros(count, 0.0f), scales(count);
      std::vector<uint8_t> bytes(count), lowBytes(count);
      std::vector<int64_t> zeroPoints(count, 7);
      chooseMxScaleBytes(spec, zeros.data(), hi.data(), count, bytes.data(),
                         zeroPoints.data());
      chooseMxScaleBytes(spec, lo.data(), lowHi.data(), count, lowBytes.data(),
                         zeroPoints.data());
      chooseDynamicParameters(spec, zeros.data(), hi.data(), count,
                              scales.data(), zeroPoints.data());
      int mismatches = 0;
      for (size_t k = 0; k < count && mismatches < 10; ++k) {
        int expected = formulaExponent(rounding, largest, hi[k]) + 127;
        float one =
            chooseDynamicParameter(spec, GroupRange<float>{0.0f, hi[k]}).scale;
        bool agree = bytes[k] == expected && lowBytes[k] == expected &&
                     e8m0Byte(scales[k]) == expected &&
                     e8m0Byte(one) == expected &&
                     std::bit_cast<uint32_t>(scales[k]) ==
                         std::bit_cast<uint32_t>(one) &&
                     zeroPoints[k] == 0;
        if (!agree)
          ++mismatches;
        EXPECT_TRUE(agree) << "amax bits 0x" << std::hex
                           << std::bit_cast<uint32_t>(hi[k]) << std::dec
                           << ": formula byte " << expected << ", bytes "
                           << int(bytes[k]) << " (from lo " << int(lowBytes[k])
                           << "), scale's byte " << int(e8m0Byte(scales[k]))
                           << ", one group's " << int(e8m0Byte(one));
      }
    }
  }
}

} // namespace
} // namespace qjit
