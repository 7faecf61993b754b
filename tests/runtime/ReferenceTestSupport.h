//===- ReferenceTestSupport.h - Reference test helpers ----------*- C++ -*-===//
//
// Small builders for KernelSpecs and host buffers, written independently
// of the reference's own element access (tests must not check the
// reference against itself): containers are decoded with plain integer
// types and packing is done with whole-byte arithmetic.
//
//===----------------------------------------------------------------------===//
#ifndef QJIT_TESTS_REFERENCETESTSUPPORT_H
#define QJIT_TESTS_REFERENCETESTSUPPORT_H

#include "qjit/KernelSpec.h"
#include "qjit/internal/HostFloat.h"
#include "qjit/internal/Reference.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <type_traits>
#include <vector>

namespace qjit::testing {

/// iN / uN storage with the type's full range.
inline StorageSpec integerStorage(unsigned bits, bool isSigned,
                                  bool packed = false) {
  StorageSpec storage;
  storage.bits = bits;
  storage.isSigned = isSigned;
  storage.min = isSigned ? -(int64_t(1) << (bits - 1)) : 0;
  storage.max =
      isSigned ? (int64_t(1) << (bits - 1)) - 1 : (int64_t(1) << bits) - 1;
  storage.packed = packed;
  return storage;
}

inline ValueType computeFor(ValueType expressed) {
  return expressed == ValueType::F64 ? ValueType::F64 : ValueType::F32;
}

/// A per-tensor spec with baked parameters.
inline KernelSpec perTensorSpec(KernelOp op, StorageSpec storage,
                                ValueType expressed, double scale,
                                int64_t zeroPoint, QuantKnobs knobs = {}) {
  KernelSpec spec;
  spec.op = op;
  spec.storage = storage;
  spec.expressed = expressed;
  spec.compute = computeFor(expressed);
  spec.params.scales = {scale};
  spec.params.zeroPoints = {zeroPoint};
  spec.knobs = knobs;
  return spec;
}

/// Expressed values → a host buffer of `type` (rounding f16/bf16 once).
inline std::vector<uint8_t> encodeExpressed(ValueType type,
                                            const std::vector<double> &values) {
  std::vector<uint8_t> bytes(values.size() * valueTypeBytes(type));
  for (size_t i = 0; i < values.size(); ++i) {
    uint8_t *at = bytes.data() + i * valueTypeBytes(type);
    if (type == ValueType::F16 || type == ValueType::BF16) {
      uint16_t bits = type == ValueType::F16 ? doubleToHalfBits(values[i])
                                             : doubleToBfloat16Bits(values[i]);
      std::memcpy(at, &bits, 2);
    } else if (type == ValueType::F32) {
      float value = static_cast<float>(values[i]);
      std::memcpy(at, &value, 4);
    } else {
      std::memcpy(at, &values[i], 8);
    }
  }
  return bytes;
}

inline std::vector<double> decodeExpressed(ValueType type,
                                           const std::vector<uint8_t> &bytes) {
  size_t width = valueTypeBytes(type);
  std::vector<double> values(bytes.size() / width);
  for (size_t i = 0; i < values.size(); ++i) {
    const uint8_t *at = bytes.data() + i * width;
    if (type == ValueType::F16 || type == ValueType::BF16) {
      uint16_t bits;
      std::memcpy(&bits, at, 2);
      values[i] = type == ValueType::F16 ? halfBitsToFloat(bits)
                                         : bfloat16BitsToFloat(bits);
    } else if (type == ValueType::F32) {
      float value;
      std::memcpy(&value, at, 4);
      values[i] = value;
    } else {
      std::memcpy(&values[i], at, 8);
    }
  }
  return values;
}

/// Packs values of `bits` (1, 2, 4) into bytes: byte k is the sum of
/// field_j · 2^(bits · j) over its 8/bits values, unused fields zero.
inline std::vector<uint8_t> packFields(const std::vector<int64_t> &values,
                                       unsigned bits) {
  unsigned perByte = 8 / bits;
  unsigned fieldCount = 1u << bits;
  std::vector<uint8_t> bytes((values.size() + perByte - 1) / perByte, 0);
  for (size_t i = 0; i < values.size(); ++i) {
    // Two's complement field: the value modulo 2^bits.
    unsigned field = static_cast<unsigned>(
        ((values[i] % fieldCount) + fieldCount) % fieldCount);
    unsigned weight = 1;
    for (unsigned j = 0; j < i % perByte; ++j)
      weight *= fieldCount;
    bytes[i / perByte] =
        static_cast<uint8_t>(bytes[i / perByte] + field * weight);
  }
  return bytes;
}

inline std::vector<int64_t> unpackFields(const std::vector<uint8_t> &bytes,
                                         size_t n, unsigned bits,
                                         bool isSigned) {
  unsigned perByte = 8 / bits;
  unsigned fieldCount = 1u << bits;
  std::vector<int64_t> values(n);
  for (size_t i = 0; i < n; ++i) {
    unsigned rest = bytes[i / perByte];
    for (unsigned j = 0; j < i % perByte; ++j)
      rest /= fieldCount;
    int64_t field = rest % fieldCount;
    values[i] =
        isSigned && field >= fieldCount / 2 ? field - fieldCount : field;
  }
  return values;
}

/// Stored values → a host buffer per `storage` (containers or packed).
inline std::vector<uint8_t> encodeStored(const StorageSpec &storage,
                                         const std::vector<int64_t> &values) {
  if (storage.packed)
    return packFields(values, storage.bits);
  unsigned width = storage.containerBytes();
  std::vector<uint8_t> bytes(values.size() * width);
  for (size_t i = 0; i < values.size(); ++i) {
    int32_t wide = static_cast<int32_t>(values[i]);
    int16_t half = static_cast<int16_t>(values[i]);
    int8_t byte = static_cast<int8_t>(values[i]);
    const void *from = width == 4   ? static_cast<const void *>(&wide)
                       : width == 2 ? static_cast<const void *>(&half)
                                    : static_cast<const void *>(&byte);
    std::memcpy(bytes.data() + i * width, from, width);
  }
  return bytes;
}

/// The container at `at` (a Signed-sized integer), sign- or zero-extended.
template <typename Signed>
int64_t loadContainer(const uint8_t *at, bool isSigned) {
  Signed s;
  std::make_unsigned_t<Signed> u;
  std::memcpy(&s, at, sizeof s);
  std::memcpy(&u, at, sizeof u);
  // Not `?:`, whose common type would be unsigned.
  if (isSigned)
    return s;
  return u;
}

/// A container buffer → values, checking each container is canonical
/// (sign- or zero-extended from `bits`).
inline std::vector<int64_t> decodeStored(const StorageSpec &storage,
                                         const std::vector<uint8_t> &bytes,
                                         size_t n) {
  if (storage.packed)
    return unpackFields(bytes, n, storage.bits, storage.isSigned);
  unsigned width = storage.containerBytes();
  std::vector<int64_t> values(n);
  for (size_t i = 0; i < n; ++i) {
    const uint8_t *at = bytes.data() + i * width;
    int64_t value = width == 1   ? loadContainer<int8_t>(at, storage.isSigned)
                    : width == 2 ? loadContainer<int16_t>(at, storage.isSigned)
                                 : loadContainer<int32_t>(at, storage.isSigned);
    EXPECT_GE(value, storage.isSigned ? -(int64_t(1) << (storage.bits - 1)) : 0)
        << "container " << i << " is not sign-extended";
    EXPECT_LT(value, int64_t(1) << (storage.bits - (storage.isSigned ? 1 : 0)))
        << "container " << i << " is not canonical";
    values[i] = value;
  }
  return values;
}

/// qcast of `inputs` through the reference; EXPECTs success.
inline std::vector<int64_t> quantize(const KernelSpec &spec,
                                     const std::vector<double> &inputs,
                                     const KernelParams *params = nullptr) {
  std::vector<uint8_t> src = encodeExpressed(spec.expressed, inputs);
  std::vector<uint8_t> dst(storageBytes(spec.storage, inputs.size()) + 1, 0xA5);
  Status status =
      runReference(spec, src.data(), dst.data(), inputs.size(), params);
  EXPECT_TRUE(status.isOk()) << status.message();
  EXPECT_EQ(dst.back(), 0xA5) << "wrote past the end";
  dst.pop_back();
  return decodeStored(spec.storage, dst, inputs.size());
}

/// dcast of `stored` through the reference; EXPECTs success.
inline std::vector<double> dequantize(const KernelSpec &spec,
                                      const std::vector<int64_t> &stored,
                                      const KernelParams *params = nullptr) {
  std::vector<uint8_t> src = encodeStored(spec.storage, stored);
  std::vector<uint8_t> dst(expressedBytes(spec.expressed, stored.size()) + 1,
                           0xA5);
  Status status =
      runReference(spec, src.data(), dst.data(), stored.size(), params);
  EXPECT_TRUE(status.isOk()) << status.message();
  EXPECT_EQ(dst.back(), 0xA5) << "wrote past the end";
  dst.pop_back();
  return decodeExpressed(spec.expressed, dst);
}

} // namespace qjit::testing

#endif // QJIT_TESTS_REFERENCETESTSUPPORT_H
