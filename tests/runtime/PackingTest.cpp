//===- PackingTest.cpp - Packed and container storage round trips ---------===//
//
// The reference's packing is checked against the test's own, independent
// routine (ReferenceTestSupport.h packs with whole-byte arithmetic), on
// random values from testSeed().
//
//===----------------------------------------------------------------------===//
#include "ReferenceTestSupport.h"
#include "TestSeed.h"

#include <gtest/gtest.h>

#include <random>

namespace qjit {
namespace {

using testing::encodeStored;
using testing::integerStorage;
using testing::packFields;
using testing::perTensorSpec;

std::vector<int64_t> randomValues(std::mt19937_64 &rng,
                                  const StorageSpec &storage, size_t n) {
  std::uniform_int_distribution<int64_t> pick(storage.min, storage.max);
  std::vector<int64_t> values(n);
  for (int64_t &value : values)
    value = pick(rng);
  return values;
}

class Packing : public ::testing::Test {
protected:
  std::mt19937_64 rng{qjit::testing::testSeed()};
};

TEST_F(Packing, QuantizeWritesTheIndependentPacking) {
  for (unsigned bits : {1u, 2u, 4u})
    for (bool isSigned : {true, false})
      for (size_t n = 0; n <= 19; ++n) {
        StorageSpec storage = integerStorage(bits, isSigned, /*packed=*/true);
        KernelSpec spec =
            perTensorSpec(KernelOp::QCast, storage, ValueType::F32, 1.0, 0);
        std::vector<int64_t> values = randomValues(rng, storage, n);
        std::vector<float> src(values.begin(), values.end());
        std::vector<uint8_t> expected = packFields(values, bits);
        // Poisoned, one guard byte.
        std::vector<uint8_t> dst(expected.size() + 1, 0xFF);
        ASSERT_TRUE(runReference(spec, src.data(), dst.data(), n).isOk());
        EXPECT_EQ(dst.back(), 0xFF) << "wrote past the packed bytes";
        dst.pop_back();
        EXPECT_EQ(dst, expected)
            << bits << (isSigned ? "s" : "u") << " n=" << n;
      }
}

TEST_F(Packing, DequantizeReadsTheIndependentPacking) {
  for (unsigned bits : {1u, 2u, 4u})
    for (bool isSigned : {true, false})
      for (size_t n = 0; n <= 19; ++n) {
        StorageSpec storage = integerStorage(bits, isSigned, /*packed=*/true);
        KernelSpec spec =
            perTensorSpec(KernelOp::DCast, storage, ValueType::F32, 1.0, 0);
        std::vector<int64_t> values = randomValues(rng, storage, n);
        std::vector<uint8_t> src = packFields(values, bits);
        // Garbage in the unused tail bits must be ignored.
        if (n % (8 / bits) != 0)
          src.back() = static_cast<uint8_t>(
              src.back() | (0xFF << ((n % (8 / bits)) * bits)));
        std::vector<float> dst(n);
        ASSERT_TRUE(runReference(spec, src.data(), dst.data(), n).isOk());
        EXPECT_EQ(std::vector<int64_t>(dst.begin(), dst.end()), values)
            << bits << (isSigned ? "s" : "u") << " n=" << n;
      }
}

TEST_F(Packing, StorageCastZeroesTheTail) {
  for (unsigned bits : {1u, 2u, 4u}) {
    StorageSpec storage = integerStorage(bits, true, /*packed=*/true);
    KernelSpec spec =
        perTensorSpec(KernelOp::SCast, storage, ValueType::F32, 1.0, 0);
    size_t n = 8 / bits + 1; // One full byte and one field.
    std::vector<int64_t> values = randomValues(rng, storage, n);
    std::vector<uint8_t> src = packFields(values, bits);
    src.back() = static_cast<uint8_t>(src.back() | (0xFF << bits));
    std::vector<uint8_t> dst(src.size(), 0xFF);
    ASSERT_TRUE(runReference(spec, src.data(), dst.data(), n).isOk());
    EXPECT_EQ(dst, packFields(values, bits)) << bits;
  }
}

TEST_F(Packing, ContainersOfEveryWidthRoundTrip) {
  for (unsigned bits = 1; bits <= 32; ++bits)
    for (bool isSigned : {true, false}) {
      StorageSpec storage = integerStorage(bits, isSigned);
      std::vector<int64_t> values = randomValues(rng, storage, 37);
      values.front() = storage.min;
      values.back() = storage.max;
      std::vector<uint8_t> src = encodeStored(storage, values);

      // dcast to f64 with scale 1 is exact for every 32-bit value.
      KernelSpec dcast =
          perTensorSpec(KernelOp::DCast, storage, ValueType::F64, 1.0, 0);
      std::vector<double> expressed(values.size());
      ASSERT_TRUE(
          runReference(dcast, src.data(), expressed.data(), values.size())
              .isOk());
      EXPECT_EQ(std::vector<int64_t>(expressed.begin(), expressed.end()),
                values);

      // qcast back writes exactly the canonical containers.
      KernelSpec qcast = dcast;
      qcast.op = KernelOp::QCast;
      std::vector<uint8_t> stored(src.size(), 0xA5);
      ASSERT_TRUE(
          runReference(qcast, expressed.data(), stored.data(), values.size())
              .isOk());
      EXPECT_EQ(stored, src) << bits << (isSigned ? "s" : "u");

      // scast copies canonical containers unchanged.
      KernelSpec scast = dcast;
      scast.op = KernelOp::SCast;
      std::vector<uint8_t> copied(src.size(), 0xA5);
      ASSERT_TRUE(
          runReference(scast, src.data(), copied.data(), values.size()).isOk());
      EXPECT_EQ(copied, src);
    }
}

TEST(PackingBytes, DocumentedExamples) {
  // docs/semantics.md 2.2: i4 (1, -2, 7) → E1 07; u2 (3, 0, 1) → 13.
  KernelSpec i4 = perTensorSpec(KernelOp::QCast, integerStorage(4, true, true),
                                ValueType::F32, 1.0, 0);
  const float i4Values[3] = {1.0f, -2.0f, 7.0f};
  uint8_t i4Bytes[2] = {0xFF, 0xFF};
  ASSERT_TRUE(runReference(i4, i4Values, i4Bytes, 3).isOk());
  EXPECT_EQ(i4Bytes[0], 0xE1);
  EXPECT_EQ(i4Bytes[1], 0x07);
  KernelSpec u2 = perTensorSpec(KernelOp::QCast, integerStorage(2, false, true),
                                ValueType::F32, 1.0, 0);
  const float u2Values[3] = {3.0f, 0.0f, 1.0f};
  uint8_t u2Byte = 0xFF;
  ASSERT_TRUE(runReference(u2, u2Values, &u2Byte, 3).isOk());
  EXPECT_EQ(u2Byte, 0x13);
}

TEST(PackingBytes, StorageBytes) {
  EXPECT_EQ(storageBytes(integerStorage(4, true, true), 0), 0u);
  EXPECT_EQ(storageBytes(integerStorage(4, true, true), 3), 2u);
  EXPECT_EQ(storageBytes(integerStorage(2, true, true), 5), 2u);
  EXPECT_EQ(storageBytes(integerStorage(1, false, true), 17), 3u);
  EXPECT_EQ(storageBytes(integerStorage(4, true, false), 3), 3u);
  EXPECT_EQ(storageBytes(integerStorage(12, true), 3), 6u);
  EXPECT_EQ(storageBytes(integerStorage(17, true), 3), 12u);
  EXPECT_EQ(expressedBytes(ValueType::BF16, 3), 6u);
  EXPECT_EQ(expressedBytes(ValueType::F64, 3), 24u);
}

} // namespace
} // namespace qjit
