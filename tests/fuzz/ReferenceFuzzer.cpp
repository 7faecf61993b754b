//===- ReferenceFuzzer.cpp - Fuzz parse → KernelSpec → reference ----------===//
//
// For every type the parser accepts and every op it lowers for: the spec
// verifies, the scalar reference runs it on a small buffer of exactly the
// right size (ASan catches any access outside), integer qcast results lie
// within the storage bounds, and runtime parameters holding the baked
// values give the same bytes as the baked kernel.
//
//===----------------------------------------------------------------------===//
#include "FuzzCheck.h"
#include "KernelCase.h"
#include "qjit/KernelCall.h"
#include "qjit/TypeParser.h"
#include "qjit/internal/Reference.h"

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <vector>

namespace qjit::fuzz {
namespace {

/// The reference's output, or nothing for storage it does not implement.
std::optional<std::vector<uint8_t>> runOnReference(const KernelCase &call) {
  std::vector<uint8_t> dst(call.dstBytes);
  KernelParams params = call.params();
  Status status =
      runReference(call.spec, call.src.data(), dst.data(), call.n, &params);
  if (!status && status.code() == ErrorCode::Unsupported &&
      call.spec.storage.kind != StorageType::Kind::Integer)
    return std::nullopt;
  check(status.isOk(),
        "reference refused a valid call of " + call.spec.canonicalString() +
            " on " + std::to_string(call.n) + " elements: " + status.message());
  return dst;
}

/// Integer qcast output containers hold values within [min, max].
void checkStoredBounds(const KernelCase &call,
                       const std::vector<uint8_t> &dst) {
  const StorageSpec &storage = call.spec.storage;
  if (call.spec.op != KernelOp::QCast ||
      storage.kind != StorageType::Kind::Integer || storage.packed)
    return;
  const unsigned bytes = storage.containerBytes();
  for (size_t i = 0; i < call.n; ++i) {
    uint32_t word = 0;
    std::memcpy(&word, dst.data() + i * bytes, bytes); // little endian
    int64_t value = word;
    if (storage.isSigned && bytes < 4 && (word >> (8 * bytes - 1)) & 1)
      value -= int64_t(1) << (8 * bytes);
    else if (storage.isSigned && bytes == 4)
      value = int32_t(word);
    check(value >= storage.min && value <= storage.max,
          "qcast stored " + std::to_string(value) + " outside [" +
              std::to_string(storage.min) + ", " + std::to_string(storage.max) +
              "] at element " + std::to_string(i) + " of " +
              call.spec.canonicalString());
  }
}

void checkOp(const TypeDescriptor &type, KernelOp op,
             std::span<const uint8_t> input) {
  std::optional<KernelCase> baked = makeKernelCase(type, op, input);
  if (!baked)
    return;
  Status verified = verifyKernelSpec(baked->spec);
  check(verified.isOk(), "lowering made an invalid spec " +
                             baked->spec.canonicalString() + ": " +
                             verified.message());
  std::optional<std::vector<uint8_t>> bakedOut = runOnReference(*baked);
  if (!bakedOut)
    return;
  checkStoredBounds(*baked, *bakedOut);
  std::optional<KernelCase> runtime = withRuntimeParameters(type, *baked);
  if (!runtime)
    return;
  std::optional<std::vector<uint8_t>> runtimeOut = runOnReference(*runtime);
  check(runtimeOut == bakedOut, "runtime parameters differ from baked ones "
                                "for " +
                                    runtime->spec.canonicalString());
}

} // namespace
} // namespace qjit::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  using namespace qjit;
  const ParseResult parsed =
      parseType(std::string_view(reinterpret_cast<const char *>(data), size));
  if (!parsed.type)
    return 0;
  for (KernelOp op : {KernelOp::QCast, KernelOp::DCast, KernelOp::SCast})
    fuzz::checkOp(*parsed.type, op, std::span(data, size));
  return 0;
}
