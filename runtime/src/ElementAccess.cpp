//===- ElementAccess.cpp - Reading and writing host buffer elements -------===//
#include "ElementAccess.h"

#include "qjit/internal/HostFloat.h"

#include <cstring>

namespace qjit::reference {

namespace {

// Buffers are little-endian, like the host; memcpy avoids alignment and
// aliasing assumptions.
template <typename T> T loadAt(const void *buffer, size_t i) {
  T value;
  std::memcpy(&value,
              static_cast<const unsigned char *>(buffer) + i * sizeof(T),
              sizeof(T));
  return value;
}

template <typename T> void storeAt(void *buffer, size_t i, T value) {
  std::memcpy(static_cast<unsigned char *>(buffer) + i * sizeof(T), &value,
              sizeof(T));
}

uint64_t lowBitsMask(unsigned bits) { return (uint64_t(1) << bits) - 1; }

/// The low `bits` bits of `raw` as the storage's signed or unsigned value.
int64_t fromLowBits(const StorageSpec &storage, uint64_t raw) {
  uint64_t field = raw & lowBitsMask(storage.bits);
  uint64_t signBit = uint64_t(1) << (storage.bits - 1);
  if (storage.isSigned && (field & signBit) != 0)
    return static_cast<int64_t>(field) - static_cast<int64_t>(signBit << 1);
  return static_cast<int64_t>(field);
}

unsigned valuesPerByte(const StorageSpec &storage) { return 8 / storage.bits; }

} // namespace

double loadExpressed(ValueType type, const void *buffer, size_t i) {
  switch (type) {
  case ValueType::F16:
    return halfBitsToFloat(loadAt<uint16_t>(buffer, i));
  case ValueType::BF16:
    return bfloat16BitsToFloat(loadAt<uint16_t>(buffer, i));
  case ValueType::F32:
    return loadAt<float>(buffer, i);
  case ValueType::F64:
    return loadAt<double>(buffer, i);
  }
  return 0.0;
}

void storeExpressed(ValueType type, void *buffer, size_t i, double value) {
  switch (type) {
  case ValueType::F16:
    storeAt<uint16_t>(buffer, i, doubleToHalfBits(value));
    return;
  case ValueType::BF16:
    storeAt<uint16_t>(buffer, i, doubleToBfloat16Bits(value));
    return;
  case ValueType::F32:
    storeAt<float>(buffer, i, static_cast<float>(value));
    return;
  case ValueType::F64:
    storeAt<double>(buffer, i, value);
    return;
  }
}

int64_t loadStored(const StorageSpec &storage, const void *buffer, size_t i) {
  if (storage.packed) {
    unsigned perByte = valuesPerByte(storage);
    uint8_t byte = loadAt<uint8_t>(buffer, i / perByte);
    unsigned shift = static_cast<unsigned>(i % perByte) * storage.bits;
    return fromLowBits(storage, byte >> shift);
  }
  switch (storage.containerBytes()) {
  case 1:
    return fromLowBits(storage, loadAt<uint8_t>(buffer, i));
  case 2:
    return fromLowBits(storage, loadAt<uint16_t>(buffer, i));
  default:
    return fromLowBits(storage, loadAt<uint32_t>(buffer, i));
  }
}

void storeStored(const StorageSpec &storage, void *buffer, size_t i,
                 int64_t value) {
  // Two's complement truncation: a signed value arrives sign-extended, an
  // unsigned one (non-negative) zero-extended.
  uint64_t bits = static_cast<uint64_t>(value);
  if (storage.packed) {
    unsigned perByte = valuesPerByte(storage);
    unsigned shift = static_cast<unsigned>(i % perByte) * storage.bits;
    uint64_t fieldMask = lowBitsMask(storage.bits) << shift;
    uint8_t byte = loadAt<uint8_t>(buffer, i / perByte);
    byte = static_cast<uint8_t>((byte & ~fieldMask) |
                                ((bits << shift) & fieldMask));
    storeAt<uint8_t>(buffer, i / perByte, byte);
    return;
  }
  int64_t extended = fromLowBits(storage, bits);
  switch (storage.containerBytes()) {
  case 1:
    storeAt<uint8_t>(buffer, i, static_cast<uint8_t>(extended));
    return;
  case 2:
    storeAt<uint16_t>(buffer, i, static_cast<uint16_t>(extended));
    return;
  default:
    storeAt<uint32_t>(buffer, i, static_cast<uint32_t>(extended));
    return;
  }
}

} // namespace qjit::reference
